// The README's example as a script, on SQLite (better-sqlite3): the adapter opens its handles and
// closes them at shutdown. Run by examples.test.ts: it must exit by itself after `broker.shutdown()`.
// Imports the built packages (run `pnpm build` first). File: SQLINBOX_EXAMPLE_FILE.
import { Broker, inbox, Outcome, queue } from '@sqlinbox/core';
import { sqlite } from '@sqlinbox/dialect-sqlite';

const reports = inbox({
  table: 'report_jobs',
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

const adapter = sqlite(process.env.SQLINBOX_EXAMPLE_FILE ?? './app.db');
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
