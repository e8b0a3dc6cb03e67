import { describe, expect, test } from 'vitest';
import { ConfigError, inbox, Outcome, outbox, planOf, queue } from '../src/index.js';
import { HeldBack, holdsBack, relaySettings } from '../src/relay.js';

const limits = (hasRetryAfter: boolean) => ({ maxAttempts: undefined, hasRetryAfter, now: 1_000 });
const warn = () => {};

describe('the outbox relay (pure)', () => {
  test('R-OUT-1 an outbox without a processedAt column stops with a ConfigError naming table and column', () => {
    const plain = inbox({ table: 'events', id: 'id', payload: 'payload' });
    const err = (() => {
      try {
        relaySettings(queue(plain).settings);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).table).toBe('events');
    expect((err as ConfigError).column).toBe('processedAt');
    // outbox() checks at run time too, for JavaScript callers the types do not reach.
    expect(() => outbox({ table: 'events', id: 'id' } as never)).toThrow(ConfigError);
  });

  test('R-OUT-1 a relay takes no dead letter: a retry leaves the record for the next start', () => {
    const events = outbox({ table: 'events', id: 'id', payload: 'payload', processedAt: 'relayed_at' });
    expect(relaySettings(queue(events).settings).relay).toBe(true);
    expect(() => relaySettings(queue(events).maxAttempts(3).deadLetter({ table: 'dead' }).settings)).toThrow(
      /a relay takes no dead letter/,
    );
  });

  test('R-OUT-1 R-POOL-8 a relay hands its handler one record at a time: a batch relay is a ConfigError naming the table', () => {
    const events = outbox({ table: 'events', id: 'id', payload: 'payload', processedAt: 'relayed_at' });
    expect(() => relaySettings(queue(events).batch(10).settings)).toThrow(ConfigError);
    expect(() => relaySettings(queue(events).batch(10).settings)).toThrow(/one record at a time/);
  });

  test('R-OUT-1 retry, a thrown error and retryAfter without its column hold the record back; ack, drop and a due retryAfter do not', () => {
    expect(holdsBack(planOf(Outcome.retry(), 1, limits(true), warn))).toBe(true);
    expect(holdsBack(planOf(Outcome.retryAfter(5_000), 1, limits(false), warn))).toBe(true);
    expect(holdsBack(planOf(Outcome.retryAfter(5_000), 1, limits(true), warn))).toBe(false);
    expect(holdsBack(planOf(Outcome.ack(), 1, limits(true), warn))).toBe(false);
    expect(holdsBack(planOf(Outcome.drop(), 1, limits(true), warn))).toBe(false);
  });

  test('R-OUT-1 held-back ids compare by value, once each, as drivers return them', () => {
    const held = new HeldBack();
    held.add(7);
    held.add(7);
    held.add(9n);
    expect(held.size).toBe(2);
    expect(held.has(7)).toBe(true);
    expect(held.has('9')).toBe(true); // a bigint id and its text are the same record
    expect(held.has(8)).toBe(false);
    expect([...held.ids]).toEqual([7, 9n]);
  });
});
