import { type AnyTable, inbox, type PrepareOptions, type TableOps } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { classifyError } from '../src/classify.js';
import { sqliteDialect } from '../src/dialect.js';
import type { SqliteConnection } from '../src/driver.js';
import { at, type TestDb, tempDb } from './helpers.js';

const jobs = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
  retryAfter: 'retry_after',
});

const fifo = inbox({
  table: 'fifo_jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
  processedAt: 'processed_at',
  group: 'grp',
});

let db: TestDb;
beforeEach(() => {
  db = tempDb();
});
afterEach(async () => {
  await db.cleanup();
});

/** Creates the table, inserts `payloads` through the dialect, answers the ops and the ids. */
async function seed(
  t: AnyTable,
  payloads: string[],
  opts: PrepareOptions = {},
  groups?: (string | undefined)[],
) {
  await db.create(t, opts.deadLetter && 'table' in opts.deadLetter ? opts.deadLetter.table : undefined);
  const ops = sqliteDialect.prepare(t, opts);
  const ids = await db.withConn((c) =>
    ops.insert(
      c,
      payloads.map((payload, i) => ({ payload, group: groups?.[i] })),
    ),
  );
  return { ops, ids };
}

const claim = (ops: TableOps, n: number, now: Date, expiry: Date) =>
  db.withConn((c) => ops.claimLease(c, n, now, expiry));
const rowsOf = (t: string) => db.exec(`SELECT * FROM "${t}" ORDER BY id`);

describe('claimLease', () => {
  test('R-LEASE-1 one UPDATE .. RETURNING stamps the expiry, counts the attempt, commits, in id order', async () => {
    const { ops, ids } = await seed(jobs, ['a', 'b', 'c']);
    expect(ids).toEqual([1, 2, 3]);
    const rows = await db.withConn(async (c) => {
      const claimed = await ops.claimLease(c, 2, at(0), at(30_000));
      expect((c as SqliteConnection).inTransaction).toBe(false);
      return claimed;
    });
    expect(rows).toEqual([
      { id: 1, payload: 'a', attempt: 1, locked_until: at(30_000).getTime(), retry_after: null },
      { id: 2, payload: 'b', attempt: 1, locked_until: at(30_000).getTime(), retry_after: null },
    ]);
  });

  test('R-LEASE-2 a lease in force keeps its row; one ended at `now` lets the next claim count again', async () => {
    const { ops } = await seed(jobs, ['a']);
    expect(await claim(ops, 5, at(0), at(30_000))).toHaveLength(1);
    expect(await claim(ops, 5, at(29_999), at(60_000))).toEqual([]);
    const [again] = await claim(ops, 5, at(30_000), at(60_000));
    expect(again).toMatchObject({ id: 1, attempt: 2, locked_until: at(60_000).getTime() });
  });

  test('R-DLQ-3 a row waits for its retry_after; NULL and past ones are due', async () => {
    const { ops } = await seed(jobs, ['a', 'b', 'c']);
    await db.exec('UPDATE jobs SET retry_after = ? WHERE id = 1', [at(10_000)]);
    await db.exec('UPDATE jobs SET retry_after = ? WHERE id = 2', [at(-1)]);
    expect((await claim(ops, 5, at(0), at(60_000))).map((r) => r.id)).toEqual([2, 3]);
    expect((await claim(ops, 5, at(10_000), at(11_000))).map((r) => r.id)).toEqual([1]);
  });

  test('n limits the claim; n = 0 runs nothing', async () => {
    const { ops } = await seed(jobs, ['a', 'b', 'c']);
    expect(await claim(ops, 0, at(0), at(1))).toEqual([]);
    expect((await claim(ops, 1, at(0), at(1))).map((r) => r.id)).toEqual([1]);
  });

  test('R-FIFO-1 takes only group heads: nothing more of a group while its head is in work', async () => {
    const { ops } = await seed(fifo, ['a1', 'a2', 'b1', 'n1', 'n2', 'b2'], {}, [
      'a',
      'a',
      'b',
      undefined,
      undefined,
      'b',
    ]);
    // NULL is no group: each such row stands alone.
    expect((await claim(ops, 10, at(0), at(30_000))).map((r) => r.id)).toEqual([1, 3, 4, 5]);
    expect(await claim(ops, 10, at(1), at(30_000))).toEqual([]);
    // a1 settled (stamped, not deleted): a2 becomes the head. b1 still leased keeps b2 back.
    await db.withConn((c) => ops.settle(c, { kind: 'finish', id: 1, token: at(30_000), now: at(2) }));
    expect((await claim(ops, 10, at(3), at(30_000))).map((r) => r.id)).toEqual([2]);
  });

  for (const layout of ['interleaved', 'one group after another'] as const)
    test(`R-LOAD-6 R-FIFO-1 20 groups of 500 rows (${layout}), 18 heads leased: the claim finds the 2 free heads beyond its window, and the rows without a group`, async () => {
      const { ops } = await seed(fifo, []);
      const group = layout === 'interleaved' ? `'g' || (x % 20)` : `'g' || ((x - 1) / 500)`;
      await db.exec(
        `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) INSERT INTO fifo_jobs (payload, grp) SELECT '{}', ${group} FROM c`,
      );
      await db.exec(`INSERT INTO fifo_jobs (payload) VALUES ('{}'), ('{}'), ('{}')`);
      // Settled rows ahead of everything (stamped, kept): they hold no group.
      await db.exec(
        'UPDATE fifo_jobs SET processed_at = 1 WHERE id IN (SELECT min(id) FROM fifo_jobs WHERE grp IS NOT NULL GROUP BY grp)',
      );
      const heads = (
        await db.exec(
          'SELECT min(id) AS id FROM fifo_jobs WHERE grp IS NOT NULL AND processed_at IS NULL GROUP BY grp ORDER BY min(id)',
        )
      ).map((r) => Number(r.id));
      expect(heads).toHaveLength(20);
      await db.exec(`UPDATE fifo_jobs SET locked_until = ? WHERE id IN (${heads.slice(0, 18).join(', ')})`, [
        at(3_600_000),
      ]);
      const loose = (await db.exec('SELECT id FROM fifo_jobs WHERE grp IS NULL ORDER BY id')).map((r) =>
        Number(r.id),
      );
      // n = 100 reads a window of the first 400 unsettled rows. Interleaved, the free heads are in it;
      // one group after another, they lie beyond it (the walk of the groups finds them). The rows
      // without a group lie beyond it in both.
      const got = (await claim(ops, 100, at(0), at(30_000))).map((r) => Number(r.id)).sort((a, b) => a - b);
      expect(got).toEqual([...heads.slice(18), ...loose]);
      expect(await claim(ops, 100, at(1), at(30_000))).toEqual([]);
    });

  test('R-LOAD-6 R-FIFO-1 where the window holds enough heads, the claim takes the first n of them in id order', async () => {
    const groups = Array.from({ length: 300 }, (_, i) => `g${i % 150}`);
    const { ops, ids } = await seed(
      fifo,
      groups.map((g) => g),
      {},
      groups,
    );
    const got = (await claim(ops, 100, at(0), at(30_000))).map((r) => Number(r.id)).sort((a, b) => a - b);
    expect(got).toEqual(ids.slice(0, 100).map(Number));
  });

  test('R-FIFO-1 a returned head is claimed again before the rest of its group', async () => {
    const { ops } = await seed(fifo, ['a1', 'a2'], {}, ['a', 'a']);
    await claim(ops, 10, at(0), at(30_000));
    await db.withConn((c) =>
      ops.settle(c, {
        kind: 'return',
        id: 1,
        token: at(30_000),
        now: at(1),
        countAttempt: false,
        clearLease: true,
      }),
    );
    expect((await claim(ops, 10, at(2), at(30_000))).map((r) => r.id)).toEqual([1]);
  });

  test('R-DLQ-2 claims pass over the dead-letter group, which no longer heads its old group', async () => {
    const opts = { deadLetter: { group: 'dead' } };
    const { ops } = await seed(fifo, ['a1', 'a2', 'b1'], opts, ['a', 'a', 'b']);
    await claim(ops, 1, at(0), at(30_000));
    const moved = await db.withConn((c) =>
      ops.settle(c, {
        kind: 'deadLetter',
        id: 1,
        token: at(30_000),
        now: at(1),
        target: { group: 'dead' },
        inTransaction: false,
      }),
    );
    expect(moved).toBe(1);
    expect((await rowsOf('fifo_jobs'))[0]).toMatchObject({ id: 1, grp: 'dead', locked_until: null });
    expect((await claim(ops, 10, at(2), at(30_000))).map((r) => r.id)).toEqual([2, 3]);
    expect(await db.withConn((c) => ops.stats(c, at(3)))).toEqual({
      ready: 0,
      delayed: 0,
      inWork: 2,
      dead: 1,
    });
  });
});

describe('extendLeases', () => {
  test('R-LEASE-3 R-LEASE-4 moves, in one statement, only the leases that still hold their token', async () => {
    const { ops } = await seed(jobs, ['a', 'b', 'c']);
    await claim(ops, 3, at(0), at(30_000));
    // Row 3 was taken over by another claim after its lease ran out: its token is another.
    await db.exec('UPDATE jobs SET locked_until = ? WHERE id = 3', [at(90_000)]);
    const moved = await db.withConn((c) =>
      ops.extendLeases(
        c,
        [1, 2, 3].map((id) => ({ id, token: at(30_000) })),
        at(45_000),
      ),
    );
    expect(moved.sort()).toEqual([1, 2]);
    expect((await rowsOf('jobs')).map((r) => r.locked_until)).toEqual(
      [at(45_000), at(45_000), at(90_000)].map((d) => d.getTime()),
    );
    expect(await db.withConn((c) => ops.extendLeases(c, [], at(1)))).toEqual([]);
  });
});

describe('batch.returnMany', () => {
  test('R-LEASE-3 a batch of retries over several statements is all or nothing: one failing statement leaves every row holding its token, for the rows to settle one by one', async () => {
    const { ops } = await seed(
      jobs,
      Array.from({ length: 150 }, (_, i) => `p${i}`),
    );
    await claim(ops, 150, at(0), at(30_000));
    // 150 retries of one kind: two statements (100 rows, then 50); the second fails on row 140.
    await db.exec(
      "CREATE TRIGGER boom BEFORE UPDATE ON jobs WHEN OLD.id = 140 BEGIN SELECT RAISE(ABORT, 'boom'); END",
    );
    const retries = Array.from({ length: 150 }, (_, i) => ({
      kind: 'return' as const,
      id: i + 1,
      token: at(30_000),
      now: at(1),
      countAttempt: false,
      clearLease: true,
    }));
    const err = await db.withConn((c) => ops.batch!.returnMany!(c, retries)).catch((e: unknown) => e);
    expect(String(err)).toContain('boom');
    // Nothing committed: a row of the first statement settled already would fail its own fence
    // when the batch's rows settle one by one after, and be reported lost.
    const held = (await rowsOf('jobs')).filter((r) => r.locked_until === at(30_000).getTime());
    expect(held).toHaveLength(150);
    // The connection is out of its transaction: the pool's next writer is not kept waiting.
    await db.exec('DROP TRIGGER boom');
    const changed = await db.withConn((c) => ops.batch!.returnMany!(c, retries));
    expect(changed).toHaveLength(150);
    expect((await rowsOf('jobs')).every((r) => r.locked_until === null)).toBe(true);
  });
});

describe('batch.settleMany', () => {
  test('R-LEASE-3 a batch of acks over several statements is all or nothing: one failing statement leaves every row holding its token, for the rows to settle one by one', async () => {
    // More rows than one statement binds (10,000 values, two per row): two DELETEs, 4,999 rows then 1.
    const n = 5_000;
    const { ops } = await seed(
      jobs,
      Array.from({ length: n }, (_, i) => `p${i}`),
    );
    await claim(ops, n, at(0), at(30_000));
    await db.exec(
      `CREATE TRIGGER boom BEFORE DELETE ON jobs WHEN OLD.id = ${n} BEGIN SELECT RAISE(ABORT, 'boom'); END`,
    );
    const acks = Array.from({ length: n }, (_, i) => ({
      kind: 'finish' as const,
      id: i + 1,
      token: at(30_000),
      now: at(1),
    }));
    const err = await db.withConn((c) => ops.batch!.settleMany(c, acks)).catch((e: unknown) => e);
    expect(String(err)).toContain('boom');
    // Nothing deleted: a row the first statement had acked would fail its own fence when the
    // batch's rows settle one by one after, and be reported lost.
    expect(await rowsOf('jobs')).toHaveLength(n);
    await db.exec('DROP TRIGGER boom');
    const changed = await db.withConn((c) => ops.batch!.settleMany(c, acks));
    expect(changed).toHaveLength(n);
    expect(await rowsOf('jobs')).toHaveLength(0);
  });
});

describe('settle', () => {
  test('R-LEASE-3 a stale token changes nothing; the current one finishes (DELETE)', async () => {
    const { ops } = await seed(jobs, ['a']);
    await claim(ops, 1, at(0), at(30_000));
    const stale = await db.withConn((c) =>
      ops.settle(c, { kind: 'finish', id: 1, token: at(29_000), now: at(1) }),
    );
    expect(stale).toBe(0);
    expect(await rowsOf('jobs')).toHaveLength(1);
    const done = await db.withConn((c) =>
      ops.settle(c, { kind: 'finish', id: 1, token: at(30_000), now: at(1) }),
    );
    expect(done).toBe(1);
    expect(await rowsOf('jobs')).toEqual([]);
  });

  test('finish without a token (advisory form) deletes by id', async () => {
    const { ops } = await seed(jobs, ['a']);
    expect(await db.withConn((c) => ops.settle(c, { kind: 'finish', id: 1, now: at(1) }))).toBe(1);
    expect(await db.withConn((c) => ops.settle(c, { kind: 'finish', id: 1, now: at(1) }))).toBe(0);
  });

  test('finish stamps processed_at (as epoch ms) and clears the lease where the table has the column', async () => {
    const { ops } = await seed(fifo, ['a']);
    await claim(ops, 1, at(0), at(30_000));
    expect(
      await db.withConn((c) => ops.settle(c, { kind: 'finish', id: 1, token: at(30_000), now: at(5) })),
    ).toBe(1);
    expect(await rowsOf('fifo_jobs')).toEqual([
      { id: 1, payload: 'a', attempt: 1, locked_until: null, processed_at: at(5).getTime(), grp: null },
    ]);
    expect(await claim(ops, 1, at(6), at(30_000))).toEqual([]);
  });

  test('R-LEASE-7 return: clears the lease, sets retry_after, counts the attempt as asked', async () => {
    const { ops } = await seed(jobs, ['a']);
    await claim(ops, 1, at(0), at(30_000));
    const n = await db.withConn((c) =>
      ops.settle(c, {
        kind: 'return',
        id: 1,
        token: at(30_000),
        now: at(1),
        countAttempt: true,
        retryAfter: at(5_000),
        clearLease: true,
      }),
    );
    expect(n).toBe(1);
    expect(await rowsOf('jobs')).toEqual([
      { id: 1, payload: 'a', attempt: 2, locked_until: null, retry_after: at(5_000).getTime() },
    ]);
  });

  test('R-LEASE-3 a return under a lost lease changes nothing', async () => {
    const { ops } = await seed(jobs, ['a']);
    await claim(ops, 1, at(0), at(30_000));
    const n = await db.withConn((c) =>
      ops.settle(c, {
        kind: 'return',
        id: 1,
        token: at(1),
        now: at(1),
        countAttempt: true,
        clearLease: true,
      }),
    );
    expect(n).toBe(0);
    expect((await rowsOf('jobs'))[0]).toMatchObject({ attempt: 1, locked_until: at(30_000).getTime() });
  });

  test('a return with nothing to set answers whether the row is there', async () => {
    const { ops } = await seed(jobs, ['a']);
    const nothing = { kind: 'return', now: at(1), countAttempt: false, clearLease: false } as const;
    expect(await db.withConn((c) => ops.settle(c, { ...nothing, id: 1 }))).toBe(1);
    expect(await db.withConn((c) => ops.settle(c, { ...nothing, id: 2 }))).toBe(0);
  });

  test('R-DLQ-2 dead letter to a table: copy then delete in one transaction; a stale token moves nothing', async () => {
    const opts = { deadLetter: { table: 'jobs_dead' } };
    const { ops } = await seed(jobs, ['a', 'b'], opts);
    await claim(ops, 2, at(0), at(30_000));
    const move = (id: number, token: Date) =>
      db.withConn((c) =>
        ops.settle(c, {
          kind: 'deadLetter',
          id,
          token,
          now: at(1),
          target: { table: 'jobs_dead' },
          inTransaction: false,
        }),
      );
    expect(await move(1, at(1))).toBe(0);
    expect(await rowsOf('jobs_dead')).toEqual([]);
    expect(await move(1, at(30_000))).toBe(1);
    expect((await rowsOf('jobs')).map((r) => r.id)).toEqual([2]);
    expect(await rowsOf('jobs_dead')).toEqual([
      { id: 1, payload: 'a', attempt: 1, locked_until: at(30_000).getTime(), retry_after: null },
    ]);
    expect(await db.withConn((c) => ops.stats(c, at(2)))).toEqual({
      ready: 0,
      delayed: 0,
      inWork: 1,
      dead: 1,
    });
  });

  test('R-DLQ-2 inside an open transaction the move joins it, and its rollback undoes both halves', async () => {
    const opts = { deadLetter: { table: 'jobs_dead' } };
    const { ops } = await seed(jobs, ['a'], opts);
    await db.withConn(async (c) => {
      await sqliteDialect.begin(c, { mode: 'immediate' });
      const n = await ops.settle(c, {
        kind: 'deadLetter',
        id: 1,
        now: at(1),
        target: { table: 'jobs_dead' },
        inTransaction: true,
      });
      expect(n).toBe(1);
      await sqliteDialect.rollback(c);
    });
    expect(await rowsOf('jobs')).toHaveLength(1);
    expect(await rowsOf('jobs_dead')).toEqual([]);
  });

  test('R-DLQ-2 a failed copy rolls the move back: the row stays in the queue', async () => {
    const opts = { deadLetter: { table: 'jobs_dead' } };
    const { ops } = await seed(jobs, ['a'], opts);
    await db.exec('INSERT INTO jobs_dead (id, payload) VALUES (1, ?)', ['older']);
    const err = await db
      .withConn((c) =>
        ops.settle(c, {
          kind: 'deadLetter',
          id: 1,
          now: at(1),
          target: { table: 'jobs_dead' },
          inTransaction: false,
        }),
      )
      .catch((e: unknown) => e);
    expect(sqliteDialect.classifyError(err)).toBe('constraint');
    expect(await rowsOf('jobs')).toHaveLength(1);
    // The connection is out of its transaction: the pool's next writer is not kept waiting.
    expect(await db.exec('UPDATE jobs SET attempt = 5 RETURNING attempt')).toEqual([{ attempt: 5 }]);
  });
});

describe('insert', () => {
  test('R-PUB-1 one multi-row statement: attempt 0, group, partition key, not-before, extra columns', async () => {
    const t = inbox({
      table: 'pub',
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      retryAfter: 'retry_after',
      group: 'grp',
      partitionKey: 'pk',
      columns: ['tenant'],
    });
    await db.create(t);
    const ops = sqliteDialect.prepare(t);
    const ids = await db.withConn((c) =>
      ops.insert(c, [
        {
          payload: '{"n":1}',
          group: 'g',
          partitionKey: 'k',
          notBefore: at(100),
          columns: { tenant: 'acme' },
        },
        { payload: '{"n":2}' },
      ]),
    );
    expect(ids).toEqual([1, 2]);
    expect(await rowsOf('pub')).toEqual([
      {
        id: 1,
        payload: '{"n":1}',
        attempt: 0,
        locked_until: null,
        retry_after: at(100).getTime(),
        grp: 'g',
        pk: 'k',
        tenant: 'acme',
      },
      {
        id: 2,
        payload: '{"n":2}',
        attempt: 0,
        locked_until: null,
        retry_after: null,
        grp: null,
        pk: null,
        tenant: null,
      },
    ]);
  });

  test('given ids and a bytes payload; a generated attempt column is left to its default', async () => {
    const t = inbox({
      table: 'given',
      id: 'id',
      payload: { column: 'body', type: 'bytes' },
      attempt: { column: 'attempt', generated: true },
      lease: 'locked_until',
    });
    await db.create(t);
    const ops = sqliteDialect.prepare(t);
    const ids = await db.withConn((c) =>
      ops.insert(c, [
        { payload: Buffer.from([1, 2]), columns: { id: 20 } },
        { payload: new Uint8Array([3]), columns: { id: 10 } },
      ]),
    );
    expect(ids).toEqual([20, 10]);
    expect(await rowsOf('given')).toEqual([
      { id: 10, body: Buffer.from([3]), attempt: 0, locked_until: null },
      { id: 20, body: Buffer.from([1, 2]), attempt: 0, locked_until: null },
    ]);
  });

  test('past the parameter limit the insert splits into statements that commit as one', async () => {
    const { ops } = await seed(jobs, []);
    const many = Array.from({ length: 6_000 }, (_, i) => ({ payload: `m${i}`, notBefore: at(i) }));
    const ids = await db.withConn((c) => ops.insert(c, many));
    expect(ids).toHaveLength(6_000);
    expect(ids[0]).toBe(1);
    expect(ids[5_999]).toBe(6_000);
    // A failing chunk rolls back the chunks before it.
    const bad = [...many.slice(0, 4_000), { payload: null }];
    const err = await db.withConn((c) => ops.insert(c, bad)).catch((e: unknown) => e);
    expect(String(err)).toMatch(/NOT NULL constraint failed: jobs\.payload/);
    expect(classifyError(err)).toBe('constraint');
    expect(await db.exec('SELECT COUNT(*) AS n FROM jobs')).toEqual([{ n: 6_000 }]);
  });

  test('inside a transaction the insert commits with it (R-TX-2) and rolls back with it', async () => {
    const { ops } = await seed(jobs, []);
    await db.withConn(async (c) => {
      await sqliteDialect.begin(c, {});
      await ops.insert(c, [{ payload: 'x' }]);
      await sqliteDialect.rollback(c);
      await sqliteDialect.begin(c, {});
      await ops.insert(c, [{ payload: 'y' }]);
      await sqliteDialect.commit(c);
    });
    expect((await rowsOf('jobs')).map((r) => r.payload)).toEqual(['y']);
  });
});

describe('stats', () => {
  test('R-PLUS-3 counts ready, delayed, in work and dead (group)', async () => {
    const t = inbox({
      table: 'counted',
      id: { column: 'id', generated: true },
      payload: 'payload',
      lease: 'locked_until',
      processedAt: 'processed_at',
      retryAfter: 'retry_after',
      group: 'grp',
    });
    const opts = { deadLetter: { group: 'dead' } };
    const { ops } = await seed(t, ['ready', 'leased', 'delayed', 'dead', 'done'], opts, [
      undefined,
      undefined,
      undefined,
      'dead',
      undefined,
    ]);
    await db.exec('UPDATE counted SET locked_until = ? WHERE id = 2', [at(100)]);
    await db.exec('UPDATE counted SET retry_after = ? WHERE id = 3', [at(100)]);
    await db.exec('UPDATE counted SET processed_at = ? WHERE id = 5', [at(0)]);
    expect(await db.withConn((c) => ops.stats(c, at(50)))).toEqual({
      ready: 1,
      delayed: 1,
      inWork: 1,
      dead: 1,
    });
    expect(await db.withConn((c) => ops.stats(c, at(100)))).toEqual({
      ready: 3,
      delayed: 0,
      inWork: 0,
      dead: 1,
    });
  });

  test('R-PLUS-3 an empty table counts zeros; without a dead letter, dead is 0', async () => {
    const { ops } = await seed(jobs, []);
    expect(await db.withConn((c) => ops.stats(c, at(0)))).toEqual({
      ready: 0,
      delayed: 0,
      inWork: 0,
      dead: 0,
    });
  });
});

describe('identifiers', () => {
  test('R-DESC-7 keywords as table and column names are quoted in every statement', async () => {
    const t = inbox({
      table: 'order',
      id: { column: 'select', generated: true },
      payload: 'from',
      attempt: 'where',
      lease: 'limit',
      retryAfter: 'values',
      processedAt: 'set',
      group: 'group',
      partitionKey: 'key',
    });
    const opts = { deadLetter: { group: 'dead' } };
    const { ops, ids } = await seed(t, ['a', 'b'], opts, ['g', 'g']);
    expect(ids).toEqual([1, 2]);
    const [row] = await claim(ops, 5, at(0), at(30_000));
    expect(row).toMatchObject({ select: 1, where: 1, limit: at(30_000).getTime() });
    expect(await db.withConn((c) => ops.extendLeases(c, [{ id: 1, token: at(30_000) }], at(40_000)))).toEqual(
      [1],
    );
    const settle = (s: Parameters<TableOps['settle']>[1]) => db.withConn((c) => ops.settle(c, s));
    const base = { id: 1, token: at(40_000), now: at(1) };
    expect(
      await settle({ ...base, kind: 'return', countAttempt: true, retryAfter: at(2), clearLease: true }),
    ).toBe(1);
    expect(await claim(ops, 5, at(2), at(50_000))).toHaveLength(1);
    expect(await settle({ ...base, token: at(50_000), kind: 'finish' })).toBe(1);
    const [next] = await claim(ops, 5, at(3), at(60_000));
    expect(next).toMatchObject({ select: 2 });
    expect(
      await settle({
        id: 2,
        token: at(60_000),
        now: at(4),
        kind: 'deadLetter',
        target: { group: 'dead' },
        inTransaction: false,
      }),
    ).toBe(1);
    expect(await db.withConn((c) => ops.stats(c, at(5)))).toEqual({
      ready: 0,
      delayed: 0,
      inWork: 0,
      dead: 1,
    });
  });
});
