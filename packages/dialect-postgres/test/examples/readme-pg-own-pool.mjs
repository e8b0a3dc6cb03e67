// The README's example with a pool of the caller's own: `shutdown()` leaves it open, the caller
// ends it. Run by examples.test.ts: it must exit by itself once the pool is ended.
import { Broker, inbox, Outcome, queue } from '@sqlinbox/core';
import { pg } from '@sqlinbox/dialect-postgres/pg';
import { Pool } from 'pg';

const table = process.env.SQLINBOX_EXAMPLE_TABLE ?? 'report_jobs';
const reports = inbox({
  table,
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

const pool = new Pool({
  connectionString: process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  max: 10,
});
for (const stmt of pg(pool).dialect.ddl(reports)) await pool.query(stmt);
const broker = new Broker(pg(pool));

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
// The pool is still the caller's: it still answers, then the caller ends it.
await pool.query('SELECT 1');
await pool.end();
console.log(`shut down ${JSON.stringify(closed)}`);
