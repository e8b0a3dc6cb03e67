import { type EventMap, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, payloadOf, sleep, until } from '../harness.js';

type Msg = { n: number };

/** Expiry: a row not started by its deadline is never delivered, and leaves as expired. */
export function expiryScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-6 a row past its deadline is never delivered: it moves to the dead letter, or is dropped where the queue has none, batches too (${form})`, async () => {
    const dead = await h().create(form, { expiresAt: true, deadLetterTable: true });
    const dropped = await h().create(form, { expiresAt: true, processedAt: true });
    const batched = await h().create(form, { expiresAt: true });
    const b = await h().broker();
    const past = new Date(Date.now() - 1_000);
    const future = new Date(Date.now() + 3_600_000);
    const expired: EventMap['expired'][] = [];
    b.on('expired', (e) => expired.push(e));
    const seen = new Map<string, number[]>();
    const saw = (name: string, n: number) => seen.set(name, [...(seen.get(name) ?? []), n]);
    for (const t of [dead, dropped, batched]) {
      await b.publish(t.desc, { n: 1 }, { expiresAt: past });
      await b.publish(t.desc, { n: 2 }, { expiresAt: future });
      await b.publish(t.desc, { n: 3 });
    }
    b.subscribe(queue(dead.desc).maxAttempts(3).deadLetter({ table: dead.dlq! }), async (m) => {
      saw(dead.name, (m as Msg).n);
    });
    b.subscribe(queue(dropped.desc), async (m) => {
      saw(dropped.name, (m as Msg).n);
    });
    b.subscribe(queue(batched.desc).batch(5), async (items) => {
      for (const i of items) saw(batched.name, (i.message as Msg).n);
    });
    await b.start();
    await until(
      () => expired.length === 3 && seen.size === 3 && [...seen.values()].every((v) => v.length === 2),
      'every row settled',
    );
    for (const t of [dead, dropped, batched]) expect([...(seen.get(t.name) ?? [])].sort()).toEqual([2, 3]);
    // The expired row of each: in the dead-letter table, stamped, or deleted.
    await until(async () => (await h().rows(dead.dlq!)).length === 1, 'the expired row dead-lettered');
    const moved = await h().rows(dead.dlq!);
    expect((payloadOf(moved[0]?.payload) as Msg).n).toBe(1);
    await until(async () => (await h().rows(dead.name)).length === 0, 'the queue emptied');
    await until(
      async () =>
        (await h().rows(dropped.name)).every((r) => r.processed_at !== null && r.processed_at !== undefined),
      'the dropped row stamped',
    );
    expect(await h().rows(dropped.name)).toHaveLength(3);
    await until(async () => (await h().rows(batched.name)).length === 0, 'the batch queue emptied');
    const byTable = new Map(expired.map((e) => [e.table, e]));
    expect(byTable.get(dead.name)?.deadLettered).toBe(true);
    expect(byTable.get(dropped.name)?.deadLettered).toBe(false);
    expect(byTable.get(batched.name)?.deadLettered).toBe(false);
    expect(byTable.get(dead.name)?.deadline.getTime()).toBe(past.getTime());
    expect(h().logger.has('info', 'row expired before it started')).toBe(true);
  });

  test(`R-LIFE-6 under a backlog no delivery starts after its row's deadline; the rest leave as expired (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { expiresAt: true, deadLetterTable: true });
    const b = await h().broker();
    const ROWS = 20;
    const starts: number[] = [];
    let expired = 0;
    b.on('expired', () => {
      expired++;
    });
    let deadline = Number.POSITIVE_INFINITY;
    // Two workers whose handlers last past the deadline: at most two rows start before it, and
    // every row a worker takes after it has expired.
    b.subscribe(queue(desc).workers(2).maxAttempts(3).deadLetter({ table: dlq! }), async () => {
      starts.push(Date.now());
      await sleep(Math.max(0, deadline - Date.now() + 10));
    });
    await b.start();
    // Far enough for the first claims to start before it on a loaded machine; the handlers then
    // hold both workers past it, so the rows left are all taken after it.
    deadline = Date.now() + 3_000;
    await b.publishMany(
      desc,
      Array.from({ length: ROWS }, (_, n) => ({ n })),
      { expiresAt: new Date(deadline) },
    );
    await until(() => starts.length + expired === ROWS, 'every row delivered or expired', 20_000);
    // A handler starts in the same turn as the check before it: a few ms of slack for the clock read.
    const late = starts.filter((t) => t > deadline + 20);
    expect(late).toEqual([]);
    expect(starts.length).toBeGreaterThan(0);
    expect(expired).toBeGreaterThan(0);
    await until(async () => (await h().rows(dlq!)).length === expired, 'the expired rows dead-lettered');
    await until(async () => (await h().rows(name)).length === 0, 'the queue emptied');
  });
}
