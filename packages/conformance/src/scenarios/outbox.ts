import { type Capabilities, type Form, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, payloadOf, skipWithoutChild, until } from '../harness.js';
import { NEEDS, skip } from '../scenario-skips.js';

/**
 * The outbox: messages written to an outbox table in the service's own transaction are
 * relayed by a subscription whose outcome settles the record: `ack` and `drop` mark it (its
 * `processed_at` is stamped, the record stays); a retry leaves it unmarked, passed over until the
 * relay starts again.
 *
 * "Not relayed again" is shown without waiting on a clock: claims take rows in id order, one at a
 * time with one worker, so a later record relayed while an earlier one is not proves the earlier
 * one was passed over.
 */
export function outboxScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  const allMarked = (name: string) =>
    until(async () => (await h().rows(name)).every((r) => r.processed_at != null), 'every record marked');

  test(`R-OUT-1 R-PUB-1 a message written in the service's transaction is relayed once if it commits, never if it rolls back (${form})`, async () => {
    const ob = await h().create(form, { processedAt: true }, h().name('outbox'));
    const orders = await h().create(form, {}, h().name('orders'));
    const b = await h().broker();
    const relayed: unknown[] = [];
    b.relay(queue(ob.desc), async (m) => {
      relayed.push(m);
    });
    await b.start();

    // The service's own transaction: its business row and the outbox message, rolled back.
    await expect(
      b.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${orders.name} (payload) VALUES ('{"order":1}')`);
        await b.publish(ob.desc, { order: 1, event: 'placed' }, { tx });
        throw new Error('the order is refused');
      }),
    ).rejects.toThrow('the order is refused');
    // The same, committed.
    await b.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${orders.name} (payload) VALUES ('{"order":2}')`);
      await b.publish(ob.desc, { order: 2, event: 'placed' }, { tx });
    });

    await until(() => relayed.length >= 1, 'the committed message relayed');
    await allMarked(ob.name);
    // A sentinel published after it is relayed next: nothing else was ever there to relay.
    await b.publish(ob.desc, { sentinel: true });
    await until(() => relayed.length >= 2, 'the sentinel relayed');
    expect(relayed).toEqual([{ order: 2, event: 'placed' }, { sentinel: true }]);
    expect((await h().rows(orders.name)).map((r) => payloadOf(r.payload))).toEqual([{ order: 2 }]);
    const records = await h().rows(ob.name);
    expect(records.map((r) => payloadOf(r.payload))).toEqual([
      { order: 2, event: 'placed' },
      { sentinel: true },
    ]);
  });

  if (!caps.transactional) skip(`R-OUT-1 an outbox write through ctx.tx (${form})`, NEEDS.transactional);
  if (caps.transactional) {
    test(`R-OUT-1 R-PUB-1 a handler's outbox write through ctx.tx commits with its ack and is relayed; a retry rolls it back (${form})`, async () => {
      const inbound = await h().create(form, {}, h().name('in'));
      const ob = await h().create(form, { processedAt: true }, h().name('outbox'));
      const b = await h().broker();
      let deliveries = 0;
      b.subscribe(queue(inbound.desc).transactional(), async (m, ctx) => {
        deliveries++;
        await b.publish(ob.desc, { from: m, delivery: deliveries }, { tx: ctx.tx });
        return deliveries === 1 ? Outcome.retry() : Outcome.ack();
      });
      const relayed: unknown[] = [];
      b.relay(queue(ob.desc), async (m) => {
        relayed.push(m);
      });
      await b.start();
      await b.publish(inbound.desc, { job: 7 });
      await until(() => relayed.length === 1, 'the committed outbox record relayed');
      await until(async () => (await h().rows(inbound.name)).length === 0, 'the inbound job acked');
      expect(deliveries).toBe(2);
      expect(relayed).toEqual([{ from: { job: 7 }, delivery: 2 }]);
      const records = await h().rows(ob.name);
      expect(records).toHaveLength(1); // the retried delivery's write never committed
    });
  }

  test(`R-OUT-1 ack and drop mark the record, which stays and is not relayed again, even after a restart (${form})`, async () => {
    const ob = await h().create(form, { processedAt: true }, h().name('outbox'));
    const b1 = await h().broker();
    const first: unknown[] = [];
    b1.relay(queue(ob.desc), async (m) => {
      first.push(m);
      return (m as { keep: boolean }).keep ? Outcome.ack() : Outcome.drop();
    });
    await b1.start();
    await b1.publish(ob.desc, { n: 1, keep: true });
    await b1.publish(ob.desc, { n: 2, keep: false });
    await until(() => first.length === 2, 'both relayed');
    await allMarked(ob.name);
    await b1.shutdown({ timeout: 5_000 });
    const marked = await h().rows(ob.name);
    expect(marked).toHaveLength(2); // marked, not deleted: the outbox keeps its audit trail
    for (const r of marked) expect(r.processed_at).not.toBeNull();

    // The next start: a new broker relays only what is unmarked.
    const b2 = await h().broker();
    const second: unknown[] = [];
    b2.relay(queue(ob.desc), async (m) => {
      second.push(m);
    });
    await b2.start();
    await b2.publish(ob.desc, { n: 3, keep: true });
    await until(() => second.length >= 1, 'the new record relayed');
    await allMarked(ob.name);
    expect(second).toEqual([{ n: 3, keep: true }]);
    expect(first).toEqual([
      { n: 1, keep: true },
      { n: 2, keep: false },
    ]);
  });

  test(`R-OUT-1 a retry leaves the record unmarked and it is not relayed again until the relay starts again (${form})`, async () => {
    const ob = await h().create(form, { processedAt: true }, h().name('outbox'));
    const b1 = await h().broker();
    const first: unknown[] = [];
    b1.relay(queue(ob.desc), async (m) => {
      first.push(m);
      const n = (m as { n: number }).n;
      if (n === 1) return Outcome.retry();
      if (n === 2) throw new Error('the receiver is down');
    });
    await b1.start();
    await b1.publish(ob.desc, { n: 1 });
    await b1.publish(ob.desc, { n: 2 });
    await until(() => first.length === 2, 'both tried once');
    // Records 1 and 2 come first in claim order: a record after them relayed means they were passed over.
    await b1.publish(ob.desc, { n: 3 });
    await until(() => first.length === 3, 'the third record relayed');
    await until(async () => (await h().rows(ob.name))[2]?.processed_at != null, 'the third record marked');
    await b1.publish(ob.desc, { n: 4 });
    await until(() => first.length === 4, 'the fourth record relayed');
    expect(first).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    await b1.shutdown({ timeout: 5_000 });
    const left = await h().rows(ob.name);
    expect(left.map((r) => r.processed_at == null)).toEqual([true, true, false, false]);

    // The next start relays both, and marks them.
    const b2 = await h().broker();
    const second: unknown[] = [];
    b2.relay(queue(ob.desc), async (m) => {
      second.push(m);
    });
    await b2.start();
    await until(() => second.length === 2, 'the retried records relayed at the next start');
    await allMarked(ob.name);
    expect(second).toEqual([{ n: 1 }, { n: 2 }]);
  });

  test(`R-OUT-1 a handler timeout leaves the record like a retry: unmarked, relayed again at the next start (${form})`, async () => {
    const ob = await h().create(form, { processedAt: true }, h().name('outbox'));
    const b1 = await h().broker();
    const first: unknown[] = [];
    b1.relay(queue(ob.desc).timeout(300), async (m, ctx) => {
      first.push(m);
      if ((m as { n: number }).n === 1) {
        // The receiver hangs: this handler outlives its timeout and is dropped unsettled.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      }
    });
    await b1.start();
    await b1.publish(ob.desc, { n: 1 });
    await until(() => first.length === 1, 'the first record in its handler');
    await b1.publish(ob.desc, { n: 2 });
    await until(() => first.length === 2, 'the second record relayed');
    await until(async () => (await h().rows(ob.name))[1]?.processed_at != null, 'the second record marked');
    await b1.publish(ob.desc, { n: 3 });
    await until(() => first.length === 3, 'the third record relayed');
    expect(first).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await b1.shutdown({ timeout: 5_000 });
    expect((await h().rows(ob.name))[0]!.processed_at).toBeNull();

    const b2 = await h().broker();
    const second: unknown[] = [];
    b2.relay(queue(ob.desc), async (m) => {
      second.push(m);
    });
    await b2.start();
    await until(() => second.length === 1, 'the timed-out record relayed at the next start');
    await allMarked(ob.name);
    expect(second).toEqual([{ n: 1 }]);
  });

  test(`R-OUT-1 a relay killed mid-relay (SIGKILLed child) loses no record: the next start relays each once (${form})`, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    const ob = await h().create(form, { processedAt: true }, h().name('outbox'));
    const pub = await h().broker();
    for (let n = 1; n <= 3; n++) await pub.publish(ob.desc, { n });
    const input: Record<string, unknown> = {
      table: ob.name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: { column: 'attempt', generated: true },
      processedAt: 'processed_at',
      ...(form === 'lease'
        ? { lease: 'locked_until' }
        : form === 'advisory'
          ? { advisory: `${ob.name}-{id}` }
          : {}),
    };
    const { child, claimed } = await h().crashChild(input, { lease: '2s', relay: true });
    const inHandler = await claimed;
    expect(inHandler.attempt).toBe(1);
    child.kill('SIGKILL');
    await exited(child);
    expect((await h().rows(ob.name)).every((r) => r.processed_at == null)).toBe(true);

    const b = await h().broker();
    const relayed: { n: number; id: string }[] = [];
    b.relay(queue(ob.desc), async (m, ctx) => {
      relayed.push({ n: (m as { n: number }).n, id: String(ctx.id) });
    });
    await b.start();
    await until(() => relayed.length === 3, 'every record relayed after the crash', 15_000);
    await allMarked(ob.name);
    expect(relayed.map((r) => r.n).sort()).toEqual([1, 2, 3]);
    expect(relayed.map((r) => r.id)).toContain(String(inHandler.id));
    expect(await h().rows(ob.name)).toHaveLength(3);
  });
}
