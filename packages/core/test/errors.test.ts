import { describe, expect, test } from 'vitest';
import { Events } from '../src/events.js';
import {
  type Adapter,
  Broker,
  ClosedError,
  ConfigError,
  ConnectionError,
  DecodeError,
  EncodeError,
  ERROR_CODES,
  HandlerError,
  isErrorCode,
  LeaseLostError,
  type Logger,
  ServerTooOldError,
  SettlementError,
  StatementTimeoutError,
  ThreadExitedError,
} from '../src/index.js';
import { fromWire, toWire } from '../src/threads.js';

/** A logger that keeps what it is given. */
function recording(): Logger & {
  entries: { level: string; msg: string; fields?: Record<string, unknown> }[];
} {
  const entries: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void entries.push({ level, msg, ...(fields === undefined ? {} : { fields }) });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('error codes (issue 29)', () => {
  test('error codes are a closed union of string literals: every error class carries one of ERROR_CODES', () => {
    const errors = [
      new ConfigError('x'),
      new ConnectionError('db', new Error('refused')),
      new ServerTooOldError('PostgreSQL', '9.6', '11'),
      new LeaseLostError('t', 1),
      new ClosedError('publish'),
      new DecodeError('t', 1, 'bad'),
      new EncodeError('t', 'bad'),
      new SettlementError('t', 1, new Error('x')),
      new HandlerError('t', 1, 'text'),
      new ThreadExitedError('t', 1, 'exit 1'),
      new StatementTimeoutError('settle', 'settleMany', 500, 'c1', 't'),
    ];
    for (const e of errors) expect(ERROR_CODES).toContain(e.code);
    for (const code of ['MIGRATE_LOCK', 'TIMEOUT', 'ALREADY_SETTLED', 'TX_CLOSED', 'THREAD_OPEN'])
      expect(isErrorCode(code)).toBe(true);
    expect(isErrorCode('23505')).toBe(false);
    expect(isErrorCode(undefined)).toBe(false);
  });

  test("error codes are a closed union: an error crossing from a thread keeps a driver's code on a plain Error", () => {
    const driver = fromWire(toWire(Object.assign(new Error('duplicate key'), { code: '23505' })));
    expect(driver).toMatchObject({ message: 'duplicate key', code: '23505' });
    expect(isErrorCode((driver as { code?: unknown }).code)).toBe(false);
    expect(fromWire(toWire(new ClosedError('threads')))).toMatchObject({
      code: 'CLOSED',
      name: 'ClosedError',
    });
  });
});

describe('event listeners (issue 29)', () => {
  test("a listener's error reported through the logger: thrown or rejected, the other listeners still run", async () => {
    const logger = recording();
    const events = new Events(logger);
    const seen: unknown[] = [];
    events.on('claimed', () => {
      throw new Error('listener bug');
    });
    events.on('claimed', async () => {
      throw new Error('async listener bug');
    });
    events.on('claimed', (e) => seen.push(e.id));
    events.emit('claimed', { table: 'jobs', id: 7, attempt: 1 });
    expect(seen).toEqual([7]);
    await expect.poll(() => logger.entries.length).toBe(2);
    expect(logger.entries.map((e) => e.level)).toEqual(['error', 'error']);
    expect(logger.entries[0]?.fields).toMatchObject({ event: 'claimed', table: 'jobs' });
    expect(logger.entries.map((e) => (e.fields as { error: Error }).error.message)).toEqual([
      'listener bug',
      'async listener bug',
    ]);
  });

  test("a listener's error reported through the broker's logger", () => {
    const logger = recording();
    const adapter = { dialect: { name: 'fake' }, pool: { size: 2 } } as unknown as Adapter;
    const broker = new Broker(adapter, { logger });
    broker.on('leaseExtended', () => {
      throw new Error('listener bug');
    });
    // The broker's emitter is private: reached here to fire one event without a database.
    (broker as unknown as { events: Events }).events.emit('leaseExtended', { table: 'jobs', count: 3 });
    expect(logger.entries).toMatchObject([
      { level: 'error', fields: { event: 'leaseExtended', table: 'jobs' } },
    ]);
  });
});
