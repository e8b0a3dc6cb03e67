import { threadId } from 'node:worker_threads';
import { Admin, Broker, ConfigError, inbox, type Logger, queue } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type SqliteAdapter, sqlite } from '../src/index.js';
import { type TestDb, tempDb } from './helpers.js';

/**
 * R-POOL-9 on SQLite: handlers on real worker threads, each with its own SQLite connection
 * opened on the thread (test/threads/handler.mjs). Needs the packages built (`pnpm build`): a
 * thread loads the built core and dialect.
 */

const handler = new URL('./threads/handler.mjs', import.meta.url);

const jobs = inbox({
  table: 'thread_jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
});

let db: TestDb;
let adapter: SqliteAdapter;
let broker: Broker<'lease' | 'advisory', never>;
const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (msg, fields) => logs.push({ level: 'warn', msg, ...(fields ? { fields } : {}) }),
  error: (msg, fields) => logs.push({ level: 'error', msg, ...(fields ? { fields } : {}) }),
};

beforeEach(async () => {
  logs.length = 0;
  db = tempDb();
  adapter = sqlite({ filename: db.file, connections: 4 });
  broker = new Broker(adapter, { logger, pollInterval: '20ms', connectionLimit: 8 });
  await db.create(jobs, 'thread_jobs_dead');
  await db.exec(
    'CREATE TABLE ledger (seq INTEGER PRIMARY KEY AUTOINCREMENT, job INTEGER NOT NULL, kind TEXT, attempt INTEGER, thread_id INTEGER)',
  );
});
afterEach(async () => {
  await broker.shutdown({ timeout: '1s' }).catch(() => undefined);
  await db.exec('DROP TABLE IF EXISTS ledger');
  await db.exec('DROP TABLE IF EXISTS thread_jobs');
  await db.exec('DROP TABLE IF EXISTS thread_jobs_dead');
  await adapter.close();
  await db.cleanup();
});

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const count = async (sql: string, params: unknown[] = []) => Number((await db.exec(sql, params))[0]?.n);
const settledIds = () => {
  const ids: unknown[] = [];
  broker.on('settled', (e) => ids.push(e.id));
  return ids;
};

describe('R-POOL-9 threads on SQLite', () => {
  test('R-POOL-9 handlers run on threads, query through their own connection, and every row settles once', async () => {
    const settled = settledIds();
    broker.subscribe(queue(jobs).onThreads({ threads: 2, connections: 1, handler, data: { file: db.file } }));
    await broker.start();
    await broker.publishMany(
      jobs,
      Array.from({ length: 20 }, (_, n) => ({ kind: 'ok', n })),
    );
    await until(async () => (await count('SELECT COUNT(*) AS n FROM thread_jobs')) === 0);
    await until(async () => settled.length === 20);

    const ledger = await db.exec('SELECT job, thread_id FROM ledger ORDER BY job');
    expect(ledger).toHaveLength(20);
    expect(new Set(ledger.map((r) => r.job)).size).toBe(20);
    expect(new Set(settled).size).toBe(20);
    // Written by worker threads, never by this (the main) thread.
    for (const r of ledger) expect(Number(r.thread_id)).not.toBe(threadId);
    // The temporary table the handlers made lives on the threads' connections, not on the service pool's.
    const seenHere = await Promise.all(
      Array.from({ length: 4 }, () =>
        db.withConn(async (c) => {
          const r = await c.query("SELECT COUNT(*) AS n FROM sqlite_temp_master WHERE name = 'thread_mark'");
          return Number(r.rows[0]?.n);
        }),
      ),
    );
    expect(seenHere.every((n) => n === 0)).toBe(true);

    const closed = await broker.shutdown();
    expect(closed.threadConnectionsClosed).toBe(2);
  });

  test('R-POOL-9 outcomes answered on a thread settle on the main thread: retry, drop, dead letter, explicit ack', async () => {
    const settled: { id: unknown; outcome: string; plan: string }[] = [];
    broker.on('settled', (e) => settled.push({ id: e.id, outcome: e.outcome, plan: e.plan }));
    broker.subscribe(
      queue(jobs)
        .maxAttempts(2)
        .deadLetter({ table: 'thread_jobs_dead' })
        .onThreads({ threads: 2, handler, data: { file: db.file } }),
    );
    await broker.start();
    const [retry, drop, fail, explicit] = await broker.publishMany(jobs, [
      { kind: 'retry' },
      { kind: 'drop' },
      { kind: 'fail' },
      { kind: 'explicit' },
    ]);
    await until(async () => (await count('SELECT COUNT(*) AS n FROM thread_jobs')) === 0);
    await until(async () => settled.length === 6);

    const attempts = async (id: unknown) =>
      (await db.exec('SELECT attempt FROM ledger WHERE job = ? ORDER BY seq', [id])).map((r) =>
        Number(r.attempt),
      );
    expect(await attempts(retry)).toEqual([1, 2]);
    expect(await attempts(drop)).toEqual([1]);
    expect(await attempts(fail)).toEqual([1, 2]);
    expect(await attempts(explicit)).toEqual([1]);
    expect(settled.filter((s) => s.id === drop)).toEqual([{ id: drop, outcome: 'drop', plan: 'finish' }]);
    expect(settled.filter((s) => s.id === explicit)).toEqual([
      { id: explicit, outcome: 'ack', plan: 'finish' },
    ]);
    expect(settled.filter((s) => s.id === fail).map((s) => s.plan)).toEqual(['return', 'deadLetter']);
    expect(await count('SELECT COUNT(*) AS n FROM thread_jobs_dead WHERE id = ?', [fail])).toBe(1);
    // The thread's error reached the main thread's log with the row id.
    expect(logs.some((l) => l.msg === 'handler failed; retrying' && l.fields?.id === fail)).toBe(true);
  });

  test('R-POOL-9 a thread that exits or throws uncaught loses no row; a new thread takes its place', async () => {
    broker.subscribe(queue(jobs).onThreads({ threads: 2, handler, data: { file: db.file } }));
    await broker.start();
    const ids = await broker.publishMany(jobs, [
      { kind: 'exit' },
      { kind: 'crash' },
      ...Array.from({ length: 10 }, () => ({ kind: 'ok' })),
    ]);
    await until(async () => (await count('SELECT COUNT(*) AS n FROM thread_jobs')) === 0);
    // Every row ran to an ack. The two that killed their thread came back and ran again; a row in
    // flight on a thread another row killed comes back too (its attempt counted, as for a throw).
    const done = await db.exec('SELECT DISTINCT job FROM ledger');
    expect(done.map((r) => r.job).sort()).toEqual([...ids].sort());
    const lastAttempt = async (id: unknown) =>
      Number((await db.exec('SELECT MAX(attempt) AS n FROM ledger WHERE job = ?', [id]))[0]?.n);
    expect(await lastAttempt(ids[0])).toBeGreaterThan(1);
    expect(await lastAttempt(ids[1])).toBeGreaterThan(1);
    // Each killed exactly one thread (on its first attempt), and a new one took its place each time.
    expect(logs.filter((l) => l.msg === 'a handler thread ended; starting another')).toHaveLength(2);
    const closed = await broker.shutdown();
    expect(closed.threadConnectionsClosed).toBe(2);
  });

  test('R-POOL-9 shutdown aborts a handler on its thread, then closes the thread pools', async () => {
    broker.subscribe(queue(jobs).onThreads({ threads: 1, connections: 2, handler, data: { file: db.file } }));
    await broker.start();
    const [id] = await broker.publishMany(jobs, [{ kind: 'wait' }]);
    await until(async () => (await count('SELECT COUNT(*) AS n FROM ledger WHERE job = ?', [id])) === 1);
    const closed = await broker.shutdown({ timeout: '10s' });
    expect(logs.some((l) => l.msg === 'aborted on the thread' && l.fields?.thread === 0)).toBe(true);
    expect(closed.threadConnectionsClosed).toBe(2);
    // The row the aborted handler held came back to the queue.
    expect(
      await count('SELECT COUNT(*) AS n FROM thread_jobs WHERE id = ? AND locked_until IS NULL', [id]),
    ).toBe(1);
  });

  test('R-POOL-9 a handler timeout aborts the handler on its thread and its row returns', async () => {
    broker.subscribe(
      queue(jobs)
        .timeout('300ms')
        .onThreads({ threads: 1, handler, data: { file: db.file } }),
    );
    await broker.start();
    const [id] = await broker.publishMany(jobs, [{ kind: 'wait' }]);
    await until(async () => logs.some((l) => l.msg === 'aborted on the thread'));
    const aborted = logs.find((l) => l.msg === 'aborted on the thread');
    expect(String(aborted?.fields?.reason)).toContain('timed out');
    expect(logs.some((l) => l.msg.startsWith('handler timed out') && l.fields?.id === id)).toBe(true);
    // The row came back to the queue and was delivered again.
    await until(async () => (await count('SELECT COUNT(*) AS n FROM ledger WHERE job = ?', [id])) >= 2);
  });

  test('R-LIFE-3 R-POOL-9 a cancel from another connection reaches a handler on its thread as a CancelledError with its reason; the row settles as cancelled', async () => {
    const cjobs = inbox({
      table: 'thread_cjobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      control: { table: 'thread_control' },
    });
    await db.create(cjobs);
    try {
      broker.subscribe(queue(cjobs).onThreads({ threads: 1, handler, data: { file: db.file } }));
      await broker.start();
      const [id] = await broker.publishMany(cjobs, [{ kind: 'cancel' }]);
      await until(async () => (await count('SELECT COUNT(*) AS n FROM ledger WHERE job = ?', [id])) === 1);
      const other = sqlite({ filename: db.file, connections: 1 });
      try {
        const report = await new Admin(other).cancel(cjobs, { ids: [id] }, { reason: 'customer left' });
        expect(report.signalled.map(String)).toEqual([String(id)]);
      } finally {
        await other.close();
      }
      await until(async () => logs.some((l) => l.msg === 'cancelled on the thread'));
      const seen = logs.find((l) => l.msg === 'cancelled on the thread')!.fields;
      expect(seen).toMatchObject({
        cancelledError: true,
        code: 'CANCELLED',
        reason: 'customer left',
        rowId: String(id),
      });
      // Settled as cancelled (dropped: no dead letter), never delivered again.
      await until(async () => (await count('SELECT COUNT(*) AS n FROM thread_cjobs')) === 0);
      expect(await count('SELECT COUNT(*) AS n FROM ledger WHERE job = ?', [id])).toBe(1);
    } finally {
      await broker.shutdown({ timeout: '1s' }).catch(() => undefined);
      await db.exec('DROP TABLE IF EXISTS thread_cjobs');
      await db.exec('DROP TABLE IF EXISTS thread_control');
    }
  });

  test('R-POOL-9 a thread that cannot open its pool fails the start; no row is claimed', async () => {
    broker.subscribe(
      queue(jobs).onThreads({
        threads: 2,
        handler: new URL('./threads/no-such-module.mjs', import.meta.url),
        data: { file: db.file },
      }),
    );
    await broker.publish(jobs, { kind: 'ok' });
    let err: unknown;
    try {
      await broker.start();
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe('THREAD_OPEN');
    expect((err as Error).message).toContain('thread_jobs');
    expect(String((err as Error).cause)).toContain('no-such-module.mjs');
    expect(await count('SELECT COUNT(*) AS n FROM thread_jobs WHERE locked_until IS NULL')).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM ledger')).toBe(0);
  });

  test('R-POOL-9 connectionLimit: a subscription whose threads would pass it does not start', async () => {
    // Pool 4 + 2 x 1 = 6 fits the limit of 8; another 2 x 2 = 4 would make 10.
    broker.subscribe(queue(jobs).onThreads({ threads: 2, connections: 1, handler, data: { file: db.file } }));
    let err: unknown;
    try {
      broker.subscribe(
        queue(jobs).onThreads({ threads: 2, connections: 2, handler, data: { file: db.file } }),
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).table).toBe('thread_jobs');
    expect((err as Error).message).toContain('2 threads x 2 connections = 4');
    expect((err as Error).message).toContain('that is 10');
    expect((err as Error).message).toContain('connectionLimit of 8');
    // The refused one was never mounted: the broker starts with the first alone, and it runs.
    await broker.start();
    await broker.publish(jobs, { kind: 'ok' });
    await until(async () => (await count('SELECT COUNT(*) AS n FROM thread_jobs')) === 0);
    const closed = await broker.shutdown();
    expect(closed.threadConnectionsClosed).toBe(2);
  });
});
