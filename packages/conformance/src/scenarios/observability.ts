import { Broker, type EventMap, type Form, LeaseLostError, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, sleep, until, wrapPool } from '../harness.js';

type Seen = { [E in keyof EventMap]: { event: E } & EventMap[E] }[keyof EventMap];

/** Records every event a broker emits, in order. */
function record(b: Broker<any, any>): Seen[] {
  const seen: Seen[] = [];
  const names: (keyof EventMap)[] = [
    'claimed',
    'settled',
    'deadLettered',
    'leaseExtended',
    'leaseLost',
    'claimError',
    'settlementError',
    'released',
  ];
  for (const event of names) b.on(event, (e) => seen.push({ event, ...e } as Seen));
  return seen;
}

const of = <E extends keyof EventMap>(seen: Seen[], event: E, id?: unknown) =>
  seen.filter(
    (s): s is Extract<Seen, { event: E }> =>
      s.event === event && (id === undefined || String((s as { id?: unknown }).id) === String(id)),
  );

/** Typed events and the queue-stats call, per form. */
export function observabilityScenarios(h: () => Harness, form: Form): void {
  test(`R-PLUS-3 events: claimed, then settled with outcome, settlement, attempt and duration; a thrown error reaches settled; deadLettered at the limit (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    const seen = record(b);
    const failure = new Error('always fails');
    b.subscribe(queue(desc).maxAttempts(2).deadLetter({ table: dlq! }), async (m: { fail: boolean }) => {
      if (m.fail) throw failure;
      await sleep(100);
      return Outcome.ack();
    });
    await b.start();
    const ok = await b.publish(desc, { fail: false });
    const bad = await b.publish(desc, { fail: true });
    await until(
      () => of(seen, 'deadLettered').length === 1 && of(seen, 'settled', ok).length === 1,
      'both ends',
    );

    expect(of(seen, 'claimed', ok)).toEqual([{ event: 'claimed', table: name, id: ok, attempt: 1 }]);
    const [acked] = of(seen, 'settled', ok);
    expect(acked).toMatchObject({ table: name, outcome: 'ack', plan: 'finish', attempt: 1 });
    expect(acked!.error).toBeUndefined();
    // From the row handed to a worker to its settlement: it covers the handler's 100 ms.
    expect(acked!.durationMs).toBeGreaterThanOrEqual(90);
    expect(seen.indexOf(of(seen, 'claimed', ok)[0]!)).toBeLessThan(seen.indexOf(acked!));

    expect(of(seen, 'claimed', bad).map((e) => e.attempt)).toEqual([1, 2]);
    const settled = of(seen, 'settled', bad);
    expect(settled.map((e) => [e.outcome, e.plan, e.attempt])).toEqual([
      ['retry', 'return', 1],
      ['retry', 'deadLetter', 2],
    ]);
    for (const e of settled) {
      expect(e.error).toBe(failure);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(of(seen, 'deadLettered')).toEqual([{ event: 'deadLettered', table: name, id: bad, attempt: 2 }]);
    expect(seen.indexOf(settled[1]!)).toBeLessThan(seen.indexOf(of(seen, 'deadLettered')[0]!));
    expect(of(seen, 'claimError')).toEqual([]);
    expect(of(seen, 'settlementError')).toEqual([]);
  });

  test(`R-PLUS-3 R-LIFE-1 events: a handler past its timeout fails its delivery (settled as a retry with the TIMEOUT error, no release), then is claimed again at attempt 2 (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker();
    const seen = record(b);
    let calls = 0;
    b.subscribe(queue(desc).timeout(200), async (_m, ctx) => {
      if (++calls > 1) return;
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
    });
    await b.start();
    const id = await b.publish(desc, { slow: 1 });
    await until(() => of(seen, 'settled', id).length === 2, 'the second delivery acked');
    expect(of(seen, 'released', id)).toEqual([]);
    const [failed, acked] = of(seen, 'settled', id);
    expect(failed).toMatchObject({ outcome: 'retry', plan: 'return', attempt: 1 });
    expect(codeOf((failed as { error?: unknown }).error)).toBe('TIMEOUT');
    expect(acked).toMatchObject({ outcome: 'ack', plan: 'finish', attempt: 2 });
    const claims = of(seen, 'claimed', id);
    expect(claims).toHaveLength(2);
    expect(seen.indexOf(failed!)).toBeLessThan(seen.indexOf(claims[1]!));
    // The timed-out delivery counts, in every form.
    expect(claims[1]!.attempt).toBe(2);
  });

  test(`R-HOUSE-1 a handler past its timeout that ignores its signal: the signal aborts with TIMEOUT, the row runs again while it still runs, and its late ack is refused (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker({ poolSize: 4 });
    let calls = 0;
    let reason: unknown;
    let lateAck: unknown;
    let secondRan = false;
    let firstDone = false;
    let releaseFirst: () => void = () => {};
    const firstHeld = new Promise<void>((r) => {
      releaseFirst = r;
    });
    b.subscribe(queue(desc).workers(2).timeout(200), async (_m, ctx) => {
      if (++calls > 1) {
        secondRan = true;
        return;
      }
      // The first delivery ignores its signal: it runs on until the second delivery has run.
      await firstHeld;
      reason = ctx.signal.reason;
      lateAck = await ctx.ack().then(
        () => 'acked',
        (e: unknown) => e,
      );
      firstDone = true;
    });
    await b.start();
    await b.publish(desc, { slow: 1 });
    await until(() => secondRan, 'the row delivered again while the first handler still runs');
    expect(firstDone).toBe(false);
    releaseFirst();
    await until(() => firstDone, 'the first handler ended');
    expect(codeOf(reason)).toBe('TIMEOUT');
    expect(codeOf(lateAck)).toBe('ALREADY_SETTLED');
    // The second delivery's ack settled the row; the first's refused ack changed nothing.
    await until(async () => (await h().rows(name)).length === 0, 'the row settled once');
    expect(calls).toBe(2);
  });

  test(`R-PLUS-3 events: a claim that fails emits claimError, and claiming resumes (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const adapter = await h().open();
    let broken = false;
    const outage = new Error('database out of reach');
    const pool = wrapPool(adapter.pool, {
      acquire: () => (broken ? Promise.reject(outage) : adapter.pool.acquire()),
      tryAcquire: () => (broken ? Promise.reject(outage) : adapter.pool.tryAcquire()),
    });
    const b = new Broker({ ...adapter, pool }, { logger: h().logger, pollInterval: 50 });
    h().brokers.push(b);
    const seen = record(b);
    const got: unknown[] = [];
    b.subscribe(queue(desc), async (m) => {
      got.push(m);
    });
    await b.start();
    broken = true;
    await until(() => of(seen, 'claimError').length > 0, 'a claim error');
    broken = false;
    const [e] = of(seen, 'claimError');
    expect(e!.table).toBe(name);
    expect(e!.error).toBe(outage);
    await b.publish(desc, { after: 'outage' });
    await until(() => got.length === 1, 'a delivery after the outage');
    expect(got).toEqual([{ after: 'outage' }]);
  });

  test(`R-PLUS-3 broker.stats counts ready, delayed, in work and dead (${form})`, async () => {
    const { desc, dlq } = await h().create(form, { retryAfter: true, deadLetterTable: true });
    const b = await h().broker();
    const release = gate();
    let holding = false;
    b.subscribe(queue(desc).maxAttempts(1).deadLetter({ table: dlq! }), async (m: { kind: string }) => {
      if (m.kind === 'dead') throw new Error('to the dead letter');
      holding = true;
      await release.promise;
    });
    await b.start();
    await b.publish(desc, { kind: 'dead' });
    await until(async () => (await h().rows(dlq!)).length === 1, 'dead-lettered');
    await b.publish(desc, { kind: 'hold' });
    await until(() => holding, 'the one worker holding its row');
    await b.publishMany(desc, [{ kind: 'ready' }, { kind: 'ready' }]);
    await b.publish(desc, { kind: 'later' }, { notBefore: new Date(Date.now() + 3_600_000) });
    const stats = await b.stats(desc, { deadLetter: { table: dlq! } });
    // A lease is in the row; a row lock or advisory lock is in a session, which a count cannot
    // see without taking it: there the row in work counts as ready (docs/observability.md).
    expect(stats).toEqual(
      form === 'lease'
        ? { ready: 2, delayed: 1, inWork: 1, dead: 1 }
        : { ready: 3, delayed: 1, inWork: 0, dead: 1 },
    );
    release.open();
    await until(async () => (await h().rows(desc.table)).length === 1, 'all but the delayed row acked');
    expect(await b.stats(desc)).toEqual({ ready: 0, delayed: 1, inWork: 0, dead: 0 });
  });

  test(`R-PLUS-3 R-ADV-8 R-LEASE-9 events: shutdown releases a delivery in work and says so, except a lease, which it keeps (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker();
    const seen = record(b);
    const inHandler = gate();
    const hold = gate();
    b.subscribe(queue(desc), async () => {
      inHandler.open();
      await hold.promise;
    });
    await b.start();
    const id = await b.publish(desc, { held: 1 });
    await inHandler.promise;
    await b.shutdown({ timeout: 0 });
    expect(of(seen, 'released', id)).toEqual(
      form === 'lease' ? [] : [{ event: 'released', table: desc.table, id, attempt: 1, reason: 'shutdown' }],
    );
    hold.open();
  });

  if (form === 'lease') {
    test('R-PLUS-3 R-LEASE-4 R-LEASE-6 events: leaseExtended counts the leases extended; leaseLost names the row and attempt; the late ack reaches settlementError', async () => {
      const { desc, name } = await h().create('lease');
      const b = await h().broker({ lease: '1s' });
      const seen = record(b);
      const lateAck = gate<unknown>();
      b.subscribe(queue(desc), async (_m, ctx) => {
        await new Promise((r) => ctx.signal.addEventListener('abort', r));
        await ctx.ack().then(
          () => lateAck.open('acked'),
          (e: unknown) => lateAck.open(e),
        );
      });
      await b.start();
      const id = await b.publish(desc, { long: 1 });
      await until(() => of(seen, 'leaseExtended').length > 0, 'an extension');
      expect(of(seen, 'leaseExtended')[0]).toEqual({ event: 'leaseExtended', table: name, count: 1 });
      // The lease leaves the row as if another claim had taken it: the next extension misses it.
      await h().target.exec(`UPDATE ${name} SET locked_until = NULL`);
      expect(await lateAck.promise).toBeInstanceOf(LeaseLostError);
      expect(of(seen, 'leaseLost')).toEqual([{ event: 'leaseLost', table: name, id, attempt: 1 }]);
      await until(() => of(seen, 'settlementError', id).length === 1, 'the failed ack told');
      const [failed] = of(seen, 'settlementError', id);
      expect(failed).toMatchObject({ table: name, attempt: 1 });
      expect(failed!.error).toBeInstanceOf(LeaseLostError);
    });
  }
}

/** The `code` of an error the engine made, or undefined. */
function codeOf(e: unknown): unknown {
  return (e as { code?: unknown } | undefined)?.code;
}
