import { expect, test } from 'vitest';
import type { Adapter } from '../src/dialect.js';
import { Events } from '../src/events.js';
import { inbox, ResultTimeoutError, type RowResult, silentLogger } from '../src/index.js';
import { ResultWaits } from '../src/result-wait.js';

const jobs = inbox({
  table: 'jobs',
  id: 'id',
  payload: 'payload',
  processedAt: 'processed_at',
  result: 'result',
});

/** Reads answer only from `settled`; every read of a row is counted. */
function rows() {
  const settled = new Map<string, unknown>();
  const reads = new Map<string, number>();
  let total = 0;
  const read = (id: unknown) => async (): Promise<RowResult> => {
    const key = String(id);
    reads.set(key, (reads.get(key) ?? 0) + 1);
    total++;
    return settled.has(key)
      ? { state: 'processed', value: settled.get(key), processedAt: null }
      : { state: 'pending' };
  };
  return { settled, reads, read, total: () => total };
}

/** Lets pending callbacks run until `cond` holds (an effect waited for, never a timed sleep). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 100_000) throw new Error('the condition never held');
    await new Promise((r) => setImmediate(r));
  }
}

/** The listeners the broker's emitter holds for an event (the emitter is private). */
function listenerCount(events: Events, name: string): number {
  return (events as unknown as { emitter: { listenerCount(e: string): number } }).emitter.listenerCount(name);
}

// No wake-up channel (as on MySQL, SQLite, SQL Server); every wait here is given its read.
const NO_ADAPTER = {} as Adapter;

// Pauses between reads of an hour: a wait answers only where an event wakes it.
const NEVER = { timeout: '1h', pollInterval: '1h' } as const;

test('R-LIFE-4 5,000 concurrent result waits on one broker hold one listener per settlement event; each is woken by its own row only and takes itself out when answered', async () => {
  const N = 5_000;
  const events = new Events(silentLogger);
  const waits = new ResultWaits(NO_ADAPTER, silentLogger, events);
  const db = rows();
  // Nothing listens before a wait starts: the ack path builds no `settled` payload for them.
  expect(events.wants('settled')).toBe(false);
  const answers = Array.from({ length: N }, (_, i) => waits.wait(jobs, i, NEVER, db.read(i)));
  await until(() => db.total() === N);
  expect(waits.size).toBe(N);
  expect(listenerCount(events, 'settled')).toBe(1);
  expect(listenerCount(events, 'cancelled')).toBe(1);
  // Another table's settlement of the same ids wakes none of them.
  for (let i = 0; i < N; i++)
    events.emit('settled', {
      table: 'other',
      id: i,
      outcome: 'ack',
      plan: 'finish',
      attempt: 1,
      durationMs: 0,
    });
  // Half settle by `settled`, half by `cancelled`; ids arrive as the dialect hands them (bigint too).
  for (let i = 0; i < N; i++) {
    db.settled.set(String(i), i * 2);
    if (i % 2 === 0)
      events.emit('settled', {
        table: 'jobs',
        id: BigInt(i),
        outcome: 'ack',
        plan: 'finish',
        attempt: 1,
        durationMs: 0,
      });
    else
      events.emit('cancelled', {
        table: 'jobs',
        id: i,
        attempt: 1,
        deadLettered: false,
        inWork: true,
        reason: 'r',
      });
  }
  expect(await Promise.all(answers)).toEqual(Array.from({ length: N }, (_, i) => i * 2));
  // Each wait read twice: at its start, and once when its own row's event woke it.
  expect(db.total()).toBe(2 * N);
  expect([...db.reads.values()].every((n) => n === 2)).toBe(true);
  expect(waits.size).toBe(0);
  expect(events.wants('settled')).toBe(false);
  expect(events.wants('cancelled')).toBe(false);
});

test('R-LIFE-4 two waits for the same row are both woken by its settlement; waits that time out or are aborted take themselves out', async () => {
  const events = new Events(silentLogger);
  const waits = new ResultWaits(NO_ADAPTER, silentLogger, events);
  const db = rows();
  const a = waits.wait(jobs, 7, NEVER, db.read(7));
  const b = waits.wait(jobs, '7', NEVER, db.read(7));
  const stop = new AbortController();
  const aborted = waits.wait(jobs, 8, { ...NEVER, signal: stop.signal }, db.read(8)).catch((e: unknown) => e);
  const timedOut = waits.wait(jobs, 9, { timeout: 1 }, db.read(9)).catch((e: unknown) => e);
  await until(() => db.total() >= 4);
  expect(await timedOut).toBeInstanceOf(ResultTimeoutError);
  expect(waits.size).toBe(3);
  stop.abort(new Error('stopped'));
  expect(String(await aborted)).toContain('stopped');
  expect(waits.size).toBe(2);
  db.settled.set('7', 'seven');
  events.emit('settled', { table: 'jobs', id: 7, outcome: 'ack', plan: 'finish', attempt: 1, durationMs: 0 });
  expect(await Promise.all([a, b])).toEqual(['seven', 'seven']);
  expect(waits.size).toBe(0);
  expect(events.wants('settled')).toBe(false);
  // Without a wake-up channel nothing listens for notifications.
  expect(waits.listening('jobs')).toBe(false);
});
