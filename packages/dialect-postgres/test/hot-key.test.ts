/**
 * One key with 50,000 ready rows beside 500 small keys, under per-key concurrency: the claim
 * reads a bounded number of rows, whether the hot key is full (its rows in work at its limit) or
 * not. Before, a claim read every ready row of a full key ahead of the others (pg-boss #842's
 * shape: 50,000 rows removed by the filter, each counting its key's rows in work).
 */
import { type AnyTable, inbox } from '@sqlinbox/core';
import type pgModule from 'pg';
import { describe, expect, test } from 'vitest';
import { PostgresStatements } from '../src/statements.js';
import { at, leaseTable, NO_SERVER, suiteAdmin, uniqueName } from './support.js';

interface Node {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: Node[];
}

/** The rows the statement's scans of tables read (returned and filtered out), over all their loops. */
function rowsRead(n: Node): number {
  const own =
    n['Relation Name'] === undefined
      ? 0
      : (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0) + (n['Rows Removed by Index Recheck'] ?? 0)) *
        n['Actual Loops'];
  return own + (n.Plans ?? []).reduce((sum, c) => sum + rowsRead(c), 0);
}

/**
 * The claim of `n` rows as the engine runs it, in one transaction after its turn, under EXPLAIN
 * ANALYZE; rolled back. Its plan.
 */
async function afterTurn(admin: pgModule.Client, t: AnyTable, n: number): Promise<Node & { jit: boolean }> {
  const s = new PostgresStatements(t);
  const turn = s.concurrency.turn();
  const claim = s.concurrency.claim(n, new Date(), at(30_000));
  await admin.query('BEGIN');
  try {
    await admin.query(turn.sql, [...turn.params]);
    const r = await admin.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${claim.sql}`, [...claim.params]);
    const top = (r.rows[0]['QUERY PLAN'] as { Plan: Node; JIT?: unknown }[])[0]!;
    return { ...top.Plan, jit: top.JIT !== undefined };
  } finally {
    await admin.query('ROLLBACK');
  }
}

/** Runs the statement under EXPLAIN ANALYZE in a transaction rolled back: its rows read and rows answered. */
async function analyze(admin: pgModule.Client, st: { sql: string; params: readonly unknown[] }) {
  const rolledBack = async <T>(fn: () => Promise<T>): Promise<T> => {
    await admin.query('BEGIN');
    try {
      return await fn();
    } finally {
      await admin.query('ROLLBACK');
    }
  };
  const claimed = await rolledBack(() => admin.query<{ account: string }>(st.sql, [...st.params]));
  const r = await rolledBack(() => admin.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${st.sql}`, [...st.params]));
  const plan = (r.rows[0]['QUERY PLAN'] as { Plan: Node }[])[0]!.Plan;
  return { read: rowsRead(plan), claimed: claimed.rows.map((x) => x.account) };
}

describe.skipIf(NO_SERVER)('R-CLUS-4 a hot key beside many small keys (EXPLAIN ANALYZE)', () => {
  const { admin, create } = suiteAdmin();

  test('R-CLUS-4 the per-key claim reads a bounded number of rows, the hot key full or not', async () => {
    const name = uniqueName('hot');
    const t = leaseTable(name, { concurrency: { key: 'account', limit: 2 } });
    await create(t);
    await admin().query(
      `INSERT INTO "${name}" (payload, account) SELECT '{}'::jsonb, CASE WHEN g <= 50000 THEN 'hot' ELSE 'k' || (g % 500) END FROM generate_series(1, 55000) g`,
    );
    await admin().query(`ANALYZE "${name}"`);
    const s = new PostgresStatements(t);
    const claim = () => s.concurrency.claim(10, new Date(), at(30_000));

    // The hot key has one row in work: one more of it is taken, and nine rows of other keys.
    await admin().query(`UPDATE "${name}" SET locked_until = now() + interval '1 hour' WHERE id = 1`);
    const open = await analyze(admin(), claim());
    expect(open.claimed.filter((k) => k === 'hot')).toHaveLength(1);
    expect(open.claimed).toHaveLength(10);
    expect(open.read).toBeLessThan(2_000);

    // The hot key is full: none of its 49,998 ready rows is read; ten other keys' rows are taken.
    await admin().query(`UPDATE "${name}" SET locked_until = now() + interval '1 hour' WHERE id = 2`);
    const full = await analyze(admin(), claim());
    expect(full.claimed).toHaveLength(10);
    expect(full.claimed).not.toContain('hot');
    expect(new Set(full.claimed).size).toBe(10);
    expect(full.read).toBeLessThan(2_000);
  });

  test('R-CLUS-4 statistics taken while a few live rows were spread over many pages: the claim after its turn still reads a bounded number of rows', async () => {
    const name = uniqueName('stale');
    const t = leaseTable(name, { concurrency: { key: 'account', limit: 2 } });
    await create(t);
    // A quiet moment: of 100,000 rows, 20 spread over the table are left, and the table is
    // vacuumed and analyzed (as autovacuum does after a busy spell) with its pages kept.
    await admin().query(
      `INSERT INTO "${name}" (payload, account) SELECT '{}'::jsonb, 'k' || (g % 500) FROM generate_series(1, 100000) g`,
    );
    await admin().query(`DELETE FROM "${name}" WHERE id % 5000 <> 0`);
    await admin().query(`VACUUM ANALYZE "${name}"`);
    // The backlog returns into the pages vacuum freed; the statistics still count a few rows.
    await admin().query(
      `INSERT INTO "${name}" (payload, account) SELECT '{}'::jsonb, CASE WHEN g <= 50000 THEN 'hot' ELSE 'k' || (g % 500) END FROM generate_series(1, 55000) g`,
    );
    const stats = await admin().query(`SELECT reltuples FROM pg_class WHERE oid = $1::regclass`, [
      `"${name}"`,
    ]);
    expect(Number(stats.rows[0].reltuples)).toBeLessThan(100);

    const plan = await afterTurn(admin(), t, 10);
    // Before the turn set the planner to index plans: a sequential scan of the table and a hash
    // join over all of it, about 110,000 rows read.
    expect(rowsRead(plan)).toBeLessThan(2_000);
  });

  test("R-CLUS-4 statistics of a sparse table whose backlog came back: the claim's front reads the due rows in id order, not the whole key index sorted", async () => {
    const name = uniqueName('sparse');
    // No retry_after column: the claim's due test then reads the (key, lease, id) index alone.
    const t = inbox({
      table: name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      concurrency: { key: 'account', limit: 1 },
    } as never) as AnyTable;
    await create(t);
    // A busy spell of rows with large payloads; at a quiet moment one row in seven is left and
    // the table is vacuumed and analyzed: a few thousand rows counted over many pages, all visible.
    await admin().query(
      `INSERT INTO "${name}" (payload, account) SELECT jsonb_build_object('p', repeat('x', 1000)), 'k' || (g % 500) FROM generate_series(1, 100000) g`,
    );
    await admin().query(`DELETE FROM "${name}" WHERE id % 7 <> 0`);
    await admin().query(`VACUUM ANALYZE "${name}"`);
    await admin().query(
      `INSERT INTO "${name}" (payload, account) SELECT jsonb_build_object('p', repeat('x', 1000)), CASE WHEN g <= 50000 THEN 'hot' ELSE 'k' || (g % 500) END FROM generate_series(1, 150000) g`,
    );
    // A claim of 2,000 rows reads a front of 10,000 due rows: more than the statistics count due.
    const plan = await afterTurn(admin(), t, 2_000);
    // Before the turn turned off sorts too, the planner read the whole (key, lease, id) index in
    // an index-only scan and sorted it by id (W6 (e): 335,000 rows and 210 ms a claim, the table
    // draining a third of its rate for 40 s): here 166,787 rows.
    expect(rowsRead(plan)).toBeLessThan(20_000);
    // The sorts it keeps carry the cost a turned-off setting adds: no JIT compiles the claim for it.
    expect(plan.jit).toBe(false);
  });
});
