import { describe, expectTypeOf, test } from 'vitest';
import { type Adapter, type BatchItem, Broker, type Context, inbox, Outcome, queue } from '../src/index.js';

declare const postgresLike: Adapter<
  'rowlock' | 'lease' | 'advisory',
  'read_committed' | 'repeatable_read' | 'serializable'
>;

describe('batch queue types', () => {
  test('R-TX-5 a batch handler cannot be mounted transactional: .batch(n).transactional() is a type error', () => {
    const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
    // @ts-expect-error a batch queue has no transactional mode
    queue(jobs).batch(10).transactional();
    // @ts-expect-error nor with settings chained between
    queue(jobs).batch(10).workers(2).maxAttempts(3).transactional();
  });

  test('R-TX-5 .transactional().batch(n) is a type error', () => {
    const jobs = inbox({ table: 'jobs', id: 'id' });
    // @ts-expect-error a transactional queue takes no batches
    queue(jobs).transactional().batch(10);
    // @ts-expect-error nor with settings chained between
    queue(jobs).transactional().workers(4).batch(10);
  });

  test('R-POOL-8 a batch queue takes a handler of arrays; each item has its message and its own context', () => {
    const broker = new Broker(postgresLike);
    const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until', payload: 'payload' });
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (v: unknown) => ({ value: v as { n: number } }),
        types: undefined as unknown as { input: unknown; output: { n: number } },
      },
    };
    broker.subscribe(queue(jobs).schema(schema).batch(50).workers(2), async (items) => {
      expectTypeOf(items).toEqualTypeOf<BatchItem<{ n: number }>[]>();
      expectTypeOf(items[0]!.message).toEqualTypeOf<{ n: number }>();
      expectTypeOf(items[0]!.ctx).toEqualTypeOf<Context<undefined>>();
      expectTypeOf(items[0]!.ctx.tx).toEqualTypeOf<undefined>();
      expectTypeOf(items[0]!.ctx.ack).returns.resolves.toEqualTypeOf<void>();
      return Outcome.retry();
    });
    // Settings chain in any order around .batch(n).
    broker.subscribe(queue(jobs).workers(2).batch(10).lease('60s'), async (items) => {
      for (const { ctx } of items) await ctx.ack();
    });
  });

  test('R-POOL-8 a batch queue refuses a single-message handler, and a single queue a batch handler', () => {
    const broker = new Broker(postgresLike);
    const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until', payload: 'payload' });
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (v: unknown) => ({ value: v as { n: number } }),
        types: undefined as unknown as { input: unknown; output: { n: number } },
      },
    };
    const single = async (_m: { n: number }, ctx: Context) => {
      await ctx.ack();
    };
    const batch = async (items: BatchItem<unknown>[]) => {
      await Promise.all(items.map((i) => i.ctx.ack()));
    };
    broker.subscribe(queue(jobs).schema(schema), single);
    broker.subscribe(queue(jobs).schema(schema).batch(5), batch);
    // @ts-expect-error a batch queue hands an array, not one message and its context
    broker.subscribe(queue(jobs).schema(schema).batch(5), single);
    // @ts-expect-error a typed single-message queue hands one message, not an array
    broker.subscribe(queue(jobs).schema(schema), batch);
  });
});
