/**
 * The thread module of the thread-handler scenario: each thread opens its own pool through the target's
 * `childModule` (the same plain module the crash scenarios open in a child process), runs one
 * statement on it per delivery, logs what it did to the broker's logger, and answers by the
 * message's `kind`. Built to `dist/thread-handler.mjs`: a thread cannot load TypeScript.
 */
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';
import { Outcome, threadHandler } from '@sqlinbox/core';
import type { OpenAdapter, OpenOptions } from './target.js';

export default threadHandler<{ kind: string }, { childModule: string }>({
  async open({ connections, data }) {
    const mod = (await import(pathToFileURL(data.childModule).href)) as {
      default: (opts?: OpenOptions) => Promise<OpenAdapter>;
    };
    const adapter = await mod.default({ poolSize: connections });
    return { pool: adapter.pool, close: () => adapter.close() };
  },
  async handle(message, ctx) {
    const connection = await ctx.connection(async (c) => {
      await c.query('SELECT 1');
      return c.id;
    });
    ctx.logger.info('thread handled', { id: ctx.id, attempt: ctx.attempt, threadId, connection });
    const first = ctx.attempt === 1;
    switch (message.kind) {
      case 'retry':
        return first ? Outcome.retry() : Outcome.ack();
      case 'drop':
        return Outcome.drop();
      case 'exit':
        if (first) process.exit(3);
        return undefined;
      default:
        return Outcome.ack();
    }
  },
});
