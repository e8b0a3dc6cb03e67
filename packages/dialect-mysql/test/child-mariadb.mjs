// Opens the mariadb-connector adapter in a crash scenario's child process, with a pool of its own
// on the MariaDB at 127.0.0.1:3306 (root, database test). It imports the package by its own name,
// so it runs the built dist/ (run `npx tsdown` first).
import { mariadb } from '@sqlinbox/dialect-mysql/mariadb';
import { createPool } from 'mariadb';
import { recordLocks } from './lock-log.mjs';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const connectionLimit = opts.poolSize ?? 10;
  const pool = createPool({
    // A child in a network namespace of its own reaches the server through a relay.
    host: process.env.SQLINBOX_CHILD_DB_HOST || '127.0.0.1',
    port: Number(process.env.SQLINBOX_CHILD_DB_PORT || 3306),
    user: 'root',
    password: '',
    database: process.env.SQLINBOX_MYSQL_DATABASE ?? 'test',
    connectionLimit,
    minimumIdle: 0,
  });
  const adapter = recordLocks(mariadb(pool, { serverVersion: opts.serverVersion, connectionLimit }));
  // broker.shutdown() calls close(), and the scenario's child again: once is enough.
  let closed;
  return { ...adapter, close: () => (closed ??= pool.end()) };
}
