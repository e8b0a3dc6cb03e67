// Opens the postgres.js adapter in a child process (conformance crash scenarios). Imports the
// package by its own name, so it runs the built dist/: run `npx tsdown` first.
import postgres from 'postgres';
import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';

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
      await sql.end({ timeout: 5 });
    },
  };
}
