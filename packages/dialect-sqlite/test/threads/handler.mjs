// A thread module for the R-POOL-9 tests: opens its own SQLite connection on the thread, writes a
// ledger line per delivery through it, and answers by the message's `kind`.
import { threadId } from 'node:worker_threads';
import { CancelledError, Outcome, threadHandler } from '@sqlinbox/core';
import { sqlite } from '@sqlinbox/dialect-sqlite';

export default threadHandler({
  open({ connections, data }) {
    const adapter = sqlite({ filename: data.file, connections, busyTimeoutMs: 10_000 });
    return { pool: adapter.pool, close: () => adapter.close() };
  },
  async handle(message, ctx) {
    // A temporary table lives on the connection that made it: the main thread's pool never sees it.
    await ctx.query('CREATE TEMP TABLE IF NOT EXISTS thread_mark (x INTEGER)');
    await ctx.query('INSERT INTO ledger (job, kind, attempt, thread_id) VALUES (?, ?, ?, ?)', [
      ctx.id,
      message.kind,
      ctx.attempt,
      threadId,
    ]);
    const first = ctx.attempt === 1;
    switch (message.kind) {
      case 'retry':
        return first ? Outcome.retry() : Outcome.ack();
      case 'drop':
        return Outcome.drop();
      case 'fail':
        throw new Error(`fail ${String(ctx.id)}`);
      case 'explicit':
        await ctx.ack();
        return undefined;
      case 'exit':
        if (first) process.exit(3);
        return undefined;
      case 'crash':
        if (first) {
          setTimeout(() => {
            throw new Error('uncaught on the thread');
          });
          await new Promise(() => {});
        }
        return undefined;
      case 'wait':
        // Runs until the main thread's abort reaches it.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        ctx.logger.warn('aborted on the thread', { reason: String(ctx.signal.reason?.message) });
        throw ctx.signal.reason;
      case 'cancel': {
        // Runs until a cancel from another connection reaches it: its reason is a CancelledError.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        const r = ctx.signal.reason;
        ctx.logger.warn('cancelled on the thread', {
          cancelledError: r instanceof CancelledError,
          code: r?.code,
          reason: r?.reason,
          rowId: String(r?.rowId),
        });
        throw r;
      }
      default:
        return Outcome.ack();
    }
  },
});
