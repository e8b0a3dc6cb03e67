/**
 * The lease claim of a busy table starts its scan near the lowest id its last claim took, so it
 * does not step over every settled row's index entry since the last vacuum (R-LOAD-2); a row
 * below that start (its transaction committed long after its id was drawn) is still claimed: by
 * the claim that scans from the first id at least every 100 ms, or, where such a scan is slow (a
 * transaction held open keeps the settled rows' entries: R-LOAD-3), by the sweep, whose claims
 * each read one window of ids below the start.
 */
import type { Connection } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import type { PostgresTable } from '../src/table.js';
import { adminClient, at, drivers, leaseTable, type Opened, suiteAdmin, uniqueName } from './support.js';

describe.each(drivers)('R-LOAD-2 the lease claim from the last claim on $name', (driver) => {
  const { admin, create } = suiteAdmin();
  let opened: Opened;
  beforeAll(() => {
    opened = driver.open(3);
  });
  afterAll(async () => {
    await opened.end();
  });

  /**
   * Claims 50 rows at a time from a table of `rows` rows plus one row of id -5 whose transaction
   * commits once 1,000 rows are claimed (below the claims' start by then), deleting each claim's
   * rows, until every row is claimed; answers each id's claim count and every claim statement sent.
   */
  async function drain(rows: number, tune: (ops: PostgresTable) => void = () => undefined) {
    const name = uniqueName('floor');
    const t = leaseTable(name);
    await create(t);
    await admin().query(
      `INSERT INTO "${name}" (payload) SELECT jsonb_build_object('n', g) FROM generate_series(1, $1::int) g`,
      [rows],
    );
    // A transaction that wrote a low id and commits only after the claims have passed it.
    const late = await adminClient();
    await late.query('BEGIN');
    await late.query(`INSERT INTO "${name}" (id, payload) VALUES (-5, '{"late":true}')`);

    const ops = postgresDialect.prepare(t) as PostgresTable;
    tune(ops);
    const sent: string[] = [];
    const conn = await opened.adapter.pool.acquire();
    // Every statement the claims send, as text, to tell the bounded claims from the full ones.
    const spy: Connection = {
      id: conn.id,
      query: (sql, params) => {
        sent.push(sql);
        return conn.query(sql, params);
      },
    };
    const claimed = new Map<string, number>();
    try {
      let committed = false;
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const got = await ops.claimLease(spy, 50, new Date(), at(30_000));
        for (const r of got) {
          const id = String(r.id);
          claimed.set(id, (claimed.get(id) ?? 0) + 1);
        }
        if (got.length > 0)
          await admin().query(`DELETE FROM "${name}" WHERE id = ANY($1::int8[])`, [
            got.map((r) => String(r.id)),
          ]);
        if (!committed && claimed.size >= 1000) {
          // The claims are well past id 1000 now: the late rows commit below their start.
          await late.query('COMMIT');
          committed = true;
        }
        if (committed && claimed.size === rows + 1) break;
      }
    } finally {
      opened.adapter.pool.release(conn);
      await late.end();
    }
    // (A claim after a slow one runs in a transaction of its own: its BEGIN and COMMIT are no claims.)
    return { claimed, claims: sent.filter((s) => s.includes('sqlinbox_claimed')) };
  }

  test('R-LOAD-2 claims on a busy table scan from near the last claim, and a row committed below that start is still claimed', async () => {
    const { claimed, claims } = await drain(3000);
    expect(claimed.size).toBe(3001);
    expect([...claimed.values()].every((k) => k === 1)).toBe(true);
    expect(claimed.get('-5')).toBe(1);
    // Most claims started their scan at an id; some scanned from the first id.
    const bounded = claims.filter((s) => s.includes('>= $2::int8')).length;
    expect(bounded).toBeGreaterThan(0);
    expect(claims.length - bounded).toBeGreaterThan(0);
  });

  test('R-LOAD-3 where a scan from the first id is slow, the sweep claims each window below the start in turn, and a row committed there is still claimed', async () => {
    // Every scan from the first id counts as slow: the claims sweep from the start on.
    const { claimed, claims } = await drain(10_000, (ops) => {
      ops.claimRange!.sweepFromMs = 0;
    });
    expect(claimed.size).toBe(10_001);
    expect([...claimed.values()].every((k) => k === 1)).toBe(true);
    expect(claimed.get('-5')).toBe(1);
    const lower = (s: string) => /"id" >= \$\d+::int8/.test(s);
    const upper = (s: string) => /"id" < \$\d+::int8/.test(s);
    // Only the first claim (no claim before it to start from) scans from the first id unbounded.
    expect(claims.filter((s) => !lower(s) && !upper(s))).toHaveLength(1);
    // The sweep's windows: bounded above, below the start; its last reads every id below it.
    const windows = claims.filter(upper);
    expect(windows.length).toBeGreaterThan(0);
    expect(windows.some((s) => !lower(s))).toBe(true);
  });
});
