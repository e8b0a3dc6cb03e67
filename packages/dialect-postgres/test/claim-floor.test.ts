/**
 * The lease claim of a busy table starts its scan near the lowest id its last claim took, so it
 * does not step over every settled row's index entry since the last vacuum (R-LOAD-2); a row
 * below that start (its transaction committed long after its id was drawn) is still claimed, by
 * the claim that scans from the first id at least every 100 ms.
 */
import type { Connection } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
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

  test('R-LOAD-2 claims on a busy table scan from near the last claim, and a row committed below that start is still claimed', async () => {
    const name = uniqueName('floor');
    const t = leaseTable(name);
    await create(t);
    await admin().query(
      `INSERT INTO "${name}" (payload) SELECT jsonb_build_object('n', g) FROM generate_series(1, 3000) g`,
    );
    // A transaction that wrote a low id and commits only after the claims have passed it.
    const late = await adminClient();
    await late.query('BEGIN');
    await late.query(`INSERT INTO "${name}" (id, payload) VALUES (-5, '{"late":true}')`);

    const ops = postgresDialect.prepare(t);
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
        const rows = await ops.claimLease(spy, 50, new Date(), at(30_000));
        for (const r of rows) {
          const id = String(r.id);
          claimed.set(id, (claimed.get(id) ?? 0) + 1);
        }
        if (rows.length > 0)
          await admin().query(`DELETE FROM "${name}" WHERE id = ANY($1::int8[])`, [
            rows.map((r) => String(r.id)),
          ]);
        if (!committed && claimed.size >= 1000) {
          // The claims are well past id 1000 now: the late rows commit below their start.
          await late.query('COMMIT');
          committed = true;
        }
        if (committed && claimed.size === 3001) break;
      }
      expect(claimed.size).toBe(3001);
      expect([...claimed.values()].every((k) => k === 1)).toBe(true);
      expect(claimed.get('-5')).toBe(1);
      // Most claims started their scan at an id; some scanned from the first id.
      // (A claim after a slow one runs in a transaction of its own: its BEGIN and COMMIT are no claims.)
      const claims = sent.filter((s) => s.includes('sqlinbox_claimed'));
      const bounded = claims.filter((s) => s.includes('>= $2::int8')).length;
      expect(bounded).toBeGreaterThan(0);
      expect(claims.length - bounded).toBeGreaterThan(0);
    } finally {
      opened.adapter.pool.release(conn);
      await late.end();
    }
  });
});
