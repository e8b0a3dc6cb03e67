import { describe, expectTypeOf, test } from 'vitest';
import {
  type Adapter,
  Broker,
  inbox,
  type Pool,
  queue,
  type ThreadQueue,
  threadHandler,
} from '../src/index.js';

declare const postgresLike: Adapter<
  'rowlock' | 'lease' | 'advisory',
  'read_committed' | 'repeatable_read' | 'serializable'
>;
declare const pool: Pool;
declare const sqliteLike: Adapter<'lease' | 'advisory', never>;

describe('thread types', () => {
  const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
  const handler = new URL('./handler.js', import.meta.url);

  test('R-POOL-9 a queue on threads subscribes without a handler', () => {
    const broker = new Broker(postgresLike);
    const q = queue(jobs).workers(4).onThreads({ threads: 2, connections: 1, handler });
    expectTypeOf(q).toEqualTypeOf<ThreadQueue<typeof jobs, unknown>>();
    broker.subscribe(q);
  });

  test('R-POOL-9 transactional() with onThreads is a type error: ctx.tx cannot cross threads', () => {
    // @ts-expect-error a transactional queue has no onThreads
    queue(jobs).transactional().onThreads({ threads: 2, handler });
  });

  test('R-POOL-9 the table rules of the broker still hold for a queue on threads', () => {
    const broker = new Broker(sqliteLike);
    const rowlock = inbox({ table: 'jobs', id: 'id' });
    // @ts-expect-error SQLite has no row locks
    broker.subscribe(queue(rowlock).onThreads({ threads: 1, handler }));
  });

  test('R-POOL-9 a thread module is typed by its message and its data', () => {
    threadHandler<{ n: number }, { url: string }>({
      open({ connections, data }) {
        expectTypeOf(connections).toEqualTypeOf<number>();
        expectTypeOf(data.url).toEqualTypeOf<string>();
        return { pool, close: () => {} };
      },
      async handle(message, ctx) {
        expectTypeOf(message.n).toEqualTypeOf<number>();
        expectTypeOf(ctx.data).toEqualTypeOf<{ url: string }>();
        // @ts-expect-error no transaction crosses threads
        ctx.tx;
      },
    });
  });
});
