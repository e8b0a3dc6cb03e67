import { describe, expectTypeOf, test } from 'vitest';
import {
  type Adapter,
  Admin,
  Broker,
  type Context,
  inbox,
  Outcome,
  queue,
  type ResultOf,
  type RowResult,
  table,
  typed,
  typedResult,
} from '../src/index.js';

declare const adapter: Adapter<'rowlock' | 'lease' | 'advisory', 'read_committed' | 'serializable'>;

interface Report {
  url: string;
}

const described = inbox({
  table: 'reports',
  id: { column: 'id', generated: true },
  lease: 'locked_until',
  payload: 'payload',
  processedAt: 'processed_at',
  result: 'result',
});

describe('typed results', () => {
  test('R-LIFE-4 typedResult<R>() types the ack value of the handler and the answers of result waits; a wrong result type does not compile', async () => {
    const broker = new Broker(adapter);
    const admin = new Admin(adapter);
    const reports = typedResult<Report>()(described);
    expectTypeOf<ResultOf<typeof reports>>().toEqualTypeOf<Report>();
    expectTypeOf(reports.form).toEqualTypeOf<'lease'>();
    broker.subscribe(queue(reports), async () => Outcome.ack({ url: 'https://x' }));
    broker.subscribe(queue(reports), async (_m, ctx) => {
      expectTypeOf(ctx).toExtend<Context<undefined, Report>>();
      await ctx.ack({ url: 'https://x' });
      await ctx.settle(Outcome.ack({ url: 'https://x' }));
      // @ts-expect-error ctx.ack takes the table's result type only
      await ctx.ack({ href: 'https://x' });
      // @ts-expect-error so does ctx.settle
      await ctx.settle(Outcome.ack(42));
    });
    // Every other outcome, and a plain ack, still compile.
    broker.subscribe(queue(reports), async (m) => {
      if (m === 1) return Outcome.drop();
      if (m === 2) return Outcome.retry();
      if (m === 3) return Outcome.retryAfter(1_000);
      if (m === 4) return undefined;
      return Outcome.ack();
    });
    // @ts-expect-error a handler acking with another type does not compile
    broker.subscribe(queue(reports), async () => Outcome.ack({ href: 'https://x' }));
    // @ts-expect-error nor one acking with a value of another kind
    broker.subscribe(queue(reports), async () => Outcome.ack('https://x'));
    broker.subscribe(queue(reports).batch(10), async (items) => {
      for (const item of items) await item.ctx.ack({ url: 'https://x' });
      // @ts-expect-error a batch row's ack takes the result type too
      await items[0]?.ctx.ack({ href: 'x' });
      return Outcome.ack({ url: 'all' });
    });
    // @ts-expect-error a batch handler's outcome too
    broker.subscribe(queue(reports).batch(10), async () => Outcome.ack(1));
    // The waits answer the result type, or undefined for an ack that kept none.
    expectTypeOf(broker.result(reports, 1)).toEqualTypeOf<Promise<Report | undefined>>();
    expectTypeOf(admin.waitResult(reports, 1)).toEqualTypeOf<Promise<Report | undefined>>();
    expectTypeOf(admin.result(reports, 1)).toEqualTypeOf<Promise<RowResult<Report>>>();
    const now = await admin.result(reports, 1);
    if (now.state === 'processed') expectTypeOf(now.value).toEqualTypeOf<Report | undefined>();
    const waited = await broker.result(reports, 1);
    // @ts-expect-error the answer may be undefined (a plain ack keeps no value)
    void waited.url;
    void waited?.url;
    // @ts-expect-error and it is a Report, not another shape
    void waited?.href;
  });

  test('R-LIFE-4 the builder states the result type in .result<R>(..); it goes with a typed payload; an untyped table stays unknown', () => {
    const broker = new Broker(adapter);
    const reports = table('reports', 'id', { generated: true })
      .payload<{ month: string }>('payload')
      .lease('locked_until')
      .processedAt('processed_at')
      .result<Report>('result')
      .build();
    expectTypeOf<ResultOf<typeof reports>>().toEqualTypeOf<Report>();
    expectTypeOf(reports.form).toEqualTypeOf<'lease'>();
    broker.subscribe(queue(reports), async (m) => {
      expectTypeOf(m).toEqualTypeOf<{ month: string }>();
      return Outcome.ack({ url: m.month });
    });
    // @ts-expect-error a wrong result type does not compile
    broker.subscribe(queue(reports), async () => Outcome.ack({ month: 'x' }));
    expectTypeOf(broker.result(reports, 1)).toEqualTypeOf<Promise<Report | undefined>>();
    // typed<P>() and typedResult<R>() compose.
    const both = typedResult<Report>()(typed<{ month: string }>()(described));
    broker.subscribe(queue(both), async (m) => Outcome.ack({ url: m.month }));
    // Untyped: any value, answered as unknown.
    broker.subscribe(queue(described), async () => Outcome.ack({ anything: 1n }));
    broker.subscribe(queue(described), async (_m, ctx) => ctx.ack(Symbol('x')));
    expectTypeOf(broker.result(described, 1)).toEqualTypeOf<Promise<unknown>>();
    const untypedBuilt = table('r', 'id').processedAt('p').result('result').build();
    expectTypeOf<ResultOf<typeof untypedBuilt>>().toEqualTypeOf<unknown>();
  });
});
