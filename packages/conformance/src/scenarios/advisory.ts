import {
  type AnyTable,
  type Capabilities,
  ClosedError,
  keyOf,
  Outcome,
  queue,
  type Row,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, sleep, until } from '../harness.js';

/** Advisory lock form scenarios. */
export function advisoryScenarios(h: () => Harness, _caps: Capabilities): void {
  test('R-ADV-1 a key held elsewhere is passed over; the row is delivered once the key is free', async () => {
    const { desc } = await h().create('advisory');
    const b = await h().broker();
    const seen: number[] = [];
    b.subscribe(queue(desc).workers(2), async (m) => {
      seen.push((m as { n: number }).n);
    });
    const id1 = await b.publish(desc, { n: 1 });
    // Another session holds the first row's key.
    const other = await h().open();
    const conn = await other.pool.acquire();
    const ops = other.dialect.prepare(desc);
    const key = keyOf(desc, { id: id1 });
    expect(await ops.advisory.lock(conn, key)).toBe(true);
    await b.publish(desc, { n: 2 });
    await b.start();
    await until(() => seen.includes(2), 'the free row delivered');
    await sleep(300);
    expect(seen).not.toContain(1);
    expect(await ops.advisory.unlock(conn, key)).toBe(true);
    other.pool.release(conn);
    await until(() => seen.includes(1), 'delivered once its key is free');
  });

  test('R-ADV-3 rows whose keys match go into work one at a time; other keys run meanwhile', async () => {
    const { name } = await h().create('advisory', { columns: ['account'] });
    const keyed = h().describe('advisory', name, { key: `${name}-{account}`, columns: ['account'] });
    const b = await h().broker();
    const running = new Map<string, number>();
    let maxSame = 0;
    let maxAll = 0;
    let done = 0;
    b.subscribe(queue(keyed).workers(4), async (m) => {
      const acc = (m as { account: string }).account;
      running.set(acc, (running.get(acc) ?? 0) + 1);
      maxSame = Math.max(maxSame, running.get(acc)!);
      maxAll = Math.max(
        maxAll,
        [...running.values()].reduce((a, c) => a + c, 0),
      );
      await sleep(60);
      running.set(acc, running.get(acc)! - 1);
      done++;
    });
    for (let i = 0; i < 12; i++) {
      const account = `a${i % 3}`;
      await b.publish(keyed, { account }, { columns: { account } });
    }
    await b.start();
    await until(() => done === 12, 'all rows done', 20_000);
    expect(maxSame).toBe(1);
    // Other accounts ran meanwhile, where the database's candidate select can see keys in work.
    expect(maxAll).toBeGreaterThanOrEqual(1);
  });

  test('R-ADV-4 a key belongs to the database: two tables whose keys match wait for each other', async () => {
    // A per-scenario prefix keeps parallel runs on one database from sharing these keys.
    const shared = `${h().name('shared')}-{id}`;
    const a = await h().create('advisory', { key: shared });
    const bTable = await h().create('advisory', { key: shared });
    const broker = await h().broker();
    const inA = gate();
    const releaseA = gate();
    let bDelivered = 0;
    broker.subscribe(queue(a.desc), async () => {
      inA.open();
      await releaseA.promise;
    });
    await broker.publish(a.desc, { t: 'a' }); // id 1 in table a: key shared-1
    await broker.publish(bTable.desc, { t: 'b' }); // id 1 in table b: the same key
    await broker.start();
    await inA.promise;
    // Table b's subscription starts while a's row holds the shared key.
    await broker.subscribe(queue(bTable.desc), async () => {
      bDelivered++;
    }).ready;
    await sleep(400);
    expect(bDelivered).toBe(0);
    releaseA.open();
    await until(() => bDelivered === 1, 'table b row delivered after a settles');
  });

  test('R-ADV-5 R-ADV-2 retry() runs no statement (the take counted the attempt); ack settles on the lock connection, then the lock is released', async () => {
    const { desc, name } = await h().create('advisory');
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      if (attempts.length === 1) {
        const [row] = await h().rows(name);
        expect(Number(row!.attempt)).toBe(1); // the take committed the count: the first delivery reads 1
        return Outcome.retry();
      }
      return Outcome.ack();
    });
    await b.start();
    await b.publish(desc, { r: 1 });
    await until(() => attempts.length === 2, 'redelivered');
    expect(attempts).toEqual([1, 2]);
    await until(async () => (await h().rows(name)).length === 0, 'acked');
    await until(() => b.poolUse.held === 0, 'connection back in the pool');
    if (h().target.advisoryLocksHeld)
      await until(async () => (await h().target.advisoryLocksHeld!()) === 0, 'no lock held');
  });

  test('R-ADV-6 a dropped delivery releases its lock and closes its connection; the row returns', async () => {
    const { desc, name } = await h().create('advisory');
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc).timeout(150), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      if (attempts.length === 1) await sleep(60_000);
    });
    await b.start();
    await b.publish(desc, { drop: 1 });
    await until(() => attempts.length === 2, 'redelivered after the drop', 8_000);
    expect(attempts).toEqual([1, 2]);
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });

  test('R-ADV-8 shutdown releases every lock in work, counts them, and a released delivery settles no more (ClosedError)', async () => {
    const { desc, name } = await h().create('advisory');
    const b = await h().broker();
    const release = gate();
    const errors: unknown[] = [];
    let running = 0;
    b.subscribe(queue(desc).workers(3), async (_m, ctx) => {
      running++;
      await release.promise;
      await ctx.ack().catch((e: unknown) => errors.push(e));
    });
    for (let i = 0; i < 3; i++) await b.publish(desc, { i });
    await b.start();
    await until(() => running === 3, 'three in work');
    const closed = await b.shutdown({ timeout: 0 });
    expect(closed).toEqual({ locksReleased: 3, connectionsClosed: 0 });
    const locksHeld = h().target.advisoryLocksHeld;
    if (locksHeld) expect(await locksHeld()).toBe(0);
    release.open();
    await until(() => errors.length === 3, 'late settlements fail');
    for (const e of errors) expect(e).toBeInstanceOf(ClosedError);
    expect(await h().rows(name)).toHaveLength(3); // back in the queue
    const b2 = await h().broker();
    let again = 0;
    b2.subscribe(queue(desc).workers(3), async () => {
      again++;
    });
    await b2.start();
    await until(() => again === 3, 'another broker takes them');
  });

  test('R-ADV-9 a batch larger than the pool shrinks instead of waiting', async () => {
    const { desc, name } = await h().create('advisory');
    const b = await h().broker({ poolSize: 3 });
    let running = 0;
    let peak = 0;
    b.subscribe(queue(desc).workers(8), async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(100);
      running--;
    });
    for (let i = 0; i < 10; i++) await b.publish(desc, { i });
    await b.start();
    await until(async () => (await h().rows(name)).length === 0, 'all processed', 20_000);
    expect(peak).toBeLessThanOrEqual(2); // pool of 3 less one
    expect(b.poolUse.peak).toBeLessThanOrEqual(2);
  });

  /**
   * The take re-checks the group head: between a claim's candidate select and
   * its take, an older row of the same group may join it (moved into the group) or come back
   * unsettled; the take must then leave the row alone. Built step by step on the table's own
   * statements, so no timing decides it.
   */
  test('R-OPS-7 R-FIFO-1 the advisory take re-checks the group head: an older row that joins the group after the candidate select holds the row back', async () => {
    const { desc, name } = await h().create('advisory', { group: true });
    await h().insertPlain(name, '{"n":1}', { grp: 'other' });
    await h().insertPlain(name, '{"n":2}', { grp: 'g' });
    const [older, row] = await h().rows(name);
    await takeAfterChange(h(), desc, row!, older!, `UPDATE ${name} SET grp = 'g' WHERE grp = 'other'`);
  });

  test('R-OPS-7 R-FIFO-1 the advisory take re-checks the group head: an older row of the group that comes back unsettled holds the row back', async () => {
    const { desc, name } = await h().create('advisory', { group: true, processedAt: true });
    await h().insertPlain(name, '{"n":1}', { grp: 'g' });
    await h().insertPlain(name, '{"n":2}', { grp: 'g' });
    const [older, row] = await h().rows(name);
    const a = await h().open();
    const conn = await a.pool.acquire();
    try {
      const ops = a.dialect.prepare(desc);
      expect(await ops.settle(conn, { kind: 'finish', id: older!.id, now: new Date() })).toBe(1);
    } finally {
      a.pool.release(conn);
    }
    await takeAfterChange(h(), desc, row!, older!, `UPDATE ${name} SET processed_at = NULL`);
  });

  test('R-ADV-10 R-DESC-6 custom lock and unlock are used for every key, in place of the dialect', async () => {
    const name = h().name('own');
    const base = await h().open();
    const probe = base.dialect.prepare(h().describe('advisory', name));
    const calls = { lock: 0, unlock: 0 };
    const { desc } = await h().create(
      'advisory',
      {
        lock: async (conn, key) => {
          const took = await probe.advisory.lock(conn as never, key);
          if (took) calls.lock++;
          return took;
        },
        unlock: async (conn, key) => {
          calls.unlock++;
          return probe.advisory.unlock(conn as never, key);
        },
      },
      name,
    );
    const b = await h().broker();
    let done = 0;
    b.subscribe(queue(desc).workers(2), async () => {
      done++;
    });
    for (let i = 0; i < 3; i++) await b.publish(desc, { i });
    await b.start();
    await until(() => done === 3, 'all three delivered');
    await until(() => calls.unlock === calls.lock, 'every lock released');
    expect(calls.lock).toBeGreaterThanOrEqual(3);
  });
}

/**
 * Selects the candidates (`row` must be one: its group's head), locks `row`'s key, runs `change`
 * (which makes `older` an unsettled row of `row`'s group), then takes `row`: the take answers
 * null and counts no attempt. `older`, now the head, is still taken.
 */
async function takeAfterChange(
  h: Harness,
  desc: AnyTable,
  row: Row,
  older: Row,
  change: string,
): Promise<void> {
  const a = await h.open();
  const ops = a.dialect.prepare(desc);
  const conn = await a.pool.acquire();
  try {
    const found = await ops.advisory.candidates(conn, 10, new Date(), new Set());
    const candidate = found.find((c) => String(c.id) === String(row.id));
    expect(candidate, 'the row is its group head when the candidates are selected').toBeDefined();
    expect(await ops.advisory.lock(conn, candidate!.key)).toBe(true);
    await h.target.exec(change);
    expect(
      await ops.advisory.take(conn, row.id, new Date()),
      'a row that is no longer its group head',
    ).toBeNull();
    const after = await h.rows(desc.table);
    expect(Number(after.find((r) => String(r.id) === String(row.id))?.attempt)).toBe(0);
    expect(await ops.advisory.unlock(conn, candidate!.key)).toBe(true);
    const head = await ops.advisory.take(conn, older.id, new Date());
    expect(head === null ? null : String(head.id)).toBe(String(older.id));
  } finally {
    a.pool.release(conn);
  }
}
