import { type Connection, ServerTooOldError } from '@sqlinbox/core';
import type pgModule from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import { postgresJs } from '../src/postgres.js';
import { adminClient, drivers, URL } from './support.js';

async function gone(admin: pgModule.Client, pid: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [
      Number(pid),
    ]);
    if (r.rows[0].n === 0) return;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`backend ${pid} still alive`);
}

describe.each(drivers)('pool and connections on $name', (driver) => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-ROW-4 Connection.id is the backend pid, stable for the connection', async () => {
    const opened = driver.open(3);
    try {
      const pool = opened.adapter.pool;
      const conn = await pool.acquire();
      const r = await conn.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(conn.id).toBe(String(r.rows[0]?.pid));
      pool.release(conn);
      const again = await pool.acquire();
      const r2 = await again.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(again.id).toBe(String(r2.rows[0]?.pid));
      pool.release(again);
    } finally {
      await opened.end();
    }
  });

  test('R-POOL-2 size is the pool max; spare counts idle plus room; tryAcquire answers null when nothing is spare', async () => {
    const opened = driver.open(2);
    try {
      const pool = opened.adapter.pool;
      expect(pool.size).toBe(2);
      expect(pool.spare()).toBe(2);
      const a = await pool.acquire();
      expect(pool.spare()).toBe(1);
      const b = await pool.tryAcquire();
      expect(b).not.toBeNull();
      expect(pool.spare()).toBe(0);
      expect(await pool.tryAcquire()).toBeNull();
      pool.release(a);
      expect(pool.spare()).toBe(1);
      pool.release(b!);
      expect(pool.spare()).toBe(2);
    } finally {
      await opened.end();
    }
  });

  test('R-ERR-2 pg_terminate_backend(Connection.id) makes the next statement fail, classified as connection; the pool recovers', async () => {
    const opened = driver.open(2);
    try {
      const pool = opened.adapter.pool;
      const conn = await pool.acquire();
      await admin.query('SELECT pg_terminate_backend($1)', [Number(conn.id)]);
      await gone(admin, conn.id);
      await new Promise((r) => setTimeout(r, 50));
      const err = await conn.query('SELECT 1').then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      expect(postgresDialect.classifyError(err)).toBe('connection');
      // A second statement fails the same way, and never reaches the server on another session.
      const err2 = await conn.query('SELECT 1').then(
        () => null,
        (e: unknown) => e,
      );
      expect(postgresDialect.classifyError(err2)).toBe('connection');
      await pool.destroy(conn);
      for (let i = 0; i < 3; i++) {
        const next = await pool.acquire();
        expect((await next.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
        pool.release(next);
      }
      expect(pool.spare()).toBe(2);
    } finally {
      await opened.end();
    }
  });

  test('R-CLUS-2 a connection whose statement met a read-only server (25006) is retired at its release, never lent again', async () => {
    const opened = driver.open(1);
    try {
      const pool = opened.adapter.pool;
      const conn = await pool.acquire();
      const pid = conn.id;
      // The session turned read-only, as every session of a demoted primary is.
      await conn.query('SET default_transaction_read_only = on');
      const err = await conn.query('CREATE TEMPORARY TABLE sqlinbox_read_only (x int)').then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as { code?: string }).code).toBe('25006');
      expect(postgresDialect.classifyError(err)).toBe('connection');
      pool.release(conn);
      await gone(admin, pid);
      const next = await pool.acquire();
      expect(next.id).not.toBe(pid);
      await next.query('CREATE TEMPORARY TABLE sqlinbox_read_only (x int)');
      await next.query('DROP TABLE sqlinbox_read_only');
      pool.release(next);
      expect(pool.spare()).toBe(1);
    } finally {
      await opened.end();
    }
  });

  test('R-ADV-6 R-TX-9 destroy closes the physical connection: the server ends its session, its locks and its transaction', async () => {
    const opened = driver.open(2);
    try {
      const pool = opened.adapter.pool;
      const conn = await pool.acquire();
      await conn.query('SELECT pg_advisory_lock(4242)');
      await conn.query('BEGIN');
      await conn.query('SELECT pg_advisory_xact_lock(4243)');
      const pid = conn.id;
      await pool.destroy(conn);
      await gone(admin, pid);
      const locks = await admin.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = $1`,
        [Number(pid)],
      );
      expect(locks.rows[0].n).toBe(0);
      expect(pool.spare()).toBe(2);
      const next = await pool.acquire();
      expect(next.id).not.toBe(pid);
      expect((await next.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(4242) AS ok')).rows[0]?.ok).toBe(
        true,
      );
      await next.query('SELECT pg_advisory_unlock(4242)');
      pool.release(next);
    } finally {
      await opened.end();
    }
  });

  test('R-DB-1 checkServer answers the version, and serverVersion 10.5 stops with ServerTooOldError naming found and floor', async () => {
    const real = driver.open(1);
    const old = driver.open(1, '10.5');
    try {
      const conn = await real.adapter.pool.acquire();
      const { version } = await real.adapter.dialect.checkServer(conn);
      expect(Number(version.split('.')[0])).toBeGreaterThanOrEqual(11);
      real.adapter.pool.release(conn);
      const oldConn = await old.adapter.pool.acquire();
      const err = await old.adapter.dialect.checkServer(oldConn).catch((e: unknown) => e);
      old.adapter.pool.release(oldConn);
      expect(err).toBeInstanceOf(ServerTooOldError);
      expect(err).toMatchObject({ code: 'SERVER_TOO_OLD', found: '10.5', floor: '11' });
      expect((err as Error).message).toMatch(/PostgreSQL 10\.5 is too old.*PostgreSQL 11/);
    } finally {
      await real.end();
      await old.end();
    }
  });
});

/**
 * postgres.js strands a reserve queued while a connection of the instance closes
 * (porsager/postgres#1195). The adapter queues its own waiters, hears each close and reserves
 * again, and watches each reserve; these tests end real backends with pg_terminate_backend while
 * an acquire waits.
 */
describe('postgres.js reservations around a terminated backend', () => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-ERR-2 an acquire waiting for a full pool gets a connection once a held one is terminated and handed back', async () => {
    const sql = postgres(URL, { max: 2, onnotice: () => {} });
    try {
      const { pool } = postgresJs(sql);
      const a = await pool.acquire();
      const b = await pool.acquire();
      let granted: Connection | undefined;
      const waiting = pool.acquire().then((c) => {
        granted = c;
        return c;
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(granted).toBeUndefined();
      await admin.query('SELECT pg_terminate_backend($1::int)', [a.id]);
      await gone(admin, a.id);
      await expect(a.query('SELECT 1')).rejects.toThrow();
      pool.release(a); // lost: not handed to postgres.js, its slot goes to the waiter
      // postgres.js 3.4.9 may fail the waiter's reserve, which the terminated connection's
      // reconnect takes, with that session's own error (57P01: the error response of the ended
      // session outlives its close and fails the next session's first request; seen about once in
      // ten runs on a loaded machine), and keeps that slot. The adapter hands the error on as a lost
      // connection (a claim then backs off and claims again), and the next acquire is served.
      const served = await waiting.catch((err: unknown) => {
        expect(['connection', 'shutdown']).toContain(postgresDialect.classifyError(err));
        return undefined;
      });
      pool.release(b);
      const c = served ?? (await pool.acquire());
      const r = await c.query<{ one: number }>('SELECT 1 AS one');
      expect(r.rows[0]?.one).toBe(1);
      expect(c.id).not.toBe(a.id);
      pool.release(c);
      expect(pool.spare()).toBe(2);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  test("R-ERR-2 a reserve stranded by postgres.js (the application holds every connection, one is terminated) is reserved again at the close and granted, well before the 3 s watchdog; the application's onclose still runs", async () => {
    const closes: number[] = [];
    const sql = postgres(URL, { max: 2, onnotice: () => {}, onclose: (id: number) => void closes.push(id) });
    try {
      const { pool } = postgresJs(sql);
      // The application reserves both connections itself, outside the adapter.
      const appA = await sql.reserve();
      const appB = await sql.reserve();
      const [row] = await appA`SELECT pg_backend_pid() AS pid`;
      const pid = String(row?.pid);
      const waiting = pool.acquire();
      await new Promise((r) => setTimeout(r, 50));
      // The server ends the connection the adapter's reserve waits behind: postgres.js hands the
      // queued reserve to the reconnect and drops it there; the adapter hears the close and
      // reserves again, and the reconnect grants that one.
      const terminated = performance.now();
      await admin.query('SELECT pg_terminate_backend($1::int)', [pid]);
      const c = await waiting;
      const grantedMs = performance.now() - terminated;
      const r = await c.query<{ one: number }>('SELECT 1 AS one');
      expect(r.rows[0]?.one).toBe(1);
      // A reconnect on loopback (tens of milliseconds); the watchdog alone took 3 s.
      expect(grantedMs).toBeLessThan(1_500);
      expect(closes).toHaveLength(1);
      pool.release(c);
      appB.release();
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
