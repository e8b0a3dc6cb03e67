/**
 * The lease claims read their rows by the primary key (R-LEASE-1): the update of the rows the
 * locking select picked must not be planned as a join over a scan of the whole table, which made
 * each claim cost in proportion to the backlog. The claims' own SQL text is shown to the planner
 * with EXPLAIN over a table of 20,000 due rows.
 */
import { describe, expect, test } from 'vitest';
import { PostgresStatements } from '../src/statements.js';
import { at, explain, leaseTable, suiteAdmin, uniqueName } from './support.js';

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
          ? s.claimLeaseByKey(100, now, at(30_000))
          : s.claimLease(100, now, at(30_000));
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
