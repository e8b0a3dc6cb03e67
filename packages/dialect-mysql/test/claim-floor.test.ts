/**
 * The lease claim of a busy table starts its scan near the lowest id its last claim took, so it
 * does not step over every deleted row InnoDB has not purged yet (R-LOAD-2); a row below that
 * start (its transaction committed long after its id was drawn) is still claimed: by the claim
 * that scans from the first id at least every 100 ms, or, where such a scan is slow (a
 * transaction held open keeps purge from removing the deleted rows: R-LOAD-3), by the sweep,
 * whose claims each read one window of ids below the start.
 */
import { type AnyTable, type Connection, inbox } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mysqlDialect } from '../src/dialect.js';
import type { MysqlTable } from '../src/ops.js';
import { createTables, drivers, NO_SERVER, type Opened, openAdmin, uniqueName } from './helpers.js';

describe.skipIf(NO_SERVER).each(drivers)(
  'R-LOAD-2 the lease claim from the last claim on $name',
  (driver) => {
    let admin: Awaited<ReturnType<typeof openAdmin>>;
    let opened: Opened;
    const drops: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      admin = await openAdmin();
      opened = await driver.open({ size: 3 });
    });
    afterAll(async () => {
      for (const drop of drops) await drop();
      await opened?.close();
      await admin?.end();
    });

    /**
     * Claims 50 rows at a time from a table of `rows` rows plus one row of id 1 whose transaction
     * commits once 1,000 rows are claimed (below the claims' start by then), deleting each claim's
     * rows, until every row is claimed; answers each id's claim count and every claim's locking
     * select.
     */
    async function drain(rows: number, tune: (ops: MysqlTable) => void = () => undefined) {
      const name = uniqueName('floor');
      const t = inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        attempt: 'attempt',
        lease: 'locked_until',
      } as never) as AnyTable;
      drops.push(await createTables(admin, t));
      // A transaction that wrote a low id and commits only after the claims have passed it.
      const late = await openAdmin();
      await late.q('START TRANSACTION');
      await late.q(`INSERT INTO ${name} (id, payload) VALUES (1, '{"late":true}')`);
      const digits = `(${Array.from({ length: 10 }, (_, i) => `SELECT ${i} AS d`).join(' UNION ALL ')})`;
      await admin.q(
        `INSERT INTO ${name} (id, payload) SELECT g, '{}' FROM (SELECT 2 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS g` +
          ` FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f) s WHERE g <= ${rows + 1} ORDER BY g`,
      );

      const ops = mysqlDialect.prepare(t) as MysqlTable;
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
          const got = await ops.claimLease(spy, 50, new Date(), new Date(Date.now() + 30_000));
          for (const r of got) {
            const id = String(r.id);
            claimed.set(id, (claimed.get(id) ?? 0) + 1);
          }
          if (got.length > 0)
            await admin.q(`DELETE FROM ${name} WHERE id IN (${got.map((r) => Number(r.id))})`);
          if (!committed && claimed.size >= 1000) {
            // The claims are well past id 1000 now: the late row commits below their start.
            await late.q('COMMIT');
            committed = true;
          }
          if (committed && claimed.size === rows + 1) break;
        }
      } finally {
        opened.adapter.pool.release(conn);
        await late.end();
      }
      return { claimed, claims: sent.filter((s) => s.includes('SKIP LOCKED')) };
    }

    const lower = (s: string) => /`id` >= CAST\(/.test(s);
    const upper = (s: string) => /`id` < CAST\(/.test(s);

    test('R-LOAD-2 claims on a busy table scan from near the last claim, and a row committed below that start is still claimed', async () => {
      const { claimed, claims } = await drain(3000);
      expect(claimed.size).toBe(3001);
      expect([...claimed.values()].every((k) => k === 1)).toBe(true);
      expect(claimed.get('1')).toBe(1);
      // Most claims started their scan at an id; some scanned from the first id.
      const bounded = claims.filter(lower).length;
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
      expect(claimed.get('1')).toBe(1);
      // Only the first claim (no claim before it to start from) scans from the first id unbounded.
      expect(claims.filter((s) => !lower(s) && !upper(s))).toHaveLength(1);
      // The sweep's windows: bounded above, below the start; its last reads every id below it.
      const windows = claims.filter(upper);
      expect(windows.length).toBeGreaterThan(0);
      expect(windows.some((s) => !lower(s))).toBe(true);
    });
  },
);
