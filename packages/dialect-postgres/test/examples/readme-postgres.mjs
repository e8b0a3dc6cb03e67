// The README's example as a script, on postgres.js with the instance the adapter makes (and ends at
// shutdown). Run by examples.test.ts: it must exit by itself after `broker.shutdown()`.
// Imports the built packages (run `pnpm build` first). Table: SQLINBOX_EXAMPLE_TABLE.
import { Broker, inbox, Outcome, queue } from '@sqlinbox/core';
import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';

const table = process.env.SQLINBOX_EXAMPLE_TABLE ?? 'report_jobs';
const reports = inbox({
  table,
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

const adapter = postgresJs({
  url: process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  max: 10,
  onnotice: () => {},
});
const broker = new Broker(adapter);
const conn = await adapter.pool.acquire();
for (const stmt of adapter.dialect.ddl(reports)) await conn.query(stmt);
adapter.pool.release(conn);

let handled;
const done = new Promise((resolve) => {
  handled = resolve;
});
broker.subscribe(queue(reports).workers(4), async (report) => {
  console.log(`handled ${JSON.stringify(report)}`);
  handled();
  return Outcome.ack();
});
await broker.start();
await broker.publish(reports, { id: 42 });
await done;
const closed = await broker.shutdown();
console.log(`shut down ${JSON.stringify(closed)}`);
