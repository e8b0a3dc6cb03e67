/**
 * Per-key concurrency on PostgreSQL (R-FLOW-3): the index `ddl` prints, the claim's turn (a
 * transaction advisory lock) that serializes the claims of one table across sessions, and the
 * count of a key's rows in work read from that index (EXPLAIN).
 */
import { type AnyTable, inbox } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { ddl } from '../src/ddl.js';
import { PostgresStatements } from '../src/statements.js';
import { prepareTable } from '../src/table.js';
import { at, drivers, explain, ids, type Opened, suiteAdmin, uniqueName, withConn } from './support.js';

function limited(name: string, extra: Record<string, unknown> = {}): AnyTable {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    lease: 'locked_until',
    concurrency: { key: 'account', limit: 2 },
    ...extra,
  } as never) as AnyTable;
}

describe('R-FLOW-3 per-key concurrency on PostgreSQL', () => {
  const suite = suiteAdmin();

  test('R-FLOW-3 ddl prints the key column (text) and a (key, lease, id) index, partial on unsettled rows', () => {
    const out = ddl(limited('jobs', { processedAt: 'processed_at' }));
    expect(out[0]).toContain('"account" text');
    expect(out).toContain(
      'CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_concurrency" ON "jobs" ("account", "locked_until", "id") WHERE "processed_at" IS NULL',
    );
    expect(ddl(limited('jobs')).some((s) => s.includes('sqlinbox_concurrency'))).toBe(true);
    expect(ddl(inbox({ table: 'jobs', id: 'id', lease: 'l' })).join('\n')).not.toContain('concurrency');
  });

  for (const driver of drivers) {
    test(`R-FLOW-3 a claim waits for the table's turn while another session holds it, then sees that claim's leases (${driver.name})`, async () => {
      const name = uniqueName('conc');
      const t = limited(name);
      await suite.create(t);
      const admin = suite.admin();
      await admin.query(`INSERT INTO ${name} (payload, account) SELECT '{}', 'a' FROM generate_series(1, 4)`);
      const opened: Opened = driver.open(3);
      try {
        const ops = prepareTable(t);
        // Another session takes the turn and, inside it, leases two rows of key a (as a claim would).
        const turn = new PostgresStatements(t).concurrency.turn();
        await admin.query('BEGIN');
        await admin.query(turn.sql, [...turn.params]);
        await admin.query(
          `UPDATE ${name} SET locked_until = now() + interval '1 minute' WHERE id IN (SELECT id FROM ${name} ORDER BY id LIMIT 2)`,
        );
        const claim = withConn(opened, (conn) =>
          ops.concurrency!.claimLease(conn, 10, new Date(), at(30_000)),
        );
        const state = await Promise.race([
          claim.then(() => 'done'),
          new Promise((r) => setTimeout(() => r('waiting'), 300)),
        ]);
        expect(state).toBe('waiting');
        await admin.query('COMMIT');
        // Key a has 2 in work now: the waiting claim, run after the commit, takes none of it.
        expect(await claim).toEqual([]);
        // Those leases settled: the next claim takes the other two.
        await admin.query(`DELETE FROM ${name} WHERE locked_until IS NOT NULL`);
        const rows = await withConn(opened, (conn) =>
          ops.concurrency!.claimLease(conn, 10, new Date(), at(30_000)),
        );
        expect(ids(rows)).toEqual([3, 4]);
      } finally {
        await admin.query('ROLLBACK').catch(() => {});
        await opened.end();
      }
    });
  }

  test('R-FLOW-3 the count of a key’s rows in work reads the (key, lease) index (EXPLAIN over 20,000 rows)', async () => {
    const name = uniqueName('concx');
    const t = limited(name);
    await suite.create(t);
    const admin = suite.admin();
    await admin.query(
      `INSERT INTO ${name} (payload, account, locked_until) SELECT '{}', 'k' || (g % 500), CASE WHEN g % 3 = 0 THEN now() + interval '1 minute' END FROM generate_series(1, 20000) g`,
    );
    await admin.query(`ANALYZE ${name}`);
    const st = new PostgresStatements(t).concurrency.claim(10, new Date(), at(30_000));
    const plan = await explain(admin, st);
    expect(
      plan.nodes.map((n) => n['Index Name']),
      plan.text,
    ).toContain(`${name}_sqlinbox_concurrency`);
  });
});
