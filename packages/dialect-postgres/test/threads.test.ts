import { threadId } from 'node:worker_threads';
import { type AnyTable, Broker, ConfigError, type Logger, queue } from '@sqlinbox/core';
import pgModule from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { pg } from '../src/pg.js';
import { quoteTable } from '../src/sql.js';
import { adminClient, createTable, leaseTable, rowlockTable, URL, uniqueName } from './support.js';

/**
 * R-POOL-9 on PostgreSQL through pg: handlers on real worker threads, each opening its own pg pool
 * on the thread (test/threads/pg-handler.mjs). Each pool is tagged with an application_name, so
 * pg_stat_activity tells the service pool's connections from the threads'. Needs the packages
 * built (`pnpm build`): a thread loads the built core and dialect.
 */

const handler = new globalThis.URL('./threads/pg-handler.mjs', import.meta.url);

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('R-POOL-9 threads on PostgreSQL (pg)', () => {
  let admin: pgModule.Client;
  let name: string;
  let t: AnyTable;
  let ledger: string;
  let drop: () => Promise<void>;
  let pool: pgModule.Pool;
  let broker: Broker;
  let mainApp: string;
  let threadApp: string;
  const logs: { msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (msg, fields) => logs.push({ msg, ...(fields ? { fields } : {}) }),
    error: (msg, fields) => logs.push({ msg, ...(fields ? { fields } : {}) }),
  };
  const countApp = async (app: string) =>
    Number(
      (await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [app]))
        .rows[0].n,
    );
  const pidsOf = async (app: string) =>
    (await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [app])).rows.map((r) =>
      Number(r.pid),
    );
  const rows = async () =>
    Number((await admin.query(`SELECT count(*) AS n FROM ${quoteTable(t.table)}`)).rows[0].n);
  const data = () => ({ url: URL, app: threadApp, ledger: quoteTable(ledger) });

  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin.end();
  });

  const setup = async (table: AnyTable, poolSize: number, connectionLimit?: number) => {
    logs.length = 0;
    t = table;
    name = t.table;
    ledger = `${name}_ledger`;
    mainApp = `${name}_main`;
    threadApp = `${name}_thread`;
    drop = await createTable(admin, t, `${name}_dead`);
    await admin.query(
      `CREATE TABLE ${quoteTable(ledger)} (seq bigserial PRIMARY KEY, job bigint NOT NULL, kind text, attempt int, pid int, thread_id int)`,
    );
    pool = new pgModule.Pool({ connectionString: URL, max: poolSize, application_name: mainApp });
    broker = new Broker(pg(pool), {
      logger,
      pollInterval: '20ms',
      ...(connectionLimit === undefined ? {} : { connectionLimit }),
    });
  };
  afterEach(async () => {
    await broker.shutdown({ timeout: '2s' }).catch(() => undefined);
    await pool.end();
    await drop();
    await admin.query(`DROP TABLE IF EXISTS ${quoteTable(ledger)}`);
  });

  test('R-POOL-9 handlers on threads run their queries on the threads own connections; every row settles once; shutdown closes the thread pools', async () => {
    await setup(leaseTable(uniqueName('thr')), 4);
    const settled: unknown[] = [];
    broker.on('settled', (e) => settled.push(e.id));
    broker.subscribe(queue(t).workers(4).onThreads({ threads: 2, connections: 2, handler, data: data() }));
    await broker.start();
    // Each thread opened its own pool on the thread: 2 threads x 2 connections.
    expect(await countApp(threadApp)).toBe(4);
    const ids = await broker.publishMany(
      t,
      Array.from({ length: 30 }, (_, n) => ({ kind: 'ok', n })),
    );
    await until(async () => (await rows()) === 0, 'the queue to drain');
    await until(() => settled.length === 30, 'every settlement');

    const done = (await admin.query(`SELECT job, pid, thread_id FROM ${quoteTable(ledger)}`)).rows;
    expect(done.map((r) => String(r.job)).sort()).toEqual(ids.map(String).sort());
    expect(new Set(settled.map(String)).size).toBe(30);
    // Every handler query ran on a thread pool's backend, none on the service pool's.
    const threadPids = new Set(await pidsOf(threadApp));
    const mainPids = new Set(await pidsOf(mainApp));
    expect(mainPids.size).toBeGreaterThan(0);
    for (const r of done) {
      expect(threadPids.has(Number(r.pid))).toBe(true);
      expect(mainPids.has(Number(r.pid))).toBe(false);
      expect(Number(r.thread_id)).not.toBe(threadId);
    }
    // Both threads worked.
    expect(new Set(done.map((r) => r.thread_id)).size).toBe(2);

    const closed = await broker.shutdown();
    expect(closed.threadConnectionsClosed).toBe(4);
    await until(async () => (await countApp(threadApp)) === 0, 'the thread connections to end');
    expect(await countApp(threadApp)).toBe(0);
  });

  test('R-POOL-9 row lock form: retry, drop, dead letter and settlements from the thread honored; a thread that exits loses no row', async () => {
    await setup(rowlockTable(uniqueName('thr')), 4);
    const settled: { id: string; outcome: string; plan: string }[] = [];
    broker.on('settled', (e) => settled.push({ id: String(e.id), outcome: e.outcome, plan: e.plan }));
    broker.subscribe(
      queue(t)
        .maxAttempts(2)
        .deadLetter({ table: `${name}_dead` })
        .onThreads({ threads: 2, handler, data: data() }),
    );
    await broker.start();
    const [retry, dropped, fail, explicit, exit] = (
      await broker.publishMany(t, [
        { kind: 'retry' },
        { kind: 'drop' },
        { kind: 'fail' },
        { kind: 'explicit' },
        { kind: 'exit' },
        ...Array.from({ length: 5 }, () => ({ kind: 'ok' })),
      ])
    ).map(String);
    await until(async () => (await rows()) === 0, 'the queue to drain');
    await until(() => settled.filter((s) => s.plan !== 'return').length === 10, 'every row to finish');

    const plans = (id: string | undefined) => settled.filter((s) => s.id === id).map((s) => s.plan);
    expect(plans(retry)).toEqual(['return', 'finish']);
    expect(settled.filter((s) => s.id === dropped)).toEqual([
      { id: dropped, outcome: 'drop', plan: 'finish' },
    ]);
    expect(plans(fail)).toEqual(['return', 'deadLetter']);
    expect(settled.filter((s) => s.id === explicit).map((s) => s.outcome)).toEqual(['retryAfter', 'ack']);
    expect(plans(exit).at(-1)).toBe('finish');
    expect(
      Number((await admin.query(`SELECT count(*) AS n FROM ${quoteTable(`${name}_dead`)}`)).rows[0].n),
    ).toBe(1);
    expect(logs.filter((l) => l.msg === 'a handler thread ended; starting another')).toHaveLength(1);
    // The new thread opened its own pool: the thread pools again hold 2 x 1 connections.
    await until(async () => (await countApp(threadApp)) === 2, 'the new thread pool');
    const closed = await broker.shutdown();
    expect(closed.threadConnectionsClosed).toBe(2);
    await until(async () => (await countApp(threadApp)) === 0, 'the thread connections to end');
  });

  test('R-POOL-9 connectionLimit holds the service pool plus threads x connections; a subscription past it does not start', async () => {
    // Service pool 3 + its LISTEN connection 1 + 2 threads x 2 connections = 8: exactly the limit.
    await setup(leaseTable(uniqueName('thr')), 3, 8);
    broker.subscribe(queue(t).workers(6).onThreads({ threads: 2, connections: 2, handler, data: data() }));
    let err: unknown;
    try {
      broker.subscribe(queue(t).onThreads({ threads: 1, connections: 1, handler, data: data() }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).table).toBe(name);
    expect((err as Error).message).toContain('1 threads x 1 connections = 1');
    expect((err as Error).message).toContain(
      'service pool and listener (3 + 1) and the other thread pools (4) that is 9',
    );
    expect((err as Error).message).toContain('connectionLimit of 8');

    await broker.start();
    await broker.publishMany(
      t,
      Array.from({ length: 60 }, (_, n) => ({ kind: 'ok', n })),
    );
    let most = 0;
    await until(async () => {
      const n = (await countApp(mainApp)) + (await countApp(threadApp));
      most = Math.max(most, n);
      return (await rows()) === 0;
    }, 'the queue to drain');
    // The database never saw more of this service's connections than the limit.
    expect(most).toBeGreaterThan(5);
    expect(most).toBeLessThanOrEqual(8);
    // The refused subscription never started a thread: only the first one's two pools exist.
    expect(await countApp(threadApp)).toBe(4);
  });
});
