import { describe, expectTypeOf, test } from 'vitest';
import { type Adapter, Broker, type ReleaseReason } from '../src/index.js';

declare const adapter: Adapter<'lease' | 'advisory', never>;

describe('event types', () => {
  test('R-PLUS-3 each event hands its listener its own typed payload; an unknown event or field does not compile', () => {
    const broker = new Broker(adapter);
    broker.on('claimed', (e) => {
      expectTypeOf(e).toEqualTypeOf<{ table: string; id: unknown; attempt: number }>();
    });
    broker.on('settled', (e) => {
      expectTypeOf(e.outcome).toEqualTypeOf<'ack' | 'drop' | 'retry' | 'retryAfter'>();
      expectTypeOf(e.plan).toEqualTypeOf<'finish' | 'return' | 'deadLetter'>();
      expectTypeOf(e.durationMs).toEqualTypeOf<number>();
      expectTypeOf(e.attempt).toEqualTypeOf<number>();
    });
    broker.on('released', (e) => {
      expectTypeOf(e.reason).toEqualTypeOf<ReleaseReason>();
      expectTypeOf<ReleaseReason>().toEqualTypeOf<
        'timeout' | 'beginFailed' | 'stopped' | 'shutdown' | 'paused'
      >();
    });
    broker.on('leaseExtended', (e) => {
      expectTypeOf(e.count).toEqualTypeOf<number>();
      // @ts-expect-error an extension names no row
      void e.id;
    });
    broker.on('leaseLost', (e) => expectTypeOf(e.attempt).toEqualTypeOf<number>());
    broker.on('claimError', (e) => expectTypeOf(e.error).toEqualTypeOf<unknown>());
    // @ts-expect-error no such event
    broker.on('finished', () => {});
    expectTypeOf(broker.on('deadLettered', () => {})).toEqualTypeOf<() => void>();
  });
});
