import {
  Broker,
  type Capabilities,
  type Connection,
  type EventMap,
  type Form,
  HandlerError,
  queue,
  SettlementError,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, ms, sleep, until, wrapPool } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';
import type { ConformanceTarget } from '../target.js';

/** A schema that refuses `{ bad: true }`: a row that cannot be decoded, on every database. */
const refusesBad = {
  '~standard': {
    version: 1 as const,
    vendor: 'test',
    validate: (v: unknown) =>
      (v as { bad?: unknown })?.bad === true ? { issues: [{ message: 'a bad row' }] } : { value: v },
  },
};

/**
 * Failures in operation (SPEC sections 10 and 11): a thrown error backs off, rows that cannot be
 * decoded never starve the others, no failure path spins, the dialect's error classification
 * decides what a failed claim or settlement does, and a thrown non-Error is typed.
 */
export function operationScenarios(
  h: () => Harness,
  target: ConformanceTarget,
  form: Form,
  caps: Capabilities,
): void {
  for (const retryAfter of [true, false]) {
    const where = retryAfter ? 'with a retry_after column' : 'without a retry_after column';
    test(`R-OPS-3 a thrown error backs off by default: no delivery before the backoff, the attempt counted (${form}, ${where})`, async () => {
      const { desc, name } = await h().create(form, { retryAfter });
      const b = await h().broker();
      const at: { attempt: number; t: number }[] = [];
      let failedAt = 0;
      const settled: EventMap['settled'][] = [];
      b.on('settled', (e) => settled.push(e));
      b.subscribe(queue(desc), async (_m, ctx) => {
        at.push({ attempt: ctx.attempt, t: Date.now() });
        if (at.length === 1) {
          failedAt = Date.now();
          throw new Error('fails once');
        }
      });
      await b.start();
      await b.publish(desc, { n: 1 });
      await until(() => settled.length === 1, 'the failed delivery settled');
      const [row] = await h().rows(name);
      expect(Number(row!.attempt)).toBe(1); // one delivery started, in every form
      // The default backoff: 1 s at the first attempt, less at most 20 % jitter.
      if (retryAfter) expect(ms(row!.retry_after)!).toBeGreaterThanOrEqual(failedAt + 750);
      if (form === 'lease' && !retryAfter) {
        // No retry_after: the lease holds the delay, so no process claims the row before it.
        expect(ms(row!.locked_until)!).toBeGreaterThanOrEqual(failedAt + 750);
        expect(ms(row!.locked_until)!).toBeLessThan(failedAt + 5_000);
      }
      await until(() => at.length === 2, 'delivered again after the backoff');
      expect(at.map((a) => a.attempt)).toEqual([1, 2]);
      expect(at[1]!.t - failedAt).toBeGreaterThanOrEqual(750);
      await until(async () => (await h().rows(name)).length === 0, 'acked the second time');
    });
  }

  test(`R-OPS-3 backoff(false) retries a thrown error at once, as a returned retry() does (${form})`, async () => {
    const { desc, name } = await h().create(form, { retryAfter: true });
    const b = await h().broker();
    let calls = 0;
    const settled: EventMap['settled'][] = [];
    b.on('settled', (e) => settled.push(e));
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    b.subscribe(queue(desc).backoff(false), async () => {
      calls++;
      if (calls === 1) throw new Error('fails once');
      await hold;
    });
    await b.start();
    await b.publish(desc, { n: 1 });
    await until(() => calls === 2, 'delivered again');
    // Nothing delayed the row: no retry_after written, no lease left beyond the claim's.
    expect(settled[0]).toMatchObject({ outcome: 'retry', plan: 'return' });
    const [row] = await h().rows(name);
    expect(row!.retry_after).toBeNull();
    release();
    await until(async () => (await h().rows(name)).length === 0, 'acked the second time');
  });

  test(`R-OPS-3 a subscription without maxAttempts says once at start that failures retry without limit (${form})`, async () => {
    const unlimited = await h().create(form);
    const limited = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    let calls = 0;
    b.subscribe(queue(unlimited.desc).backoff(false), async () => {
      calls++;
      if (calls < 3) throw new Error('fails');
    });
    b.subscribe(queue(limited.desc).maxAttempts(3).deadLetter({ table: limited.dlq! }), async () => {});
    await b.start();
    await b.publish(unlimited.desc, { n: 1 });
    await until(() => calls === 3, 'three deliveries');
    const lines = h().logger.entries.filter((e) => e.msg.includes('without limit'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields?.table).toBe(unlimited.name);
    expect(['warn', 'info']).toContain(lines[0]!.level);
  });

  for (const workers of [1, 2, 8]) {
    test(`R-BAD-3 rows that cannot be decoded never starve a good row behind them, workers(${workers}) (${form})`, async () => {
      const { desc, name } = await h().create(form);
      const b = await h().broker({ poolSize: 10 });
      const seen: unknown[] = [];
      b.subscribe(queue(desc).schema(refusesBad).workers(workers), async (m) => {
        seen.push(m);
      });
      for (let i = 0; i < 3; i++) await h().insertPlain(name, '{"bad":true}');
      await h().insertPlain(name, '{"good":1}');
      await b.start();
      await until(() => seen.length === 1, 'the good row delivered');
      expect(seen).toEqual([{ good: 1 }]);
      await b.shutdown({ timeout: 5_000 });
      // The bad rows are kept (no dead letter), never handed to the handler.
      const rows = await h().rows(name);
      expect(rows).toHaveLength(3);
    });
  }

  test(`R-OPS-9 a settlement that keeps failing is delivered again only after a pause, and timers keep firing (${form})`, async () => {
    const { name } = await h().create(form);
    const plain = h().describe(form, name, {});
    // A custom ack that fails without touching the database: a statement that keeps failing.
    const failing = { ...plain, custom: { ack: () => Promise.reject(new Error('ack statement fails')) } };
    const b = await h().broker();
    const errors: EventMap['settlementError'][] = [];
    b.on('settlementError', (e) => errors.push(e));
    let deliveries = 0;
    b.subscribe(queue(failing as typeof plain), async () => {
      deliveries++;
    });
    await b.start();
    await b.publish(plain, { n: 1 });
    await until(() => deliveries >= 1, 'first delivery');
    // A timer keeps its time while the settlement fails: the engine never spins.
    const lateness: number[] = [];
    const window = 2_000;
    const t0 = Date.now();
    while (Date.now() - t0 < window) {
      const due = Date.now() + 50;
      await sleep(50);
      lateness.push(Date.now() - due);
    }
    // The default backoff (0.8 to 1 s, then 1.6 to 2 s): at most 3 deliveries in the window and
    // the first (lease: one, the row keeps its lease until it runs out).
    expect(deliveries).toBeLessThanOrEqual(4);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...lateness)).toBeLessThan(1_000);
  });

  only([caps.multipleConnections, NEEDS.connections], [target.killSession !== undefined, NEEDS.killSession])(
    `R-OPS-5 a claim on a killed session fails as a connection error, its connection is retired, and claiming resumes (${form})`,
    async () => {
      const kill = h().target.killSession!;
      const { desc } = await h().create(form);
      const adapter = await h().open();
      let armed = false;
      let killed: Connection | undefined;
      const destroyed: Connection[] = [];
      const pool = wrapPool(adapter.pool, {
        acquire: async () => {
          const c = await adapter.pool.acquire();
          if (armed) {
            armed = false;
            await kill(c.id);
            killed = c;
          }
          return c;
        },
        destroy: (c) => {
          destroyed.push(c);
          return adapter.pool.destroy(c);
        },
      });
      const b = new Broker({ ...adapter, pool }, { logger: h().logger, pollInterval: 50 });
      h().brokers.push(b);
      const claimErrors: EventMap['claimError'][] = [];
      b.on('claimError', (e) => claimErrors.push(e));
      const got: unknown[] = [];
      b.subscribe(queue(desc), async (m) => {
        got.push(m);
      });
      await b.start();
      armed = true;
      await until(() => claimErrors.length > 0, 'a claim on the killed session failed');
      // The session is gone: `connection`, or `shutdown` where the server says it ended it.
      expect(['connection', 'shutdown']).toContain(claimErrors[0]!.kind);
      expect(destroyed).toContain(killed);
      await b.publish(desc, { after: 'kill' });
      await until(() => got.length === 1, 'a delivery after the killed session');
      expect(got).toEqual([{ after: 'kill' }]);
    },
  );

  test(`R-OPS-5 a dead-letter move rejected by a constraint surfaces as a settlement error of kind constraint (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    const errors: EventMap['settlementError'][] = [];
    b.on('settlementError', (e) => errors.push(e));
    b.subscribe(queue(desc).maxAttempts(1).deadLetter({ table: dlq! }), async () => {
      throw new Error('always fails');
    });
    const id = await b.publish(desc, { n: 1 });
    // The dead-letter table already holds that id: the copy breaks its primary key.
    await h().target.exec(`INSERT INTO ${dlq} (id, payload, attempt) VALUES (${Number(id)}, '{}', 1)`);
    await b.start();
    await until(() => errors.length > 0, 'the settlement error');
    const err = errors[0]!.error;
    expect(err).toBeInstanceOf(SettlementError);
    expect((err as SettlementError).kind).toBe('constraint');
    expect(String((err as SettlementError).rowId)).toBe(String(id));
    const logged = h().logger.entries.find((e) => e.msg.includes('settlement failed'));
    expect(logged?.fields?.kind).toBe('constraint');
    await b.shutdown({ timeout: 5_000 });
    expect(await h().rows(name)).toHaveLength(1); // the row stays, as its form says
  });

  test(`R-BAD-7 a thrown non-Error is a HandlerError naming table, row and what was thrown, in the log and the settled event (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const settled: EventMap['settled'][] = [];
    b.on('settled', (e) => settled.push(e));
    let calls = 0;
    b.subscribe(queue(desc).backoff(false), async () => {
      calls++;
      if (calls === 1) throw 'text';
      if (calls === 2) throw undefined;
      return undefined; // still an ack
    });
    await b.start();
    const id = await b.publish(desc, { n: 1 });
    await until(() => settled.length === 3, 'three settlements');
    const [first, second, third] = settled;
    for (const [e, thrown] of [
      [first, 'text'],
      [second, undefined],
    ] as const) {
      expect(e!.error).toBeInstanceOf(HandlerError);
      expect(e!.error).toMatchObject({ code: 'HANDLER', table: name, thrown });
      expect(String((e!.error as HandlerError).rowId)).toBe(String(id));
    }
    expect((first!.error as Error).message).toContain('"text"');
    expect((second!.error as Error).message).toContain('undefined');
    expect(third).toMatchObject({ outcome: 'ack', plan: 'finish' });
    const logged = h().logger.entries.filter((e) => e.msg.includes('handler failed'));
    expect(logged).toHaveLength(2);
    for (const e of logged) expect(e.fields?.error).toBeInstanceOf(HandlerError);
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });

  only([caps.multipleConnections, NEEDS.connections])(
    `R-BAD-6 workers beyond what the pool lets run are announced at start with what will run (${form})`,
    async () => {
      const { desc } = await h().create(form);
      const b = await h().broker({ poolSize: 3 });
      b.subscribe(queue(desc).workers(50), async () => {});
      await b.start();
      const lines = h().logger.entries.filter((e) => e.msg.includes('workers(50)'));
      if (form === 'lease') {
        // A lease delivery holds no connection: 50 handlers do run at once.
        expect(lines).toHaveLength(0);
      } else {
        expect(lines).toHaveLength(1);
        expect(lines[0]!.msg).toContain('at most 2 handlers');
        expect(lines[0]!.fields).toMatchObject({ table: desc.table, workers: 50, running: 2, poolSize: 3 });
      }
    },
  );
}
