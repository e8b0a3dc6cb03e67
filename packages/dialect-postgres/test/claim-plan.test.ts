/**
 * The lease claims read their rows by the primary key (R-LEASE-1): the update of the rows the
 * locking select picked must not be planned as a join over a scan of the whole table, which made
 * each claim cost in proportion to the backlog. The claims' own SQL text is shown to the planner
 * with EXPLAIN over a table of 20,000 due rows.
 */
import { describe, expect, test } from 'vitest';
import { PostgresStatements } from '../src/statements.js';
import { at, explain, leaseTable, type PlanNode, suiteAdmin, uniqueName } from './support.js';

const kinds = {
  plain: {},
  fifo: { group: true },
  'per-key concurrency': { concurrency: { key: 'account', limit: 2 } },
} as const;

describe('R-LEASE-1 the lease claim reads its rows by the primary key (EXPLAIN)', () => {
  const { admin, create } = suiteAdmin();

  for (const [kind, extra] of Object.entries(kinds)) {
    test(`R-LEASE-1 the ${kind} claim of 100 rows from 20,000 scans no table in full`, async () => {
      const name = uniqueName('plan');
      const t = leaseTable(name, extra);
      await create(t);
      const column = kind === 'plain' ? '' : kind === 'fifo' ? ', grp' : ', account';
      const value = kind === 'plain' ? '' : `, 'k' || (g % 500)`;
      await admin().query(
        `INSERT INTO "${name}" (payload${column}) SELECT '{}'::jsonb${value} FROM generate_series(1, 20000) g`,
      );
      await admin().query(`ANALYZE "${name}"`);
      const s = new PostgresStatements(t);
      const now = new Date();
      const st =
        kind === 'per-key concurrency'
          ? s.concurrency.claim(100, now, at(30_000))
          : s.lease.claim(100, now, at(30_000));
      const plan = await explain(admin(), st);
      expect(
        plan.nodes.some((n) => n['Node Type'] === 'ModifyTable'),
        plan.text,
      ).toBe(true);
      const scans = plan.nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
      expect(scans, plan.text).toEqual([]);
    });
  }
});

describe('R-LOAD-2 the lease claim keeps to the primary key whatever ANALYZE saw (EXPLAIN)', () => {
  const { admin, create } = suiteAdmin();

  test('R-LOAD-2 statistics taken while every row was leased do not turn the claim into a scan of the table and a sort', async () => {
    const name = uniqueName('stale');
    const t = leaseTable(name);
    await create(t);
    // At ANALYZE time every row is leased (its lease ends in the future): the column's statistics
    // say almost no row is due. Then as many due rows arrive, unanalyzed.
    await admin().query(
      `INSERT INTO "${name}" (payload, locked_until) SELECT '{}'::jsonb, now() + interval '30 s' FROM generate_series(1, 200000)`,
    );
    await admin().query(`VACUUM ANALYZE "${name}"`);
    await admin().query(`INSERT INTO "${name}" (payload) SELECT '{}'::jsonb FROM generate_series(1, 200000)`);
    const plan = await explain(admin(), new PostgresStatements(t).lease.claim(300, new Date(), at(30_000)));
    // The only sort is the statement's own, of the (at most 300) rows it returns.
    const sorts = plan.nodes.filter((n) => n['Node Type'] === 'Sort') as (PlanNode & {
      'Sort Key'?: string[];
    })[];
    expect(
      sorts.every((n) => (n['Sort Key'] ?? []).every((k) => k.startsWith('sqlinbox_claimed.'))),
      plan.text,
    ).toBe(true);
    expect(
      plan.nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']),
      plan.text,
    ).toEqual([]);
  });
});
