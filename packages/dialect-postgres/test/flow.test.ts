/**
 * Flow control on PostgreSQL: the index `ddl` prints for a priority column serves every claim's
 * order (R-FLOW-1). The claim's own SQL text is captured and shown to the server's planner with
 * EXPLAIN over a table of 20,000 rows, half of them settled.
 */
import { type AnyTable, type Connection, type Form, inbox } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { ddl } from '../src/ddl.js';
import { PostgresStatements } from '../src/statements.js';
import { prepareTable } from '../src/table.js';
import { explain, planNodes, suiteAdmin, uniqueName } from './support.js';

/** A connection that only records what it is asked to run: the text EXPLAIN is then given. */
function recorder(): { conn: Connection; last(): { sql: string; params: unknown[] } } {
  const seen: { sql: string; params: unknown[] }[] = [];
  return {
    conn: {
      id: 'recorder',
      async query(sql: string, params: readonly unknown[] = []) {
        seen.push({ sql, params: [...params] });
        return { rows: [], rowCount: 0 };
      },
    },
    last: () => seen[seen.length - 1]!,
  };
}

function describeTable(name: string, form: Form): AnyTable {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    processedAt: 'processed_at',
    retryAfter: 'retry_after',
    priority: 'priority',
    ...(form === 'lease' ? { lease: 'locked_until' } : {}),
    ...(form === 'advisory' ? { advisory: `${name}-{id}` } : {}),
  } as never) as AnyTable;
}

describe('R-FLOW-1 the priority index serves the claim (EXPLAIN)', () => {
  const { admin, create } = suiteAdmin();

  test('ddl prints (priority DESC, id) partial on unsettled rows, and a partial unique key index', () => {
    const t = inbox({
      table: 'jobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      processedAt: 'processed_at',
      priority: 'priority',
      uniqueKey: 'job_key',
    });
    const out = ddl(t);
    expect(out[0]).toContain('"priority" integer NOT NULL DEFAULT 0');
    expect(out[0]).toContain('"job_key" text');
    expect(out).toContain(
      'CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_priority" ON "jobs" ("priority" DESC, "id") WHERE "processed_at" IS NULL',
    );
    expect(out).toContain(
      'CREATE UNIQUE INDEX IF NOT EXISTS "jobs_sqlinbox_key" ON "jobs" ("job_key") WHERE "processed_at" IS NULL',
    );
  });

  for (const form of ['rowlock', 'lease', 'advisory'] as const) {
    test(`R-FLOW-1 the ${form} claim reads ${'<table>'}_sqlinbox_priority in order, with no Sort of the table's rows`, async () => {
      const name = uniqueName('flow');
      const t = describeTable(name, form);
      await create(t);
      await admin().query(
        `INSERT INTO "${name}" (payload, priority, processed_at)` +
          ` SELECT '{}'::jsonb, (g * 7919) % 10, CASE WHEN g % 2 = 0 THEN now() END FROM generate_series(1, 20000) g`,
      );
      await admin().query(`ANALYZE "${name}"`);
      const ops = prepareTable(t);
      const r = recorder();
      const now = new Date();
      if (form === 'rowlock') await ops.claimLocked(r.conn, 10, now);
      if (form === 'lease') await ops.claimLease(r.conn, 10, now, new Date(now.getTime() + 30_000));
      if (form === 'advisory') await ops.advisory.candidates(r.conn, 10, now, new Set());
      const { nodes: all, text } = await explain(admin(), r.last());
      console.log(`EXPLAIN ${form} claim:\n${text}`);
      expect(
        all.some((n) => n['Node Type'] === 'Index Scan' && n['Index Name'] === `${name}_sqlinbox_priority`),
        text,
      ).toBe(true);
      // The lease claim sorts the (at most 10) rows it returns, from its CTE; nothing sorts the table.
      const sorts = all.filter((n) => n['Node Type'] === 'Sort');
      for (const s of sorts)
        expect(
          planNodes(s).map((n) => n['Node Type']),
          text,
        ).toContain('CTE Scan');
      if (form !== 'lease') expect(sorts, text).toHaveLength(0);
    });
  }
});

describe('R-FLOW-6 the edge table index by parent serves the reads of a parent (EXPLAIN)', () => {
  const { admin, create } = suiteAdmin();

  test('R-FLOW-6 a parent children read (children(), tree(), the prune) over 20,000 edges of 2,000 parents reads <edges>_by_parent, and scans no table in full', async () => {
    const name = uniqueName('flowq');
    const edges = uniqueName('flowe');
    const t = inbox({
      table: name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      retryAfter: 'retry_after',
      processedAt: 'processed_at',
      flows: { table: edges },
    });
    await create(t);
    const s = new PostgresStatements(t);
    const f = t.flows!;
    try {
      for (const stmt of s.flows.ddl(f)) await admin().query(stmt);
      // 2,000 parents of 10 children each, child ids counting up (a parent's children scattered
      // across the primary key, which leads with the child).
      await admin().query(
        `INSERT INTO "${edges}" (queue_name, child_id, parent_id, child_name, state)` +
          ` SELECT $1, g::text, (100000 + g % 2000)::text, 'c' || g, 'pending' FROM generate_series(1, 20000) g`,
        [name],
      );
      await admin().query(`ANALYZE "${edges}"`);
      const { nodes, text } = await explain(admin(), s.flows.edgesBy(f, 'parent_id', ['100007']));
      console.log(`EXPLAIN a parent's edges:\n${text}`);
      expect(
        nodes.some((n) => /Index/.test(n['Node Type']) && n['Index Name'] === `${edges}_by_parent`),
        text,
      ).toBe(true);
      expect(
        nodes.filter((n) => n['Node Type'] === 'Seq Scan'),
        text,
      ).toEqual([]);
      const many = await explain(
        admin(),
        s.flows.edgesBy(
          f,
          'parent_id',
          Array.from({ length: 50 }, (_, i) => String(100000 + i * 40)),
        ),
      );
      expect(
        many.nodes.filter((n) => n['Node Type'] === 'Seq Scan'),
        many.text,
      ).toEqual([]);
    } finally {
      await admin().query(`DROP TABLE IF EXISTS "${edges}", "${edges}_parent"`);
    }
  });
});
