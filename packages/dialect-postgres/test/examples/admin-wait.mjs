// An Admin's result wait in a process that runs no broker, on the pool (pg) or instance
// (postgres.js) of the caller's own. Run by admin-wait.test.ts: once the wait answered and the
// caller ended its pool, the process must exit by itself; the admin is never closed.
// Imports the built packages (run `pnpm build` first).
import { Admin, inbox } from '@sqlinbox/core';
import { pg } from '@sqlinbox/dialect-postgres/pg';
import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';
import pgModule from 'pg';
import postgres from 'postgres';

const url = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const reports = inbox({
  table: process.env.SQLINBOX_EXAMPLE_TABLE,
  id: { column: 'id', generated: true },
  attempt: 'attempt',
  lease: 'locked_until',
  payload: 'payload',
  processedAt: 'processed_at',
  result: 'result',
});

let adapter;
let end;
if (process.env.SQLINBOX_DRIVER === 'pg') {
  const pool = new pgModule.Pool({ connectionString: url, max: 2 });
  adapter = pg(pool);
  end = () => pool.end();
} else {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  adapter = postgresJs(sql);
  end = () => sql.end({ timeout: 5 });
}
const admin = new Admin(adapter);
// Reads an hour apart: the notification answers it.
const value = await admin.waitResult(reports, process.env.SQLINBOX_EXAMPLE_ROW, {
  timeout: '1h',
  pollInterval: '1h',
});
console.log(`answered ${JSON.stringify(value)}`);
await end();
console.log('pool ended');
