/**
 * One key with 50,000 ready rows beside 500 small keys, under per-key concurrency: the claim
 * reads a bounded number of rows, whether the hot key is full (its rows in work at its limit) or
 * not. Before, a claim read every ready row of a full key ahead of the others (pg-boss #842's
 * shape: 50,000 rows removed by the filter, each counting its key's rows in work).
 */
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
});
