import {
  type Adapter,
  Broker,
  type Connection,
  type EventMap,
  inbox,
  queue,
  StatementTimeoutError,
  silentLogger,
} from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminClient, createTable, drivers, NO_SERVER, uniqueName } from './support.js';

/** Resolves once `check()` holds, or rejects after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A statement of the engine's that hangs (here: a batched ack waiting for a row lock another
 * session holds) fails at the statement timeout, is reported, and its connection is closed, never
 * lent again; the other rows go on meanwhile.
 */
describe.skipIf(NO_SERVER).each(drivers)('statement timeout over $name', (driver) => {
  let admin: pgModule.Client;
  let locker: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
    locker = await adminClient();
  });
  afterAll(async () => {
    await locker.end();
    await admin.end();
  });

  test("R-CLUS-5 a settlement stuck behind another session's lock fails at the timeout, its connection retired; the workers go on", async () => {
    const t = inbox({
      table: uniqueName('stto'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      retryAfter: 'retry_after',
    });
    const drop = await createTable(admin, t);
    const opened = driver.open(4);
    // What the engine does with its connections, by id.
    const released: string[] = [];
    const destroyed: string[] = [];
    const lent: string[] = [];
    const pool = opened.adapter.pool;
    const { acquire, tryAcquire, release, destroy } = pool;
    pool.acquire = async () => {
      const c = await acquire.call(pool);
      lent.push(c.id);
      return c;
    };
    pool.tryAcquire = async () => {
      const c = await tryAcquire.call(pool);
      if (c !== null) lent.push(c.id);
      return c;
    };
    pool.release = (c: Connection) => {
      released.push(c.id);
      release.call(pool, c);
    };
    pool.destroy = async (c: Connection) => {
      destroyed.push(c.id);
      await destroy.call(pool, c);
    };
    const timeoutMs = 500;
    // The table is typed AnyTable (support's leaseTable): a broker of every form and level takes it.
    const broker = new Broker(opened.adapter as Adapter, {
      logger: silentLogger,
      lease: '1s',
      pollInterval: 50,
      statementTimeout: timeoutMs,
    });
    const timeouts: EventMap['statementTimeout'][] = [];
    // Where the release and lend records stood when the timeout was reported.
    let mark = { released: 0, lent: 0 };
    broker.on('statementTimeout', (e) => {
      timeouts.push(e);
      mark = { released: released.length, lent: lent.length };
    });
    let heldStarted!: () => void;
    const started = new Promise<void>((r) => (heldStarted = r));
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    const done = new Set<number>();
    try {
      broker.subscribe(queue(t).workers(2), async (m: { n: number }) => {
        if (m.n === 0 && !done.has(0)) {
          heldStarted();
          await gate;
        }
        done.add(m.n);
      });
      await broker.start();
      const first = Number(await broker.publish(t, { n: 0 }));
      await started;
      // Another session locks the row: the ack's statement waits for that lock.
      await locker.query('BEGIN');
      await locker.query(`SELECT id FROM ${t.table} WHERE id = $1 FOR UPDATE`, [first]);
      const letGoAt = Date.now();
      letGo();
      await until(() => timeouts.length > 0, 'the statement timeout');
      const reportedAfter = Date.now() - letGoAt;
      const ev = timeouts[0]!;
      // The ack, or the row's lease extension (one every half lease) when it reached the lock first:
      // on a loaded machine it sometimes did. Either is a statement of the engine's stuck behind it.
      expect(ev).toMatchObject({ table: t.table, timeoutMs });
      expect(['settle', 'extend']).toContain(ev.operation);
      expect(ev.error).toBeInstanceOf(StatementTimeoutError);
      expect((ev.error as StatementTimeoutError).code).toBe('STATEMENT_TIMEOUT');
      // Reported at the bound, not before it and not long after (the margin is for a loaded machine).
      // (An extension may have been sent just before the handler let go, so the floor is the ack's.)
      if (ev.operation === 'settle') expect(reportedAfter).toBeGreaterThanOrEqual(timeoutMs - 20);
      expect(reportedAfter).toBeLessThan(timeoutMs + 3_000);
      const hung = ev.connectionId;
      // Closed at once, never returned to the pool.
      await until(() => destroyed.includes(hung), 'the hung connection closed');
      expect(released.slice(mark.released)).not.toContain(hung);
      // The workers go on with other rows while the lock is still held.
      await broker.publishMany(
        t,
        Array.from({ length: 20 }, (_, i) => ({ n: i + 1 })),
      );
      await until(() => [...Array(20).keys()].every((i) => done.has(i + 1)), 'the other rows');
      expect(lent.slice(mark.lent)).not.toContain(hung);
      // The lock goes: the row is settled, by the stuck statement that then ran or by a claim
      // after its lease; the stuck session ends.
      await locker.query('ROLLBACK');
      await until(
        async () => Number((await admin.query(`SELECT count(*) AS n FROM ${t.table}`)).rows[0].n) === 0,
        'the table drained',
      );
      await until(
        async () =>
          (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1::int', [hung])).rowCount === 0,
        'the hung session ended',
      );
      expect(lent.slice(mark.lent)).not.toContain(hung);
      expect(released.slice(mark.released)).not.toContain(hung);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await broker.shutdown({ timeout: 1_000 });
      await opened.end();
      await drop();
    }
  });
});
