// Opens the mariadb-connector adapter in a crash scenario's child process, with a pool of its own
// on the server SQLINBOX_MYSQL_URL names (default: the MariaDB at 127.0.0.1:3306, root, database test).
// It imports the package by its own name, so it runs the built dist/ (run `npx tsdown` first).
import { mariadb } from '@sqlinbox/dialect-mysql/mariadb';
import { createPool } from 'mariadb';
import { dbFromEnv } from './connection.mjs';
import { recordLocks } from './lock-log.mjs';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const db = dbFromEnv();
  const connectionLimit = opts.poolSize ?? 10;
  const pool = createPool({
    // A child in a network namespace of its own reaches the server through a relay.
    ...db,
    host: process.env.SQLINBOX_CHILD_DB_HOST || db.host,
    port: Number(process.env.SQLINBOX_CHILD_DB_PORT || db.port),
    connectionLimit,
    minimumIdle: 0,
  });
  const adapter = recordLocks(mariadb(pool, { serverVersion: opts.serverVersion, connectionLimit }));
  // broker.shutdown() calls close(), and the scenario's child again: once is enough.
  let closed;
  return { ...adapter, close: () => (closed ??= pool.end()) };
}
