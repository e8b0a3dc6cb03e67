import { type Capabilities, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, sleep, until } from '../harness.js';

/** Row lock form scenarios. */
export function rowLockScenarios(h: () => Harness, _caps: Capabilities): void {
  test('R-ROW-1 R-ROW-2 R-ROW-4 a claim skips locked rows without waiting; each delivery holds one connection with its transaction open', async () => {
    const { desc, name } = await h().create('rowlock');
    const a = await h().broker();
    const b = await h().broker();
    const inA = gate();
    const releaseA = gate();
    const bSeen: number[] = [];
    let aHolds: unknown;
    a.subscribe(queue(desc), async (_m, ctx) => {
      aHolds = ctx.id;
      inA.open();
      await releaseA.promise;
    });
    await a.publish(desc, { n: 1 });
    await a.start();
    await inA.promise;
    expect(a.poolUse.held).toBe(1);
    await a.publish(desc, { n: 2 });
    b.subscribe(queue(desc), async (m) => {
      bSeen.push((m as { n: number }).n);
    });
    const t0 = Date.now();
    await b.start();
    await until(() => bSeen.length === 1, 'b takes the unlocked row');
    expect(bSeen).toEqual([2]);
    expect(Date.now() - t0).toBeLessThan(3_000);
    // b's ack commits once its handler has returned: wait for it, not for the handler alone.
    await until(async () => (await h().rows(name)).length < 2, 'b commits its ack');
    // The locked row still stands: its settlement is its transaction's commit.
    expect((await h().rows(name)).map((r) => String(r.id))).toEqual([String(aHolds)]);
    releaseA.open();
    await until(async () => (await h().rows(name)).length === 0, 'a commits its ack');
    await until(() => a.poolUse.held === 0, 'connection back');
  });

  test('R-ROW-5 a held claim does not block inserts into the queue table', async () => {
    const { desc, name } = await h().create('rowlock');
    const a = await h().broker();
    const inA = gate();
    const releaseA = gate();
    a.subscribe(queue(desc), async () => {
      inA.open();
      await releaseA.promise;
    });
    await a.publish(desc, { n: 1 });
    await a.start();
    await inA.promise;
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) await a.publish(desc, { more: i });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(await h().rows(name)).toHaveLength(6);
    releaseA.open();
    await sleep(10);
  });
}
