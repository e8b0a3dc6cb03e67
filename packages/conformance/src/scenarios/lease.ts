import { Broker, type Capabilities, LeaseLostError, queue, type TableOps } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, sleep, until, wrapOps, wrapPool } from '../harness.js';
import { skip } from '../scenario-skips.js';

/** Lease form scenarios. */
export function leaseScenarios(h: () => Harness, caps: Capabilities): void {
  test('R-LEASE-1 R-LEASE-2 R-LEASE-10 R-POOL-5 the claim commits at once with the host instant plus the lease: the handler runs with no connection held', async () => {
    const { desc, name } = await h().create('lease');
    const b = await h().broker({ lease: '10s' });
    const inHandler = gate();
    const release = gate();
    // One worker: once its row is in work no claim is in flight, so nothing holds a connection.
    b.subscribe(queue(desc), async () => {
      inHandler.open();
      await release.promise;
    });
    await b.start();
    const before = Date.now();
    await b.publish(desc, { l: 1 });
    await inHandler.promise;
    expect(b.poolUse.held).toBe(0);
    const [row] = await h().rows(name);
    // the expiry is the claim's host instant plus the lease.
    const expiry = ms(row!.locked_until)!;
    expect(expiry).toBeGreaterThanOrEqual(before + 10_000 - 50);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 10_000 + 50);
    expect(Number(row!.attempt)).toBe(1); // counted at claim: the first delivery reads 1
    release.open();
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });

  test('R-LEASE-4 R-LEASE-3 the lease is extended each half lease, so a handler may outlive it; each extension moves the token', async () => {
    const { desc, name } = await h().create('lease');
    // A 2 s lease, extended each second: a 1 s lease left a stall of half a second on a loaded
    // machine no room before another claim could take the row.
    const b = await h().broker({ lease: '2s' });
    const other = await h().broker({ lease: '2s' });
    let otherGot = 0;
    other.subscribe(queue(desc), async () => {
      otherGot++;
    });
    const tokens = new Set<number>();
    let acked: unknown;
    b.subscribe(queue(desc), async (_m, ctx) => {
      for (let i = 0; i < 6; i++) {
        await sleep(750);
        const [row] = await h().rows(name);
        tokens.add(ms(row!.locked_until)!);
      }
      acked = await ctx.ack().then(
        () => true,
        (e: unknown) => e,
      );
    });
    await b.start();
    await b.publish(desc, { long: 1 });
    await other.start();
    await until(() => acked !== undefined, 'handler ran 4.5 s on a 2 s lease and settled', 15_000);
    expect(acked).toBe(true); // not a LeaseLostError
    expect(otherGot).toBe(0);
    expect(tokens.size).toBeGreaterThanOrEqual(3);
  });

  test('R-LEASE-6 R-LEASE-9 R-LEASE-3 after shutdown the lease is no longer extended; the next claim takes the row and the late ack fails with LeaseLostError, changing nothing', async () => {
    const { desc, name } = await h().create('lease');
    const a = await h().broker({ lease: '1s' });
    const inHandler = gate();
    const lateAck = gate<unknown>();
    const proceed = gate();
    a.subscribe(queue(desc), async (_m, ctx) => {
      inHandler.open();
      await proceed.promise;
      await ctx.ack().then(
        () => lateAck.open('acked'),
        (e: unknown) => lateAck.open(e),
      );
    });
    await a.start();
    await a.publish(desc, { lost: 1 });
    await inHandler.promise;
    const closed = await a.shutdown({ timeout: 0 }); // the delivery keeps its lease, unextended
    expect(closed).toEqual({ locksReleased: 0, connectionsClosed: 0 });
    const b = await h().broker({ lease: '30s' });
    const second = gate<number>();
    const holdB = gate();
    b.subscribe(queue(desc), async (_m, ctx) => {
      second.open(ctx.attempt);
      await holdB.promise;
    });
    await b.start();
    expect(await second.promise).toBe(2);
    const [rowB] = await h().rows(name);
    proceed.open();
    const err = await lateAck.promise;
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err).toMatchObject({ table: name });
    const [after] = await h().rows(name);
    expect(ms(after!.locked_until)).toBe(ms(rowB!.locked_until)); // changed nothing
    holdB.open();
    await until(async () => (await h().rows(name)).length === 0, 'B acks');
  });

  test('R-LEASE-9 R-OPS-1 an extension in flight when shutdown stops extending moves no lease after shutdown resolves', async () => {
    const { desc, name } = await h().create('lease');
    const adapter = await h().open();
    let stall = false;
    let stalled = 0;
    const go = gate();
    // Fault injection: a slow database for this broker's next checkouts (the lease extension's).
    const pool = wrapPool(adapter.pool, {
      acquire: async () => {
        if (stall) {
          stalled++;
          await go.promise;
        }
        return adapter.pool.acquire();
      },
    });
    const a = new Broker({ ...adapter, pool }, { logger: h().logger, pollInterval: 50, lease: '1s' });
    h().brokers.push(a);
    const inHandler = gate();
    const finish = gate();
    a.subscribe(queue(desc), async () => {
      inHandler.open();
      await finish.promise;
    });
    await a.start();
    await a.publish(desc, { held: 1 });
    await inHandler.promise;
    stall = true;
    await until(() => stalled > 0, 'an extension waits for its connection');
    const opened = sleep(300).then(() => go.open());
    await a.shutdown({ timeout: 0 }); // the delivery keeps its lease, no longer extended
    const atShutdown = ms((await h().rows(name))[0]!.locked_until);
    await opened;
    await sleep(400);
    expect(ms((await h().rows(name))[0]!.locked_until)).toBe(atShutdown);
    finish.open();
  });

  test('R-LEASE-6 when extensions fail the lease runs out, another claim takes the row, and the late settlement fails with LeaseLostError', async () => {
    const { desc, name } = await h().create('lease');
    const adapter = await h().open();
    let broken = false;
    // Fault injection: the database out of reach for this broker's new statements.
    const pool = wrapPool(adapter.pool, {
      acquire: () => (broken ? Promise.reject(new Error('database out of reach')) : adapter.pool.acquire()),
      tryAcquire: () => (broken ? Promise.resolve(null) : adapter.pool.tryAcquire()),
    });
    const a = new Broker({ ...adapter, pool }, { logger: h().logger, pollInterval: 50, lease: '1s' });
    h().brokers.push(a);
    const inHandler = gate();
    const result = gate<unknown>();
    const lost = gate();
    a.on('leaseLost', () => lost.open());
    a.subscribe(queue(desc), async (_m, ctx) => {
      inHandler.open();
      broken = true;
      await sleep(2_500);
      broken = false;
      await ctx.ack().then(
        () => result.open('acked'),
        (e: unknown) => result.open(e),
      );
    });
    await a.start();
    await a.publish(desc, { f: 1 });
    await inHandler.promise;
    const b = await h().broker({ lease: '30s' });
    const taken = gate<number>();
    // B holds the row until A's late ack has failed and the row is read: B's own ack never races it.
    const release = gate();
    b.subscribe(queue(desc), async (_m, ctx) => {
      taken.open(ctx.attempt);
      await release.promise;
    });
    await b.start();
    expect(await taken.promise).toBe(2);
    expect(await result.promise).toBeInstanceOf(LeaseLostError);
    expect(await h().rows(name)).toHaveLength(1);
    release.open();
    void lost;
  });

  /**
   * A broker whose first claim of a row answers only once `hold` opens: the claim ran at once,
   * its answer comes back late (a network stall, a slow server). `ran` opens when it has run.
   */
  async function lateClaimBroker(hold: Promise<unknown>) {
    const adapter = await h().open();
    const ran = gate<number>();
    let holding = false;
    const dialect = wrapOps(adapter.dialect, (ops) => ({
      claimLease: async (...args: Parameters<TableOps['claimLease']>) => {
        // Claims after the held one wait with it: only B may take the row meanwhile.
        if (holding) await hold;
        const rows = await ops.claimLease(...args);
        if (!holding && rows.length > 0) {
          holding = true;
          ran.open(Date.now());
          await hold;
        }
        return rows;
      },
    }));
    const a = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 50, lease: '1s' });
    h().brokers.push(a);
    return { a, ran };
  }

  test('R-LEASE-6 R-LEASE-3 a claim that comes back after its lease ran out renews the lease before the handler starts', async () => {
    const { desc, name } = await h().create('lease');
    const hold = gate();
    const { a, ran } = await lateClaimBroker(hold.promise);
    const seen = gate<{ expiry: number; at: number }>();
    const release = gate();
    a.subscribe(queue(desc), async () => {
      const [row] = await h().rows(name);
      seen.open({ expiry: ms(row!.locked_until)!, at: Date.now() });
      await release.promise;
    });
    await a.start();
    await a.publish(desc, { late: 1 });
    const claimedAt = await ran.promise;
    // The claim's 1 s lease has run out before its answer is read.
    await until(() => Date.now() > claimedAt + 1_200, 'the claimed lease ran out');
    hold.open();
    const { expiry, at } = await seen.promise;
    expect(expiry).toBeGreaterThan(at); // a live lease: no other claim may take the row
    expect(h().logger.has('warn', 'a claim came back late')).toBe(true);
    release.open();
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });

  test('R-LEASE-6 R-LEASE-3 a row another claim took while a claim was held up is not delivered by the late one', async () => {
    const { desc, name } = await h().create('lease');
    const hold = gate();
    const { a, ran } = await lateClaimBroker(hold.promise);
    let aRan = 0;
    a.subscribe(queue(desc), async () => {
      aRan++;
    });
    await a.start();
    await a.publish(desc, { late: 1 });
    await ran.promise;
    const b = await h().broker({ lease: '30s', pollInterval: 50 });
    const taken = gate<number>();
    const release = gate();
    b.subscribe(queue(desc), async (_m, ctx) => {
      taken.open(ctx.attempt);
      await release.promise;
    });
    await b.start();
    expect(await taken.promise).toBe(2); // B took the row once A's lease ran out
    hold.open();
    await until(
      () => h().logger.has('warn', 'a claim came back late'),
      'the late claim renewed what it still held',
    );
    expect(aRan).toBe(0);
    release.open();
    await until(async () => (await h().rows(name)).length === 0, 'acked by B');
    expect(aRan).toBe(0);
  });

  test('R-LEASE-3 a batched ack (settleMany) settles only the rows that still hold their tokens', async (t) => {
    const { desc, name } = await h().create('lease');
    const adapter = await h().open();
    const ops = adapter.dialect.prepare(desc);
    // Optional: without it the engine settles one by one, which the other scenarios cover.
    if (ops.batch === undefined) {
      t.skip('the dialect has no batched settlement');
      return;
    }
    const b = await h().broker();
    await b.publishMany(desc, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    const conn = await adapter.pool.acquire();
    try {
      const now = new Date();
      const token = new Date(now.getTime() + 30_000);
      const rows = await ops.claimLease(conn, 3, now, token);
      expect(rows).toHaveLength(3);
      const ids = rows.map((r) => r.id);
      const stale = new Date(token.getTime() - 1);
      const changed = await ops.batch.settleMany(conn, [
        { kind: 'finish', id: ids[0], token, now },
        { kind: 'finish', id: ids[1], token, now },
        { kind: 'finish', id: ids[2], token: stale, now },
      ]);
      expect(changed.map(String).sort()).toEqual([ids[0], ids[1]].map(String).sort());
      const left = await h().rows(name);
      expect(left.map((r) => String(r.id))).toEqual([String(ids[2])]);
    } finally {
      adapter.pool.release(conn);
    }
  });

  test('R-ERR-2 R-LEASE-3 a batched ack that fails (a deadlock, a lock wait) settles its rows one by one: none is left leased', async (t) => {
    const { desc, name } = await h().create('lease');
    const adapter = await h().open();
    if (adapter.dialect.prepare(desc).batch === undefined) t.skip('the dialect has no batched settlement');
    // The statement after the switch is thrown at once, before it reaches the server, as the
    // server would refuse a statement that lost a deadlock.
    // Armed for the batch's own statement: a claim may run between the handlers' return and the
    // batch (a worker is free once its handler returns), and must not take the failure.
    let failNext = false;
    let armed = false;
    let failed = 0;
    const pool = adapter.pool;
    const dialect = Object.create(adapter.dialect) as typeof adapter.dialect;
    dialect.prepare = (t, opts) => {
      const ops = adapter.dialect.prepare(t, opts);
      const wrapped = Object.create(ops) as typeof ops;
      (wrapped as { batch: TableOps['batch'] }).batch = {
        settleMany: (conn, list) => {
          if (armed) {
            armed = false;
            failNext = true;
          }
          return ops.batch!.settleMany(conn, list);
        },
      };
      return wrapped;
    };
    const faulty = {
      ...adapter,
      dialect,
      pool: wrapPool(pool, {
        acquire: async () => {
          const conn = await pool.acquire();
          return new Proxy(conn, {
            get(target, prop, receiver) {
              if (prop !== 'query') return Reflect.get(target, prop, receiver);
              return (sql: string, params?: readonly unknown[]) => {
                if (failNext) {
                  failNext = false;
                  failed++;
                  return Promise.reject(
                    Object.assign(new Error('deadlock (injected)'), { code: 'INJECTED' }),
                  );
                }
                return target.query(sql, params);
              };
            },
          });
        },
      }),
    };
    const b = new Broker(faulty, { logger: h().logger, pollInterval: 50, lease: '30s' });
    h().brokers.push(b);
    const rows = 6;
    const allIn = gate();
    const release = gate();
    let inWork = 0;
    b.subscribe(queue(desc).workers(rows), async () => {
      if (++inWork === rows) allIn.open();
      await release.promise;
    });
    await b.publishMany(
      desc,
      Array.from({ length: rows }, (_, i) => ({ i })),
    );
    await b.start();
    await allIn.promise;
    armed = true;
    release.open(); // every handler returns in the same turn: their acks form one batch
    // Far sooner than the 30 s lease: the rows did not wait for their leases to run out.
    await until(async () => (await h().rows(name)).length === 0, 'every row settled', 10_000);
    expect(failed).toBe(1);
    expect(h().logger.has('warn', 'settle one by one')).toBe(true);
  });

  test('R-LEASE-7 a delivery dropped unsettled releases its row at once', async () => {
    const { desc, name } = await h().create('lease');
    const b = await h().broker({ lease: '30s' });
    const attempts: number[] = [];
    b.subscribe(queue(desc).timeout(200), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      if (attempts.length === 1) await sleep(60_000);
    });
    await b.start();
    await b.publish(desc, { drop: 1 });
    await until(() => attempts.length === 2, 'redelivered long before the 30 s lease ran out', 5_000);
    expect(attempts).toEqual([1, 2]);
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });

  if (!caps.claimAhead)
    skip(
      'R-POOL-6 rows claimed ahead of the workers',
      'the adapter does not claim ahead (capabilities.claimAhead is false)',
    );
  if (caps.claimAhead) {
    test('R-POOL-6 one statement claims a row per worker; rows beyond the free workers wait in the lease book, extended, and return at once on stop', async () => {
      const { desc, name } = await h().create('lease');
      const b = await h().broker({ lease: '1s' });
      const release = gate();
      let running = 0;
      b.subscribe(queue(desc).workers(2), async (m) => {
        // The first message finishes at once: its worker is free again while the other holds,
        // so the next claim takes two rows for one free worker and one row waits.
        if ((m as { i: number }).i === 0) return;
        running++;
        await release.promise;
      });
      for (let i = 0; i < 6; i++) await b.publish(desc, { i });
      await b.start();
      await until(() => running === 2, 'two handlers holding');
      const leased = async () =>
        (await h().rows(name)).filter((r) => r.locked_until !== null && ms(r.locked_until)! > Date.now())
          .length;
      await until(async () => (await leased()) === 3, 'three rows leased: two in work, one waiting');
      await sleep(1_500); // past the first lease: the waiting row's lease was extended too
      expect(await leased()).toBe(3);
      expect(running).toBe(2);
      await b.shutdown({ timeout: 0 });
      const rows = await h().rows(name);
      expect(rows.filter((r) => r.locked_until !== null)).toHaveLength(2); // the waiting row returned at once
      release.open();
    });

    test('R-POOL-6 R-POOL-1 by default the rows claimed ahead grow while the workers drain faster than a claim comes back', async () => {
      const { desc, name } = await h().create('lease');
      const adapter = await h().open();
      // Counts the rows each claim statement took.
      const taken: number[] = [];
      const dialect = Object.create(adapter.dialect) as typeof adapter.dialect;
      dialect.prepare = (t, opts) => {
        const ops = adapter.dialect.prepare(t, opts);
        const wrapped = Object.create(ops) as typeof ops;
        wrapped.claimLease = async (conn, n, now, expiry) => {
          const rows = await ops.claimLease(conn, n, now, expiry);
          taken.push(rows.length);
          return rows;
        };
        return wrapped;
      };
      const b = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 50, lease: '30s' });
      h().brokers.push(b);
      const total = 400;
      const seen = new Set<number>();
      let twice = 0;
      // Handlers that return at once drain the rows ahead long before a claim's round trip ends.
      b.subscribe(queue(desc).workers(2), async (m) => {
        const i = (m as { i: number }).i;
        if (seen.has(i)) twice++;
        seen.add(i);
      });
      await b.publishMany(
        desc,
        Array.from({ length: total }, (_, i) => ({ i })),
      );
      await b.start();
      await until(async () => (await h().rows(name)).length === 0, 'every row settled', 30_000);
      expect(seen.size).toBe(total);
      expect(twice).toBe(0);
      // The first claim takes 2 x workers; later ones more, as the workers ran dry before they came back.
      expect(taken[0]).toBe(4);
      expect(Math.max(...taken)).toBeGreaterThan(4);
    });

    test('R-POOL-6 prefetch(n) holds up to workers + n rows claimed, the waiting ones extended and returned at once on stop', async () => {
      const { desc, name } = await h().create('lease');
      const b = await h().broker({ lease: '1s' });
      const release = gate();
      let running = 0;
      b.subscribe(queue(desc).workers(1).prefetch(3), async () => {
        running++;
        await release.promise;
      });
      for (let i = 0; i < 8; i++) await b.publish(desc, { i });
      await b.start();
      await until(() => running === 1, 'the worker holding');
      const leased = async () =>
        (await h().rows(name)).filter((r) => r.locked_until !== null && ms(r.locked_until)! > Date.now())
          .length;
      await until(async () => (await leased()) === 4, 'four rows leased: one in work, three waiting');
      await sleep(1_500); // past the first lease: the waiting rows' leases were extended too
      expect(await leased()).toBe(4);
      expect(running).toBe(1);
      await b.shutdown({ timeout: 0 });
      const rows = await h().rows(name);
      expect(rows).toHaveLength(8);
      expect(rows.filter((r) => r.locked_until !== null)).toHaveLength(1); // the waiting rows returned at once
      release.open();
    });
  }
}
