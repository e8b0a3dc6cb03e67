import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@sqlinbox/conformance';
import { Admin, type AnyTable, Broker, inbox, Outcome, queue, silentLogger } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { topicChannel } from '../src/sql.js';
import { adminClient, createTable, drivers, type Opened, uniqueName } from './support.js';

/**
 * An `Admin`'s result waits in a process (or on an adapter) that runs no broker: woken by the
 * table's `result` notification like a broker's, and the LISTEN connection the admin opened is
 * ended once its last wait ended, or at `admin.close()`.
 */

const here = dirname(fileURLToPath(import.meta.url));
const URL = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Reads an hour apart (and the same timeout): only the notification can answer a wait in time. */
const NEVER = '1h';
const WAIT_MS = 30_000;

function resultTable(name: string) {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    attempt: 'attempt',
    lease: 'locked_until',
    payload: 'payload',
    processedAt: 'processed_at',
    result: 'result',
  });
}
type ResultTable = ReturnType<typeof resultTable>;

describe.each(drivers)('Admin result waits on $name', (driver) => {
  let admin: pgModule.Client;
  const drops: (() => Promise<void>)[] = [];
  const opened: Opened[] = [];
  const brokers: Broker<any, any>[] = [];
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const b of brokers) await b.shutdown({ timeout: 0 }).catch(() => {});
    for (const o of opened) await o.end().catch(() => {});
    for (const drop of drops) await drop();
    await admin.end();
  });

  const open = (max = 2) => {
    const o = driver.open(max);
    opened.push(o);
    return o.adapter;
  };

  /** Sessions of this database (but the test's own) whose last statement listened on the table's result channel. */
  async function listening(table: string): Promise<number> {
    const r = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE query ILIKE $1 AND pid <> pg_backend_pid() AND datname = current_database()`,
      [`%listen "${topicChannel(table, 'result')}"%`],
    );
    return r.rows[0].n;
  }

  async function table(prefix: string): Promise<ResultTable> {
    const t = resultTable(uniqueName(prefix));
    drops.push(await createTable(admin, t as AnyTable));
    return t;
  }

  /** A broker on an adapter of its own that acks each row with `{ doubled }`; `settledAt` by row id. */
  function worker(t: ResultTable): { broker: Broker<any, any>; settledAt: Map<string, number> } {
    const broker = new Broker(open(3), { logger: silentLogger, pollInterval: 50 });
    brokers.push(broker);
    const settledAt = new Map<string, number>();
    broker.on('settled', (e) => void settledAt.set(String(e.id), performance.now()));
    broker.subscribe(queue(t), async (m) => Outcome.ack({ doubled: (m as { n: number }).n * 2 }));
    return { broker, settledAt };
  }

  test('R-LIFE-4 with its reads an hour apart, an Admin with no broker answers waitResult when another broker settles the row, by the result notification; the LISTEN session it opened ends after the wait, without admin.close()', async () => {
    const t = await table('awt');
    const { broker, settledAt } = worker(t);
    const id = await broker.publish(t, { n: 21 });
    const a = new Admin(open(), { logger: silentLogger });
    const stop = new AbortController();
    let answeredAt = 0;
    const answer = a
      .waitResult(t, id, { timeout: NEVER, pollInterval: NEVER, signal: stop.signal })
      .finally(() => {
        answeredAt = performance.now();
      });
    answer.catch(() => {});
    // The wait listens before its first read: one session on the table's result channel.
    await until(async () => (await listening(t.table)) === 1, 'the admin listening', WAIT_MS);
    await broker.start();
    try {
      await until(() => answeredAt > 0, 'the wait woken by the settlement', WAIT_MS);
    } finally {
      stop.abort();
    }
    expect(await answer).toEqual({ doubled: 42 });
    const latency = answeredAt - settledAt.get(String(id))!;
    console.log(`${driver.name}: admin wait answered ${latency.toFixed(1)} ms after the settled event`);
    expect(latency).toBeLessThan(WAIT_MS);
    // No wait left: the admin's LISTEN session ends by itself (a moment later).
    const ended = performance.now();
    await until(async () => (await listening(t.table)) === 0, 'the LISTEN session ended', WAIT_MS);
    console.log(
      `${driver.name}: LISTEN session gone ${(performance.now() - ended).toFixed(0)} ms after the wait ended`,
    );
  });

  test('R-LIFE-4 back-to-back Admin waits reuse one LISTEN session; admin.close() ends it while a wait is in progress, and that wait answers by its reads', async () => {
    const t = await table('awc');
    const { broker } = worker(t);
    const [first, second, third] = await broker.publishMany(t, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const a = new Admin(open(), { logger: silentLogger });
    // The sessions listening on the channel now (their last statement a LISTEN, not an UNLISTEN).
    const pids = async () =>
      (
        await admin.query(
          `SELECT pid FROM pg_stat_activity WHERE query ILIKE $1 AND pid <> pg_backend_pid()`,
          [`listen "${topicChannel(t.table, 'result')}"%`],
        )
      ).rows.map((r) => r.pid as number);
    // Two waits in turn: the second listens on the session the first opened.
    const one = a.waitResult(t, first, { timeout: NEVER, pollInterval: '200ms' });
    await until(async () => (await pids()).length === 1, 'the admin listening', WAIT_MS);
    const [pid] = await pids();
    await admin.query(
      `UPDATE ${t.table} SET processed_at = now(), result = '{"value":"by hand"}' WHERE id = $1`,
      [first],
    );
    expect(await one).toBe('by hand');
    await until(async () => (await pids()).length === 0, 'the first wait unlistened', WAIT_MS);
    const two = a.waitResult(t, second, { timeout: NEVER, pollInterval: '200ms' });
    await until(async () => (await pids()).length === 1, 'the second wait listening', WAIT_MS);
    expect(await pids()).toEqual([pid]);
    await admin.query(`UPDATE ${t.table} SET processed_at = now(), result = '{"value":2}' WHERE id = $1`, [
      second,
    ]);
    expect(await two).toBe(2);
    // A third wait in progress; close() stops its listening and ends the session now.
    await until(async () => (await pids()).length === 0, 'the second wait unlistened', WAIT_MS);
    const three = a.waitResult(t, third, { timeout: NEVER, pollInterval: '200ms' });
    await until(async () => (await pids()).length === 1, 'the third wait listening', WAIT_MS);
    const closing = performance.now();
    await a.close();
    await until(async () => (await listening(t.table)) === 0, 'the LISTEN session ended at close', WAIT_MS);
    console.log(
      `${driver.name}: LISTEN session gone ${(performance.now() - closing).toFixed(0)} ms after admin.close()`,
    );
    await broker.start();
    expect(await three).toEqual({ doubled: 6 });
    expect(await listening(t.table)).toBe(0);
  });

  test('R-LIFE-4 a process that runs no broker exits by itself once its Admin wait answered and it ended its pool (the admin never closed)', async () => {
    const t = await table('awp');
    const { broker } = worker(t);
    const id = await broker.publish(t, { n: 50 });
    const child = spawn(process.execPath, [resolve(here, 'examples', 'admin-wait.mjs')], {
      env: {
        ...process.env,
        SQLINBOX_PG_URL: URL,
        SQLINBOX_DRIVER: driver.name,
        SQLINBOX_EXAMPLE_TABLE: t.table,
        SQLINBOX_EXAMPLE_ROW: String(id),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    let code: number | null | undefined;
    child.on('exit', (c) => {
      code = c;
    });
    try {
      await until(async () => (await listening(t.table)) === 1, 'the child listening', WAIT_MS);
      await broker.start();
      await until(() => out.includes('pool ended'), 'the child answered and ended its pool', WAIT_MS);
      const ended = performance.now();
      // It exits by itself: its LISTEN connection ends a moment after the wait (5 s is ample).
      await until(() => code !== undefined, 'the child exited by itself', 5_000);
      console.log(
        `${driver.name}: child exited ${(performance.now() - ended).toFixed(0)} ms after ending its pool`,
      );
    } finally {
      if (code === undefined) child.kill('SIGKILL');
    }
    expect(out).toContain('answered {"doubled":100}');
    expect(code, out).toBe(0);
  });
});
