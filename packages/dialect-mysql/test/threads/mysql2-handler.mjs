// A thread module for the R-POOL-9 tests on MariaDB: opens its own mysql2 pool on the thread,
// writes a ledger line per delivery through it with the session's CONNECTION_ID(), and answers by
// the message's `kind`.
import { threadId } from 'node:worker_threads';
import { Outcome, threadHandler } from '@sqlinbox/core';
import { mysql2 } from '@sqlinbox/dialect-mysql/mysql2';
import mysql from 'mysql2/promise';

export default threadHandler({
  async open({ connections, data }) {
    const pool = mysql.createPool({ ...data.db, connectionLimit: connections });
    // Open every connection now, so the process list shows the whole thread pool.
    const conns = await Promise.all(Array.from({ length: connections }, () => pool.getConnection()));
    for (const c of conns) c.release();
    return { pool: mysql2(pool).pool, close: () => pool.end() };
  },
  async handle(message, ctx) {
    await ctx.query(
      `INSERT INTO \`${ctx.data.ledger}\` (job, kind, attempt, conn_id, thread_id) VALUES (?, ?, ?, CONNECTION_ID(), ?)`,
      [ctx.id, message.kind, ctx.attempt, threadId],
    );
    const first = ctx.attempt === 1;
    switch (message.kind) {
      case 'retry':
        return first ? Outcome.retry() : Outcome.ack();
      case 'fail':
        throw new Error(`fail ${String(ctx.id)}`);
      case 'exit':
        if (first) process.exit(3);
        return undefined;
      default:
        return Outcome.ack();
    }
  },
});
