import { Broker, type Capabilities, ClosedError, type Connection, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, sleep, until, wrapPool } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';
import type { ConformanceTarget } from '../target.js';

/** What a row holds that a claim would change: its attempt and, in the lease form, its lease. */
function mark(row: Record<string, unknown> | undefined): string {
  if (row === undefined) return 'gone';
  return `${Number(row.attempt)}/${ms(row.locked_until) ?? '-'}`;
}

/**
 * The broker's life: start and shutdown, their races, and shutdown with work in flight.
 */
export function lifecycleScenarios(
  h: () => Harness,
  target: ConformanceTarget,
  form: Form,
  caps: Capabilities,
): void {
  only([caps.multipleConnections, NEEDS.connections])(
    `R-OPS-1 R-LEASE-4 a graceful shutdown keeps the hold while it waits: two brokers, a handler outliving three leases, one delivery, the ack holds (${form})`,
    { timeout: 60_000 },
    async () => {
      const { desc, name } = await h().create(form);
      const a = await h().broker({ lease: '2s' });
      const b = await h().broker({ lease: '2s' });
      const inHandler = gate();
      let aborted = false;
      let acked: unknown;
      a.subscribe(queue(desc), async (_m, ctx) => {
        inHandler.open();
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
        });
        await sleep(6_500); // three leases and a quarter
        acked = await ctx.ack().then(
          () => true,
          (e: unknown) => e,
        );
      });
      const bGot: number[] = [];
      b.subscribe(queue(desc), async (_m, ctx) => {
        bGot.push(ctx.attempt);
      });
      await a.start();
      await a.publish(desc, { long: 1 });
      await inHandler.promise;
      await b.start();
      const closed = await a.shutdown({ timeout: 20_000 });
      expect(aborted).toBe(true); // the signal fired when shutdown began
      expect(acked).toBe(true); // not a LeaseLostError
      expect(bGot).toEqual([]);
      expect(closed).toEqual({ locksReleased: 0, connectionsClosed: 0 });
      await sleep(300);
      expect(await h().rows(name)).toEqual([]);
      expect(bGot).toEqual([]);
    },
  );

  only([form !== 'lease', 'not in the lease form: a lease is kept past shutdown, not let go'])(
    `R-OPS-2 R-OPS-1 shutdown closes the adapter once it has let go of a delivery whose handler outlives the timeout: nothing waits for that handler (${form})`,
    async () => {
      const { desc } = await h().create(form);
      const adapter = await h().open();
      let closed = 0;
      // The harness closes the real adapter at cleanup; this one counts the broker's close().
      const b = new Broker(
        {
          ...adapter,
          close: async () => {
            closed++;
          },
        },
        { logger: h().logger, pollInterval: 50 },
      );
      h().brokers.push(b);
      const inHandler = gate();
      const finish = gate();
      b.subscribe(queue(desc), async () => {
        inHandler.open();
        await finish.promise; // ignores its signal
      });
      await b.start();
      await b.publish(desc, { outlives: 1 });
      await inHandler.promise;
      await b.shutdown({ timeout: 0 });
      const atShutdown = closed;
      finish.open();
      expect(atShutdown).toBe(1);
    },
  );

  test(`R-OPS-4 R-POOL-6 a claim in flight when shutdown begins gives its rows back before shutdown resolves (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const adapter = await h().open();
    let stall = false;
    let stalled = 0;
    const go = gate();
    // Fault injection: a slow checkout, so the claim is still in flight when shutdown begins, and
    // slow checkouts after it, so giving its rows back takes a while.
    const pool = wrapPool(adapter.pool, {
      acquire: async () => {
        if (stall) {
          stalled++;
          await go.promise;
          await sleep(stalled > 1 ? 300 : 0);
        }
        return adapter.pool.acquire();
      },
      tryAcquire: async () => {
        if (stall) {
          stalled++;
          await go.promise;
        }
        return adapter.pool.tryAcquire();
      },
    });
    const b = new Broker({ ...adapter, pool }, { logger: h().logger, pollInterval: 50 });
    h().brokers.push(b);
    let handled = 0;
    const released: string[] = [];
    b.on('released', (e) => released.push(String(e.reason)));
    b.subscribe(queue(desc), async () => {
      handled++;
    });
    await b.start();
    stall = true;
    await until(() => stalled > 0, 'a claim waits for its connection');
    await h().insertPlain(name, '{"r":1}');
    const shut = b.shutdown({ timeout: 1_000 });
    await sleep(50);
    go.open();
    await shut;
    const atShutdown = [...released];
    expect(handled).toBe(0);
    expect(atShutdown).toEqual(['stopped']);
    expect(mark((await h().rows(name))[0])).not.toBe('gone');
  });

  test(`R-OPS-4 no claim and no handler start after shutdown() resolves, when shutdown races start() (${form})`, async () => {
    for (const when of ['0 ms', '1 ms', '5 ms', 'after validation'] as const) {
      const { desc, name } = await h().create(form);
      await h().insertPlain(name, '{"r":1}');
      const before = mark((await h().rows(name))[0]);
      const b = await h().broker();
      let resolvedAt = Number.POSITIVE_INFINITY;
      const late: string[] = [];
      b.on('claimed', () => {
        if (Date.now() >= resolvedAt) late.push('claimed');
      });
      b.subscribe(queue(desc), async (_m, ctx) => {
        if (Date.now() >= resolvedAt) late.push('handler');
        await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
        throw new Error('stopped by shutdown');
      });
      let validated = false;
      const started = b.start().then(
        () => {
          validated = true;
          return 'started';
        },
        (e: unknown) => e,
      );
      if (when === '1 ms') await sleep(1);
      if (when === '5 ms') await sleep(5);
      if (when === 'after validation') await until(() => validated, 'start resolved');
      await b.shutdown({ timeout: 2_000 });
      resolvedAt = Date.now();
      const outcome = await started;
      if (outcome !== 'started') expect(outcome).toBeInstanceOf(ClosedError);
      const after = mark((await h().rows(name))[0]);
      // Shut down at once: start had not claimed yet, so the row is as it was.
      if (when === '0 ms') expect(after).toBe(before);
      await sleep(400); // eight poll intervals
      expect(late, `shutdown after ${when}`).toEqual([]);
      expect(mark((await h().rows(name))[0]), `shutdown after ${when}`).toBe(after);
    }
  });

  test(`R-OPS-4 a subscribe() after start() that races shutdown() claims nothing after shutdown resolves (${form})`, async () => {
    const { desc: first } = await h().create(form);
    const { desc, name } = await h().create(form);
    await h().insertPlain(name, '{"r":1}');
    const before = mark((await h().rows(name))[0]);
    const b = await h().broker();
    b.subscribe(queue(first), async () => {});
    await b.start();
    const claimed: unknown[] = [];
    b.on('claimed', (e) => {
      if (e.table === name) claimed.push(e.id);
    });
    let ran = 0;
    const mounted = b.subscribe(queue(desc), async () => {
      ran++;
    });
    const ready = mounted.ready.then(
      () => 'ready',
      (e: unknown) => e,
    );
    await b.shutdown({ timeout: 2_000 });
    expect(await ready).toBeInstanceOf(ClosedError);
    await sleep(400);
    expect(claimed).toEqual([]);
    expect(ran).toBe(0);
    expect(mark((await h().rows(name))[0])).toBe(before);
  });

  test(`R-BAD-9 subscribe(..).ready rejects with start()'s error: a missing table (${form})`, async () => {
    const missing = h().describe(form, h().name('missing'));
    const b = await h().broker();
    const mounted = b.subscribe(queue(missing), async () => {});
    const ready = mounted.ready.then(
      () => 'ready',
      (e: unknown) => e,
    );
    const failed = await b.start().then(
      () => 'started',
      (e: unknown) => e,
    );
    expect(failed).toMatchObject({ code: 'CONFIG', table: missing.table });
    expect(await ready).toBe(failed);
    // Mounted after a start: its own start-up problem.
    const c = await h().broker();
    await c.start();
    const late = c.subscribe(queue(missing), async () => {});
    await expect(late.ready).rejects.toMatchObject({ code: 'CONFIG', table: missing.table });
  });

  only([caps.multipleConnections, NEEDS.connections], [target.killSession !== undefined, NEEDS.killSession])(
    `R-OPS-8 R-OPS-1 R-ERR-2 sessions killed while shutdown waits on handlers: nothing hangs, nothing is lost, the counts match the database (${form})`,
    { timeout: 90_000 },
    async () => {
      const kill = h().target.killSession!;
      const { desc, name } = await h().create(form);
      const adapter = await h().open();
      const seen = new Map<string, Connection>();
      const took = (c: Connection | null) => {
        if (c !== null) seen.set(c.id, c);
        return c;
      };
      const pool = wrapPool(adapter.pool, {
        acquire: async () => took(await adapter.pool.acquire())!,
        tryAcquire: async () => took(await adapter.pool.tryAcquire()),
      });
      const a: Broker<any, any> = new Broker(
        { ...adapter, pool },
        { logger: h().logger, pollInterval: 50, lease: '2s' },
      );
      h().brokers.push(a);
      const inWork = new Map<number, ReturnType<typeof gate<void>>>();
      const acked = new Set<number>();
      const failed = new Set<number>();
      const allIn = gate();
      a.subscribe(queue(desc).workers(3), async (m, ctx) => {
        const k = (m as { k: number }).k;
        const proceed = gate();
        inWork.set(k, proceed);
        if (inWork.size === 3) allIn.open();
        await proceed.promise;
        await ctx.ack().then(
          () => acked.add(k),
          () => failed.add(k),
        );
      });
      await a.publishMany(desc, [{ k: 0 }, { k: 1 }, { k: 2 }]);
      await a.start();
      await allIn.promise;
      const began = Date.now();
      const closing = a.shutdown({ timeout: 2_500 });
      // Every session the broker opened is ended by the server while shutdown waits.
      for (const id of seen.keys()) await kill(id).catch(() => {});
      inWork.get(0)!.open();
      inWork.get(1)!.open();
      const closed = await Promise.race([
        closing,
        sleep(20_000).then(() => {
          throw new Error('shutdown hung');
        }),
      ]);
      expect(Date.now() - began).toBeLessThan(20_000);
      await until(() => acked.size + failed.size === 2, 'the two settled during the wait');
      // k = 2 was still in work at the timeout: let go as its form says.
      if (form === 'lease') {
        expect(closed).toEqual({ locksReleased: 0, connectionsClosed: 0 }); // kept, unextended
      } else {
        // Its session was gone: nothing to release, the connection was closed instead.
        expect(closed).toEqual({ locksReleased: 0, connectionsClosed: 1 });
      }
      const locksHeld = h().target.advisoryLocksHeld;
      if (locksHeld) expect(await locksHeld()).toBe(0);
      if (form !== 'lease') {
        // Their sessions were gone, so no ack held: every row is back in the queue, its attempt
        // as the form counts it (row lock: rolled back; advisory: counted at the take).
        expect(acked.size).toBe(0);
        const rows = await h().rows(name);
        expect(rows.map((r) => Number(r.attempt))).toEqual(form === 'rowlock' ? [0, 0, 0] : [1, 1, 1]);
      }
      inWork.get(2)!.open();
      await until(() => acked.size + failed.size === 3, 'the late one tried to settle');
      if (form !== 'lease') expect(failed.has(2)).toBe(true);
      // Every row settled once by its own ack, or back in the queue for another broker.
      const b = await h().broker({ lease: '2s' });
      const again: number[] = [];
      b.subscribe(queue(desc).workers(3), async (m) => {
        again.push((m as { k: number }).k);
      });
      await b.start();
      await until(async () => (await h().rows(name)).length === 0, 'every row settled', 20_000);
      await sleep(200);
      expect([...acked, ...again].sort()).toEqual([0, 1, 2]);
      for (const k of acked) expect(again).not.toContain(k);
    },
  );
}
