import { threadId } from 'node:worker_threads';
import { Broker, ConfigError, inbox, type Logger, queue } from '@sqlinbox/core';
import mysql from 'mysql2/promise';
import { afterEach, describe, expect, test } from 'vitest';
import { mysql2 } from '../src/mysql2.js';
import { createTables, DB, openAdmin, uniqueName } from './helpers.js';

/**
 * R-POOL-9 on MariaDB through mysql2: handlers on real worker threads, each opening its own mysql2
 * pool on the thread (test/threads/mysql2-handler.mjs). Needs the packages built (`pnpm build`).
 */

const handler = new URL('./threads/mysql2-handler.mjs', import.meta.url);

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('R-POOL-9 threads on MariaDB (mysql2)', () => {
  test('R-POOL-9 handlers on threads query through their own sessions; outcomes, a dead thread and shutdown', async () => {
    const admin = await openAdmin();
    cleanups.push(() => admin.end());
    const name = uniqueName('thr');
    const ledger = `${name}_ledger`;
    const t = inbox({
      table: name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
    });
    cleanups.push(await createTables(admin, t, `${name}_dead`));
    await admin.q(
      `CREATE TABLE \`${ledger}\` (seq BIGINT AUTO_INCREMENT PRIMARY KEY, job BIGINT NOT NULL, kind VARCHAR(20), attempt INT, conn_id BIGINT, thread_id INT)`,
    );
    cleanups.push(async () => {
      await admin.q(`DROP TABLE IF EXISTS \`${ledger}\``);
    });
    const pool = mysql.createPool({ ...DB, connectionLimit: 3 });
    cleanups.push(() => pool.end());
    const adapter = mysql2(pool);
    const logs: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (msg) => logs.push(msg),
      error: (msg) => logs.push(msg),
    };
    // Service pool 3 (no listener on MariaDB) + 2 threads x 2 connections = 7.
    const broker = new Broker(adapter, { logger, pollInterval: '20ms', connectionLimit: 7 });
    cleanups.push(async () => {
      await broker.shutdown({ timeout: '2s' });
    });
    const settled: { id: string; plan: string }[] = [];
    broker.on('settled', (e) => settled.push({ id: String(e.id), plan: e.plan }));
    const data = { db: DB, ledger };
    broker.subscribe(
      queue(t)
        .workers(4)
        .maxAttempts(2)
        .deadLetter({ table: `${name}_dead` })
        .onThreads({ threads: 2, connections: 2, handler, data }),
    );
    expect(() => broker.subscribe(queue(t).onThreads({ threads: 1, handler, data }))).toThrow(ConfigError);
    await broker.start();
    const published = (
      await broker.publishMany(t, [
        { kind: 'retry' },
        { kind: 'fail' },
        { kind: 'exit' },
        ...Array.from({ length: 12 }, () => ({ kind: 'ok' })),
      ])
    ).map(String);
    const [retry, fail, exit] = published;
    const rows = async () => Number((await admin.q(`SELECT COUNT(*) AS n FROM \`${name}\``))[0]?.n);
    await until(async () => (await rows()) === 0, 'the queue to drain');
    await until(() => settled.filter((s) => s.plan !== 'return').length === 15, 'every row to finish');

    const done = await admin.q(`SELECT job, kind, attempt, conn_id, thread_id FROM \`${ledger}\``);
    expect([...new Set(done.map((r) => String(r.job)))].sort()).toEqual([...published].sort());
    const plans = (id: string | undefined) => settled.filter((s) => s.id === id).map((s) => s.plan);
    expect(plans(retry)).toEqual(['return', 'finish']);
    expect(plans(fail)).toEqual(['return', 'deadLetter']);
    expect(plans(exit).at(-1)).toBe('finish');
    expect(logs.filter((m) => m === 'a handler thread ended; starting another')).toHaveLength(1);

    // Every handler statement ran on a thread's session, none on one of the service pool's.
    const service = await Promise.all([1, 2, 3].map(() => adapter.pool.acquire()));
    const serviceIds = new Set(service.map((c) => String(c.id)));
    for (const c of service) adapter.pool.release(c);
    const threadIds = [...new Set(done.map((r) => String(r.conn_id)))];
    for (const id of threadIds) expect(serviceIds.has(id)).toBe(false);
    for (const r of done) expect(Number(r.thread_id)).not.toBe(threadId);
    const alive = async () =>
      Number(
        (
          await admin.q(
            `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID IN (${threadIds.map(() => '?').join(', ')})`,
            threadIds,
          )
        )[0]?.n,
      );
    // The thread sessions live until shutdown closes the thread pools.
    expect(await alive()).toBeGreaterThan(0);
    const closed = await broker.shutdown();
    expect(closed.threadConnectionsClosed).toBe(4);
    await until(async () => (await alive()) === 0, 'the thread sessions to end');
    expect(await alive()).toBe(0);
  });
});
