import { Broker, type Connection, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, until, wrapOps } from '../harness.js';
import { NEEDS } from '../scenario-skips.js';
import type { ConformanceTarget } from '../target.js';

/** A connection that satisfies the type but is not the object the pool handed out. */
function wrapper(c: Connection): Connection {
  return { id: c.id, query: (sql, params) => c.query(sql, params) };
}

/** How the adapter maps connections back; registered once per adapter. */
export function connectionScenarios(h: () => Harness): void {
  test('R-OPS-10 release and destroy find a connection by its id: a wrapper returns the real connection to the pool, no leak', async () => {
    const adapter = await h().open({ poolSize: 2 });
    const pool = adapter.pool;
    const full = pool.spare();
    const c1 = await pool.acquire();
    await c1.query('SELECT 1');
    expect(pool.spare()).toBe(full - 1);
    pool.release(wrapper(c1));
    await until(() => pool.spare() === full, 'the released connection back in the pool', 5_000);
    // The same session comes out again: the pool holds it idle, none was leaked or closed.
    const c2 = await pool.acquire();
    expect(c2.id).toBe(c1.id);
    await pool.destroy(wrapper(c2));
    await until(() => pool.spare() === full, 'the destroyed connection gone from the pool', 5_000);
    const c3 = await pool.acquire();
    expect(c3.id).not.toBe(c1.id); // destroyed: a new session
    await c3.query('SELECT 1');
    pool.release(wrapper(c3));
    // Every connection of the pool can be taken at once: nothing leaked.
    const all = await Promise.all(Array.from({ length: pool.size }, () => pool.acquire()));
    for (const c of all) pool.release(wrapper(c));
    await until(() => pool.spare() === full, 'every connection back', 5_000);
  });
}

/** Lease form: a batched settlement whose connection is killed. */
export function batchedAckKillScenarios(h: () => Harness, target: ConformanceTarget): void {
  test('R-OPS-8 R-ERR-2 a batched ack whose connection is killed settles every row once, on a fresh connection, without waiting for its lease', async (ctx) => {
    if (target.killSession === undefined) ctx.skip(NEEDS.killSession);
    const { desc, name } = await h().create('lease');
    const adapter = await h().open({ poolSize: 6 });
    if (adapter.dialect.prepare(desc).batch === undefined)
      ctx.skip('the dialect has no batched settlement (batch.settleMany)');
    const killed: string[] = [];
    let batches = 0;
    // The dialect as it is, but the first batched settlement's connection is killed before it runs.
    const dialect = wrapOps(adapter.dialect, (ops) => ({
      batch: {
        settleMany: async (conn, list) => {
          batches++;
          if (killed.length === 0) {
            killed.push(conn.id);
            await target.killSession!(conn.id);
          }
          return ops.batch!.settleMany(conn, list);
        },
      },
    }));
    const dirty: string[] = [];
    const onWarning = (w: Error & { code?: string }) => {
      if (w.code === 'SQLINBOX_DIRTY_RELEASE') dirty.push(w.message);
    };
    process.on('warning', onWarning);
    try {
      const b = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 50 });
      h().brokers.push(b);
      const handled = new Map<string, number>();
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const rows = 5;
      // Five workers hold their rows until all five are in work, then ack together: one batch.
      b.subscribe(queue(desc).workers(rows).lease('60s'), async (_m: unknown, c: { id: unknown }) => {
        const id = String(c.id);
        handled.set(id, (handled.get(id) ?? 0) + 1);
        if (handled.size === rows) release();
        await gate;
      });
      for (let i = 0; i < rows; i++) await b.publish(desc, { i });
      await b.start();
      // Well inside the 60 s lease: every row settled by the fallback, none left to its lease.
      await until(async () => (await h().rows(name)).length === 0, 'every row settled', 15_000);
      expect(killed).toHaveLength(1);
      expect(batches).toBeGreaterThanOrEqual(1);
      expect([...handled.values()]).toEqual(Array(rows).fill(1)); // each row handled once
      expect(h().logger.has('warn', 'a batched settlement failed')).toBe(true);
      await new Promise((r) => setImmediate(r));
      expect(dirty).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
}
