import { Admin, Broker, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, payloadOf, until, wrapOps } from '../harness.js';

type Msg = { n: number };

/**
 * Publishes rows `{ n }` for n below `rows`, and answers the step a handler's first delivery of a
 * row takes: it waits until every row's first delivery has started, so all fail at once.
 */
async function publishAllAtOnce(b: Broker, desc: Parameters<Broker['publishMany']>[0], rows: number) {
  await b.publishMany(
    desc,
    Array.from({ length: rows }, (_, n) => ({ n })),
  );
  const all = gate();
  const started = new Set<number>();
  return (n: number): Promise<void> => {
    started.add(n);
    if (started.size === rows) all.open();
    return all.promise;
  };
}

/** An error class of the handler's own, whose name the record keeps. */
class PaymentDeclined extends Error {
  override name = 'PaymentDeclined';
}

/** Whether an instant column's value lies between two host instants (a few seconds of slack for the database's clock). */
function within(v: unknown, from: number, to: number): boolean {
  const t = ms(v);
  return t !== null && t >= from - 5_000 && t <= to + 5_000;
}

/** The failure record: last error, class, failure time, insert time, written by the settlement. */
export function failureRecordScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-1 a failed delivery's settlement writes the failure record, the dead-letter table keeps it, a publish sets created (the oldest ready age reads it), admin shows it (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { failureRecord: true, deadLetterTable: true });
    const b = await h().broker();
    const t0 = Date.now();
    const [failing] = await b.publishMany(desc, [{ n: 1 }, { n: 2 }]);
    // A plain publish fills created_at by the column's default; nothing is failed yet.
    const published = await h().rows(name);
    expect(published).toHaveLength(2);
    for (const r of published) {
      expect(within(r.created_at, t0, Date.now())).toBe(true);
      expect(r.last_error ?? null).toBeNull();
      expect(r.error_class ?? null).toBeNull();
      expect(r.failed_at ?? null).toBeNull();
    }
    // The oldest ready row's age reads from its insert time, with no retry_after column.
    const admin = new Admin(await h().open());
    const stats = await admin.stats(desc, { deadLetter: { table: dlq! } });
    expect(stats.oldestReadyAgeMs).not.toBeNull();
    expect(stats.oldestReadyAgeMs!).toBeLessThan(Date.now() - t0 + 5_000);
    const long = `declined: ${'x'.repeat(1_500)}`;
    // What the failing row held when its second delivery started: the first failure's record.
    let second: Record<string, unknown> | undefined;
    let acked = false;
    let deliveries = 0;
    b.subscribe(queue(desc).maxAttempts(2).deadLetter({ table: dlq! }).backoff('immediate'), async (m) => {
      if ((m as Msg).n === 2) {
        acked = true;
        return;
      }
      deliveries++;
      if (deliveries === 1) throw new PaymentDeclined('declined once');
      second ??= (await h().rows(name)).find((r) => String(r.id) === String(failing));
      throw new PaymentDeclined(long);
    });
    await b.start();
    await until(async () => (await h().rows(dlq!)).length === 1 && acked, 'the failing row dead-lettered');
    const t1 = Date.now();
    // After the retry the row held the first failure's message, class and time.
    expect(second).toBeDefined();
    expect(second!.last_error).toBe('declined once');
    expect(second!.error_class).toBe('PaymentDeclined');
    expect(within(second!.failed_at, t0, t1)).toBe(true);
    // The dead letter keeps the last failure (its message cut to 1,000 characters) and the insert time.
    const [dead] = await h().rows(dlq!);
    expect(String(dead!.id)).toBe(String(failing));
    expect((payloadOf(dead!.payload) as Msg).n).toBe(1);
    expect(dead!.last_error).toBe(long.slice(0, 1_000));
    expect(dead!.error_class).toBe('PaymentDeclined');
    expect(within(dead!.failed_at, ms(second!.failed_at)!, t1)).toBe(true);
    expect(ms(dead!.created_at)).toBe(
      ms(published.find((r) => String(r.id) === String(failing))!.created_at),
    );
    // The admin API shows the record, null where the row has none.
    const row = await admin.get(desc, failing, { deadLetter: { table: dlq! } });
    expect(row?.state).toBe('dead');
    expect(row?.lastError).toBe(long.slice(0, 1_000));
    expect(row?.errorClass).toBe('PaymentDeclined');
    expect(row?.failedAt).toBeInstanceOf(Date);
    expect(row?.failedAt?.getTime()).toBe(ms(dead!.failed_at));
    expect(row?.createdAt).toBeInstanceOf(Date);
    expect(within(row?.createdAt, t0, t1)).toBe(true);
    const listed = await admin.list(desc, { state: 'dead', deadLetter: { table: dlq! } });
    expect(listed.rows.map((r) => r.errorClass)).toEqual(['PaymentDeclined']);
    expect(deliveries).toBe(2);
  });

  test(`R-LIFE-1 the dead-letter group keeps the failure record; an expired row's class is 'expired', a batch's thrown error is recorded (${form})`, async () => {
    const { desc, name } = await h().create(form, { failureRecord: true, group: true, expiresAt: true });
    const batched = await h().create(form, { failureRecord: true, retryAfter: true });
    const b = await h().broker();
    const t0 = Date.now();
    await b.publish(desc, { n: 1 }, { group: 'g1' });
    await b.publish(desc, { n: 2 }, { group: 'g2', expiresAt: new Date(Date.now() - 1_000) });
    await b.publish(batched.desc, { n: 3 });
    b.subscribe(queue(desc).maxAttempts(1).deadLetter({ group: 'dead' }), async () => {
      throw new TypeError('no such account');
    });
    let batches = 0;
    b.subscribe(queue(batched.desc).batch(5).backoff({ base: '1h' }), async () => {
      batches++;
      throw new RangeError('batch failed');
    });
    await b.start();
    const dead = async () => (await h().rows(name)).filter((r) => r.grp === 'dead');
    await until(async () => (await dead()).length === 2, 'both rows in the dead-letter group');
    await until(
      async () =>
        (await h().rows(batched.name)).some((r) => r.error_class !== null && r.error_class !== undefined),
      'the batch row returned with its record',
    );
    const t1 = Date.now();
    const byN = new Map((await dead()).map((r) => [(payloadOf(r.payload) as Msg).n, r]));
    expect(byN.get(1)?.last_error).toBe('no such account');
    expect(byN.get(1)?.error_class).toBe('TypeError');
    expect(within(byN.get(1)?.failed_at, t0, t1)).toBe(true);
    expect(byN.get(2)?.error_class).toBe('expired');
    expect(String(byN.get(2)?.last_error)).toContain('expired');
    expect(within(byN.get(2)?.failed_at, t0, t1)).toBe(true);
    for (const r of byN.values()) expect(within(r.created_at, t0, t1)).toBe(true);
    const [returned] = await h().rows(batched.name);
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(returned!.last_error).toBe('batch failed');
    expect(returned!.error_class).toBe('RangeError');
    expect(within(returned!.failed_at, t0, t1)).toBe(true);
    const admin = new Admin(await h().open());
    const shown = await admin.list(desc, { state: 'dead', deadLetter: { group: 'dead' } });
    expect(shown.rows.map((r) => r.errorClass).sort()).toEqual(['TypeError', 'expired']);
  });

  test(`R-LIFE-1 a burst of failures retried together keeps each row's own error text, class, failure time and attempt (${form})`, async () => {
    const rows = 6;
    const { desc, name } = await h().create(form, { failureRecord: true, processedAt: true });
    const adapter = await h().open({ poolSize: rows + 4 });
    // The rows each batched retry statement carried, where the dialect batches retries (lease form).
    const batched: number[] = [];
    const dialect = wrapOps(adapter.dialect, (ops) =>
      ops.batch?.returnMany === undefined
        ? {}
        : {
            batch: {
              settleMany: (conn, list) => ops.batch!.settleMany(conn, list),
              returnMany: (conn, list) => {
                batched.push(list.length);
                return ops.batch!.returnMany!(conn, list);
              },
            },
          },
    );
    const b = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 50 });
    h().brokers.push(b);
    const t0 = Date.now();
    const allStarted = await publishAllAtOnce(b, desc, rows);
    const again = new Map<number, number>();
    // Every row's first delivery waits until all are in work, then all throw at once, each its own error.
    b.subscribe(queue(desc).workers(rows).backoff(false), async (m, ctx) => {
      const n = (m as Msg).n;
      if (ctx.attempt === 1) {
        await allStarted(n);
        throw n % 2 === 0 ? new TypeError(`row ${n} failed first`) : new RangeError(`row ${n} failed first`);
      }
      again.set(n, ctx.attempt);
    });
    await b.start();
    await until(async () => again.size === rows, 'every row delivered again');
    await until(
      async () =>
        (await h().rows(name)).every((r) => r.processed_at !== null && r.processed_at !== undefined),
      'every retry acked',
    );
    const t1 = Date.now();
    const byN = new Map((await h().rows(name)).map((r) => [(payloadOf(r.payload) as Msg).n, r]));
    for (let n = 0; n < rows; n++) {
      const r = byN.get(n);
      expect(r?.last_error, `row ${n}`).toBe(`row ${n} failed first`);
      expect(r?.error_class, `row ${n}`).toBe(n % 2 === 0 ? 'TypeError' : 'RangeError');
      expect(within(r?.failed_at, t0, t1), `row ${n}`).toBe(true);
      expect(Number(r?.attempt), `row ${n}`).toBe(2);
      expect(again.get(n), `row ${n}`).toBe(2);
    }
    // Where the dialect batches retries, the burst went in statements of several rows.
    if (form === 'lease' && adapter.dialect.prepare(desc).batch?.returnMany !== undefined)
      expect(Math.max(0, ...batched)).toBeGreaterThan(1);
  });

  test(`R-LIFE-1 a failure's backoff with no retry_after column: its retry writes the record at once, and the row is not delivered again before the backoff ends (${form})`, async () => {
    const rows = 4;
    const backoffMs = 3_000;
    const { desc, name } = await h().create(form, { failureRecord: true });
    const b = await h().broker({ poolSize: rows + 4 });
    const allStarted = await publishAllAtOnce(b, desc, rows);
    const failed = new Map<number, number>();
    const again = new Map<number, number>();
    b.subscribe(queue(desc).workers(rows).backoff({ base: backoffMs, jitter: 0 }), async (m, ctx) => {
      const n = (m as Msg).n;
      if (ctx.attempt === 1) {
        await allStarted(n);
        failed.set(n, Date.now());
        throw new TypeError(`row ${n} waits`);
      }
      again.set(n, Date.now());
    });
    await b.start();
    // The record is there while the row waits out its backoff.
    await until(
      async () => (await h().rows(name)).filter((r) => typeof r.last_error === 'string').length === rows,
      'every failure recorded',
    );
    expect(again.size).toBe(0);
    const byN = new Map((await h().rows(name)).map((r) => [(payloadOf(r.payload) as Msg).n, r]));
    for (let n = 0; n < rows; n++) {
      expect(byN.get(n)?.last_error, `row ${n}`).toBe(`row ${n} waits`);
      expect(byN.get(n)?.error_class, `row ${n}`).toBe('TypeError');
    }
    await until(async () => again.size === rows, 'every row delivered again after its backoff');
    for (let n = 0; n < rows; n++)
      expect(again.get(n)! - failed.get(n)!, `row ${n}`).toBeGreaterThanOrEqual(backoffMs - 50);
  });
}
