import {
  type BatchItem,
  type Capabilities,
  type Connection,
  type CustomStatement,
  type EventMap,
  type Form,
  Outcome,
  Queue,
  queue,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, payloadOf, sleep, until } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';

type Msg = { k: string };
const keyOf = (item: BatchItem<unknown>) => (item.message as Msg).k;

/**
 * Batch subscriptions: a claim takes up to n rows and the handler gets them as one
 * array; each row settles on its own, and the rows the handler left unsettled settle by its
 * outcome. Every form: row lock (one transaction for the batch), lease (one claim statement, each
 * row's lease extended until settled), advisory (one lock and connection per row).
 */
export function batchScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  test(`R-POOL-8 a batch handler gets arrays of at most n rows, and every row is settled once (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const sizes: number[] = [];
    const seen = new Map<string, number>();
    const settled = new Map<string, EventMap['settled'][]>();
    b.on('settled', (e) => settled.set(String(e.id), [...(settled.get(String(e.id)) ?? []), e]));
    b.subscribe(
      queue(desc)
        .batch(5)
        .workers(caps.multipleConnections ? 2 : 1),
      async (items) => {
        sizes.push(items.length);
        for (const item of items) seen.set(keyOf(item), (seen.get(keyOf(item)) ?? 0) + 1);
        await sleep(10);
        // Returning nothing acks every row the handler did not settle.
      },
    );
    const total = 23;
    const ids = await b.publishMany(
      desc,
      Array.from({ length: total }, (_, i) => ({ k: `m${i}` })),
    );
    await b.start();
    await until(async () => seen.size === total && (await h().rows(name)).length === 0, 'every row acked');
    await until(() => settled.size === total, 'a settled event per row');
    expect(Math.max(...sizes)).toBeLessThanOrEqual(5);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...sizes)).toBeGreaterThan(1); // rows came in batches, not one by one
    expect(sizes.reduce((a, c) => a + c, 0)).toBe(total);
    expect([...seen.values()].every((c) => c === 1)).toBe(true);
    for (const id of ids) {
      expect(settled.get(String(id))?.map((e) => [e.outcome, e.plan])).toEqual([['ack', 'finish']]);
    }
  });

  test(`R-POOL-8 R-SET-1 R-SET-2 R-DLQ-1 R-ATT-2 mixed outcomes in one batch each take effect on their own row (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { retryAfter: true, deadLetterTable: true });
    const b = await h().broker();
    const settled = new Map<string, EventMap['settled']>();
    b.on('settled', (e) => settled.set(String(e.id), e));
    const calls: { k: string; attempt: number }[][] = [];
    const errors: unknown[] = [];
    let stopped: Promise<unknown> | undefined;
    b.subscribe(queue(desc).batch(10).maxAttempts(2).deadLetter({ table: dlq! }), async (items) => {
      calls.push(items.map((i) => ({ k: keyOf(i), attempt: i.ctx.attempt })));
      const outcome: Record<string, Outcome> = {
        a: Outcome.ack(),
        b: Outcome.retry(),
        c: Outcome.drop(),
        d: Outcome.retry(), // at its limit: dead-lettered instead
        e: Outcome.retryAfter(60_000),
      };
      await Promise.all(
        items.map((i) => i.ctx.settle(outcome[keyOf(i)]!).catch((err: unknown) => errors.push(err))),
      );
      // Stop claiming before the retried row comes back, so each row is seen as its outcome left it.
      stopped = b.shutdown({ timeout: 5_000 });
    });
    const [a, bId, c, e] = await b.publishMany(desc, [{ k: 'a' }, { k: 'b' }, { k: 'c' }, { k: 'e' }]);
    // Row d has used its first attempt already: its retry reaches maxAttempts(2).
    await h().insertPlain(name, '{"k":"d"}', { attempt: '1' });
    await b.start();
    const before = Date.now();
    await until(() => stopped !== undefined, 'the batch');
    await stopped;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.map((x) => x.k).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(calls[0]!.find((x) => x.k === 'd')!.attempt).toBe(2);
    expect(calls[0]!.filter((x) => x.k !== 'd').every((x) => x.attempt === 1)).toBe(true);
    expect(errors).toEqual([]);

    const rows = await h().rows(name);
    const byKey = new Map(rows.map((r) => [(payloadOf(r.payload) as Msg).k, r]));
    expect([...byKey.keys()].sort()).toEqual(['b', 'e']); // a acked, c dropped, d moved
    const rb = byKey.get('b')!;
    const re = byKey.get('e')!;
    expect(Number(rb.attempt)).toBe(1); // counted once, in every form (R-ATT-1)
    expect(rb.retry_after).toBeNull();
    expect(Number(re.attempt)).toBe(1);
    expect(ms(re.retry_after)!).toBeGreaterThan(before + 50_000);
    if (form === 'lease') {
      expect(rb.locked_until).toBeNull();
      expect(re.locked_until).toBeNull();
    }
    const dead = await h().rows(dlq!);
    expect(dead.map((r) => (payloadOf(r.payload) as Msg).k)).toEqual(['d']);
    expect(h().logger.has('warn', 'reached the limit of 2')).toBe(true);

    const plan = (id: unknown) => [settled.get(String(id))?.outcome, settled.get(String(id))?.plan];
    expect(plan(a)).toEqual(['ack', 'finish']);
    expect(plan(bId)).toEqual(['retry', 'return']);
    expect(plan(c)).toEqual(['drop', 'finish']);
    expect(plan(e)).toEqual(['retryAfter', 'return']);
    const deadEvent = [...settled.values()].find((x) => x.plan === 'deadLetter');
    expect(deadEvent?.outcome).toBe('retry');
    expect(settled.size).toBe(5);
  });

  test(`R-POOL-8 R-SET-4 a throwing batch handler retries the rows it did not settle, and only those (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const deliveries: { k: string; attempt: number }[] = [];
    let calls = 0;
    b.subscribe(queue(desc).batch(10), async (items) => {
      calls++;
      for (const i of items) deliveries.push({ k: keyOf(i), attempt: i.ctx.attempt });
      if (calls === 1) {
        await items.find((i) => keyOf(i) === 'x1')!.ctx.ack();
        throw new Error('the rest of the batch failed');
      }
    });
    const ids = await b.publishMany(desc, [{ k: 'x1' }, { k: 'x2' }, { k: 'x3' }]);
    await b.start();
    await until(async () => (await h().rows(name)).length === 0, 'every row settled');
    const of = (k: string) => deliveries.filter((d) => d.k === k).map((d) => d.attempt);
    expect(of('x1')).toEqual([1]); // settled before the throw: not retried
    expect(of('x2')).toEqual([1, 2]);
    expect(of('x3')).toEqual([1, 2]);
    const entry = h().logger.entries.find((e) => e.msg.includes('batch handler failed'));
    expect(((entry?.fields?.ids ?? []) as unknown[]).map(String).sort()).toEqual(
      [ids[1], ids[2]].map(String).sort(),
    );
  });

  test(`R-POOL-8 R-SET-5 a settlement statement that fails in a batch fails its own row and no other (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const ops = (await h().open()).dialect.prepare(desc);
    let failId: unknown;
    // The ack runs the dialect's statement, but fails with a real database error for one row: on
    // PostgreSQL such an error would abort a whole transaction, the row lock batch's included.
    const ack: CustomStatement = async (conn, c) => {
      if (String(c.id) === String(failId)) {
        await conn.query('SELECT missing_column FROM sqi_no_such_table');
        return 1;
      }
      const token = c.token === undefined ? {} : { token: c.token };
      return ops.settle(conn as Connection, { kind: 'finish', id: c.id, now: new Date(), ...token });
    };
    const failing = { ...desc, custom: { ack } } as typeof desc;
    const b = await h().broker();
    const results = new Map<string, unknown>();
    let stopped: Promise<unknown> | undefined;
    b.subscribe(queue(failing).batch(10), async (items) => {
      await Promise.all(
        items.map((i) =>
          i.ctx.ack().then(
            () => results.set(keyOf(i), 'ok'),
            (err: unknown) => results.set(keyOf(i), err),
          ),
        ),
      );
      stopped = b.shutdown({ timeout: 5_000 });
    });
    const ids = await b.publishMany(desc, [{ k: 'f1' }, { k: 'f2' }, { k: 'f3' }, { k: 'f4' }]);
    failId = ids[1];
    await b.start();
    await until(() => stopped !== undefined, 'the batch');
    await stopped;
    expect(results.get('f1')).toBe('ok');
    expect(results.get('f3')).toBe('ok');
    expect(results.get('f4')).toBe('ok');
    expect(results.get('f2')).toMatchObject({ code: 'SETTLEMENT', table: name });
    expect(String((results.get('f2') as { rowId: unknown }).rowId)).toBe(String(failId));
    const rows = await h().rows(name);
    // The other rows are settled; the failed one stays as its form says.
    expect(rows.map((r) => String(r.id))).toEqual([String(failId)]);
    if (form === 'rowlock') expect(Number(rows[0]!.attempt)).toBe(0); // rolled back, attempt unchanged
    if (form === 'lease') expect(rows[0]!.locked_until).not.toBeNull(); // until its lease runs out
  });

  test(`R-POOL-8 R-SET-1 a batch handler past its timeout: rows it settled stay settled, the others return (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const deliveries: string[] = [];
    let calls = 0;
    const never = gate();
    b.subscribe(queue(desc).batch(10).timeout(300), async (items) => {
      calls++;
      for (const i of items) deliveries.push(keyOf(i));
      if (calls === 1) {
        await items.find((i) => keyOf(i) === 't1')!.ctx.ack();
        await never.promise; // hangs: dropped at the timeout
      }
    });
    await b.publishMany(desc, [{ k: 't1' }, { k: 't2' }, { k: 't3' }]);
    await b.start();
    await until(async () => (await h().rows(name)).length === 0, 'every row settled');
    expect(deliveries.filter((k) => k === 't1')).toHaveLength(1);
    expect(deliveries.filter((k) => k === 't2')).toHaveLength(2);
    expect(deliveries.filter((k) => k === 't3')).toHaveLength(2);
    expect(h().logger.has('warn', 'batch handler timed out')).toBe(true);
  });

  test(`R-POOL-8 R-ERR-2 shutdown mid-batch loses no row: settled rows stay settled, the others return (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const first = await h().broker();
    const firstAcked: string[] = [];
    const inBatch = gate();
    const never = gate();
    // A short lease, so the rows shutdown leaves leased return soon.
    first.subscribe(queue(desc).batch(10).lease('1s'), async (items) => {
      for (const i of items.slice(0, 3)) {
        await i.ctx.ack();
        firstAcked.push(keyOf(i));
      }
      inBatch.open();
      await never.promise; // still in work when the broker shuts down
    });
    const keys = Array.from({ length: 6 }, (_, i) => `s${i}`);
    await first.publishMany(
      desc,
      keys.map((k) => ({ k })),
    );
    await first.start();
    await inBatch.promise;
    await first.shutdown({ timeout: 200 });

    const second = await h().broker();
    const secondSeen: string[] = [];
    second.subscribe(queue(desc).batch(10), async (items) => {
      for (const i of items) secondSeen.push(keyOf(i));
    });
    await second.start();
    await until(async () => (await h().rows(name)).length === 0, 'every row settled', 15_000);
    expect(firstAcked).toHaveLength(3);
    // The rows acked before shutdown were not delivered again; every other row was, once.
    expect([...secondSeen].sort()).toEqual(keys.filter((k) => !firstAcked.includes(k)).sort());
  });

  test(`R-POOL-8 R-POOL-2 batches hold at most the pool's size less one connection, and a short pool never deadlocks (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const size = 4;
    const b = await h().broker({ poolSize: size });
    const adapter = h().adapters.at(-1)!;
    const sizes: number[] = [];
    let done = 0;
    b.subscribe(queue(desc).batch(8).workers(3), async (items) => {
      sizes.push(items.length);
      // The handler's own query needs the connection the budget leaves free.
      const conn = await adapter.pool.acquire();
      try {
        await conn.query('SELECT 1');
      } finally {
        adapter.pool.release(conn);
      }
      await sleep(20);
      done += items.length;
    });
    await b.publishMany(
      desc,
      Array.from({ length: 30 }, (_, i) => ({ k: `p${i}` })),
    );
    await b.start();
    await until(() => done === 30, 'every row handled without a deadlock', 30_000);
    await until(async () => (await h().rows(name)).length === 0, 'every settlement committed');
    expect(b.poolUse.peak).toBeLessThanOrEqual(size - 1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(8);
  });

  only([form === 'lease', 'a lease form scenario: it runs in the lease form only'])(
    'R-POOL-8 R-LEASE-4 every row of a batch keeps its lease while the handler runs past it',
    async () => {
      const { desc, name } = await h().create('lease');
      const a = await h().broker();
      const other = await h().broker();
      const inBatch = gate();
      const errors: unknown[] = [];
      let otherSeen = 0;
      const lost: unknown[] = [];
      a.on('leaseLost', (e) => lost.push(e.id));
      a.subscribe(queue(desc).batch(10).lease('1s'), async (items) => {
        inBatch.open();
        await sleep(2_500); // over two leases
        await Promise.all(items.map((i) => i.ctx.ack().catch((err: unknown) => errors.push(err))));
      });
      other.subscribe(queue(desc).batch(10), async (items) => {
        otherSeen += items.length;
      });
      await a.publishMany(desc, [{ k: 'l1' }, { k: 'l2' }, { k: 'l3' }]);
      await a.start();
      await inBatch.promise;
      await other.start(); // claims beside it while the batch runs past its first lease
      await until(async () => (await h().rows(name)).length === 0, 'acked', 10_000);
      expect(errors).toEqual([]);
      expect(lost).toEqual([]);
      expect(otherSeen).toBe(0);
    },
  );

  only([caps.transactional, NEEDS.transactional])(
    `R-TX-5 R-POOL-8 a batch queue put together transactional past the builder stops at start with a ConfigError (${form})`,
    async () => {
      const { desc, name } = await h().create(form);
      const b = await h().broker();
      const settings = { ...queue(desc).batch(5).settings, transactional: true };
      let handled = 0;
      b.subscribe(new Queue(settings) as never, async () => {
        handled++;
      });
      await b.publish(desc, { k: 'never' });
      await expect(b.start()).rejects.toMatchObject({ code: 'CONFIG', table: name });
      expect(handled).toBe(0);
    },
  );
}
