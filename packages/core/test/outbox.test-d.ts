import { describe, test } from 'vitest';
import { type Adapter, Broker, outbox, queue } from '../src/index.js';

declare const postgresLike: Adapter<
  'rowlock' | 'lease' | 'advisory',
  'read_committed' | 'repeatable_read' | 'serializable'
>;

describe('outbox types', () => {
  test('R-OUT-1 an outbox description names its processedAt column: without it, a type error', () => {
    outbox({ table: 'events', id: 'id', payload: 'payload', processedAt: 'relayed_at' });
    // @ts-expect-error a relay marks records instead of deleting them: processedAt is required
    outbox({ table: 'events', id: 'id', payload: 'payload' });
  });

  test('R-OUT-1 the rules of any description hold for an outbox too', () => {
    // @ts-expect-error a table takes one claim form
    outbox({ table: 'events', id: 'id', processedAt: 'p', lease: 'locked_until', advisory: 'e-{id}' });
  });

  test('R-OUT-1 R-TX-1 a transactional relay hands its handler the transaction', () => {
    const broker = new Broker(postgresLike);
    const events = outbox({ table: 'events', id: 'id', payload: 'payload', processedAt: 'relayed_at' });
    broker.relay(queue(events).transactional(), async (_m, ctx) => {
      await ctx.tx.query('SELECT 1');
    });
    broker.relay(queue(events), async (_m, ctx) => {
      // @ts-expect-error outside transactional mode there is no ctx.tx to write through
      await ctx.tx.query('SELECT 1');
    });
  });
});
