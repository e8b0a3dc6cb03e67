/**
 * The lease claims read their rows by the primary key (R-LEASE-1): the update of the rows the
 * locking select picked must not be planned as a join over a scan of the whole table, which made
 * each claim cost in proportion to the backlog. The claims' own SQL text is shown to the planner
 * with EXPLAIN over a table of 20,000 due rows.
 */
import { type AnyTable, inbox } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PostgresStatements } from '../src/statements.js';
import { adminClient, at, createTable, uniqueName } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

const kinds = {
  plain: {},
  fifo: { group: 'grp' },
  'per-key concurrency': { concurrency: { key: 'account', limit: 2 } },
} as const;

describe('R-LEASE-1 the lease claim reads its rows by the primary key (EXPLAIN)', () => {
  let admin: pgModule.Client;
  const drops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    for (const d of drops) await d();
    await admin.end();
  });

  for (const [kind, extra] of Object.entries(kinds)) {
    test(`R-LEASE-1 the ${kind} claim of 100 rows from 20,000 scans no table in full`, async () => {
      const name = uniqueName('plan');
      const t = inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        attempt: 'attempt',
        lease: 'locked_until',
        ...extra,
      } as never) as AnyTable;
      drops.push(await createTable(admin, t));
      const cols = kind === 'plain' ? '' : kind === 'fifo' ? ', grp' : ', account';
      const value = kind === 'plain' ? '' : `, 'k' || (g % 500)`;
      await admin.query(
        `INSERT INTO "${name}" (payload${cols}) SELECT '{}'::jsonb${value} FROM generate_series(1, 20000) g`,
      );
      await admin.query(`ANALYZE "${name}"`);
      const s = new PostgresStatements(t);
      const now = new Date();
      const st =
        kind === 'per-key concurrency'
          ? s.claimLeaseByKey(100, now, at(30_000))
          : s.claimLease(100, now, at(30_000));
      await admin.query('BEGIN');
      try {
        const res = await admin.query(`EXPLAIN (FORMAT JSON) ${st.sql}`, [...st.params]);
        const text = (await admin.query(`EXPLAIN ${st.sql}`, [...st.params])).rows
          .map((x) => x['QUERY PLAN'])
          .join('\n');
        const all = nodes((res.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
        expect(
          all.some((n) => n['Node Type'] === 'ModifyTable'),
          text,
        ).toBe(true);
        expect(
          all.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']),
          text,
        ).toEqual([]);
      } finally {
        await admin.query('ROLLBACK');
      }
    });
  }
});
