/**
 * The dialect against the real MariaDB 10.11, through both drivers. Every test creates its own
 * uniquely named tables (with the dialect's DDL) and drops them after.
 */
import type { AnyTable, Connection, Dialect, Pool, Row, TableOps } from '@sqlinbox/core';
import { inbox, ServerTooOldError } from '@sqlinbox/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lockNameOf } from '../src/statements.js';
import {
  createTables,
  DB,
  drivers,
  ids,
  type Opened,
  openAdmin,
  rowsOf,
  sleep,
  stillPending,
  uniqueName,
  within,
} from './helpers.js';

type Admin = Awaited<ReturnType<typeof openAdmin>>;

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const inTx = (c: Connection) => (c as unknown as { inTransaction(): boolean }).inTransaction();

describe.each(drivers)('$name', (driver) => {
  let opened: Opened;
  let admin: Admin;
  let dialect: Dialect;
  let pool: Pool;
  /** Whether the server is MariaDB (the GitHub workflow runs MySQL 8.4 too). */
  let mariadb = false;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    opened = await driver.open({ size: 8 });
    dialect = opened.adapter.dialect;
    pool = opened.adapter.pool;
    admin = await openAdmin();
    mariadb = /mariadb/i.test(String((await admin.q('SELECT VERSION() AS v'))[0]?.v));
  });
  afterAll(async () => {
    await opened.close();
    await admin.end();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** Creates the description's tables and schedules their drop. */
  async function make<T extends AnyTable>(t: T, deadLetterTable?: string): Promise<T> {
    cleanups.push(await createTables(admin, t, deadLetterTable));
    return t;
  }
  /** A connection from the pool under test, given back (or closed, if a test left it dirty) after the test. */
  async function conn(): Promise<Connection> {
    const c = await pool.acquire();
    cleanups.push(async () => {
      try {
        if (inTx(c)) await c.query('ROLLBACK');
        await c.query('SELECT RELEASE_ALL_LOCKS()');
        pool.release(c);
      } catch {
        await pool.destroy(c).catch(() => {});
      }
    });
    return c;
  }
  const leaseTable = (extra: Partial<Parameters<typeof inbox>[0]> = {}) =>
    inbox({
      table: uniqueName('lease'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      retryAfter: 'retry_after',
      ...(extra as object),
    } as never) as AnyTable;
  const rowTable = (extra: Partial<Parameters<typeof inbox>[0]> = {}) =>
    inbox({
      table: uniqueName('row'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      retryAfter: 'retry_after',
      ...(extra as object),
    } as never) as AnyTable;
  async function publish(ops: TableOps, n: number, extra: object = {}): Promise<unknown[]> {
    const c = await conn();
    return ops.insert(
      c,
      Array.from({ length: n }, (_, i) => ({ payload: JSON.stringify({ i }), ...extra })),
    );
  }

  // -------------------------------------------------------------------------------------------
  describe('server and session', () => {
    it('R-DB-1 checkServer reads VERSION() and passes MariaDB 10.11', async () => {
      const v = await dialect.checkServer(await conn());
      expect(v.version).toMatch(/^10\.11\..*MariaDB/);
    });

    it('R-CLUS-2 a connection whose statement met a read-only session or server is retired at its release, never lent again', async () => {
      const o = await driver.open({ size: 1 });
      try {
        const p = o.adapter.pool;
        const c = await p.acquire();
        const id = c.id;
        // Read-only as every session of a server turned read-only is (there 1290 or 1836 comes).
        await c.query('SET SESSION TRANSACTION READ ONLY');
        const err = await c.query('CREATE TEMPORARY TABLE sqlinbox_read_only (x int)').then(
          () => null,
          (e: unknown) => e,
        );
        expect((err as { errno?: number }).errno).toBe(1792);
        expect(o.adapter.dialect.classifyError(err)).toBe('connection');
        p.release(c);
        const next = await p.acquire();
        expect(next.id).not.toBe(id);
        await next.query('CREATE TEMPORARY TABLE sqlinbox_read_only (x int)');
        await next.query('DROP TEMPORARY TABLE sqlinbox_read_only');
        p.release(next);
        // The server ended the retired session.
        let left = 1;
        for (let i = 0; i < 500 && left > 0; i++) {
          const r = await admin.q('SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID = ?', [
            Number(id),
          ]);
          left = Number(r[0]?.n);
          if (left > 0) await sleep(10);
        }
        expect(left).toBe(0);
      } finally {
        await o.close();
      }
    });

    it('R-DB-1 ServerTooOldError for serverVersion 10.5.1-MariaDB and 8.0.0; 10.11.19-MariaDB and 8.0.36 pass', async () => {
      for (const [version, floor] of [
        ['10.5.1-MariaDB', '10.6'],
        ['8.0.0', '8.0.1'],
      ] as const) {
        const o = await driver.open({ size: 2, serverVersion: version });
        const c = await o.adapter.pool.acquire();
        try {
          const e = await o.adapter.dialect.checkServer(c).catch((x: unknown) => x);
          expect(e).toBeInstanceOf(ServerTooOldError);
          expect(e).toMatchObject({ found: version, floor });
        } finally {
          o.adapter.pool.release(c);
          await o.close();
        }
      }
      for (const version of ['10.11.19-MariaDB', '8.0.36']) {
        const o = await driver.open({ size: 2, serverVersion: version });
        const c = await o.adapter.pool.acquire();
        try {
          await expect(o.adapter.dialect.checkServer(c)).resolves.toEqual({ version });
        } finally {
          o.adapter.pool.release(c);
          await o.close();
        }
      }
    });

    it('Connection.id is CONNECTION_ID(), the session runs at time_zone +00:00, and KILL <id> makes the next query fail as connection', async () => {
      const c = await pool.acquire();
      const [r] = await rowsOf(c, 'SELECT CONNECTION_ID() AS `id`, @@session.time_zone AS `tz`');
      expect(String(r!.id)).toBe(c.id);
      expect(r!.tz).toBe('+00:00');
      await admin.q('KILL ?', [Number(c.id)]);
      await sleep(100);
      const e = await c.query('SELECT 1').catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect(dialect.classifyError(e)).toBe('connection');
      await pool.destroy(c);
    });

    it('classifyError on live errors: a duplicate key is constraint, a deadlock is deadlock', async () => {
      const t = await make(inbox({ table: uniqueName('err'), id: 'id', payload: 'payload' }) as AnyTable);
      const ops = dialect.prepare(t);
      const [a, b] = [await conn(), await conn()];
      await ops.insert(a, [
        { payload: '{}', columns: { id: 1 } },
        { payload: '{}', columns: { id: 2 } },
      ]);
      const dup = await ops.insert(a, [{ payload: '{}', columns: { id: 1 } }]).catch((x: unknown) => x);
      expect(dialect.classifyError(dup)).toBe('constraint');
      await dialect.begin(a, {});
      await dialect.begin(b, {});
      await a.query(`SELECT * FROM \`${t.table}\` WHERE id = 1 FOR UPDATE`);
      await b.query(`SELECT * FROM \`${t.table}\` WHERE id = 2 FOR UPDATE`);
      const first = a.query(`SELECT * FROM \`${t.table}\` WHERE id = 2 FOR UPDATE`).then(
        () => null,
        (x: unknown) => x,
      );
      await sleep(100);
      const second = await b.query(`SELECT * FROM \`${t.table}\` WHERE id = 1 FOR UPDATE`).then(
        () => null,
        (x: unknown) => x,
      );
      const errors = [await first, second].filter((x) => x !== null);
      expect(errors).toHaveLength(1);
      expect(dialect.classifyError(errors[0])).toBe('deadlock');
      await dialect.rollback(a);
      await dialect.rollback(b);
    });

    it('the same physical connection keeps its id across checkouts', async () => {
      const small = await driver.open({ size: 1 });
      try {
        const a = await small.adapter.pool.acquire();
        small.adapter.pool.release(a);
        const b = await small.adapter.pool.acquire();
        expect(b.id).toBe(a.id);
        const [r] = await rowsOf(b, 'SELECT CONNECTION_ID() AS `id`');
        expect(String(r!.id)).toBe(b.id);
        small.adapter.pool.release(b);
      } finally {
        await small.close();
      }
    });

    it('lease tokens round-trip exactly: DATETIME(3) in UTC, read back as the same Date', async () => {
      const t = await make(leaseTable());
      const ops = dialect.prepare(t);
      const c = await conn();
      const [id] = await ops.insert(c, [{ payload: '{}' }]);
      const now = new Date();
      const expiry = new Date(Date.UTC(2031, 5, 30, 23, 59, 59, 999));
      const [row] = await ops.claimLease(c, 1, now, expiry);
      expect((row!.locked_until as Date).getTime()).toBe(expiry.getTime());
      expect(row!.payload).toBe('{}'); // JSON comes back as its text, for the core to decode
      const [stored] = await admin.q(
        `SELECT CAST(locked_until AS CHAR) AS t FROM \`${t.table}\` WHERE id = ?`,
        [id],
      );
      expect(stored!.t).toBe('2031-06-30 23:59:59.999');
      expect(await ops.settle(c, { kind: 'finish', id, token: new Date(expiry.getTime()), now })).toBe(1);
    });

    it("Dates stay UTC whatever the pool's timezone and dateStrings options say", async () => {
      const t = await make(leaseTable());
      const skewed = await driver.open({ size: 2, poolOptions: { timezone: '+05:00', dateStrings: true } });
      try {
        const ops = dialect.prepare(t);
        const c = await skewed.adapter.pool.acquire();
        const notBefore = new Date(Date.UTC(2020, 0, 1, 0, 0, 0, 1));
        const [id] = await ops.insert(c, [{ payload: '{"a":1}', notBefore }]);
        const expiry = new Date(Date.UTC(2030, 11, 31, 22, 0, 0, 456));
        const [row] = await ops.claimLease(c, 1, new Date(), expiry);
        expect(row!.retry_after).toEqual(notBefore);
        expect(row!.locked_until).toEqual(expiry);
        const [stored] = await admin.q(
          `SELECT CAST(retry_after AS CHAR) AS r, CAST(locked_until AS CHAR) AS l FROM \`${t.table}\` WHERE id = ?`,
          [id],
        );
        expect(stored).toEqual({ r: '2020-01-01 00:00:00.001', l: '2030-12-31 22:00:00.456' });
        expect(await ops.settle(c, { kind: 'finish', id, token: expiry, now: new Date() })).toBe(1);
        skewed.adapter.pool.release(c);
      } finally {
        await skewed.close();
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('describeTable and ddl', () => {
    it('R-PLUS-2 ddl executes: queue table, claim and FIFO indexes, dead-letter table with the same columns', async () => {
      const name = uniqueName('ddl');
      const t = await make(
        inbox({
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          attempt: 'attempt',
          lease: 'locked_until',
          processedAt: 'processed_at',
          group: 'grp',
          partitionKey: 'pk',
          columns: ['tenant'],
        }) as AnyTable,
        `${name}_dlq`,
      );
      const idx = await admin.q(
        'SELECT INDEX_NAME AS n, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) AS c FROM information_schema.STATISTICS' +
          ' WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? GROUP BY INDEX_NAME ORDER BY INDEX_NAME',
        [t.table],
      );
      expect(idx).toEqual([
        { n: 'PRIMARY', c: 'id' },
        { n: 'sqlinbox_claim', c: 'processed_at,id' },
        { n: 'sqlinbox_fifo', c: 'grp,processed_at,id' },
      ]);
      const cols = async (tn: string) =>
        (
          await admin.q(
            'SELECT COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
            [tn],
          )
        ).map((r) => r.c);
      expect(await cols(`${name}_dlq`)).toEqual(await cols(name));
      const [engine] = await admin.q(
        'SELECT ENGINE AS e FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
        [name],
      );
      expect(engine!.e).toBe('InnoDB');
    });

    it('R-DESC-8 describeTable answers each column with its kind, and null for a missing table', async () => {
      const t = await make(
        inbox({
          table: uniqueName('desc'),
          id: { column: 'id', generated: true },
          payload: 'payload',
          attempt: 'attempt',
          lease: 'locked_until',
          group: 'grp',
        }) as AnyTable,
      );
      const c = await conn();
      const cols = await dialect.describeTable(c, t.table);
      const by = Object.fromEntries((cols ?? []).map((x) => [x.name, x]));
      expect(by.id).toMatchObject({ kind: 'integer', nullable: false, hasDefault: true });
      expect(by.payload).toMatchObject({ kind: 'json', nullable: false, hasDefault: false });
      expect(by.attempt).toMatchObject({ kind: 'integer', hasDefault: true });
      expect(by.locked_until).toMatchObject({ kind: 'timestamp', nullable: true, hasDefault: false });
      expect(by.grp).toMatchObject({ kind: 'text', nullable: true });
      expect(await dialect.describeTable(c, `${DB.database}.${t.table}`)).toEqual(cols);
      expect(await dialect.describeTable(c, uniqueName('missing'))).toBeNull();
      const bytes = await make(
        inbox({
          table: uniqueName('descb'),
          id: 'id',
          payload: { column: 'body', type: 'bytes' },
        }) as AnyTable,
      );
      const b = await dialect.describeTable(c, bytes.table);
      expect(b?.find((x) => x.name === 'body')?.kind).toBe('bytes');
      expect(b?.find((x) => x.name === 'id')?.hasDefault).toBe(false);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('transactions', () => {
    // information_schema.INNODB_TRX is a cache InnoDB refreshes at most every 100 ms.
    const level = async (c: Connection) => {
      await sleep(150);
      const rows = await admin.q(
        'SELECT trx_isolation_level AS l FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ?',
        [Number(c.id)],
      );
      return rows[0]?.l;
    };

    it('R-ROW-5 R-TX-6 begin opens READ COMMITTED unless the table declares a level; all four levels open', async () => {
      const t = await make(rowTable());
      const ops = dialect.prepare(t);
      await publish(ops, 1);
      const c = await conn();
      await dialect.begin(c, {});
      await ops.claimLocked(c, 1, new Date());
      expect(await level(c)).toBe('READ COMMITTED');
      await dialect.rollback(c);
      for (const [iso, name] of [
        ['read_uncommitted', 'READ UNCOMMITTED'],
        ['read_committed', 'READ COMMITTED'],
        ['repeatable_read', 'REPEATABLE READ'],
        ['serializable', 'SERIALIZABLE'],
      ] as const) {
        await dialect.begin(c, { isolation: iso });
        await ops.claimLocked(c, 1, new Date());
        expect(await level(c)).toBe(name);
        await dialect.rollback(c);
      }
      expect(dialect.capabilities.isolationLevels).toEqual([
        'read_uncommitted',
        'read_committed',
        'repeatable_read',
        'serializable',
      ]);
      expect(dialect.capabilities.oneLeaseClaimAtATime).toBe(true);
    });

    it('R-ROW-5 an insert is not blocked by a held claim at READ COMMITTED (and is at REPEATABLE READ)', async () => {
      const t = await make(rowTable());
      const ops = dialect.prepare(t);
      await publish(ops, 3);
      const claimer = await conn();
      const writer = await conn();
      await writer.query('SET SESSION innodb_lock_wait_timeout = 1');
      await dialect.begin(claimer, {});
      expect(await ops.claimLocked(claimer, 10, new Date())).toHaveLength(3);
      await within(3000, ops.insert(writer, [{ payload: '{}' }]), 'insert beside a READ COMMITTED claim');
      await dialect.rollback(claimer);

      await dialect.begin(claimer, { isolation: 'repeatable_read' });
      expect(await ops.claimLocked(claimer, 10, new Date())).toHaveLength(4);
      const e = await ops.insert(writer, [{ payload: '{}' }]).catch((x: unknown) => x);
      expect(dialect.classifyError(e)).toBe('lock_timeout');
      await dialect.rollback(claimer);
    });

    it('R-TX-3 savepoint and rollback to savepoint keep the claim and undo later writes', async () => {
      const t = await make(rowTable());
      const ops = dialect.prepare(t);
      const [id] = await publish(ops, 1);
      const c = await conn();
      await dialect.begin(c, {});
      await ops.claimLocked(c, 1, new Date());
      await dialect.savepoint(c, 'sqlinbox_claim');
      await c.query(`UPDATE \`${t.table}\` SET payload = '{"x":1}' WHERE id = ?`, [id]);
      await dialect.rollbackToSavepoint(c, 'sqlinbox_claim');
      expect(
        await ops.settle(c, { kind: 'return', id, now: new Date(), countAttempt: true, clearLease: false }),
      ).toBe(1);
      await dialect.commit(c);
      expect(inTx(c)).toBe(false);
      const [r] = await admin.q(`SELECT payload, attempt FROM \`${t.table}\` WHERE id = ?`, [id]);
      expect(r).toMatchObject({ payload: '{"i":0}', attempt: 1 });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('row lock form', () => {
    it('R-ROW-1 a concurrent claim skips locked rows without waiting', async () => {
      const t = await make(rowTable());
      const ops = dialect.prepare(t);
      const all = await publish(ops, 5);
      const a = await conn();
      const b = await conn();
      await b.query('SET SESSION innodb_lock_wait_timeout = 5');
      await dialect.begin(a, {});
      expect(ids(await ops.claimLocked(a, 2, new Date()))).toEqual(all.slice(0, 2).map(String));
      await dialect.begin(b, {});
      const second = await within(1000, ops.claimLocked(b, 5, new Date()), 'second claim');
      expect(ids(second)).toEqual(all.slice(2).map(String));
      await dialect.rollback(a);
      await dialect.rollback(b);
    });

    it('claimLocked leaves out rows not due: retry_after in the future, and on the database clock', async () => {
      const t = await make(rowTable({ processedAt: 'processed_at' } as never));
      const ops = dialect.prepare(t);
      const c = await conn();
      const now = new Date();
      const [due, later, done] = await ops.insert(c, [
        { payload: '{}', notBefore: at(now, -1000) },
        { payload: '{}', notBefore: at(now, 3_600_000) },
        { payload: '{}' },
      ]);
      await admin.q(`UPDATE \`${t.table}\` SET processed_at = UTC_TIMESTAMP(3) WHERE id = ?`, [done]);
      for (const clock of [now, null]) {
        await dialect.begin(c, {});
        expect(ids(await ops.claimLocked(c, 10, clock))).toEqual([String(due)]);
        await dialect.rollback(c);
      }
      expect(later).toBeDefined();
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('lease form', () => {
    it('R-LEASE-1 R-LEASE-3 claimLease counts the attempt, writes the token, commits, and the token fences settle', async () => {
      const t = await make(leaseTable());
      const ops = dialect.prepare(t);
      const [id1, id2, id3] = await publish(ops, 3);
      const c = await conn();
      const now = new Date();
      const expiry = at(now, 30_123);
      const rows = await ops.claimLease(c, 2, now, expiry);
      expect(ids(rows)).toEqual([String(id1), String(id2)]);
      for (const r of rows) {
        expect(Number(r.attempt)).toBe(1);
        expect((r.locked_until as Date).getTime()).toBe(expiry.getTime());
      }
      expect(inTx(c)).toBe(false);
      const seen = await admin.q(`SELECT id, attempt, locked_until FROM \`${t.table}\` ORDER BY id`);
      expect(
        seen.map((r) => [Number(r.attempt), (r.locked_until as Date | null)?.getTime() ?? null]),
      ).toEqual([
        [1, expiry.getTime()],
        [1, expiry.getTime()],
        [0, null],
      ]);
      // Leased rows are not claimable before their lease ends.
      expect(ids(await ops.claimLease(c, 5, now, expiry))).toEqual([String(id3)]);
      // After it ends, the next claim takes them with a new token and one more attempt.
      const later = at(expiry, 1);
      const expiry2 = at(later, 30_000);
      const again = await ops.claimLease(c, 2, later, expiry2);
      expect(ids(again)).toEqual([String(id1), String(id2)]);
      expect(again.map((r) => Number(r.attempt))).toEqual([2, 2]);
      // The first claim's token no longer settles (R-LEASE-3, R-LEASE-6); the second's does.
      expect(await ops.settle(c, { kind: 'finish', id: id1, token: expiry, now: later })).toBe(0);
      expect(await ops.settle(c, { kind: 'finish', id: id1, token: expiry2, now: later })).toBe(1);
      expect(await ops.claimLease(c, 5, now, expiry)).toEqual([]);
      expect(inTx(c)).toBe(false);
    });

    it('R-LEASE-4 extendLeases moves only the leases that still hold their token', async () => {
      const t = await make(leaseTable());
      const ops = dialect.prepare(t);
      const [id1, id2] = await publish(ops, 2);
      const c = await conn();
      const now = new Date();
      const e1 = at(now, 10_000);
      await ops.claimLease(c, 2, now, e1);
      const e2 = at(now, 20_000);
      expect(
        (
          await ops.extendLeases(
            c,
            [
              { id: id1, token: e1 },
              { id: id2, token: at(e1, 1) },
            ],
            e2,
          )
        ).map(String),
      ).toEqual([String(id1)]);
      const seen = await admin.q(`SELECT locked_until FROM \`${t.table}\` ORDER BY id`);
      expect(seen.map((r) => (r.locked_until as Date).getTime())).toEqual([e2.getTime(), e1.getTime()]);
      const e3 = at(now, 30_000);
      expect(
        (
          await ops.extendLeases(
            c,
            [
              { id: id1, token: e2 },
              { id: id2, token: e1 },
            ],
            e3,
          )
        ).map(String),
      ).toEqual([String(id1), String(id2)]);
      expect(await ops.extendLeases(c, [{ id: id1, token: e1 }], e3)).toEqual([]);
      expect(await ops.extendLeases(c, [], e3)).toEqual([]);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('settlements', () => {
    it('R-SET-1 finish deletes the row; with processed_at it stamps it and clears the lease', async () => {
      const del = await make(leaseTable());
      const stamp = await make(leaseTable({ processedAt: 'processed_at' } as never));
      const c = await conn();
      const now = new Date();
      const exp = at(now, 60_000);
      for (const t of [del, stamp]) {
        const ops = dialect.prepare(t);
        const [id] = await ops.insert(c, [{ payload: '{}' }]);
        await ops.claimLease(c, 1, now, exp);
        expect(await ops.settle(c, { kind: 'finish', id, token: exp, now })).toBe(1);
        const rows = await admin.q(`SELECT * FROM \`${t.table}\``);
        if (t === del) expect(rows).toEqual([]);
        else {
          expect(rows).toHaveLength(1);
          expect((rows[0]!.processed_at as Date).getTime()).toBe(now.getTime());
          expect(rows[0]!.locked_until).toBeNull();
          expect(await ops.claimLease(c, 1, at(exp, 1), at(exp, 60_000))).toEqual([]);
        }
      }
    });

    it('R-SET-1 return counts the attempt, sets retry_after and clears the lease, each as asked; a lost token changes nothing', async () => {
      const t = await make(leaseTable());
      const ops = dialect.prepare(t);
      const [id] = await publish(ops, 1);
      const c = await conn();
      const now = new Date();
      const exp = at(now, 60_000);
      await ops.claimLease(c, 1, now, exp);
      const retryAfter = at(now, 5_555);
      const lost = {
        kind: 'return',
        id,
        token: at(exp, -1),
        now,
        countAttempt: true,
        retryAfter,
        clearLease: true,
      } as const;
      expect(await ops.settle(c, lost)).toBe(0);
      expect(
        await ops.settle(c, {
          ...lost,
          token: exp,
          countAttempt: false,
          retryAfter: undefined,
          clearLease: false,
        }),
      ).toBe(1);
      expect(await ops.settle(c, { ...lost, token: exp })).toBe(1);
      const [r] = await admin.q(`SELECT attempt, retry_after, locked_until FROM \`${t.table}\``);
      expect(Number(r!.attempt)).toBe(2); // 0 + claim + return
      expect((r!.retry_after as Date).getTime()).toBe(retryAfter.getTime());
      expect(r!.locked_until).toBeNull();
    });

    it('R-DLQ-2 dead letter as a group: one update of the group, lease cleared; claims skip the group', async () => {
      const t = await make(leaseTable({ group: 'grp' } as never));
      const ops = dialect.prepare(t, { deadLetter: { group: 'dead' } });
      const c = await conn();
      const [id1, id2] = await ops.insert(c, [
        { payload: '{}', group: 'g' },
        { payload: '{}', group: 'h' },
      ]);
      const now = new Date();
      const exp = at(now, 60_000);
      expect(ids(await ops.claimLease(c, 1, now, exp))).toEqual([String(id1)]);
      const s = {
        kind: 'deadLetter',
        id: id1,
        token: exp,
        now,
        target: { group: 'dead' },
        inTransaction: false,
      } as const;
      expect(await ops.settle(c, { ...s, token: at(exp, 1) })).toBe(0);
      expect(await ops.settle(c, s)).toBe(1);
      const [r] = await admin.q(`SELECT grp, locked_until FROM \`${t.table}\` WHERE id = ?`, [id1]);
      expect(r).toEqual({ grp: 'dead', locked_until: null });
      expect(ids(await ops.claimLease(c, 5, at(exp, 1), at(exp, 60_000)))).toEqual([String(id2)]);
      expect((await ops.stats(c, at(exp, 2))).dead).toBe(1);
    });

    it('R-DLQ-2 dead letter as a table: copy then delete in one transaction; a lost token moves nothing', async () => {
      const name = uniqueName('dlt');
      const t = await make(leaseTable({ table: name } as never), `${name}_dead`);
      const target = { table: `${name}_dead` };
      const ops = dialect.prepare(t, { deadLetter: target });
      const [id] = await publish(ops, 1);
      const c = await conn();
      const now = new Date();
      const exp = at(now, 60_000);
      await ops.claimLease(c, 1, now, exp);
      const s = { kind: 'deadLetter', id, token: exp, now, target, inTransaction: false } as const;
      expect(await ops.settle(c, { ...s, token: at(exp, 7) })).toBe(0);
      expect(inTx(c)).toBe(false);
      expect(await admin.q(`SELECT id FROM \`${name}_dead\``)).toEqual([]);
      expect(await ops.settle(c, s)).toBe(1);
      expect(inTx(c)).toBe(false);
      expect(await admin.q(`SELECT id FROM \`${name}\``)).toEqual([]);
      const moved = await admin.q(`SELECT id, payload, attempt, locked_until FROM \`${name}_dead\``);
      expect(moved.map((r) => [String(r.id), r.payload, Number(r.attempt), r.locked_until])).toEqual([
        [String(id), '{"i":0}', 1, null],
      ]);
      expect((await ops.stats(c, now)).dead).toBe(1);
    });

    it('R-DLQ-2 dead letter as a table inside an open transaction runs in that transaction', async () => {
      const name = uniqueName('dltx');
      const t = await make(rowTable({ table: name } as never), `${name}_dead`);
      const target = { table: `${name}_dead` };
      const ops = dialect.prepare(t, { deadLetter: target });
      const [id] = await publish(ops, 1);
      const c = await conn();
      await dialect.begin(c, {});
      await ops.claimLocked(c, 1, new Date());
      expect(
        await ops.settle(c, { kind: 'deadLetter', id, now: new Date(), target, inTransaction: true }),
      ).toBe(1);
      expect(inTx(c)).toBe(true);
      await dialect.rollback(c);
      expect(await admin.q(`SELECT id FROM \`${name}_dead\``)).toEqual([]);
      expect(await admin.q(`SELECT id FROM \`${name}\``)).toHaveLength(1);
    });

    for (const processedAt of [false, true])
      it(`R-SET-1 R-LEASE-3 a batched ack${processedAt ? ' that stamps processed_at: a transaction, its rows read under lock' : ' that deletes: on MariaDB one statement (DELETE .. RETURNING)'}, answering the rows that held their tokens; a lost token's row stays`, async () => {
        const t = await make(leaseTable(processedAt ? ({ processedAt: 'processed_at' } as never) : {}));
        const ops = dialect.prepare(t);
        const [a, b, d] = await publish(ops, 3);
        const c = await conn();
        const now = new Date();
        const exp = at(now, 60_000);
        expect(ids(await ops.claimLease(c, 3, now, exp))).toEqual([a, b, d].map(String));
        // The statements the ack sends, as the session receives them.
        const sent: string[] = [];
        const recording = new Proxy(c, {
          get(target, key) {
            const v = Reflect.get(target, key, target) as unknown;
            if (key === 'query')
              return (sql: string, params?: readonly unknown[]) => {
                sent.push(sql.trim().split(/\s+/)[0]!.toUpperCase());
                return target.query(sql, params);
              };
            return typeof v === 'function' ? v.bind(target) : v;
          },
        });
        const finish = (id: unknown, token: Date) => ({ kind: 'finish', id, token, now }) as const;
        // The first batch on a session reads which server it is, once.
        const settle = async (batch: ReturnType<typeof finish>[]) =>
          (await ops.batch!.settleMany(recording, batch)).map(String);
        expect(await settle([finish(a, exp), finish(b, at(exp, 1))])).toEqual([String(a)]);
        sent.length = 0;
        expect(await settle([finish(b, at(exp, 1)), finish(d, exp)])).toEqual([String(d)]);
        expect(inTx(c)).toBe(false);
        if (processedAt) {
          expect(sent).toEqual(['SET', 'START', 'SELECT', 'UPDATE', 'COMMIT']);
          const rows = await admin.q(
            `SELECT id, processed_at IS NOT NULL AS done, locked_until FROM \`${t.table}\` ORDER BY id`,
          );
          expect(rows.map((r) => [String(r.id), Number(r.done), r.locked_until])).toEqual([
            [String(a), 1, null],
            [String(b), 0, expect.anything()],
            [String(d), 1, null],
          ]);
        } else {
          expect(sent).toEqual(mariadb ? ['DELETE'] : ['SET', 'START', 'SELECT', 'DELETE', 'COMMIT']);
          expect((await admin.q(`SELECT id FROM \`${t.table}\``)).map((r) => String(r.id))).toEqual([
            String(b),
          ]);
        }
      });
  });

  // -------------------------------------------------------------------------------------------
  describe('insert and stats', () => {
    it('R-PUB-1 insert writes payload, group, partition key, notBefore, attempt 0 and extra columns; ids in order', async () => {
      const t = await make(
        rowTable({
          group: 'grp',
          partitionKey: 'pk',
          columns: ['tenant'],
          processedAt: 'processed_at',
        } as never),
      );
      const ops = dialect.prepare(t);
      const c = await conn();
      const nb = new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
      const got = await ops.insert(c, [
        { payload: '{"a":1}', group: 'g1', partitionKey: 'p1', notBefore: nb, columns: { tenant: 't1' } },
        { payload: '{"a":2}' },
        { payload: '"text"', group: 'g2' },
      ]);
      const rows = await admin.q(`SELECT * FROM \`${t.table}\` ORDER BY id`);
      expect(got.map(String)).toEqual(rows.map((r) => String(r.id)));
      expect(Number(got[1]) - Number(got[0])).toBe(1);
      expect(rows.map((r) => [r.payload, r.attempt, r.grp, r.pk, r.tenant])).toEqual([
        ['{"a":1}', 0, 'g1', 'p1', 't1'],
        ['{"a":2}', 0, null, null, null],
        ['"text"', 0, 'g2', null, null],
      ]);
      expect((rows[0]!.retry_after as Date).getTime()).toBe(nb.getTime());
      expect(await ops.insert(c, [])).toEqual([]);
    });

    it('insert takes the id from columns when it is not generated; bytes payloads round-trip', async () => {
      const t = await make(
        inbox({ table: uniqueName('ins'), id: 'id', payload: { column: 'body', type: 'bytes' } }) as AnyTable,
      );
      const ops = dialect.prepare(t);
      const c = await conn();
      const bytes = new Uint8Array([0, 1, 2, 255]);
      expect(
        await ops.insert(c, [
          { payload: Buffer.from('hi'), columns: { id: 41 } },
          { payload: bytes, columns: { id: 42 } },
        ]),
      ).toEqual([41, 42]);
      const rows = await rowsOf(c, `SELECT * FROM \`${t.table}\` ORDER BY id`);
      expect(Buffer.isBuffer(rows[0]!.body)).toBe(true);
      expect([...(rows[1]!.body as Buffer)]).toEqual([0, 1, 2, 255]);
    });

    it('insert under innodb_autoinc_lock_mode 2 inserts one by one; without insertId it asks LAST_INSERT_ID()', async () => {
      const t = await make(rowTable());
      const ops = dialect.prepare(t);
      const real = await conn();
      const inserts: string[] = [];
      const fake = (mode: number, dropInsertId: boolean): Connection => ({
        id: real.id,
        async query<R = Row>(sql: string, params?: readonly unknown[]) {
          if (sql.includes('@@innodb_autoinc_lock_mode'))
            return { rows: [{ mode, step: 1 } as R], rowCount: 1 };
          if (sql.startsWith('INSERT')) inserts.push(sql);
          const r = await real.query<R>(sql, params);
          return dropInsertId ? { rows: r.rows, rowCount: r.rowCount } : r;
        },
      });
      const a = await ops.insert(fake(2, false), [{ payload: '{}' }, { payload: '{}' }, { payload: '{}' }]);
      expect(inserts).toHaveLength(3);
      const b = await ops.insert(fake(1, true), [{ payload: '{}' }, { payload: '{}' }]);
      expect(inserts).toHaveLength(4);
      const rows = await admin.q(`SELECT id FROM \`${t.table}\` ORDER BY id`);
      expect([...a, ...b].map(String)).toEqual(ids(rows));
      const [server] = await admin.q('SELECT @@innodb_autoinc_lock_mode AS m');
      expect(Number(server!.m)).toBeLessThan(2); // this server takes the one-statement path
    });

    it('R-PLUS-3 stats counts ready, delayed, in work and dead', async () => {
      const t = await make(leaseTable({ group: 'grp', processedAt: 'processed_at' } as never));
      const ops = dialect.prepare(t, { deadLetter: { group: 'dead' } });
      const c = await conn();
      const now = new Date();
      const [, , , , done] = await ops.insert(c, [
        { payload: '{}' },
        { payload: '{}' },
        { payload: '{}', notBefore: at(now, 60_000) },
        { payload: '{}', group: 'dead' },
        { payload: '{}' },
        { payload: '{}' },
      ]);
      await admin.q(`UPDATE \`${t.table}\` SET processed_at = UTC_TIMESTAMP(3) WHERE id = ?`, [done]);
      await ops.claimLease(c, 1, now, at(now, 30_000));
      expect(await ops.stats(c, now)).toEqual({ ready: 2, delayed: 1, inWork: 1, dead: 1 });
      expect(await ops.stats(c, at(now, 120_000))).toEqual({ ready: 4, delayed: 0, inWork: 0, dead: 1 });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('FIFO', () => {
    async function fifoRows(t: AnyTable): Promise<Record<string, unknown>> {
      // ids 1..7: 1 g1 processed, 2 g1, 3 g1, 4 g2, 5 no group, 6 no group, 7 g2
      const groups = ['g1', 'g1', 'g1', 'g2', null, null, 'g2'];
      for (const [i, g] of groups.entries()) {
        await admin.q(`INSERT INTO \`${t.table}\` (id, payload, grp) VALUES (?, '{}', ?)`, [i + 1, g]);
      }
      await admin.q(`UPDATE \`${t.table}\` SET processed_at = UTC_TIMESTAMP(3) WHERE id = 1`);
      return {};
    }

    it('R-FIFO-1 row lock claims take group heads only, and nothing of a group while its head is in work', async () => {
      const t = await make(rowTable({ group: 'grp', processedAt: 'processed_at' } as never));
      await fifoRows(t);
      const ops = dialect.prepare(t);
      const [a, b, d] = [await conn(), await conn(), await conn()];
      await dialect.begin(a, {});
      expect(ids(await ops.claimLocked(a, 1, new Date()))).toEqual(['2']);
      await dialect.begin(b, {});
      expect(ids(await ops.claimLocked(b, 10, new Date()))).toEqual(['4', '5', '6']);
      expect(await ops.settle(a, { kind: 'finish', id: 2, now: new Date() })).toBe(1);
      await dialect.commit(a);
      await dialect.begin(d, {});
      expect(ids(await ops.claimLocked(d, 10, new Date()))).toEqual(['3']);
      await dialect.rollback(b);
      await dialect.rollback(d);
      // Advisory candidates read heads the same way.
      const adv = dialect.prepare({
        ...t,
        form: 'advisory',
        key: [{ literal: 'f-' }, { column: 'id' }],
      } as AnyTable);
      expect((await adv.advisory.candidates(d, 10, new Date(), new Set())).map((x) => x.key)).toEqual([
        'f-3',
        'f-4',
        'f-5',
        'f-6',
      ]);
    });

    it('R-FIFO-1 lease claims take heads; a dead-lettered head makes way for the next row', async () => {
      const t = await make(leaseTable({ group: 'grp', processedAt: 'processed_at' } as never));
      await fifoRows(t);
      const ops = dialect.prepare(t, { deadLetter: { group: 'dead' } });
      const c = await conn();
      const now = new Date();
      const exp = at(now, 60_000);
      expect(ids(await ops.claimLease(c, 10, now, exp))).toEqual(['2', '4', '5', '6']);
      expect(await ops.claimLease(c, 10, now, exp)).toEqual([]);
      const s = {
        kind: 'deadLetter',
        id: 2,
        token: exp,
        now,
        target: { group: 'dead' },
        inTransaction: false,
      } as const;
      expect(await ops.settle(c, s)).toBe(1);
      expect(ids(await ops.claimLease(c, 10, now, exp))).toEqual(['3']);
    });

    it('R-FIFO-2 the guard waits for an uncommitted lower row of the group and then passes over the claimed row', async () => {
      for (const form of ['rowlock', 'lease'] as const) {
        const t = await make(
          form === 'lease' ? leaseTable({ group: 'grp' } as never) : rowTable({ group: 'grp' } as never),
        );
        const ops = dialect.prepare(t);
        await admin.q(
          `INSERT INTO \`${t.table}\` (id, payload, grp) VALUES (10, '{}', 'g'), (20, '{}', 'h')`,
        );
        const writer = await conn();
        await writer.query('START TRANSACTION');
        await writer.query(`INSERT INTO \`${t.table}\` (id, payload, grp) VALUES (5, '{}', 'g')`);
        const c = await conn();
        await c.query('SET SESSION innodb_lock_wait_timeout = 20');
        const now = new Date();
        let claim: Promise<Row[]>;
        if (form === 'rowlock') {
          await dialect.begin(c, {});
          claim = ops.claimLocked(c, 10, now);
        } else {
          claim = ops.claimLease(c, 10, now, at(now, 60_000));
        }
        expect(await stillPending(claim, 400)).toBe(true);
        await writer.query('COMMIT');
        expect(ids(await within(5000, claim, 'guarded claim'))).toEqual(['20']);
        if (form === 'rowlock') await dialect.rollback(c);
      }
    });

    it('R-FIFO-2 R-ROW-1 the guard reads its group in the group index; a table without one is warned about once', async () => {
      for (const withIndex of [true, false]) {
        const t = await make(rowTable({ group: 'grp', processedAt: 'processed_at' } as never));
        if (!withIndex) await admin.q(`DROP INDEX \`sqlinbox_fifo\` ON \`${t.table}\``);
        await fifoRows(t);
        const ops = dialect.prepare(t) as TableOps & { sql: { fifo: { fifoIndex?: string | null } } };
        const warned: string[] = [];
        const onWarning = (w: Error & { code?: string }) => void warned.push(String(w.code));
        process.on('warning', onWarning);
        const c = await conn();
        for (let i = 0; i < 2; i++) {
          await dialect.begin(c, {});
          expect(ids(await ops.claimLocked(c, 10, new Date()))).toEqual(['2', '4', '5', '6']);
          await dialect.rollback(c);
        }
        await sleep(10);
        process.off('warning', onWarning);
        expect(ops.sql.fifo.fifoIndex).toBe(withIndex ? 'sqlinbox_fifo' : null);
        expect(warned.filter((w) => w === 'SQLINBOX_NO_FIFO_INDEX')).toHaveLength(withIndex ? 0 : 1);
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('advisory form', () => {
    const advTable = (template: string, extra: object = {}) =>
      inbox({
        table: uniqueName('adv'),
        id: { column: 'id', generated: true },
        payload: 'payload',
        attempt: 'attempt',
        retryAfter: 'retry_after',
        processedAt: 'processed_at',
        advisory: template,
        ...extra,
      } as never) as AnyTable;

    it('R-ADV-1 R-ADV-4 GET_LOCK on `<database>.<key>` without waiting; RELEASE_LOCK answers whether this session held it', async () => {
      const t = await make(advTable('jobs-{id}'));
      const ops = dialect.prepare(t);
      const [a, b] = [await conn(), await conn()];
      expect(await ops.advisory.lock(a, 'jobs-7')).toBe(true);
      const [held] = await admin.q('SELECT IS_USED_LOCK(?) AS h', [`${DB.database}.jobs-7`]);
      expect(String(held!.h)).toBe(a.id);
      expect(await within(1000, ops.advisory.lock(b, 'jobs-7'), 'lock without waiting')).toBe(false);
      expect(await ops.advisory.unlock(b, 'jobs-7')).toBe(false);
      expect(await ops.advisory.unlock(a, 'jobs-7')).toBe(true);
      expect(await ops.advisory.unlock(a, 'jobs-7')).toBe(false);
      expect(await ops.advisory.lock(b, 'jobs-7')).toBe(true);
      expect(await ops.advisory.unlock(b, 'jobs-7')).toBe(true);
      // A qualified table names its own database, in lower case.
      const q = dialect.prepare({ ...t, table: `${DB.database}.${t.table}` });
      expect(await q.advisory.lock(a, 'jobs-8')).toBe(true);
      expect(String((await admin.q('SELECT IS_USED_LOCK(?) AS h', [`${DB.database}.jobs-8`]))[0]!.h)).toBe(
        a.id,
      );
      expect(await q.advisory.unlock(a, 'jobs-8')).toBe(true);
    });

    it('R-ADV-4 a name over 64 characters is locked by its SHA-256', async () => {
      const t = await make(advTable('jobs-{id}'));
      const ops = dialect.prepare(t);
      const c = await conn();
      const key = `jobs-${'x'.repeat(70)}`;
      expect(await ops.advisory.lock(c, key)).toBe(true);
      const name = lockNameOf(DB.database, key);
      expect(name).toMatch(/^[0-9a-f]{64}$/);
      const [r] = await admin.q('SELECT IS_USED_LOCK(?) AS h, SHA2(CONCAT(?, ?), 256) AS s', [
        name,
        `${DB.database}.`,
        key,
      ]);
      expect(String(r!.h)).toBe(c.id);
      expect(r!.s).toBe(name);
      expect(await ops.advisory.unlock(c, key)).toBe(true);
      // 64 characters exactly is locked by its own name.
      const k64 = 'k'.repeat(64 - `${DB.database}.`.length);
      expect(await ops.advisory.lock(c, k64)).toBe(true);
      expect(String((await admin.q('SELECT IS_USED_LOCK(?) AS h', [`${DB.database}.${k64}`]))[0]!.h)).toBe(
        c.id,
      );
      expect(await ops.advisory.unlock(c, k64)).toBe(true);
    });

    it('R-ADV-4 a key belongs to the database: two tables with matching keys wait for each other; a table-name prefix keeps them apart', async () => {
      const t1 = await make(advTable('jobs-{id}'));
      const t2 = await make(advTable('jobs-{id}'));
      const [a, b] = [await conn(), await conn()];
      const o1 = dialect.prepare(t1);
      const o2 = dialect.prepare(t2);
      expect(await o1.advisory.lock(a, 'jobs-1')).toBe(true);
      expect(await o2.advisory.lock(b, 'jobs-1')).toBe(false);
      expect(await o1.advisory.lock(a, `${t1.table}-1`)).toBe(true);
      expect(await o2.advisory.lock(b, `${t2.table}-1`)).toBe(true);
      for (const [o, c, k] of [
        [o1, a, 'jobs-1'],
        [o1, a, `${t1.table}-1`],
        [o2, b, `${t2.table}-1`],
      ] as const) {
        expect(await o.advisory.unlock(c, k)).toBe(true);
      }
    });

    it('R-ADV-1 candidates: due rows in id order with keys rendered in SQL, leaving out own keys and names in use', async () => {
      const t = await make(advTable('acct-{account}:{id}', { columns: ['account'] }));
      const ops = dialect.prepare(t);
      const c = await conn();
      const other = await conn();
      const now = new Date();
      const [i1, i2, i3, i4, i5, i6] = await ops.insert(c, [
        { payload: '{}', columns: { account: 'a' } },
        { payload: '{}', columns: { account: 'b' } },
        { payload: '{}', columns: { account: null } },
        { payload: '{}', columns: { account: 'c' } },
        { payload: '{}', columns: { account: 'd' }, notBefore: at(now, 60_000) },
        { payload: '{}', columns: { account: 'e' } },
      ]);
      await admin.q(`UPDATE \`${t.table}\` SET processed_at = UTC_TIMESTAMP(3) WHERE id = ?`, [i6]);
      const all = await ops.advisory.candidates(c, 10, now, new Set());
      expect(all.map((x) => [String(x.id), x.key])).toEqual([
        [String(i1), `acct-a:${i1}`],
        [String(i2), `acct-b:${i2}`],
        [String(i3), `acct-:${i3}`],
        [String(i4), `acct-c:${i4}`],
      ]);
      expect(i5).toBeDefined();
      expect(await ops.advisory.lock(other, `acct-b:${i2}`)).toBe(true);
      const left = await ops.advisory.candidates(c, 10, now, new Set([`acct-c:${i4}`]));
      expect(left.map((x) => String(x.id))).toEqual([String(i1), String(i3)]);
      expect((await ops.advisory.candidates(c, 1, null, new Set())).map((x) => String(x.id))).toEqual([
        String(i1),
      ]);
      // Own keys compare as bytes, not by the column's case-insensitive collation.
      expect(
        (await ops.advisory.candidates(c, 10, now, new Set([`ACCT-A:${i1}`]))).map((x) => String(x.id)),
      ).toContain(String(i1));
      // With the service's own lock, only own keys are left out (R-ADV-10).
      const own = dialect.prepare({ ...t, lock: async () => true, unlock: async () => true } as AnyTable);
      expect(
        (await own.advisory.candidates(c, 10, now, new Set([`acct-c:${i4}`]))).map((x) => String(x.id)),
      ).toEqual([String(i1), String(i2), String(i3)]);
      expect(await ops.advisory.unlock(other, `acct-b:${i2}`)).toBe(true);
    });

    it('R-ADV-1 R-ADV-2 take counts the attempt, commits on its own and reads the row; null once the row is settled', async () => {
      const t = await make(advTable('jobs-{id}'));
      const ops = dialect.prepare(t);
      const c = await conn();
      const now = new Date();
      const [id, later] = await ops.insert(c, [
        { payload: '{}' },
        { payload: '{}', notBefore: at(now, 60_000) },
      ]);
      const row = await ops.advisory.take(c, id, now);
      expect(String(row?.id)).toBe(String(id));
      expect(Number(row?.attempt)).toBe(1);
      expect(inTx(c)).toBe(false);
      expect(
        Number((await admin.q(`SELECT attempt FROM \`${t.table}\` WHERE id = ?`, [id]))[0]!.attempt),
      ).toBe(1);
      expect(await ops.advisory.take(c, later, now)).toBeNull();
      expect(await ops.settle(c, { kind: 'finish', id, now })).toBe(1);
      expect(await ops.advisory.take(c, id, now)).toBeNull();
      expect(await ops.advisory.take(c, 999_999, null)).toBeNull();
      // Without an attempt column the take only reads the row while it is due.
      const plain = await make(
        inbox({
          table: uniqueName('advp'),
          id: { column: 'id', generated: true },
          payload: 'payload',
          advisory: 'p-{id}',
        }) as AnyTable,
      );
      const pops = dialect.prepare(plain);
      const [pid] = await pops.insert(c, [{ payload: '{}' }]);
      expect(String((await pops.advisory.take(c, pid, now))?.id)).toBe(String(pid));
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('pool', () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    beforeAll(() => {
      process.on('warning', onWarning);
    });
    afterAll(() => {
      process.off('warning', onWarning);
    });
    const unlocked = async (name: string) => {
      for (let i = 0; i < 50; i++) {
        if ((await admin.q('SELECT IS_USED_LOCK(?) AS h', [name]))[0]!.h === null) return true;
        await sleep(50);
      }
      return false;
    };
    const gone = async (id: string) => {
      for (let i = 0; i < 50; i++) {
        if (
          (await admin.q('SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?', [Number(id)]))
            .length === 0
        )
          return true;
        await sleep(50);
      }
      return false;
    };

    it('R-POOL-2 size is the connection limit; spare counts idle plus room; tryAcquire answers null when the pool is empty', async () => {
      const small = await driver.open({ size: 2 });
      const p = small.adapter.pool;
      try {
        expect(p.size).toBe(2);
        expect(p.spare()).toBe(2);
        const a = await p.acquire();
        expect(p.spare()).toBe(1);
        const b = await p.tryAcquire();
        expect(b).not.toBeNull();
        expect(p.spare()).toBe(0);
        expect(await p.tryAcquire()).toBeNull();
        p.release(a);
        expect(p.spare()).toBe(1);
        const c = await p.tryAcquire();
        expect(c?.id).toBe(a.id);
        p.release(b!);
        p.release(c!);
        expect(p.spare()).toBe(2);
      } finally {
        await small.close();
      }
    });

    it('R-TX-9 a connection released inside a transaction is closed, not pooled, and the server rolls back', async () => {
      const t = await make(rowTable());
      const ops = dialect.prepare(t);
      await publish(ops, 1);
      const c = await pool.acquire();
      await dialect.begin(c, {});
      expect(await ops.claimLocked(c, 1, new Date())).toHaveLength(1);
      warnings.length = 0;
      pool.release(c);
      expect(await gone(c.id)).toBe(true);
      await sleep(10);
      expect(warnings.some((w) => (w as { code?: string }).code === 'SQLINBOX_DIRTY_RELEASE')).toBe(true);
      const d = await conn();
      await dialect.begin(d, {});
      expect(await ops.claimLocked(d, 1, new Date())).toHaveLength(1);
      await dialect.rollback(d);
    });

    it('R-ADV-5 a connection released holding an advisory lock is closed; destroy ends the session and its lock', async () => {
      const t = await make(advTable());
      const ops = dialect.prepare(t);
      const c = await pool.acquire();
      expect(await ops.advisory.lock(c, 'held-1')).toBe(true);
      warnings.length = 0;
      pool.release(c);
      expect(await gone(c.id)).toBe(true);
      expect(await unlocked(`${DB.database}.held-1`)).toBe(true);
      expect(warnings.some((w) => String(w.message).includes('held-1'))).toBe(true);

      const d = await pool.acquire();
      expect(await ops.advisory.lock(d, 'held-2')).toBe(true);
      await pool.destroy(d);
      expect(await gone(d.id)).toBe(true);
      expect(await unlocked(`${DB.database}.held-2`)).toBe(true);
    });

    it('a connection given back to the pool runs no more statements through the old checkout', async () => {
      const c = await pool.acquire();
      pool.release(c);
      await expect(c.query('SELECT 1')).rejects.toThrow(/given back to the pool/);
    });

    function advTable() {
      return inbox({
        table: uniqueName('padv'),
        id: { column: 'id', generated: true },
        payload: 'payload',
        advisory: 'held-{id}',
      }) as AnyTable;
    }
  });
});
