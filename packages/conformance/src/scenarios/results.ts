import {
  Admin,
  Broker,
  type CustomStatement,
  type FinishSettlement,
  type Form,
  Outcome,
  queue,
  ResultDeadError,
  ResultTimeoutError,
  type ResultWaitOptions,
  type Settlement,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, until, wrapOps, wrapPool } from '../harness.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 30_000;

type Msg = { n: number };

/** What each message's handler acks with, by `n`; `undefined`: a plain ack, with no value. */
const VALUES: readonly unknown[] = [
  { ok: true, items: [1, 2, { deep: 'x' }], name: 'ünïcödé \' " \\' },
  'done',
  42,
  null,
  undefined,
  [1, 'two', false],
  -0.5,
];

/** Results (R-LIFE-4): a handler's value kept by its ack, read by id, waited for. */
export function resultScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-4 a handler's ack value is kept by the ack's settlement and read back by id: object, string, number, null, array; a plain ack keeps none (${form})`, async () => {
    const { desc, name } = await h().create(form, { processedAt: true, result: true });
    const b = await h().broker();
    const ids = await b.publishMany(
      desc,
      VALUES.map((_, n) => ({ n })),
    );
    b.subscribe(queue(desc).workers(3), async (m, ctx) => {
      const n = (m as Msg).n;
      // The context's ack takes the value too.
      if (n === 2) return ctx.ack(VALUES[n]);
      return n === 4 ? undefined : Outcome.ack(VALUES[n]);
    });
    await b.start();
    const admin = new Admin(await h().open());
    for (const [n, id] of ids.entries()) {
      expect(await b.result(desc, id, { timeout: 30_000 })).toEqual(VALUES[n]);
      expect(await admin.result(desc, id)).toEqual({
        state: 'processed',
        value: VALUES[n],
        processedAt: expect.any(Date),
      });
      const row = await admin.get(desc, id);
      expect(row?.state).toBe('done');
      expect(row?.result).toEqual(VALUES[n]);
    }
    // A plain ack leaves the column NULL; a kept null is not NULL.
    const rows = await h().rows(name);
    expect(rows[4]!.result ?? null).toBeNull();
    expect(rows[3]!.result ?? null).not.toBeNull();
  });

  test(`R-LIFE-4 result() waits for a row another broker acks later; a row never acked times out with ResultTimeoutError naming table and id; pending and missing read as such (${form})`, async () => {
    const { desc } = await h().create(form, { processedAt: true, result: true });
    const idle = await h().create(form, { processedAt: true, result: true });
    const waiter = await h().broker();
    const [id] = await waiter.publishMany(desc, [{ n: 1 }]);
    const [never] = await waiter.publishMany(idle.desc, [{ n: 2 }]);
    const admin = new Admin(await h().open());
    expect(await admin.result(desc, id)).toEqual({ state: 'pending' });
    expect(await admin.result(desc, 987_654_321)).toEqual({ state: 'missing' });
    // The wait starts before any broker subscribes the table.
    const waiting = waiter.result(desc, id, { timeout: 60_000 });
    const adminWaiting = admin.waitResult(desc, id, { timeout: 60_000 });
    const worker = await h().broker();
    worker.subscribe(queue(desc), async (m) => Outcome.ack({ doubled: (m as Msg).n * 2 }));
    await worker.start();
    expect(await waiting).toEqual({ doubled: 2 });
    expect(await adminWaiting).toEqual({ doubled: 2 });
    // A row nobody acks: the wait ends with the typed error, after its timeout.
    const timedOut = await waiter.result(idle.desc, never, { timeout: 300 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(ResultTimeoutError);
    expect(timedOut).toMatchObject({
      code: 'RESULT_TIMEOUT',
      table: idle.name,
      rowId: never,
      timeoutMs: 300,
      lastState: 'pending',
    });
    expect(String((timedOut as Error).message)).toContain(`${idle.name} row ${String(never)}`);
    const missing = await admin.waitResult(idle.desc, 987_654_321, { timeout: 200 }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'RESULT_TIMEOUT', lastState: 'missing' });
  });

  test(`R-LIFE-4 a custom ack statement is given the ack's value as the result column keeps it and keeps it by writing it there; waits in another broker and in an Admin answer, on PostgreSQL by the result notification the engine sends after the custom statement (their reads an hour apart) (${form})`, {
    timeout: 90_000,
  }, async () => {
    const made = await h().create(form, { processedAt: true, result: true });
    const { name } = made;
    const given: (string | undefined)[] = [];
    // The service's own ack: stamps the row and writes the value it is given (values inlined: the
    // placeholder style differs between dialects; these values hold no quote or backslash).
    const ack: CustomStatement = async (conn, c) => {
      given.push(c.result);
      const result = c.result === undefined ? 'NULL' : `'${c.result}'`;
      const r = await conn.query(
        `UPDATE ${name} SET processed_at = CURRENT_TIMESTAMP, result = ${result} WHERE id = ${Number(c.id)}`,
      );
      return r.rowCount;
    };
    const desc = { ...made.desc, custom: { ack } } as typeof made.desc;
    // The waiting broker's and the admin's reads are counted: the worker starts once each wait
    // has read its row pending.
    let reads = 0;
    const counted = async (poolSize: number) => {
      const a = await h().open({ poolSize });
      const pool = wrapPool(a.pool, {
        release: (c) => {
          reads++;
          a.pool.release(c);
        },
      });
      return { ...a, pool };
    };
    const waiter = new Broker(await counted(2), { logger: h().logger, pollInterval: 50 });
    h().brokers.push(waiter);
    const [valued, plain] = await waiter.publishMany(desc, [{ n: 1 }, { n: 2 }]);
    // Where settlements notify (PostgreSQL) the waits read an hour apart: only the notification
    // answers them in time. Elsewhere they read as usual (50 ms growing to 250 ms).
    const notifies = (await h().open({ poolSize: 1 })).wakeup?.listenTopic !== undefined;
    const stop = new AbortController();
    const opts: ResultWaitOptions = notifies
      ? { timeout: '1h', pollInterval: '1h', signal: stop.signal }
      : { timeout: 60_000, signal: stop.signal };
    const admin = new Admin(await counted(2));
    const answers: unknown[] = [];
    reads = 0;
    const waits = [waiter.result(desc, valued, opts), admin.waitResult(desc, plain, opts)].map((w, i) =>
      w.then((v) => {
        answers[i] = { value: v };
      }),
    );
    await until(() => reads >= 2, 'both waits read their row once', WAIT_MS);
    const worker = await h().broker({ poolSize: 3 });
    worker.subscribe(queue(desc), async (m) =>
      (m as Msg).n === 1 ? Outcome.ack({ kept: 'yes', n: [1, 2] }) : undefined,
    );
    await worker.start();
    try {
      await until(() => answers.filter(Boolean).length === 2, 'both waits answered', WAIT_MS);
    } finally {
      stop.abort();
      await Promise.allSettled(waits);
      await admin.close();
    }
    expect(answers).toEqual([{ value: { kept: 'yes', n: [1, 2] } }, { value: undefined }]);
    expect(given.sort()).toEqual(['{"value":{"kept":"yes","n":[1,2]}}', undefined]);
    expect(await admin.result(desc, valued)).toMatchObject({
      state: 'processed',
      value: { kept: 'yes', n: [1, 2] },
    });
  });

  test(`R-LIFE-4 a retried row keeps only its final result (a value JSON cannot carry fails the delivery); a dead row ends the wait with ResultDeadError (${form})`, async () => {
    const { desc, name } = await h().create(form, { processedAt: true, result: true });
    const dying = await h().create(form, { processedAt: true, result: true, deadLetterTable: true });
    const b = await h().broker();
    const [id] = await b.publishMany(desc, [{ n: 1 }]);
    const [dead] = await b.publishMany(dying.desc, [{ n: 2 }]);
    const attempts: number[] = [];
    b.subscribe(queue(desc).backoff('immediate'), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      // First delivery: a BigInt, which JSON cannot carry: the ack settles nothing and the row returns.
      if (attempts.length === 1) return Outcome.ack({ big: 10n });
      if (attempts.length === 2) throw new Error('second delivery fails');
      return Outcome.ack({ final: attempts.length });
    });
    b.subscribe(queue(dying.desc).maxAttempts(1).deadLetter({ table: dying.dlq! }), async () => {
      throw new Error('never works');
    });
    await b.start();
    expect(await b.result(desc, id, { timeout: 30_000 })).toEqual({ final: 3 });
    expect(attempts).toHaveLength(3);
    const [row] = await h().rows(name);
    expect(row!.processed_at ?? null).not.toBeNull();
    const deadWait = await b
      .result(dying.desc, dead, { timeout: 30_000, deadLetter: { table: dying.dlq! } })
      .catch((e: unknown) => e);
    expect(deadWait).toBeInstanceOf(ResultDeadError);
    expect(deadWait).toMatchObject({ code: 'RESULT_DEAD', table: dying.name, rowId: dead });
    const admin = new Admin(await h().open());
    expect(await admin.result(dying.desc, dead, { deadLetter: { table: dying.dlq! } })).toMatchObject({
      state: 'dead',
    });
  });

  test(`R-LIFE-4 acks without a value keep their statement (batched where the form batches); an ack with one takes a statement carrying it; batch handlers keep each row's value (${form})`, async () => {
    const { desc, name } = await h().create(form, { processedAt: true, result: true });
    const batched = await h().create(form, { processedAt: true, result: true });
    const adapter = await h().open({ poolSize: 6 });
    const single: Settlement[] = [];
    const many: FinishSettlement[][] = [];
    const dialect = wrapOps(adapter.dialect, (ops) => ({
      settle: (conn, s) => {
        single.push(s);
        return ops.settle(conn, s);
      },
      ...(ops.batch === undefined
        ? {}
        : {
            batch: {
              settleMany: (conn, list) => {
                many.push([...list]);
                return ops.batch!.settleMany(conn, list);
              },
            },
          }),
    }));
    const b = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 50 });
    h().brokers.push(b);
    const rows = 20;
    const ids = await b.publishMany(
      desc,
      Array.from({ length: rows }, (_, n) => ({ n })),
    );
    const batchIds = await b.publishMany(
      batched.desc,
      Array.from({ length: 6 }, (_, n) => ({ n })),
    );
    // Odd rows ack with a value, even rows without.
    b.subscribe(queue(desc).workers(4), async (m) => {
      const n = (m as Msg).n;
      return n % 2 === 1 ? Outcome.ack({ n }) : undefined;
    });
    // A batch handler, on a broker of its own (the statements above are this table's alone).
    const other = await h().broker();
    other.subscribe(queue(batched.desc).batch(3), async (items) => {
      for (const item of items) await item.ctx.ack(`item ${(item.message as Msg).n}`);
    });
    await b.start();
    await other.start();
    await until(
      async () =>
        (await h().rows(name)).every((r) => r.processed_at !== null && r.processed_at !== undefined),
      'every row processed',
      30_000,
    );
    for (const [n, id] of ids.entries()) {
      expect(await b.result(desc, id, { timeout: 30_000 })).toEqual(n % 2 === 1 ? { n } : undefined);
    }
    for (const [n, id] of batchIds.entries()) {
      expect(await b.result(batched.desc, id, { timeout: 30_000 })).toBe(`item ${n}`);
    }
    const key = (id: unknown) => String(id);
    const odd = new Set(ids.filter((_, n) => n % 2 === 1).map(key));
    const finishes = single.filter((s) => s.kind === 'finish');
    // Every ack with a value went through a statement of its own that carried it.
    const carried = new Set(
      finishes.filter((s) => s.kind === 'finish' && s.result !== undefined).map((s) => key(s.id)),
    );
    expect(carried).toEqual(odd);
    // No ack without a value carried one, and the batched statement never took an ack with a value.
    for (const s of finishes) if (!odd.has(key(s.id))) expect(s.kind === 'finish' && s.result).toBeFalsy();
    for (const list of many) for (const s of list) expect(s.result).toBeUndefined();
    // Every plain ack settled once, by the batched statement where the form batches, else its own.
    const plainIds = [...finishes.filter((s) => !odd.has(key(s.id))), ...many.flat()].map((s) => key(s.id));
    expect(new Set(plainIds)).toEqual(new Set(ids.filter((_, n) => n % 2 === 0).map(key)));
    if (form !== 'lease') expect(many).toHaveLength(0);
  });
}
