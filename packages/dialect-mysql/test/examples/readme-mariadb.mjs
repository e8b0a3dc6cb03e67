// The README's example as a script, on the `mariadb` connector with the pool the adapter makes (and ends at
// shutdown). Run by examples.test.ts: it must exit by itself after `broker.shutdown()`.
// Imports the built packages (run `pnpm build` first). Table: SQLINBOX_EXAMPLE_TABLE.
import { Broker, inbox, Outcome, queue } from '@sqlinbox/core';
import { mariadb } from '@sqlinbox/dialect-mysql/mariadb';

const table = process.env.SQLINBOX_EXAMPLE_TABLE ?? 'report_jobs';
const reports = inbox({
  table,
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

const adapter = mariadb({
  host: '127.0.0.1',
  port: 3306,
  user: 'root',
  database: process.env.SQLINBOX_MYSQL_DATABASE ?? 'test',
  connectionLimit: 10,
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
