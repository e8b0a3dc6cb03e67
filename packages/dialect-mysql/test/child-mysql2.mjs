// Opens the mysql2 adapter in a crash scenario's child process, with a pool of its own on the
// MariaDB at 127.0.0.1:3306 (root, database test). It imports the package by its own name, so it
// runs the built dist/ (run `npx tsdown` first).
import { mysql2 } from '@sqlinbox/dialect-mysql/mysql2';
import mysql from 'mysql2/promise';
import { recordLocks } from './lock-log.mjs';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const pool = mysql.createPool({
    // A child in a network namespace of its own reaches the server through a relay.
    host: process.env.SQLINBOX_CHILD_DB_HOST || '127.0.0.1',
    port: Number(process.env.SQLINBOX_CHILD_DB_PORT || 3306),
    user: 'root',
    password: '',
    database: process.env.SQLINBOX_MYSQL_DATABASE ?? 'test',
    connectionLimit: opts.poolSize ?? 10,
  });
  const adapter = recordLocks(mysql2(pool, { serverVersion: opts.serverVersion }));
  // broker.shutdown() calls close(), and the scenario's child again: once is enough.
  let closed;
  return { ...adapter, close: () => (closed ??= pool.end()) };
}
