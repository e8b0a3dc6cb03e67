import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import {
  adminClient,
  at,
  createTable,
  drivers,
  ids,
  type Opened,
  rowlockTable,
  uniqueName,
} from './support.js';

describe.each(drivers)('row lock form on $name', (driver) => {
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

  async function withTable(
    extra: { group?: boolean; processedAt?: boolean },
    fn: (t: ReturnType<typeof rowlockTable>) => Promise<void>,
  ) {
    const t = rowlockTable(uniqueName('rowlock'), extra);
    const drop = await createTable(admin, t);
    try {
      await fn(t);
    } finally {
      await drop();
    }
  }

  /** Two connections, each in a transaction opened by the dialect; rolled back and released after. */
  async function twoTransactions(
    fn: (
      a: Awaited<ReturnType<typeof opened.adapter.pool.acquire>>,
      b: Awaited<ReturnType<typeof opened.adapter.pool.acquire>>,
    ) => Promise<void>,
  ) {
    const pool = opened.adapter.pool;
    const a = await pool.acquire();
    const b = await pool.acquire();
    try {
      await postgresDialect.begin(a, {});
      await postgresDialect.begin(b, {});
      await b.query(`SET LOCAL lock_timeout = '2s'`);
      await fn(a, b);
    } finally {
      await postgresDialect.rollback(a).catch(() => {});
      await postgresDialect.rollback(b).catch(() => {});
      pool.release(a);
      pool.release(b);
    }
  }

  test('R-ROW-1 claimLocked selects due rows FOR UPDATE SKIP LOCKED: a second claim in another transaction skips them without waiting', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await twoTransactions(async (a, b) => {
        await ops.insert(a, [{ payload: '{}' }, { payload: '{}' }, { payload: '{}' }, { payload: '{}' }]);
        await a.query('SAVEPOINT s'); // keep the inserted rows visible to b: commit them first
        await postgresDialect.commit(a);
        await postgresDialect.begin(a, {});
        const first = await ops.claimLocked(a, 2, new Date());
        expect(ids(first)).toEqual([1, 2]);
        expect(Number(first[0]?.attempt)).toBe(0); // a row lock claim counts nothing
        const started = Date.now();
        const second = await ops.claimLocked(b, 10, new Date());
        expect(Date.now() - started).toBeLessThan(1500);
        expect(ids(second)).toEqual([3, 4]);
      });
    });
  });

  test('R-ROW-3 the rows of a rolled-back claim are claimable at once', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await twoTransactions(async (a, b) => {
        await ops.insert(a, [{ payload: '{}' }]);
        await postgresDialect.commit(a);
        await postgresDialect.begin(a, {});
        expect(ids(await ops.claimLocked(a, 1, new Date()))).toEqual([1]);
        expect(await ops.claimLocked(b, 1, new Date())).toEqual([]);
        await postgresDialect.rollback(a);
        expect(ids(await ops.claimLocked(b, 1, new Date()))).toEqual([1]);
      });
    });
  });

  test('R-DESC-5 now = null reads the database clock for retry_after', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await twoTransactions(async (a) => {
        await ops.insert(a, [
          { payload: '{}', notBefore: at(-60_000) },
          { payload: '{}', notBefore: at(3_600_000) },
        ]);
        expect(ids(await ops.claimLocked(a, 10, null))).toEqual([1]);
      });
    });
  });

  test('R-FIFO-1 claimLocked takes group heads only; a row without a group stands alone', async () => {
    await withTable({ group: true }, async (t) => {
      const ops = postgresDialect.prepare(t);
      await twoTransactions(async (a, b) => {
        await ops.insert(a, [
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'b' },
          { payload: '{}' },
          { payload: '{}' },
          { payload: '{}', group: 'b' },
        ]);
        await postgresDialect.commit(a);
        await postgresDialect.begin(a, {});
        expect(ids(await ops.claimLocked(a, 2, new Date()))).toEqual([1, 3]);
        // b: group a and b are held (their heads and guards); rows without a group are free.
        expect(ids(await ops.claimLocked(b, 10, new Date()))).toEqual([4, 5]);
      });
    });
  });

  test('R-FIFO-2 the guard is a transaction-scoped advisory lock on table and group: held until commit, and a claim passes over a guarded group without waiting', async () => {
    await withTable({ group: true }, async (t) => {
      const ops = postgresDialect.prepare(t);
      await twoTransactions(async (a, b) => {
        await ops.insert(a, [
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'b' },
        ]);
        await postgresDialect.commit(a);
        await postgresDialect.begin(a, {});
        expect(ids(await ops.claimLocked(a, 1, new Date()))).toEqual([1]);
        const guards = await admin.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND pid = $1`,
          [Number(a.id)],
        );
        expect(guards.rows[0].n).toBe(1);
        // a settles its head but has not committed: b sees neither the head gone nor room in the group.
        expect(await ops.settle(a, { kind: 'finish', id: 1, now: new Date() })).toBe(1);
        expect(ids(await ops.claimLocked(b, 10, new Date()))).toEqual([3]);
        await postgresDialect.commit(a);
        const after = await admin.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = $1`,
          [Number(a.id)],
        );
        expect(after.rows[0].n).toBe(0);
        // A new claim (new transaction) now takes the group's next row.
        await postgresDialect.rollback(b);
        await postgresDialect.begin(b, {});
        expect(ids(await ops.claimLocked(b, 10, new Date()))).toEqual([2, 3]);
      });
    });
  });

  test('R-FIFO-2 a claim in another process that holds a group guard keeps the group: the claim takes other groups and does not wait', async () => {
    await withTable({ group: true }, async (t) => {
      const ops = postgresDialect.prepare(t);
      await twoTransactions(async (a, b) => {
        await ops.insert(a, [
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'b' },
        ]);
        await postgresDialect.commit(a);
        await postgresDialect.begin(a, {});
        // Another broker's claim on group a, seen only through its guard (not its row lock).
        await a.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
          `sqlinbox.fifo:${t.table}:group:a`,
        ]);
        const started = Date.now();
        expect(ids(await ops.claimLocked(b, 10, new Date()))).toEqual([2]);
        expect(Date.now() - started).toBeLessThan(1500);
      });
    });
  });

  test('R-TX-6 begin: plain BEGIN at the server default, or the declared isolation level', async () => {
    const pool = opened.adapter.pool;
    const conn = await pool.acquire();
    try {
      const def = (
        await conn.query<{ d: string }>(`SELECT current_setting('default_transaction_isolation') AS d`)
      ).rows[0]?.d;
      for (const [level, expected] of [
        [undefined, def],
        ['read_committed', 'read committed'],
        ['repeatable_read', 'repeatable read'],
        ['serializable', 'serializable'],
      ] as const) {
        await postgresDialect.begin(conn, { isolation: level });
        const r = await conn.query<{ i: string }>(`SELECT current_setting('transaction_isolation') AS i`);
        expect(r.rows[0]?.i).toBe(expected);
        await postgresDialect.rollback(conn);
      }
      await expect(postgresDialect.begin(conn, { isolation: 'read_uncommitted' })).rejects.toThrow(
        /read_uncommitted/,
      );
    } finally {
      pool.release(conn);
    }
  });

  test("R-ROW-2 the dialect's COMMIT and ROLLBACK end a transaction that a failed statement aborted, on a connection that never ran them", async () => {
    const own = driver.open(1);
    const conn = await own.adapter.pool.acquire();
    try {
      for (const end of ['rollback', 'commit'] as const) {
        await postgresDialect.begin(conn, {});
        await expect(conn.query('SELECT 1 / 0 AS x')).rejects.toThrow(/division by zero/);
        await expect(conn.query('SELECT 1 AS one')).rejects.toThrow(/current transaction is aborted/);
        await postgresDialect[end](conn);
        expect((await conn.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      }
    } finally {
      own.adapter.pool.release(conn);
      await own.end();
    }
  });

  test('R-TX-3 savepoint and rollbackToSavepoint undo the writes after the savepoint only', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      const pool = opened.adapter.pool;
      const conn = await pool.acquire();
      try {
        await ops.insert(conn, [{ payload: '{}' }]);
        await postgresDialect.begin(conn, {});
        const [row] = await ops.claimLocked(conn, 1, new Date());
        await postgresDialect.savepoint(conn, 'sqlinbox_claim');
        await conn.query(`UPDATE "${t.table}" SET payload = '{"handler":true}'`);
        await postgresDialect.rollbackToSavepoint(conn, 'sqlinbox_claim');
        expect(
          await ops.settle(conn, {
            kind: 'return',
            id: row?.id,
            now: new Date(),
            countAttempt: true,
            clearLease: false,
          }),
        ).toBe(1);
        await postgresDialect.commit(conn);
        const stored = (await admin.query(`SELECT payload, attempt FROM "${t.table}"`)).rows[0];
        expect(stored).toEqual({ payload: {}, attempt: 1 });
      } finally {
        pool.release(conn);
      }
    });
  });
});
