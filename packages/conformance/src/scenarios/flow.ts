import { type AnyTable, ConfigError, type Form, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, payloadOf, sleep, until } from '../harness.js';

/** Priorities and unique keys, held by the database. */
export function flowScenarios(h: () => Harness, form: Form): void {
  /** Mixed priorities, published in an order that is not the claim order. */
  const PRIORITIES = [0, 5, 1, 5, 0, 9, 1, 5, 0, 9, 1, 0];

  /** The order a claim must take rows in: highest priority first, then id (= publish order). */
  const expected = (ps: readonly number[]) =>
    ps
      .map((p, n) => ({ p, n }))
      .sort((a, b) => b.p - a.p || a.n - b.n)
      .map((x) => x.n);

  test(`R-FLOW-1 a claim takes the highest priority first, then claim order, one worker (${form})`, async () => {
    const { desc } = await h().create(form, { priority: true });
    const b = await h().broker();
    for (const [n, p] of PRIORITIES.entries()) await b.publish(desc, { n }, { priority: p });
    await b.publish(desc, { n: PRIORITIES.length }); // no priority: the column's default, 0
    const order: number[] = [];
    b.subscribe(queue(desc), async (m) => {
      order.push((m as { n: number }).n);
    });
    await b.start();
    await until(() => order.length === PRIORITIES.length + 1, 'every row handled');
    expect(order).toEqual(expected([...PRIORITIES, 0]));
  });

  test(`R-FLOW-1 with workers(4) rows start in priority order, but for the 4 claims in flight at once (${form})`, async () => {
    const { desc } = await h().create(form, { priority: true });
    const b = await h().broker({ poolSize: 6 });
    const ps = Array.from({ length: 40 }, (_, n) => (n * 7) % 4);
    for (const [n, p] of ps.entries()) await b.publish(desc, { n }, { priority: p });
    const started: number[] = [];
    b.subscribe(queue(desc).workers(4), async (m) => {
      const n = (m as { n: number }).n;
      started.push(ps[n]!);
      await sleep(5);
    });
    await b.start();
    await until(() => started.length === ps.length, 'every row handled', 30_000);
    // The database hands out rows in priority order, but up to 4 claims run at once, and which of
    // 4 rows claimed in the same instant reaches its handler first is the event loop's choice. So
    // after a row starts, at most 3 rows of a higher priority may still start (those claimed
    // alongside it); in claim (id) order, which ignores priority, dozens would.
    for (let i = 0; i < started.length; i++) {
      const later = started.slice(i + 1).filter((p) => p > started[i]!).length;
      expect(later, `start ${i} of ${started.join(',')}`).toBeLessThanOrEqual(3);
    }
  });

  test(`R-FLOW-1 R-FIFO-1 within a FIFO group the head is the oldest row whatever its priority; priority orders the heads (${form})`, async () => {
    const { desc } = await h().create(form, { priority: true, group: true });
    const b = await h().broker();
    await b.publish(desc, { n: 'g1-old-low' }, { group: 'g1', priority: 0 });
    await b.publish(desc, { n: 'g1-new-high' }, { group: 'g1', priority: 9 });
    await b.publish(desc, { n: 'g2-mid' }, { group: 'g2', priority: 5 });
    const order: string[] = [];
    b.subscribe(queue(desc), async (m) => {
      order.push((m as { n: string }).n);
    });
    await b.start();
    await until(() => order.length === 3, 'every row handled');
    expect(order).toEqual(['g2-mid', 'g1-old-low', 'g1-new-high']);
  });

  test(`R-FLOW-1 R-FLOW-2 R-DESC-8 a priority or key option on a table without the column is a ConfigError; a column of the wrong kind stops the start (${form})`, async () => {
    const { desc, name } = await h().create(form, { columns: ['priority'] });
    const b = await h().broker();
    const loose = desc as AnyTable;
    await expect(b.publish(loose, { n: 1 }, { priority: 1 })).rejects.toBeInstanceOf(ConfigError);
    await expect(b.publish(loose, { n: 1 }, { key: 'k' })).rejects.toBeInstanceOf(ConfigError);
    expect(await h().rows(name)).toHaveLength(0);
    // `priority` is a text column here: a priority needs an integer one.
    const textPriority = h().describe(form, name, { priority: true });
    b.subscribe(queue(textPriority), async () => {});
    await expect(b.start()).rejects.toMatchObject({ code: 'CONFIG', table: name, column: 'priority' });
    const c = await h().broker();
    const intKey = h().describe(form, name, {});
    const keyed = { ...intKey, uniqueKey: 'attempt' } as AnyTable;
    c.subscribe(queue(keyed), async () => {});
    await expect(c.start()).rejects.toMatchObject({ code: 'CONFIG', table: name, column: 'attempt' });
  });

  for (const stamped of [false, true]) {
    const settles = stamped ? 'stamped processed_at' : 'deleted';
    test(`R-FLOW-2 one unsettled row per key: a second publish answers the existing id; once the row is ${settles} the key is free (${form})`, async () => {
      const { desc, name } = await h().create(form, { uniqueKey: true, processedAt: stamped });
      const b = await h().broker();
      const first = await b.publish(desc, { n: 1 }, { key: 'order-7' });
      const again = await b.publish(desc, { n: 2 }, { key: 'order-7' });
      const other = await b.publish(desc, { n: 3 }, { key: 'order-8' });
      const plain = await b.publish(desc, { n: 4 });
      expect(String(again)).toBe(String(first));
      expect(String(other)).not.toBe(String(first));
      const rows = await h().rows(name);
      expect(rows.map((r) => (payloadOf(r.payload) as { n: number }).n)).toEqual([1, 3, 4]);
      expect(rows.map((r) => String(r.id))).toEqual([first, other, plain].map(String));
      let handled = 0;
      b.subscribe(queue(desc), async () => {
        handled++;
      });
      await b.start();
      await until(() => handled === 3, 'the rows handled');
      const unsettled = async () =>
        (await h().rows(name)).filter((r) => r.processed_at === null || r.processed_at === undefined);
      await until(async () => (await unsettled()).length === 0, 'every row settled');
      // The key is free: this publish inserts a row (a deleted row's id may be reused, so the
      // proof is the new row, not a new id).
      await b.shutdown();
      const c = await h().broker();
      const later = await c.publish(desc, { n: 5 }, { key: 'order-7' });
      const fresh = (await unsettled()).map((r) => [String(r.id), (payloadOf(r.payload) as { n: number }).n]);
      expect(fresh).toEqual([[String(later), 5]]);
      expect(String(await c.publish(desc, { n: 6 }, { key: 'order-7' }))).toBe(String(later));
    });
  }

  test(`R-FLOW-2 R-DLQ-2 a dead letter moved to a table frees its key; one kept in a dead-letter group holds it (${form})`, async () => {
    const moved = await h().create(form, { uniqueKey: true, processedAt: true, deadLetterTable: true });
    const kept = await h().create(form, { uniqueKey: true, group: true });
    const b = await h().broker();
    const fail = async () => Outcome.retry();
    b.subscribe(queue(moved.desc).maxAttempts(1).deadLetter({ table: moved.dlq! }), fail);
    b.subscribe(queue(kept.desc).maxAttempts(1).deadLetter({ group: 'dead' }), fail);
    const movedId = await b.publish(moved.desc, { n: 1 }, { key: 'k' });
    const keptId = await b.publish(kept.desc, { n: 1 }, { key: 'k' });
    await b.start();
    await until(async () => (await h().rows(moved.dlq!)).length === 1, 'row in the dead-letter table');
    await until(async () => (await h().rows(kept.name))[0]?.grp === 'dead', 'row in the dead group');
    await b.shutdown();
    const c = await h().broker();
    const fresh = await c.publish(moved.desc, { n: 2 }, { key: 'k' });
    expect((await h().rows(moved.name)).map((r) => String(r.id))).toEqual([String(fresh)]);
    expect(String(await c.publish(kept.desc, { n: 2 }, { key: 'k' }))).toBe(String(keptId));
    expect(await h().rows(kept.name)).toHaveLength(1);
    expect(movedId).toBeDefined();
  });

  test(`R-FLOW-2 publishMany with keys: a key repeated in one batch inserts once, the first wins (${form})`, async () => {
    const { desc, name } = await h().create(form, { uniqueKey: true });
    const b = await h().broker();
    const held = await b.publish(desc, { n: 0 }, { key: 'c' });
    const keys = ['a', 'b', 'a', undefined, 'c', 'b'];
    const ids = await b.publishMany(
      desc,
      keys.map((_, n) => ({ n: n + 1 })),
      { key: (_m, i) => keys[i] },
    );
    expect(ids.map(String)).toEqual([ids[0], ids[1], ids[0], ids[3], held, ids[1]].map(String));
    const rows = await h().rows(name);
    expect(rows.map((r) => [(payloadOf(r.payload) as { n: number }).n, r.job_key ?? null])).toEqual([
      [0, 'c'],
      [1, 'a'],
      [2, 'b'],
      [4, null],
    ]);
  });

  test(`R-FLOW-2 publishers racing on one key from separate brokers insert exactly one row, and every publish answers its id (${form})`, async () => {
    const { desc, name } = await h().create(form, { uniqueKey: true, processedAt: true });
    const brokers = await Promise.all([h().broker(), h().broker(), h().broker()]);
    const keys = Array.from({ length: 15 }, (_, k) => `race-${k}`);
    const answers = await Promise.all(
      keys.flatMap((key) =>
        brokers.flatMap((b, bi) =>
          [0, 1].map(async (j) => ({ key, id: String(await b.publish(desc, { key, bi, j }, { key })) })),
        ),
      ),
    );
    const rows = await h().rows(name);
    expect(rows).toHaveLength(keys.length);
    const idOf = new Map(rows.map((r) => [String(r.job_key), String(r.id)]));
    for (const a of answers) expect(a.id).toBe(idOf.get(a.key));
  });
}
