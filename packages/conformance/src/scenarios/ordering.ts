import { type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, sleep, until } from '../harness.js';

/** FIFO groups across brokers and per-key order with workersByKey. */
export function orderingScenarios(h: () => Harness, form: Form): void {
  test(`R-FIFO-1 R-FIFO-2 R-POOL-4 a group's rows run one at a time, in order, across two brokers (${form})`, async () => {
    const { desc } = await h().create(form, { group: true });
    const a = await h().broker();
    const b = await h().broker();
    const order = new Map<string, number[]>();
    const inWork = new Map<string, number>();
    let overlap = 0;
    let done = 0;
    const handler = async (m: unknown) => {
      const { g, n } = m as { g: string; n: number };
      inWork.set(g, (inWork.get(g) ?? 0) + 1);
      if (inWork.get(g)! > 1) overlap++;
      await sleep(5);
      order.set(g, [...(order.get(g) ?? []), n]);
      inWork.set(g, inWork.get(g)! - 1);
      done++;
    };
    a.subscribe(queue(desc).workers(3), handler);
    b.subscribe(queue(desc).workers(3), handler);
    for (let n = 0; n < 10; n++) {
      for (const g of ['g1', 'g2', 'g3']) await a.publish(desc, { g, n }, { group: g });
    }
    await Promise.all([a.start(), b.start()]);
    await until(() => done === 30, 'all grouped rows done', 30_000);
    expect(overlap).toBe(0);
    for (const g of ['g1', 'g2', 'g3']) expect(order.get(g)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test(`R-FIFO-1 R-FIFO-2 one broker with 8 workers over 20 groups: each group's rows run one at a time, in order (${form})`, async () => {
    const { desc } = await h().create(form, { group: true });
    const b = await h().broker({ poolSize: 10 });
    const groups = Array.from({ length: 20 }, (_, k) => `g${k}`);
    const order = new Map<string, number[]>();
    const inWork = new Map<string, number>();
    let overlap = 0;
    let done = 0;
    b.subscribe(queue(desc).workers(8), async (m) => {
      const { g, n } = m as { g: string; n: number };
      inWork.set(g, (inWork.get(g) ?? 0) + 1);
      if (inWork.get(g)! > 1) overlap++;
      await sleep(1);
      order.set(g, [...(order.get(g) ?? []), n]);
      inWork.set(g, inWork.get(g)! - 1);
      done++;
    });
    for (let n = 0; n < 5; n++) for (const g of groups) await b.publish(desc, { g, n }, { group: g });
    await b.start();
    await until(() => done === 100, 'all grouped rows done', 60_000);
    expect(overlap).toBe(0);
    for (const g of groups) expect(order.get(g)).toEqual([0, 1, 2, 3, 4]);
  });

  test(`R-LOAD-6 a FIFO group's next row is claimed as its predecessor settles, not at the next poll: 2 groups of 15 drain with a poll interval of an hour (${form})`, async () => {
    const { desc } = await h().create(form, { group: true });
    // Published before the consumer exists, by a broker of its own: no publish or notification
    // wakes the consumer after its first claim, so only its settlements can.
    const pub = await h().broker();
    for (let n = 0; n < 15; n++) {
      for (const g of ['g1', 'g2']) await pub.publish(desc, { g, n }, { group: g });
    }
    const b = await h().broker();
    const order = new Map<string, number[]>();
    let done = 0;
    b.subscribe(queue(desc).workers(4).pollInterval('1h'), (m) => {
      const { g, n } = m as { g: string; n: number };
      order.set(g, [...(order.get(g) ?? []), n]);
      done++;
    });
    await b.start();
    // Each claim after the first takes a group's head only once its predecessor settled: with no
    // poll for an hour, 30 rows done means every next row was claimed on a settlement.
    await until(() => done === 30, 'both groups drained without a poll', 60_000);
    for (const g of ['g1', 'g2']) expect(order.get(g)).toEqual(Array.from({ length: 15 }, (_, n) => n));
  });

  test(`R-POOL-7 workersByKey(n): one key's rows never split across lanes and run in claim order (${form})`, async () => {
    const { desc } = await h().create(form, { partitionKey: true });
    const b = await h().broker({ poolSize: 6 });
    const order = new Map<string, number[]>();
    const running = new Map<string, number>();
    let overlap = 0;
    let done = 0;
    b.subscribe(queue(desc).workersByKey(3), async (m) => {
      const { k, n } = m as { k: string; n: number };
      running.set(k, (running.get(k) ?? 0) + 1);
      if (running.get(k)! > 1) overlap++;
      await sleep(3);
      order.set(k, [...(order.get(k) ?? []), n]);
      running.set(k, running.get(k)! - 1);
      done++;
    });
    for (let n = 0; n < 8; n++) {
      for (const k of ['k1', 'k2', 'k3', 'k4']) await b.publish(desc, { k, n }, { partitionKey: k });
    }
    await b.start();
    await until(() => done === 32, 'all keyed rows done', 30_000);
    expect(overlap).toBe(0);
    for (const k of ['k1', 'k2', 'k3', 'k4']) expect(order.get(k)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
}
