import { inbox, KeyPart, keyOf, table } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sqliteDialect } from '../src/dialect.js';
import { SqlitePool } from '../src/driver.js';
import { at, type TestDb, tempDb } from './helpers.js';

const accounts = inbox({
  table: 'acct_jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  advisory: 'acct-{account}',
  retryAfter: 'retry_after',
  columns: ['account'],
});

let db: TestDb;
let other: TestDb;
beforeEach(() => {
  db = tempDb();
  other = tempDb();
});
afterEach(async () => {
  await db.cleanup();
  await other.cleanup();
});

async function seed(accountsOf: unknown[]) {
  await db.create(accounts);
  const ops = sqliteDialect.prepare(accounts);
  await db.withConn((c) =>
    ops.insert(
      c,
      accountsOf.map((account, i) => ({ payload: `p${i + 1}`, columns: { account } })),
    ),
  );
  return ops;
}

describe('advisory registry', () => {
  test('R-ADV-1 lock answers false while any connection holds the key; unlock answers whether this one held it', async () => {
    const ops = await seed([]);
    const [a, b] = [await db.pool.acquire(), await db.pool.acquire()];
    const { lock, unlock } = ops.advisory;
    expect(await lock(a, 'acct-7')).toBe(true);
    expect(await lock(b, 'acct-7')).toBe(false);
    // Not re-entrant: a second lock of the same key on the same connection is refused too.
    expect(await lock(a, 'acct-7')).toBe(false);
    expect(await lock(b, 'acct-8')).toBe(true);
    expect(await unlock(b, 'acct-7')).toBe(false);
    expect(await unlock(a, 'acct-7')).toBe(true);
    expect(await unlock(a, 'acct-7')).toBe(false);
    expect(await lock(b, 'acct-7')).toBe(true);
    for (const conn of [a, b]) db.pool.release(conn);
  });

  test('R-ADV-7 a destroyed connection drops its keys, as an ended session drops its locks', async () => {
    const ops = await seed([]);
    const [a, b] = [await db.pool.acquire(), await db.pool.acquire()];
    expect(await ops.advisory.lock(a, 'k')).toBe(true);
    await db.pool.destroy(a);
    expect(await ops.advisory.lock(b, 'k')).toBe(true);
    await expect(ops.advisory.lock(a, 'other')).rejects.toThrow(/not open/);
    db.pool.release(b);
  });

  test('R-ADV-4 a key belongs to the database file: two tables and two pools on one file share it', async () => {
    const ops = await seed([]);
    const second = sqliteDialect.prepare(
      table('other_jobs', 'id')
        .advisory([KeyPart.column('id')])
        .build(),
    );
    const pool = new SqlitePool(db.file);
    const a = await db.pool.acquire();
    const b = await pool.acquire();
    expect(await ops.advisory.lock(a, 'shared')).toBe(true);
    expect(await second.advisory.lock(b, 'shared')).toBe(false);
    db.pool.release(a);
    await pool.close();
  });

  test('R-DB-3 another database file has keys of its own', async () => {
    const ops = await seed([]);
    const a = await db.pool.acquire();
    const b = await other.pool.acquire();
    expect(await ops.advisory.lock(a, 'same')).toBe(true);
    expect(await ops.advisory.lock(b, 'same')).toBe(true);
    db.pool.release(a);
    other.pool.release(b);
  });
});

describe('candidates', () => {
  test("R-ADV-1 the first n due rows in id order, each key rendered as core's keyOf() renders it", async () => {
    const ops = await seed([7, 'x', null, 7]);
    const found = await db.withConn((c) => ops.advisory.candidates(c, 10, at(0), new Set()));
    expect(found).toEqual([
      { id: 1, key: 'acct-7' },
      { id: 2, key: 'acct-x' },
      { id: 3, key: 'acct-' },
      { id: 4, key: 'acct-7' },
    ]);
    const rows = await db.exec('SELECT * FROM acct_jobs ORDER BY id');
    expect(rows.map((r) => keyOf(accounts, r))).toEqual(found.map((c) => c.key));
    expect(await db.withConn((c) => ops.advisory.candidates(c, 2, at(0), new Set()))).toHaveLength(2);
    expect(await db.withConn((c) => ops.advisory.candidates(c, 0, at(0), new Set()))).toEqual([]);
  });

  test("keys of REAL, untyped and BLOB columns render as JavaScript's String() of the value read", async () => {
    const t = table('typed_keys', 'id', { generated: true })
      .advisory([KeyPart.literal('k:'), KeyPart.column('r'), KeyPart.literal('/'), KeyPart.column('u')])
      .payload('payload')
      .build();
    await db.exec('CREATE TABLE typed_keys (id INTEGER PRIMARY KEY, payload TEXT, r REAL, u)');
    const values = [
      [2, 7],
      [2.5, 'x'],
      [null, Buffer.from('AB')],
      [-3, 1.25],
    ];
    for (const [r, u] of values)
      await db.exec('INSERT INTO typed_keys (payload, r, u) VALUES (?, ?, ?)', ['p', r, u]);
    const ops = sqliteDialect.prepare(t);
    const found = await db.withConn((c) => ops.advisory.candidates(c, 10, at(0), new Set()));
    const rows = await db.exec('SELECT * FROM typed_keys ORDER BY id');
    expect(found.map((c) => c.key)).toEqual(['k:2/7', 'k:2.5/x', 'k:/AB', 'k:-3/1.25']);
    expect(rows.map((r) => keyOf(t, r))).toEqual(found.map((c) => c.key));
  });

  test('a NULL key column renders as the empty text', async () => {
    const ops = await seed([null]);
    expect(await db.withConn((c) => ops.advisory.candidates(c, 10, at(0), new Set()))).toEqual([
      { id: 1, key: 'acct-' },
    ]);
  });

  test('R-DB-3 R-ADV-10 leaves out the keys in `own` and only those: other holders stay visible', async () => {
    const ops = await seed([1, 2, 1, 3]);
    const holder = await db.pool.acquire();
    expect(await ops.advisory.lock(holder, 'acct-3')).toBe(true);
    const found = await db.withConn((c) =>
      ops.advisory.candidates(c, 10, at(0), new Set(['acct-1', 'acct-9'])),
    );
    expect(found).toEqual([
      { id: 2, key: 'acct-2' },
      { id: 4, key: 'acct-3' },
    ]);
    db.pool.release(holder);
  });

  test('R-DLQ-3 rows waiting for retry_after are not candidates; the database clock decides with now = null', async () => {
    const ops = await seed([1, 2]);
    await db.exec('UPDATE acct_jobs SET retry_after = ? WHERE id = 1', [new Date(Date.now() + 60_000)]);
    await db.exec('UPDATE acct_jobs SET retry_after = ? WHERE id = 2', [new Date(Date.now() - 1_000)]);
    const byHost = await db.withConn((c) => ops.advisory.candidates(c, 10, new Date(), new Set()));
    const byDatabase = await db.withConn((c) => ops.advisory.candidates(c, 10, null, new Set()));
    expect(byHost.map((c) => c.id)).toEqual([2]);
    expect(byDatabase.map((c) => c.id)).toEqual([2]);
  });

  test('R-FIFO-1 a FIFO table offers group heads only', async () => {
    const t = inbox({
      table: 'fifo_adv',
      id: { column: 'id', generated: true },
      payload: 'payload',
      advisory: 'fifo-{id}',
      group: 'grp',
      processedAt: 'processed_at',
    });
    await db.create(t);
    const ops = sqliteDialect.prepare(t);
    await db.withConn((c) =>
      ops.insert(c, [
        { payload: 'a1', group: 'a' },
        { payload: 'a2', group: 'a' },
        { payload: 'b1', group: 'b' },
        { payload: 'n' },
      ]),
    );
    const heads = await db.withConn((c) => ops.advisory.candidates(c, 10, at(0), new Set()));
    expect(heads).toEqual([
      { id: 1, key: 'fifo-1' },
      { id: 3, key: 'fifo-3' },
      { id: 4, key: 'fifo-4' },
    ]);
    // The head in work (its key in `own`) keeps the rest of its group back.
    const whileInWork = await db.withConn((c) => ops.advisory.candidates(c, 10, at(0), new Set(['fifo-1'])));
    expect(whileInWork.map((c) => c.id)).toEqual([3, 4]);
    await db.withConn((c) => ops.settle(c, { kind: 'finish', id: 1, now: at(1) }));
    expect(
      (await db.withConn((c) => ops.advisory.candidates(c, 10, at(2), new Set()))).map((c) => c.id),
    ).toEqual([2, 3, 4]);
  });
});

describe('take', () => {
  test('R-ADV-2 R-ATT-1 counts the attempt (committed) and returns the row after the count', async () => {
    const ops = await seed([5]);
    const row = await db.withConn((c) => ops.advisory.take(c, 1, at(0)));
    expect(row).toMatchObject({ id: 1, payload: 'p1', attempt: 1, account: '5' });
    expect(await db.exec('SELECT attempt FROM acct_jobs')).toEqual([{ attempt: 1 }]);
  });

  test('R-ADV-1 null when the row was settled or is no longer due', async () => {
    const ops = await seed([5, 6]);
    await db.withConn((c) => ops.settle(c, { kind: 'finish', id: 1, now: at(0) }));
    await db.exec('UPDATE acct_jobs SET retry_after = ? WHERE id = 2', [at(10)]);
    expect(await db.withConn((c) => ops.advisory.take(c, 1, at(0)))).toBeNull();
    expect(await db.withConn((c) => ops.advisory.take(c, 2, at(0)))).toBeNull();
    expect(await db.withConn((c) => ops.advisory.take(c, 2, at(10)))).toMatchObject({ id: 2, attempt: 1 });
  });

  test('without an attempt column it selects the row under the same condition', async () => {
    const t = table('plain_adv', 'id', { generated: true })
      .advisory([KeyPart.column('id')])
      .payload('payload')
      .build();
    await db.create(t);
    const ops = sqliteDialect.prepare(t);
    const [id] = await db.withConn((c) => ops.insert(c, [{ payload: 'x' }]));
    expect(await db.withConn((c) => ops.advisory.take(c, id, null))).toEqual({ id: 1, payload: 'x' });
    expect(await db.withConn((c) => ops.advisory.take(c, 99, null))).toBeNull();
  });

  test('R-ADV-5 retryAfter in the advisory form: a later retry_after on the lock connection, no token', async () => {
    const ops = await seed([5]);
    const n = await db.withConn((c) =>
      ops.settle(c, {
        kind: 'return',
        id: 1,
        now: at(0),
        countAttempt: false,
        retryAfter: at(500),
        clearLease: false,
      }),
    );
    expect(n).toBe(1);
    expect(await db.exec('SELECT attempt, retry_after FROM acct_jobs')).toEqual([
      { attempt: 0, retry_after: at(500).getTime() },
    ]);
  });
});
