import { MemoryLogger } from '@sqlinbox/conformance';
import { Broker, ConnectionError, inbox, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { pg } from '../src/pg.js';
import { postgresJs } from '../src/postgres.js';

/** `start()` with the database down (a closed port): a typed error naming the server, or a wait. */

const jobs = inbox({
  table: 'sqi_unreachable',
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

// Port 1 on the loopback: nothing listens there, the connect is refused at once.
const closed = [
  ['pg', () => pg({ host: '127.0.0.1', port: 1, database: 'nowhere', user: 'postgres', max: 2 })],
  [
    'postgres.js',
    () => postgresJs({ url: 'postgres://postgres@127.0.0.1:1/nowhere', max: 2, connect_timeout: 5 }),
  ],
] as const;

test.each(closed)(
  'R-BAD-8 start() with the database down rejects with a ConnectionError naming the server, with the driver error as cause, and logs it (%s)',
  async (_driver, open) => {
    const logger = new MemoryLogger();
    const broker = new Broker(open(), { logger });
    const ready = broker.subscribe(queue(jobs), async () => {}).ready;
    const err = await broker.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'CONNECTION', server: 'postgres://127.0.0.1:1/nowhere' });
    expect((err as Error).message).toContain('127.0.0.1:1');
    expect((err as Error).cause).toBeDefined();
    expect((err as Error).cause).not.toBeInstanceOf(ConnectionError);
    await expect(ready).rejects.toBe(err);
    expect(logger.has('error', 'cannot reach the database')).toBe(true);
    await broker.shutdown();
  },
);

test.each(closed)(
  'R-BAD-8 start({ waitForDatabase }) tries again with backoff, a log line per attempt, until its timeout (%s)',
  async (_driver, open) => {
    const logger = new MemoryLogger();
    const broker = new Broker(open(), { logger });
    broker.subscribe(queue(jobs), async () => {});
    const err = await broker.start({ waitForDatabase: { timeout: '2s' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectionError);
    const retries = logger.entries.filter((e) => e.msg.includes('cannot reach the database; trying again'));
    // 0.5 s, then 1 s: two waits fit in 2 s; the third attempt fails for good.
    expect(retries.map((e) => e.fields?.attempt)).toEqual([1, 2]);
    expect(retries.map((e) => e.fields?.retryInMs)).toEqual([500, 1_000]);
    expect(retries[0]!.fields?.server).toBe('postgres://127.0.0.1:1/nowhere');
    await broker.shutdown();
  },
);

test('R-BAD-8 R-OPS-4 shutdown() during a start() waiting for the database ends the wait: start rejects with ClosedError', async () => {
  const broker = new Broker(pg({ host: '127.0.0.1', port: 1, max: 2 }), { logger: new MemoryLogger() });
  broker.subscribe(queue(jobs), async () => {});
  const started = broker.start({ waitForDatabase: { timeout: '60s' } }).then(
    () => 'started',
    (e: unknown) => e,
  );
  await new Promise((r) => setTimeout(r, 700));
  await broker.shutdown();
  expect(await started).toMatchObject({ code: 'CLOSED' });
});
