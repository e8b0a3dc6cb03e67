// Opens the pg adapter in a child process (conformance crash scenarios). Imports the package by
// its own name, so it runs the built dist/: run `npx tsdown` first.

import { pg as pgAdapter } from '@sqlinbox/dialect-postgres/pg';
import pg from 'pg';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const pool = new pg.Pool({
    connectionString: process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    max: opts.poolSize ?? 10,
  });
  pool.on('error', () => {});
  const adapter = pgAdapter(pool, { serverVersion: opts.serverVersion });
  return {
    ...adapter,
    async close() {
      await adapter.close();
      await pool.end();
    },
  };
}
