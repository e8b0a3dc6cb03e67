import { Broker, type Capabilities, type Form, LeaseLostError, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, payloadOf, until, wrapPool } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';

/**
 * Transactional mode: the handler's writes through `ctx.tx` commit with the ack; every other
 * outcome rolls them back first.
 */
export function transactionalScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  test(`R-TX-1 R-TX-2 R-TX-5 ack commits the handler's writes with the settlement (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const out = await h().create(form, {}, h().name('out'));
    const b = await h().broker();
    let held = 0;
    b.subscribe(queue(desc).transactional(), async (m, ctx) => {
      held = b.poolUse.held;
      await b.publish(out.desc, { result: (m as { n: number }).n * 2 }, { tx: ctx.tx });
      return Outcome.ack();
    });
    await b.start();
    await b.publish(desc, { n: 21 });
    await until(async () => (await h().rows(name)).length === 0, 'job settled');
    const results = await h().rows(out.name);
    expect(results.map((r) => payloadOf(r.payload))).toEqual([{ result: 42 }]);
    expect(held).toBeGreaterThanOrEqual(1); // the delivery holds a connection for its transaction
  });

  test(`R-TX-1 R-TX-3 R-TX-4 a retry rolls the handler's writes back, and still counts the attempt (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const out = await h().create(form, {}, h().name('out'));
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc).transactional(), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      await b.publish(out.desc, { attempt: ctx.attempt }, { tx: ctx.tx });
      if (attempts.length === 1) return Outcome.retry();
      if (attempts.length === 2) throw new Error('a thrown error is a retry too');
      return Outcome.ack();
    });
    await b.start();
    await b.publish(desc, { x: 1 });
    await until(() => attempts.length === 3, 'three deliveries');
    await until(async () => (await h().rows(name)).length === 0, 'acked');
    expect(attempts).toEqual([1, 2, 3]);
    const results = await h().rows(out.name);
    expect(results.map((r) => payloadOf(r.payload))).toEqual([{ attempt: 3 }]);
  });

  // On a database with one writer at a time (SQLite) a publish through the pool waits for the
  // delivery's transaction, so this scenario needs several connections at once.
  only([caps.multipleConnections, NEEDS.connections])(
    `R-TX-2 a publish through the pool commits on its own, whatever the outcome (${form})`,
    async () => {
      const { desc } = await h().create(form);
      const out = await h().create(form, {}, h().name('out'));
      const b = await h().broker();
      let calls = 0;
      b.subscribe(queue(desc).transactional(), async () => {
        calls++;
        await b.publish(out.desc, { outside: calls });
        return calls === 1 ? Outcome.retry() : Outcome.ack();
      });
      await b.start();
      await b.publish(desc, { y: 1 });
      await until(() => calls === 2, 'two deliveries');
      // The second delivery's publish is under way when its handler is counted: wait for its commit.
      await until(async () => (await h().rows(out.name)).length >= 2, 'both publishes committed');
      expect((await h().rows(out.name)).map((r) => payloadOf(r.payload))).toEqual([
        { outside: 1 },
        { outside: 2 },
      ]);
    },
  );

  // A statement sent into a cut link waits until the link returns. Here every statement the broker
  // starts waits meanwhile (fault injection on its pool), so its extension of the lease runs late:
  // it finds another claim's token and marks the delivery lost before the handler settles. The
  // other claim needs a second writer while the delivery's transaction is open (not on SQLite).
  for (const late of ['ack', 'timeout'] as const) {
    only(
      [form === 'lease', 'a lease form scenario: it runs in the lease form only'],
      [caps.multipleConnections, NEEDS.connections],
    )(
      late === 'ack'
        ? "R-TX-4 R-TX-9 R-LEASE-6 a lease its extension found lost: the late ack fails with LeaseLostError, the handler's writes roll back and the delivery's connection returns"
        : "R-TX-9 R-LEASE-6 a lease its extension found lost, then the handler times out: the handler's writes roll back and the delivery's connection returns",
      async () => {
        const { desc, name } = await h().create(form);
        const out = await h().create(form, {}, h().name('out'));
        const adapter = await h().open({ poolSize: 4 });
        let stall: ReturnType<typeof gate<void>> | undefined;
        const pool = wrapPool(adapter.pool, {
          acquire: async () => {
            if (stall !== undefined) await stall.promise;
            return adapter.pool.acquire();
          },
          tryAcquire: async () => (stall !== undefined ? null : adapter.pool.tryAcquire()),
        });
        const a = new Broker({ ...adapter, pool }, { logger: h().logger, pollInterval: 50, lease: '1s' });
        h().brokers.push(a);
        const inHandler = gate();
        const goOn = gate();
        const result = gate<unknown>();
        const lost = gate();
        a.on('leaseLost', () => lost.open());
        let q = queue(desc).transactional();
        // Longer than the lease takes to run out and be found lost.
        if (late === 'timeout') q = q.timeout('6s');
        a.subscribe(q, async (_m, ctx) => {
          await a.publish(out.desc, { who: 'a' }, { tx: ctx.tx });
          inHandler.open();
          await goOn.promise;
          await ctx.ack().then(
            () => result.open('acked'),
            (e: unknown) => result.open(e),
          );
        });
        await a.start();
        await a.publish(desc, { f: 1 });
        await inHandler.promise;
        const cut = gate();
        stall = cut;
        const b = await h().broker({ lease: '30s' });
        const taken = gate<number>();
        const bDone = gate();
        b.subscribe(queue(desc), async (_m, ctx) => {
          taken.open(ctx.attempt);
          await bDone.promise;
        });
        await b.start();
        expect(await taken.promise).toBe(2);
        stall = undefined;
        cut.open();
        await lost.promise;
        if (late === 'ack') {
          goOn.open();
          expect(await result.promise).toBeInstanceOf(LeaseLostError);
        }
        await until(() => a.poolUse.held === 0, 'the lost delivery gave its connection back', 10_000);
        expect(await h().rows(out.name)).toEqual([]);
        bDone.open();
        await until(async () => (await h().rows(name)).length === 0, 'the other claim acked');
        goOn.open();
      },
    );
  }
}
