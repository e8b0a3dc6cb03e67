// Opens the postgres.js adapter in a child process (conformance crash scenarios). Imports the
// package by its own name, so it runs the built dist/: run `npx tsdown` first.

import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';
import postgres from 'postgres';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const sql = postgres(process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test', {
    max: opts.poolSize ?? 10,
    onnotice: () => {},
  });
  const adapter = postgresJs(sql, { serverVersion: opts.serverVersion });
  return {
    ...adapter,
    async close() {
      await adapter.close();
      // postgres.js's end() waits its whole timeout for a reservation released after it began.
      for (let i = 0; i < 200 && adapter.pool.spare() < adapter.pool.size; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await sql.end({ timeout: 5 });
    },
  };
}
