import {
  Admin,
  type Broker,
  type Capabilities,
  type EventMap,
  type Form,
  migrate,
  queue,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, ms, payloadOf, until } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';

type Msg = { k: string };

/** The events of a row that carry its attempt, in order. */
type Seen = {
  event: 'claimed' | 'settled' | 'deadLettered' | 'released';
  id: string;
  attempt: number;
  e: unknown;
};

function record(b: Broker<any, any>): Seen[] {
  const seen: Seen[] = [];
  const on = <K extends Seen['event']>(event: K) =>
    b.on(event, (e: EventMap[K]) => seen.push({ event, id: String(e.id), attempt: e.attempt, e }));
  on('claimed');
  on('settled');
  on('deadLettered');
  on('released');
  return seen;
}

/** The attempts the events of `event` carried for row `id`. */
const attempts = (seen: readonly Seen[], event: Seen['event'], id: unknown) =>
  seen.filter((s) => s.event === event && s.id === String(id)).map((s) => s.attempt);

/** The warnings logged for row `id` of `table`. */
function warnings(h: Harness, table: string, id: unknown): string[] {
  return h.logger.entries
    .filter((e) => e.level === 'warn' && e.fields?.table === table && String(e.fields?.id) === String(id))
    .map((e) => e.msg);
}

function codeOf(e: unknown): unknown {
  return (e as { code?: unknown } | null | undefined)?.code;
}

/**
 * One meaning of `attempt` (R-LIFE-1): the deliveries of a row started so far, 0 before the first,
 * the same in the row, `ctx.attempt`, the events, the log and the admin API; `maxAttempts(n)`: at
 * most n deliveries. A handler past its timeout fails its delivery as a throw does.
 */
export function attemptScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  test(`R-LIFE-1 R-ATT-1 one meaning of attempt: the row, ctx, the events, the log and admin.get agree for a first delivery, a retry and a dead letter (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true, processedAt: true, failureRecord: true });
    const b = await h().broker();
    const seen = record(b);
    const admin = new Admin(await h().open());
    const dl = { deadLetter: { group: 'dead' } } as const;
    const rowOf = async (id: unknown) => (await h().rows(name)).find((r) => String(r.id) === String(id))!;
    const [once, retried, dead] = await b.publishMany(desc, [{ k: 'once' }, { k: 'retried' }, { k: 'dead' }]);
    // Before its first delivery a row reads 0.
    for (const id of [once, retried, dead]) {
      expect(Number((await rowOf(id)).attempt)).toBe(0);
      expect((await admin.get(desc, id, dl))?.attempt).toBe(0);
    }
    const inWork: { k: string; ctx: number; row: number; admin: number | null | undefined }[] = [];
    b.subscribe(queue(desc).maxAttempts(2).deadLetter(dl.deadLetter).backoff('immediate'), async (m, ctx) => {
      const k = (m as Msg).k;
      const row = Number((await rowOf(ctx.id)).attempt);
      inWork.push({ k, ctx: ctx.attempt, row, admin: (await admin.get(desc, ctx.id, dl))?.attempt });
      if (k === 'dead' || (k === 'retried' && ctx.attempt === 1)) throw new Error(`${k} fails`);
    });
    await b.start();
    await until(
      async () =>
        (await h().rows(name)).every((r) => r.grp === 'dead' || (r.processed_at ?? null) !== null) &&
        attempts(seen, 'deadLettered', dead).length === 1,
      'every row settled for good',
    );
    await b.shutdown();
    const of = (k: string) => inWork.filter((w) => w.k === k);
    expect(of('once').map((w) => w.ctx)).toEqual([1]);
    expect(of('retried').map((w) => w.ctx)).toEqual([1, 2]);
    // maxAttempts(2): at most two deliveries.
    expect(of('dead').map((w) => w.ctx)).toEqual([1, 2]);
    for (const w of inWork) {
      // Read from another connection while the handler runs: the lease claim and the advisory take
      // have committed the count; the row lock form's commits with its settlement (until then
      // others read the deliveries finished).
      expect(w.row, `${w.k} at ${w.ctx}`).toBe(form === 'rowlock' ? w.ctx - 1 : w.ctx);
      expect(w.admin, `${w.k} at ${w.ctx}`).toBe(w.row);
    }
    const expected = new Map([
      [String(once), { n: 1, state: 'done' }],
      [String(retried), { n: 2, state: 'done' }],
      [String(dead), { n: 2, state: 'dead' }],
    ]);
    for (const [id, { n, state }] of expected) {
      const list = Array.from({ length: n }, (_, i) => i + 1);
      expect(Number((await rowOf(id)).attempt), id).toBe(n);
      expect(await admin.get(desc, id, dl), id).toMatchObject({ attempt: n, state });
      expect(attempts(seen, 'claimed', id), id).toEqual(list);
      expect(attempts(seen, 'settled', id), id).toEqual(list);
      expect(attempts(seen, 'released', id), id).toEqual([]);
    }
    expect(attempts(seen, 'deadLettered', dead)).toEqual([2]);
    expect((await rowOf(dead)).error_class).toBe('Error');
    // The log states the outcome it applies, once per failure.
    expect(warnings(h(), name, retried)).toEqual(['handler failed; retrying']);
    expect(warnings(h(), name, dead)).toEqual([
      'handler failed; retrying',
      'handler failed at attempt 2 of 2: dead-lettering',
    ]);
    expect(warnings(h(), name, once)).toEqual([]);
  });

  test(`R-LIFE-1 a handler past its timeout fails its delivery: counted, recorded (class timeout), retried, dead-lettered at maxAttempts, logged once each (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true, failureRecord: true });
    const b = await h().broker();
    const seen = record(b);
    const admin = new Admin(await h().open());
    const reasons: unknown[] = [];
    b.subscribe(
      queue(desc).timeout(200).maxAttempts(2).deadLetter({ group: 'dead' }).backoff('immediate'),
      async (_m, ctx) => {
        // Honours its signal: ends once the timeout aborts it.
        await new Promise((r) => ctx.signal.addEventListener('abort', r));
        reasons.push(ctx.signal.reason);
      },
    );
    await b.start();
    const id = await b.publish(desc, { k: 'slow' });
    await until(async () => (await h().rows(name))[0]?.grp === 'dead', 'the row dead-lettered');
    await until(() => reasons.length === 2, 'both handlers ended');
    await b.shutdown();
    expect(reasons.map(codeOf)).toEqual(['TIMEOUT', 'TIMEOUT']);
    const [row] = await h().rows(name);
    expect(Number(row!.attempt)).toBe(2);
    expect(row!.error_class).toBe('timeout');
    expect(String(row!.last_error)).toMatch(/timed out after 200 ms/);
    expect(ms(row!.failed_at)).not.toBeNull();
    expect(await admin.get(desc, id, { deadLetter: { group: 'dead' } })).toMatchObject({
      state: 'dead',
      attempt: 2,
      errorClass: 'timeout',
    });
    const settled = seen.filter((s) => s.event === 'settled').map((s) => s.e as EventMap['settled']);
    expect(settled.map((e) => [e.outcome, e.plan, e.attempt, codeOf(e.error)])).toEqual([
      ['retry', 'return', 1, 'TIMEOUT'],
      ['retry', 'deadLetter', 2, 'TIMEOUT'],
    ]);
    expect(attempts(seen, 'deadLettered', id)).toEqual([2]);
    expect(attempts(seen, 'released', id)).toEqual([]);
    expect(warnings(h(), name, id)).toEqual([
      'handler timed out; retrying',
      'handler timed out at attempt 2 of 2: dead-lettering',
    ]);
  });

  test(`R-LIFE-1 a timed-out delivery takes the queue's backoff (${form})`, async () => {
    const { desc, name } = await h().create(form, { retryAfter: true, failureRecord: true });
    const b = await h().broker();
    const seen = record(b);
    b.subscribe(queue(desc).timeout(200), async (_m, ctx) => {
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
    });
    await b.start();
    const id = await b.publish(desc, { k: 'slow' });
    const started = Date.now();
    await until(() => attempts(seen, 'settled', id).length === 1, 'the timed-out delivery settled');
    await b.shutdown();
    const [row] = await h().rows(name);
    expect(Number(row!.attempt)).toBe(1);
    expect(row!.error_class).toBe('timeout');
    // The default backoff: 1 s at the first attempt, less at most 20 % jitter, after the timeout.
    expect(ms(row!.retry_after)!).toBeGreaterThanOrEqual(started + 200 + 750);
    expect(attempts(seen, 'claimed', id)).toEqual([1]);
  });

  only([caps.transactional, NEEDS.transactional])(
    `R-LIFE-1 R-TX-3 transactional mode: a timed-out handler's writes through ctx.tx are rolled back with its failed delivery, and its later ctx.tx statements are refused (TX_CLOSED) (${form})`,
    async () => {
      const { desc, name } = await h().create(form, { failureRecord: true });
      const out = await h().create(form, {}, h().name('out'));
      const b = await h().broker();
      let late: unknown;
      let calls = 0;
      b.subscribe(queue(desc).transactional().timeout(300).backoff('immediate'), async (_m, ctx) => {
        const n = ++calls;
        await b.publish(out.desc, { delivery: n }, { tx: ctx.tx });
        if (n > 1) return;
        await new Promise((r) => ctx.signal.addEventListener('abort', r));
        late = await b.publish(out.desc, { delivery: 'late' }, { tx: ctx.tx }).then(
          () => 'written',
          (e: unknown) => e,
        );
      });
      await b.start();
      await b.publish(desc, { k: 'slow' });
      await until(async () => (await h().rows(name)).length === 0, 'acked by the second delivery');
      await until(() => late !== undefined, 'the first handler ended');
      await b.shutdown();
      expect(codeOf(late)).toBe('TX_CLOSED');
      expect((await h().rows(out.name)).map((r) => payloadOf(r.payload))).toEqual([{ delivery: 2 }]);
    },
  );

  test(`R-LIFE-1 R-USER-3 migrate gives a table made by an older ddl() (attempt DEFAULT 1) the default 0, where the database changes a default in place (${form})`, async (ctx) => {
    const { desc, name } = await h().create(form);
    const adapter = await h().open();
    const set = adapter.dialect
      .ddl(desc, { existingColumns: { table: ['id', 'payload', 'attempt'] } })
      .find((st) => /SET DEFAULT 0/.test(st));
    // SQLite and SQL Server cannot change a default in place: their note is in the docs.
    if (set === undefined) return ctx.skip();
    await h().target.exec(set.replace('SET DEFAULT 0', 'SET DEFAULT 1'));
    await h().insertPlain(name, '{"n":1}');
    await migrate(adapter, [{ table: desc }]);
    await h().insertPlain(name, '{"n":2}');
    expect((await h().rows(name)).map((r) => Number(r.attempt))).toEqual([1, 0]);
  });
}
