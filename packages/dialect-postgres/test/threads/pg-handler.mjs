// A thread module for the R-POOL-9 tests: opens its own pg pool on the thread (tagged with an
// application_name, so pg_stat_activity shows its connections), writes a ledger line per delivery
// through it with the backend pid that ran it, and answers by the message's `kind`.
import { threadId } from 'node:worker_threads';
import { Outcome, threadHandler } from '@sqlinbox/core';
import { pg } from '@sqlinbox/dialect-postgres/pg';
import pgModule from 'pg';

export default threadHandler({
  async open({ connections, data }) {
    const pool = new pgModule.Pool({
      connectionString: data.url,
      max: connections,
      application_name: data.app,
      idleTimeoutMillis: 0,
    });
    // Open every connection now, so pg_stat_activity shows the whole thread pool.
    const clients = await Promise.all(Array.from({ length: connections }, () => pool.connect()));
    for (const c of clients) c.release();
    return { pool: pg(pool).pool, close: () => pool.end() };
  },
  async handle(message, ctx) {
    const { ledger } = ctx.data;
    await ctx.query(
      `INSERT INTO ${ledger} (job, kind, attempt, pid, thread_id) VALUES ($1, $2, $3, pg_backend_pid(), $4)`,
      [ctx.id, message.kind, ctx.attempt, threadId],
    );
    const first = ctx.attempt === 1;
    switch (message.kind) {
      case 'retry':
        return first ? Outcome.retry() : Outcome.ack();
      case 'drop':
        return Outcome.drop();
      case 'fail':
        throw new Error(`fail ${String(ctx.id)}`);
      case 'exit':
        if (first) process.exit(3);
        return undefined;
      case 'explicit':
        // Settled from the thread: the main thread settles and answers here.
        if (first) await ctx.retryAfter(0);
        else await ctx.ack();
        return undefined;
      default:
        return Outcome.ack();
    }
  },
});
