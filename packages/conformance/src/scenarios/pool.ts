import { type Capabilities, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, sleep, until, wrapOps, wrapPool } from '../harness.js';

/** Workers, the pool budget, empty claims, shutdown and many workers across brokers (section 5). */
export function poolScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  test(`R-POOL-1 workers(n) takes rows at once, not one after another (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker({ poolSize: 8 });
    let running = 0;
    let peak = 0;
    const release = gate();
    b.subscribe(queue(desc).workers(4), async () => {
      running++;
      peak = Math.max(peak, running);
      await release.promise;
      running--;
    });
    for (let i = 0; i < 6; i++) await b.publish(desc, { i });
    await b.start();
    await until(() => running === 4, 'four handlers at once');
    await sleep(200);
    expect(peak).toBe(4);
    release.open();
  });

  test(`R-POOL-2 R-POOL-5 a subscription holds at most the pool's size less one, and a short pool never deadlocks (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const adapterSize = 4;
    const b = await h().broker({ poolSize: adapterSize });
    const adapter = h().adapters.at(-1)!;
    let done = 0;
    let peakHeld = 0;
    b.subscribe(queue(desc).workers(10), async () => {
      peakHeld = Math.max(peakHeld, b.poolUse.held);
      // The handler's own query needs the connection the budget leaves free.
      const conn = await adapter.pool.acquire();
      try {
        await conn.query('SELECT 1');
      } finally {
        adapter.pool.release(conn);
      }
      await sleep(20);
      done++;
    });
    for (let i = 0; i < 20; i++) await b.publish(desc, { i });
    await b.start();
    await until(() => done === 20, 'every row processed without a deadlock', 30_000);
    expect(b.poolUse.peak).toBeLessThanOrEqual(adapterSize - 1);
    // Row lock and advisory deliveries hold a connection each while in work.
    if (form !== 'lease') expect(peakHeld).toBeGreaterThanOrEqual(1);
    await until(async () => (await h().rows(name)).length === 0, 'every settlement committed');
  });

  test(`R-POOL-3 an empty table sees one claim per poll, not one per worker (${form})`, async () => {
    const { desc } = await h().create(form);
    const adapter = await h().open();
    let acquires = 0;
    const pool = adapter.pool;
    const counted = {
      ...adapter,
      pool: wrapPool(pool, {
        acquire: () => {
          acquires++;
          return pool.acquire();
        },
      }),
    };
    const { Broker } = await import('@sqlinbox/core');
    const b = new Broker(counted, { logger: h().logger, pollInterval: 200 });
    h().brokers.push(b);
    b.subscribe(queue(desc).workers(8), async () => {});
    await b.start();
    const start = acquires;
    await sleep(1_000);
    const claims = acquires - start;
    // About five polls in one second; eight workers each claiming would be forty or more.
    expect(claims).toBeLessThanOrEqual(8);
    expect(claims).toBeGreaterThanOrEqual(2);
  });

  test(`R-POOL-3 R-POOL-1 a trickle of rows costs about one empty claim per row, not one per free worker (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const adapter = await h().open({ poolSize: 10 });
    let claims = 0;
    let empty = 0;
    const counted = <R>(rows: R[]): R[] => {
      claims++;
      if (rows.length === 0) empty++;
      return rows;
    };
    const dialect = wrapOps(adapter.dialect, (ops) => ({
      claimLocked: async (...a) => counted(await ops.claimLocked(...a)),
      claimLease: async (...a) => counted(await ops.claimLease(...a)),
      ...(ops.advisory === undefined
        ? {}
        : {
            advisory: {
              ...ops.advisory,
              candidates: async (...a) => counted(await ops.advisory!.candidates(...a)),
            },
          }),
    }));
    const { Broker } = await import('@sqlinbox/core');
    const b = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 200 });
    h().brokers.push(b);
    let handled = 0;
    b.subscribe(queue(desc).workers(8), async () => {
      handled++;
    });
    await b.start();
    await sleep(300);
    const before = { claims, empty };
    const rows = 20;
    // One row at a time, each published once the last was handled: the table never holds two.
    for (let i = 1; i <= rows; i++) {
      await b.publish(desc, { i });
      await until(() => handled === i, `row ${i} handled`);
      await sleep(20);
    }
    await until(async () => (await h().rows(name)).length === 0, 'every settlement committed');
    const trickle = { claims: claims - before.claims, empty: empty - before.empty };
    // Each row: the claim that takes it and about one that finds the table empty again; eight
    // workers each claiming after every row would be seven or more empty claims per row.
    expect(trickle.claims - trickle.empty).toBe(rows);
    expect(trickle.empty).toBeLessThanOrEqual(2 * rows);
  });

  test(`R-POOL-10 many workers across two brokers: every row delivered, none settled twice, none lost (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const a = await h().broker({ poolSize: 6 });
    const b = await h().broker({ poolSize: 6 });
    const seen = new Map<number, number>();
    const handler = async (m: unknown) => {
      const n = (m as { n: number }).n;
      seen.set(n, (seen.get(n) ?? 0) + 1);
    };
    const workers = caps.multipleConnections ? 4 : 2;
    a.subscribe(queue(desc).workers(workers), handler);
    b.subscribe(queue(desc).workers(workers), handler);
    const total = 200;
    await a.publishMany(
      desc,
      Array.from({ length: total }, (_, n) => ({ n })),
    );
    await Promise.all([a.start(), b.start()]);
    await until(
      async () => seen.size === total && (await h().rows(name)).length === 0,
      'all rows settled',
      60_000,
    );
    expect([...seen.values()].every((c) => c === 1)).toBe(true);
  });

  test(`R-PUB-1 publishMany inserts many rows in one call and answers their ids in order (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const ids = await b.publishMany(desc, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(ids).toHaveLength(3);
    const rows = await h().rows(name);
    expect(rows.map((r) => String(r.id))).toEqual(ids.map(String));
  });
}
