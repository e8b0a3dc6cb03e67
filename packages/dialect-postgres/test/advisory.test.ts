import { type AnyTable, inbox, KeyPart, keyOf, table } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import { adminClient, at, createTable, drivers, type Opened, uniqueName } from './support.js';

describe.each(drivers)('advisory lock form on $name', (driver) => {
  let admin: pgModule.Client;
  let opened: Opened;
  beforeAll(async () => {
    admin = await adminClient();
    opened = driver.open(6);
  });
  afterAll(async () => {
    await opened.end();
    await admin.end();
  });

  /** Runs `fn` with `n` connections, releasing every advisory lock and connection after. */
  async function withConns(
    n: number,
    fn: (...conns: Awaited<ReturnType<typeof opened.adapter.pool.acquire>>[]) => Promise<void>,
  ) {
    const pool = opened.adapter.pool;
    const conns = [];
    for (let i = 0; i < n; i++) conns.push(await pool.acquire());
    try {
      await fn(...conns);
    } finally {
      for (const c of conns) {
        await c.query('SELECT pg_advisory_unlock_all()').catch(() => {});
        pool.release(c);
      }
    }
  }

  function accounts(name = uniqueName('adv')): AnyTable {
    return inbox({
      table: name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      retryAfter: 'retry_after',
      advisory: 'accounts-{account}',
      columns: ['account'],
    }) as AnyTable;
  }

  /** A table with no attempt column: its take is a plain select. */
  function withoutAttempt(): AnyTable {
    return inbox({
      table: uniqueName('advn'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      advisory: 'n-{id}',
    }) as AnyTable;
  }

  async function withTable(t: AnyTable, fn: () => Promise<void>) {
    const drop = await createTable(admin, t);
    try {
      await fn();
    } finally {
      await drop();
    }
  }

  test('R-ADV-1 candidates: due rows in id order, each key rendered in SQL exactly as keyOf() renders it (NULL as empty)', async () => {
    const t = table(uniqueName('adv'), 'id', { generated: true })
      .advisory([
        KeyPart.literal("o'k-"),
        KeyPart.column('account'),
        KeyPart.literal('/'),
        KeyPart.column('id'),
      ])
      .payload('payload')
      .attempt('attempt')
      .retryAfter('retry_after')
      .columns('account')
      .build();
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConns(1, async (conn) => {
        await ops.insert(conn, [
          { payload: '{}', columns: { account: 'a' } },
          { payload: '{}', columns: { account: 'b' }, notBefore: at(60_000) },
          { payload: '{}' },
          { payload: '{}', columns: { account: 'a' } },
        ]);
        const got = await ops.advisory.candidates(conn, 10, new Date(), new Set());
        const stored = (await admin.query(`SELECT * FROM "${t.table}" ORDER BY id`)).rows;
        const expected = stored.filter((r) => r.id !== '2').map((r) => ({ id: r.id, key: keyOf(t, r) }));
        expect(got.map((c) => ({ id: String(c.id), key: c.key }))).toEqual(expected);
        expect(got.map((c) => c.key)).toEqual(["o'k-a/1", "o'k-/3", "o'k-a/4"]);
        expect(await ops.advisory.candidates(conn, 1, new Date(), new Set())).toHaveLength(1);
      });
    });
  });

  test('R-ADV-1 candidates leave out the keys in own and the keys another session holds (pg_locks)', async () => {
    const t = accounts();
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConns(2, async (holder, claimer) => {
        await ops.insert(holder, [
          { payload: '{}', columns: { account: 'a' } },
          { payload: '{}', columns: { account: 'b' } },
          { payload: '{}', columns: { account: 'c' } },
          { payload: '{}', columns: { account: 'a' } },
        ]);
        // Keys with the characters an array literal quotes travel intact.
        const odd = new Set(['accounts-b', 'x,y', 'q"uote', 'back\\slash', '{brace}', 'NULL', '']);
        expect((await ops.advisory.candidates(claimer, 10, new Date(), odd)).map((c) => c.key)).toEqual([
          'accounts-a',
          'accounts-c',
          'accounts-a',
        ]);
        expect(await ops.advisory.lock(holder, 'accounts-a')).toBe(true);
        const got = await ops.advisory.candidates(claimer, 2, new Date(), new Set(['accounts-b']));
        expect(got.map((c) => c.key)).toEqual(['accounts-c']);
        // The holder's own session does not hide its keys from itself; only own does.
        const mine = await ops.advisory.candidates(holder, 10, new Date(), new Set(['accounts-a']));
        expect(mine.map((c) => c.key)).toEqual(['accounts-b', 'accounts-c']);
      });
    });
  });

  test('R-ADV-1 R-DB-2 lock and unlock: pg_try_advisory_lock(hashtextextended(key, 0)) on the session, without waiting', async () => {
    const t = accounts();
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConns(2, async (x, y) => {
        expect(await ops.advisory.lock(x, 'accounts-7')).toBe(true);
        const started = Date.now();
        expect(await ops.advisory.lock(y, 'accounts-7')).toBe(false);
        expect(Date.now() - started).toBeLessThan(1000);
        expect(await ops.advisory.unlock(y, 'accounts-7')).toBe(false);
        // The lock is the 64-bit hash: the same value taken by hand is the same lock.
        const held = await admin.query(
          `SELECT pg_try_advisory_lock(hashtextextended('accounts-7', 0)) AS ok`,
        );
        expect(held.rows[0].ok).toBe(false);
        const row = await admin.query(
          `SELECT classid::int8 AS hi, objid::int8 AS lo, hashtextextended('accounts-7', 0) AS h FROM pg_locks
           WHERE locktype = 'advisory' AND objsubid = 1 AND pid = $1`,
          [Number(x.id)],
        );
        expect(row.rows).toHaveLength(1);
        const h = BigInt.asUintN(64, BigInt(row.rows[0].h));
        expect(BigInt(row.rows[0].hi)).toBe(h >> 32n);
        expect(BigInt(row.rows[0].lo)).toBe(h & 0xffffffffn);
        expect(await ops.advisory.unlock(x, 'accounts-7')).toBe(true);
        expect(await ops.advisory.lock(y, 'accounts-7')).toBe(true);
        expect(await ops.advisory.unlock(y, 'accounts-7')).toBe(true);
      });
    });
  });

  test('R-ADV-4 a key belongs to the database: two tables whose keys match share a lock; a key starting with the table name keeps them apart', async () => {
    const shared = (name: string) =>
      inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        advisory: 'job-{id}',
      }) as AnyTable;
    const own = (name: string) =>
      inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        advisory: `${name}-{id}`,
      }) as AnyTable;
    for (const [make, apart] of [
      [shared, false],
      [own, true],
    ] as const) {
      const a = make(uniqueName('adva'));
      const b = make(uniqueName('advb'));
      await withTable(a, () =>
        withTable(b, async () => {
          const opsA = postgresDialect.prepare(a);
          const opsB = postgresDialect.prepare(b);
          await withConns(2, async (x, y) => {
            await opsA.insert(x, [{ payload: '{}' }]);
            await opsB.insert(x, [{ payload: '{}' }]);
            const [ca] = await opsA.advisory.candidates(x, 1, new Date(), new Set());
            expect(await opsA.advisory.lock(x, ca?.key as string)).toBe(true);
            const cb = await opsB.advisory.candidates(y, 1, new Date(), new Set());
            expect(cb).toHaveLength(apart ? 1 : 0);
            const keyB = `${apart ? b.table : 'job'}-1`;
            expect(await opsB.advisory.lock(y, keyB)).toBe(apart);
          });
        }),
      );
    }
  });

  test('R-ADV-2 take counts the attempt and answers the row after the count; null once the row is settled or not due', async () => {
    const t = accounts();
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConns(1, async (conn) => {
        const [id1, id2] = await ops.insert(conn, [
          { payload: '{}', columns: { account: 'a' } },
          { payload: '{}', columns: { account: 'b' }, notBefore: at(60_000) },
        ]);
        const row = await ops.advisory.take(conn, id1, new Date());
        expect(Number(row?.attempt)).toBe(1);
        expect(row?.account).toBe('a');
        expect(await ops.advisory.take(conn, id2, new Date())).toBeNull();
        expect(await ops.advisory.take(conn, id2, null)).toBeNull();
        await ops.settle(conn, { kind: 'finish', id: id1, now: new Date() });
        expect(await ops.advisory.take(conn, id1, new Date())).toBeNull();
      });
    });
    const noAttempt = withoutAttempt();
    await withTable(noAttempt, async () => {
      const ops = postgresDialect.prepare(noAttempt);
      await withConns(1, async (conn) => {
        const [id] = await ops.insert(conn, [{ payload: '{"x":1}' }]);
        expect((await ops.advisory.take(conn, id, new Date()))?.payload).toEqual({ x: 1 });
      });
    });
  });

  test('R-ADV-1 R-ADV-2 lock-and-take in one statement: the key and the counted row; a key held elsewhere takes neither; a row settled after the statement began is not taken, its key still held', async () => {
    const t = accounts();
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      const lockAndTake = ops.advisory.lockAndTake!;
      expect(lockAndTake).toBeTypeOf('function');
      await withConns(2, async (x, y) => {
        const [id1, id2, id3] = await ops.insert(x, [
          { payload: '{"x":1}', columns: { account: 'a' } },
          { payload: '{}', columns: { account: 'b' } },
          { payload: '{}', columns: { account: 'c' }, notBefore: at(60_000) },
        ]);
        const got = await lockAndTake(x, 'accounts-a', id1, new Date());
        expect(got.locked).toBe(true);
        expect(Number(got.row?.attempt)).toBe(1);
        expect(got.row?.payload).toEqual({ x: 1 });
        expect(Object.keys(got.row ?? {}).sort()).toEqual([
          'account',
          'attempt',
          'id',
          'payload',
          'retry_after',
        ]);
        // The key is x's session's; y neither locks it nor counts the row's attempt.
        expect(await lockAndTake(y, 'accounts-a', id1, new Date())).toEqual({ locked: false, row: null });
        const [{ attempt }] = (await admin.query(`SELECT attempt FROM "${t.table}" WHERE id = $1`, [id1]))
          .rows;
        expect(Number(attempt)).toBe(1);
        // A row not due: the key is taken, the row is not, and the caller releases the key.
        expect(await lockAndTake(y, 'accounts-c', id3, new Date())).toEqual({ locked: true, row: null });
        expect(await ops.advisory.unlock(y, 'accounts-c')).toBe(true);
        // A row another session deletes while the statement runs: the update waits for that
        // session's row lock, then re-reads the row, finds it gone and takes nothing.
        await admin.query('BEGIN');
        await admin.query(`DELETE FROM "${t.table}" WHERE id = $1`, [id2]);
        const racing = lockAndTake(y, 'accounts-b', id2, new Date());
        await new Promise((resolve) => setTimeout(resolve, 200));
        await admin.query('COMMIT');
        expect(await racing).toEqual({ locked: true, row: null });
        expect(await ops.advisory.unlock(y, 'accounts-b')).toBe(true);
      });
    });
    // A take that is a plain select (no attempt column) or reads group heads keeps two statements.
    const noAttempt = withoutAttempt();
    expect(postgresDialect.prepare(noAttempt).advisory.lockAndTake).toBeUndefined();
    const fifo = inbox({
      table: uniqueName('advf'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      advisory: 'f-{id}',
      group: 'grp',
    }) as AnyTable;
    expect(postgresDialect.prepare(fifo).advisory.lockAndTake).toBeUndefined();
  });

  test('R-FIFO-1 advisory candidates and take see group heads only', async () => {
    const t = inbox({
      table: uniqueName('advf'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      group: 'grp',
      advisory: 'f-{id}',
    }) as AnyTable;
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConns(2, async (x, y) => {
        await ops.insert(x, [
          { payload: '{}', group: 'g' },
          { payload: '{}', group: 'g' },
          { payload: '{}', group: 'h' },
        ]);
        const got = await ops.advisory.candidates(x, 10, new Date(), new Set());
        expect(got.map((c) => Number(c.id))).toEqual([1, 3]);
        // The head in work (its key held elsewhere) keeps its group: nothing of g for another session.
        expect(await ops.advisory.lock(x, 'f-1')).toBe(true);
        expect(
          (await ops.advisory.candidates(y, 10, new Date(), new Set())).map((c) => Number(c.id)),
        ).toEqual([3]);
        expect(await ops.advisory.take(y, 2, new Date())).toBeNull();
      });
    });
  });
});
