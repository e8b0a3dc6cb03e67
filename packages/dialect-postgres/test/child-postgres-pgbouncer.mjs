// Opens the postgres.js adapter through PgBouncer in transaction pooling mode in a child process
// (conformance crash scenarios, worker threads). Imports the package by its own name, so it runs
// the built dist/: run `npx tsdown` first.

import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';
import postgres from 'postgres';

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
  const sql = postgres(url(), { max: opts.poolSize ?? 10, prepare: false, onnotice: () => {} });
  const adapter = postgresJs(sql, { serverVersion: opts.serverVersion, pooler: 'transaction' });
  // broker.shutdown() calls close(), and the scenario's child again: once is enough.
  let closed;
  return {
    ...adapter,
    close() {
      closed ??= (async () => {
        await adapter.close();
        // postgres.js's end() waits its whole timeout for a reservation released after it began.
        for (let i = 0; i < 200 && adapter.pool.spare() < adapter.pool.size; i++) {
          await new Promise((r) => setTimeout(r, 10));
        }
        await sql.end({ timeout: 5 });
      })();
      return closed;
    },
  };
}
