// Opens the pg adapter through PgBouncer in transaction pooling mode in a child process
// (conformance crash scenarios, worker threads). Imports the package by its own name, so it runs
// the built dist/: run `npx tsdown` first.

import { pg as pgAdapter } from '@sqlinbox/dialect-postgres/pg';
import pg from 'pg';

/**
 * The pooler's URL: `SQLINBOX_PGBOUNCER_URL` (default `postgres://postgres@127.0.0.1:6432/test`),
 * its host and port replaced by `SQLINBOX_CHILD_DB_HOST` and `SQLINBOX_CHILD_DB_PORT` where set.
 */
function url() {
  const u = new URL(process.env.SQLINBOX_PGBOUNCER_URL ?? 'postgres://postgres@127.0.0.1:6432/test');
  if (process.env.SQLINBOX_CHILD_DB_HOST) u.hostname = process.env.SQLINBOX_CHILD_DB_HOST;
  if (process.env.SQLINBOX_CHILD_DB_PORT) u.port = process.env.SQLINBOX_CHILD_DB_PORT;
  return u.href;
}

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const pool = new pg.Pool({ connectionString: url(), max: opts.poolSize ?? 10 });
  pool.on('error', () => {});
  const adapter = pgAdapter(pool, { serverVersion: opts.serverVersion, pooler: 'transaction' });
  // broker.shutdown() calls close(), and the scenario's child again: once is enough.
  let closed;
  return {
    ...adapter,
    close() {
      closed ??= (async () => {
        await adapter.close();
        await pool.end();
      })();
      return closed;
    },
  };
}
