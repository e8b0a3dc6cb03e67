/**
 * The lease claims read their rows by the primary key (R-LEASE-1): the update of the rows the
 * locking select picked must not be planned as a join over a scan of the whole table, which made
 * each claim cost in proportion to the backlog. The claims' own SQL text is shown to the planner
 * with EXPLAIN over a table of 20,000 due rows.
 */
import { type AnyTable, type Connection, inbox } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import { PostgresStatements } from '../src/statements.js';
import { CLAIM_PLAN, type PostgresTable } from '../src/table.js';
import {
  at,
  drivers,
  explain,
  leaseTable,
  type Opened,
  type PlanNode,
  planNodes,
  recording,
  suiteAdmin,
  uniqueName,
} from './support.js';

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

describe('R-LOAD-6 a FIFO claim reads groups, not the backlog behind their heads (EXPLAIN ANALYZE)', () => {
  const { admin, create } = suiteAdmin();

  /** The claim's shared buffers (hit and read) and the ids it took, in a transaction rolled back. */
  async function measure(st: { sql: string; params: readonly unknown[] }) {
    const c = admin();
    await c.query('BEGIN');
    try {
      const r = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${st.sql}`, [...st.params]);
      const top = (r.rows[0]['QUERY PLAN'] as { Plan: Record<string, number> }[])[0]!.Plan;
      const buffers = (top['Shared Hit Blocks'] ?? 0) + (top['Shared Read Blocks'] ?? 0);
      await c.query('ROLLBACK');
      await c.query('BEGIN');
      const rows = await c.query(st.sql, [...st.params]);
      return { buffers, ids: rows.rows.map((x) => Number(x.id)).sort((a, b) => a - b) };
    } finally {
      await c.query('ROLLBACK');
    }
  }

  for (const layout of ['interleaved', 'one group after another'] as const)
    for (const processedAt of [false, true])
      test(`R-LOAD-6 R-FIFO-1 20 groups of 2,000 rows (${layout}${processedAt ? ', processed_at' : ''}), 18 heads leased: the claim takes the 2 free heads and the rows without a group, reading a bounded number of pages`, async () => {
        const name = uniqueName('fifoscan');
        const t = leaseTable(name, { group: true, processedAt });
        await create(t);
        const group = layout === 'interleaved' ? `'g' || (g % 20)` : `'g' || ((g - 1) / 2000)`;
        await admin().query(
          `INSERT INTO "${name}" (payload, grp) SELECT '{}'::jsonb, ${group} FROM generate_series(1, 40000) g`,
        );
        // Three rows without a group at the end: each is its own head.
        await admin().query(`INSERT INTO "${name}" (payload) SELECT '{}'::jsonb FROM generate_series(1, 3)`);
        if (processedAt)
          // Settled rows ahead of everything (stamped, kept): they hold no group.
          await admin().query(
            `UPDATE "${name}" SET processed_at = now() WHERE id IN (SELECT min(id) FROM "${name}" WHERE grp IS NOT NULL GROUP BY grp)`,
          );
        const heads = (
          await admin().query(
            `SELECT min(id) AS id FROM "${name}" WHERE grp IS NOT NULL${processedAt ? ' AND processed_at IS NULL' : ''} GROUP BY grp ORDER BY min(id)`,
          )
        ).rows.map((x) => Number(x.id));
        expect(heads).toHaveLength(20);
        await admin().query(
          `UPDATE "${name}" SET locked_until = now() + interval '1 hour' WHERE id = ANY($1)`,
          [heads.slice(0, 18)],
        );
        await admin().query(`VACUUM ANALYZE "${name}"`);
        const loose = (
          await admin().query(`SELECT id FROM "${name}" WHERE grp IS NULL ORDER BY id`)
        ).rows.map((x) => Number(x.id));
        const { buffers, ids } = await measure(
          new PostgresStatements(t).lease.claim(100, new Date(), at(30_000)),
        );
        expect(ids).toEqual([...heads.slice(18), ...loose]);
        // The table is some 300 pages; probing each of its 40,000 rows for an older row of its group
        // (the claim's former plan) touched 80,000-120,000 buffers; probing a window of 400 rows and
        // walking the 20 groups, 1,600-2,000.
        expect(buffers, `${buffers} buffers`).toBeLessThan(5_000);
      });
});

/**
 * A table emptied and vacuumed, then filled again before the next ANALYZE: vacuum recorded a
 * hundred rows over the pages of two hundred thousand, so the planner takes the thirty thousand that
 * arrived since for a few dozen, and reading them all and sorting costs less in its eyes than an
 * index scan it expects to run to the end. The table's autovacuum is off so no ANALYZE comes
 * between.
 */
async function flippedTable(admin: pgModule.Client, create: (t: AnyTable) => Promise<void>, t: AnyTable) {
  await create(t);
  const name = t.table;
  await admin.query(`ALTER TABLE "${name}" SET (autovacuum_enabled = false)`);
  await admin.query(`INSERT INTO "${name}" (payload) SELECT '{}'::jsonb FROM generate_series(1, 200000)`);
  await admin.query(`ANALYZE "${name}"`);
  await admin.query(`DELETE FROM "${name}" WHERE id <= 199900`);
  await admin.query(`VACUUM ANALYZE "${name}"`);
  await admin.query(`INSERT INTO "${name}" (payload) SELECT '{}'::jsonb FROM generate_series(1, 30000)`);
}

/** The scans of the queue table in a plan: `Seq Scan`, `Index Scan`, .. */
function scansOf(nodes: readonly PlanNode[], name: string): string[] {
  return nodes
    .filter((n) => n['Relation Name'] === name && n['Node Type'].endsWith('Scan'))
    .map((n) => n['Node Type']);
}

/** 300 ids from `first` on. */
const run = (first: number) => Array.from({ length: 300 }, (_, i) => first + i);

describe('R-LOAD-2 statistics of a table emptied and filled again do not turn the claim into a scan of the table (EXPLAIN)', () => {
  const { admin, create } = suiteAdmin();

  test('R-LOAD-2 the claim left to the planner scans the whole table and sorts; under the claim plan settings it reads the primary key', async () => {
    const t = leaseTable(uniqueName('flip'));
    await flippedTable(admin(), create, t);
    const name = t.table;
    const st = new PostgresStatements(t).lease.claim(300, new Date(), at(30_000));
    // The flip itself: what the planner makes of the claim with the statistics as they are.
    const left = await explain(admin(), st);
    expect(scansOf(left.nodes, name), left.text).toContain('Seq Scan');
    const c = admin();
    await c.query('BEGIN');
    await c.query(CLAIM_PLAN);
    try {
      const r = await c.query(`EXPLAIN (FORMAT JSON) ${st.sql}`, [...st.params]);
      const nodes = planNodes((r.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
      const text = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Relation Name'], n['Index Name']]));
      expect(scansOf(nodes, name), text).toEqual(['Index Scan', 'Index Scan']);
      expect(
        nodes.every((n) => n['Node Type'] !== 'Index Scan' || n['Index Name'] === `${name}_pkey`),
        text,
      ).toBe(true);
    } finally {
      await c.query('ROLLBACK');
    }
  });
});

/**
 * The claims' reads a table runs outside a transaction (the lease claim, the advisory candidates),
 * the ids each of four reads answers, and how many scans of the table a read's plan has.
 */
const reads = [
  {
    kind: 'lease claim',
    table: (name: string) => leaseTable(name),
    read: (ops: PostgresTable, conn: Connection) => ops.claimLease(conn, 300, new Date(), at(30_000)),
    // Each claim takes the 300 rows after the last one's.
    ids: [run(199_901), run(200_201), run(200_501), run(200_801)],
    scans: 2,
  },
  {
    kind: 'advisory candidates',
    table: (name: string) =>
      inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        attempt: 'attempt',
        advisory: 'n-{id}',
      }) as AnyTable,
    read: (ops: PostgresTable, conn: Connection) => ops.candidates(conn, 300, new Date(), new Set()),
    // Candidates take nothing: each read answers the same rows.
    ids: [run(199_901), run(199_901), run(199_901), run(199_901)],
    scans: 1,
  },
];

describe.each(drivers)(
  'R-LOAD-2 the claims keep to the primary key while the planner would read a big table whole, and only then, on $name',
  (driver) => {
    const { admin, create } = suiteAdmin();
    let opened: Opened;
    beforeAll(() => {
      opened = driver.open(2);
    });
    afterAll(async () => {
      await opened.end();
    });

    for (const r of reads)
      test(`R-LOAD-2 a slow ${r.kind} whose plan scans the table runs the next ones in a transaction under the claim plan settings, until ANALYZE puts the plan back on the index`, async () => {
        const t = r.table(uniqueName('flip'));
        await flippedTable(admin(), create, t);
        const name = t.table;
        // What the table tells its logger: the settings going on, then off.
        const told: string[] = [];
        const logger = {
          debug: () => undefined,
          info: (msg: string, f?: Record<string, unknown>) => told.push(`info ${f?.table}: ${msg}`),
          warn: (msg: string, f?: Record<string, unknown>) => told.push(`warn ${f?.table}: ${msg}`),
          error: () => undefined,
        };
        const ops = postgresDialect.prepare(t, { logger }) as PostgresTable;
        // Every read counts as slow, so each unguarded one has its plan looked at.
        ops.slowClaimMs = 0;
        const conn = await opened.adapter.pool.acquire();
        let sent: string[] = [];
        const plans: string[][] = [];
        // Each read (a statement with parameters, not the table's own EXPLAIN) is EXPLAINed first, on
        // its own connection and in its own transaction: the plan it runs with.
        const spy: Connection = {
          id: conn.id,
          query: async (sql, params) => {
            sent.push(sql);
            if (params !== undefined && params.length > 0 && !sql.startsWith('EXPLAIN')) {
              const e = await conn.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
              const raw = e.rows[0]?.['QUERY PLAN'];
              const json = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
              plans.push(scansOf(planNodes(json[0]!.Plan), name));
            }
            return conn.query(sql, params);
          },
        };
        const claimed: number[][] = [];
        const read = async () => {
          sent = [];
          claimed.push((await r.read(ops, spy)).map((x) => Number(x.id)));
          return sent;
        };
        const explained = expect.stringMatching(/^EXPLAIN \(FORMAT JSON\) /);
        try {
          // Unguarded; slow, so its plan is looked at: a scan of the table.
          expect(await read()).toEqual([expect.stringContaining(name), explained]);
          expect(plans[0]).toContain('Seq Scan');
          // Guarded: index scans only, and no EXPLAIN before the recheck is due.
          expect(await read()).toEqual(['BEGIN', CLAIM_PLAN, expect.stringContaining(name), 'COMMIT']);
          expect(plans[1], String(plans[1])).toHaveLength(r.scans);
          expect(
            plans[1]?.every((s) => s === 'Index Scan' || s === 'Index Only Scan'),
            String(plans[1]),
          ).toBe(true);
          // The settings ended with the read's transaction.
          expect((await conn.query('SHOW enable_seqscan')).rows[0]?.enable_seqscan).toBe('on');
          // ANALYZE fixes the statistics; the next recheck finds the planner on the index by itself.
          await admin().query(`ANALYZE "${name}"`);
          ops.recheckMs = 0;
          expect(await read()).toEqual([
            'BEGIN',
            CLAIM_PLAN,
            expect.stringContaining(name),
            'COMMIT',
            explained,
          ]);
          // Unguarded again, though still slow: its plan keeps to the index.
          expect(await read()).toEqual([expect.stringContaining(name), explained]);
          expect(plans[3]).not.toContain('Seq Scan');
          expect(claimed).toEqual(r.ids);
          expect(told).toEqual([
            expect.stringMatching(new RegExp(`^warn ${name}: the planner would read the whole table`)),
            expect.stringMatching(new RegExp(`^info ${name}: the planner keeps to the index again`)),
          ]);
        } finally {
          opened.adapter.pool.release(conn);
        }
      });

    test('R-LOAD-2 a slow claim of a small table planned as a scan of it stays one statement, and its plan is looked at no oftener than recheckMs', async () => {
      const t = leaseTable(uniqueName('small'));
      await create(t);
      await admin().query(
        `INSERT INTO "${t.table}" (payload) SELECT '{}'::jsonb FROM generate_series(1, 50)`,
      );
      await admin().query(`ANALYZE "${t.table}"`);
      const st = new PostgresStatements(t).lease.claim(10, new Date(), at(30_000));
      // The planner reads the one page whole: a scan of the table, but a cheap one.
      expect(scansOf((await explain(admin(), st)).nodes, t.table)).toContain('Seq Scan');
      const ops = postgresDialect.prepare(t) as PostgresTable;
      ops.slowClaimMs = 0;
      const conn = await opened.adapter.pool.acquire();
      try {
        const first = recording(conn);
        expect(await ops.claimLease(first.conn, 10, new Date(), at(30_000))).toHaveLength(10);
        expect(first.statements).toEqual([
          expect.stringContaining('sqlinbox_claimed'),
          expect.stringMatching(/^EXPLAIN /),
        ]);
        // Not under the settings; and the plan was looked at less than recheckMs ago.
        const second = recording(conn);
        expect(await ops.claimLease(second.conn, 10, new Date(), at(30_000))).toHaveLength(10);
        expect(second.statements).toEqual([expect.stringContaining('sqlinbox_claimed')]);
      } finally {
        opened.adapter.pool.release(conn);
      }
    });

    test('R-LOAD-2 a slow claim whose EXPLAIN fails answers the rows it claimed, and the claims stay one statement', async () => {
      const t = leaseTable(uniqueName('noplan'));
      await create(t);
      await admin().query(
        `INSERT INTO "${t.table}" (payload) SELECT '{}'::jsonb FROM generate_series(1, 20)`,
      );
      const ops = postgresDialect.prepare(t) as PostgresTable;
      ops.slowClaimMs = 0;
      ops.recheckMs = 0;
      const conn = await opened.adapter.pool.acquire();
      const sent: string[] = [];
      // The server refuses every EXPLAIN: a statement of the same name that does not parse.
      const spy: Connection = {
        id: conn.id,
        query: (sql, params) => {
          sent.push(sql);
          return conn.query(sql.startsWith('EXPLAIN') ? `${sql} sqlinbox_not_sql(` : sql, params);
        },
      };
      try {
        const first = await ops.claimLease(spy, 10, new Date(), at(30_000));
        const second = await ops.claimLease(spy, 10, new Date(), at(30_000));
        expect([...first, ...second].map((r) => Number(r.id))).toEqual(run(1).slice(0, 20));
        expect(sent.filter((q) => q.startsWith('EXPLAIN'))).toHaveLength(2);
        expect(sent).not.toContain('BEGIN');
        const leased = await admin().query(
          `SELECT count(*)::int AS n FROM "${t.table}" WHERE locked_until > now()`,
        );
        expect(leased.rows[0].n).toBe(20);
      } finally {
        opened.adapter.pool.release(conn);
      }
    });
  },
);
