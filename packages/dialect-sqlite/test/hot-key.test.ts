/**
 * One key with 50,000 ready rows beside 500 small keys, under per-key concurrency: the claim takes
 * the other keys' rows while the hot key is full, and one more row of the hot key once a slot is
 * free. SQLite's claim is the builder's bounded pick: the front of the queue, then the keys walked
 * one index probe each, never the full key's rows behind it. (SQLite's drivers expose no count of
 * the rows a statement read; measured by hand on this file: 17-19 ms a claim before, when the pick
 * read every ready row of the full key, 2-6 ms after.)
 */
import { type AnyTable, inbox } from '@sqlinbox/core';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { sqliteDialect } from '../src/dialect.js';
import { at, type TestDb, tempDb } from './helpers.js';

const hot = inbox({
  table: 'hot',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
  concurrency: { key: 'account', limit: 2 },
}) as AnyTable;

let db: TestDb;
beforeEach(() => {
  db = tempDb();
});
afterEach(async () => {
  await db.cleanup();
});

test('R-CLUS-4 the per-key claim takes the other keys while the hot key is full, and the hot key once a slot is free', async () => {
  await db.create(hot);
  // 55,000 rows: the first 50,000 of key 'hot', then 10 of each of 500 keys.
  await db.exec(
    `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < 55000)` +
      ` INSERT INTO hot (payload, account) SELECT '{}', CASE WHEN x <= 50000 THEN 'hot' ELSE 'k' || (x % 500) END FROM g`,
  );
  await db.exec('ANALYZE');
  const ops = sqliteDialect.prepare(hot);
  const now = at(0);
  const claim = async () =>
    (await db.withConn((c) => ops.concurrency!.claimLease(c, 10, now, at(3_600_000)))).map((r) =>
      String(r.account),
    );

  // The hot key has one row in work: one more of it is taken, and nine rows of other keys.
  await db.exec('UPDATE hot SET locked_until = ? WHERE id = 1', [at(3_600_000)]);
  const open = await claim();
  expect(open).toHaveLength(10);
  expect(open.filter((k) => k === 'hot')).toHaveLength(1);

  // The hot key is full now: none of its 49,998 ready rows is taken; ten rows of other keys are.
  const full = await claim();
  expect(full).toHaveLength(10);
  expect(full).not.toContain('hot');
  expect(new Set(full).size).toBe(10);
  const inWork = await db.exec(
    'SELECT COUNT(*) AS n FROM hot WHERE account = ? AND locked_until IS NOT NULL',
    ['hot'],
  );
  expect(Number(inWork[0]!.n)).toBe(2);
});
