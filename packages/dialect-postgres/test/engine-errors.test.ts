import { claimErrorPolicy, classify, SettlementError } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminClient, drivers, uniqueName } from './support.js';

/**
 * The engine's use of `classifyError` (R-OPS-5), fed real errors from a live server through each
 * driver: what a claim does next, and the kind a settlement error carries.
 */
describe.each(drivers)('the engine acts on classifyError over the $name adapter', (driver) => {
  let admin: pgModule.Client;
  const table = uniqueName('eng');
  beforeAll(async () => {
    admin = await adminClient();
    await admin.query(`CREATE TABLE ${table} (id int PRIMARY KEY, v int NOT NULL)`);
    await admin.query(`INSERT INTO ${table} VALUES (1, 0), (2, 0)`);
  });
  afterAll(async () => {
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
    await admin.end();
  });

  test('R-OPS-5 a constraint violation: a settlement error of kind constraint; a claim backs off and logs an error', async () => {
    const { adapter, end } = driver.open(2);
    try {
      const conn = await adapter.pool.acquire();
      const err = await conn.query(`INSERT INTO ${table} VALUES (1, 0)`, []).catch((e: unknown) => e);
      adapter.pool.release(conn);
      const kind = classify(adapter.dialect, err);
      expect(kind).toBe('constraint');
      const settlement = new SettlementError(table, 1, err, kind);
      expect(settlement.kind).toBe('constraint');
      expect(settlement.cause).toBe(err);
      expect(claimErrorPolicy(kind, 1, 1_000)).toMatchObject({
        retire: false,
        level: 'error',
        delayMs: 1_000,
      });
    } finally {
      await end();
    }
  });

  test('R-OPS-5 R-CLUS-2 a killed session: the claim retires its connection and claims again at once on a fresh one, then at most half a second apart', async () => {
    const { adapter, end } = driver.open(2);
    try {
      const conn = await adapter.pool.acquire();
      await admin.query('SELECT pg_terminate_backend($1::int)', [conn.id]);
      const err = await conn.query('SELECT 1', []).catch((e: unknown) => e);
      await adapter.pool.destroy(conn);
      const kind = classify(adapter.dialect, err);
      expect(['connection', 'shutdown']).toContain(kind);
      const first = claimErrorPolicy(kind, 1, 1_000);
      expect(first).toMatchObject({ retire: true, level: 'warn' });
      expect(first.delayMs).toBeLessThanOrEqual(50);
      expect(claimErrorPolicy(kind, 3, 1_000).delayMs).toBe(200);
      expect(claimErrorPolicy(kind, 20, 1_000).delayMs).toBe(500);
    } finally {
      await end();
    }
  });

  test('R-OPS-5 a deadlock: the claim tries again soon, on the same connection', async () => {
    const { adapter, end } = driver.open(3);
    try {
      const a = await adapter.pool.acquire();
      const b = await adapter.pool.acquire();
      await a.query('BEGIN', []);
      await b.query('BEGIN', []);
      await a.query(`UPDATE ${table} SET v = v + 1 WHERE id = 1`, []);
      await b.query(`UPDATE ${table} SET v = v + 1 WHERE id = 2`, []);
      const first = a.query(`UPDATE ${table} SET v = v + 1 WHERE id = 2`, []).then(
        () => undefined,
        (e: unknown) => e,
      );
      const second = b.query(`UPDATE ${table} SET v = v + 1 WHERE id = 1`, []).then(
        () => undefined,
        (e: unknown) => e,
      );
      const [ea, eb] = await Promise.all([first, second]);
      await a.query('ROLLBACK', []);
      await b.query('ROLLBACK', []);
      adapter.pool.release(a);
      adapter.pool.release(b);
      const err = ea ?? eb;
      const kind = classify(adapter.dialect, err);
      expect(kind).toBe('deadlock');
      const policy = claimErrorPolicy(kind, 1, 1_000);
      expect(policy.retire).toBe(false);
      expect(policy.delayMs).toBeLessThanOrEqual(50);
    } finally {
      await end();
    }
  });
});
