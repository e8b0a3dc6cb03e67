import { MemoryLogger } from '@sqlinbox/conformance';
import { Broker, ConnectionError, inbox, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { mariadb } from '../src/mariadb.js';
import { mysql2 } from '../src/mysql2.js';

/** `start()` with the database down (a closed port): a typed error naming the server, or a wait. */

const jobs = inbox({
  table: 'sqi_unreachable',
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

// Port 1 on the loopback: nothing listens there, the connect is refused at once.
const where = { host: '127.0.0.1', port: 1, user: 'root', database: 'nowhere', connectionLimit: 2 };
const closed = [
  ['mysql2', () => mysql2({ ...where })],
  ['mariadb', () => mariadb({ ...where, acquireTimeout: 1_000, initializationTimeout: 500 })],
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
    expect(err).toMatchObject({ code: 'CONNECTION', server: 'mysql://127.0.0.1:1/nowhere' });
    expect((err as Error).message).toContain('127.0.0.1:1');
    expect((err as Error).cause).toBeDefined();
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
    const err = await broker.start({ waitForDatabase: { timeout: '3s' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectionError);
    const retries = logger.entries.filter((e) => e.msg.includes('cannot reach the database; trying again'));
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.map((e) => e.fields?.retryInMs)).toEqual([500, 1_000, 2_000].slice(0, retries.length));
    expect(retries[0]!.fields?.server).toBe('mysql://127.0.0.1:1/nowhere');
    await broker.shutdown();
  },
);
