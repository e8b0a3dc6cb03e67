import { Admin, type AnyTable, CancelledError, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, until } from '../harness.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 20_000;

/** The ids of rows (as text, sorted), for comparisons across drivers' id types. */
const ids = (xs: readonly unknown[]) => xs.map(String).sort();

/**
 * A table of `form` with the failure record, a `retry_after` column, a dead-letter table and a
 * control table; null where the dialect has no control statements.
 */
async function cancellable(
  h: Harness,
  form: Form,
  processedAt: boolean,
): Promise<{ desc: AnyTable; name: string; dlq: string; control: string } | null> {
  const control = h.name('ctl');
  const made = await h.create(form, {
    failureRecord: true,
    deadLetterTable: true,
    retryAfter: true,
    processedAt,
    control,
  });
  const adapter = await h.open({ poolSize: 2 });
  if (adapter.dialect.prepare(made.desc).control === undefined) return null;
  return { desc: made.desc, name: made.name, dlq: made.dlq!, control };
}

/**
 * Cancel (R-LIFE-3): a ready or delayed row leaves at once as cancelled; a running row's cancel,
 * made on another connection, aborts its handler's signal and the row settles as cancelled, never
 * retried; ids not found or already settled are reported skipped.
 */
export function cancelScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-3 cancel a ready and a delayed row: they leave at once as cancelled (dead letter with errorClass cancelled, or dropped), are never delivered; ids not found or processed are skipped with their reason (${form})`, {
    timeout: 60_000,
  }, async (ctx) => {
    const made = await cancellable(h(), form, true);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, name, dlq } = made;
    const dead = { table: dlq };
    const delivered: string[] = [];
    // A row processed first (stamped `processed_at`): a cancel of it is skipped as done.
    const b = await h().broker({ poolSize: 3 });
    const [done] = await b.publishMany(desc, [{ n: 0 }]);
    b.subscribe(queue(desc), async (_m, c) => {
      delivered.push(String(c.id));
    });
    await b.start();
    await until(async () => delivered.includes(String(done)), 'the first row processed', WAIT_MS);
    await until(
      async () => (await h().rows(name)).some((r) => String(r.id) === String(done) && r.processed_at != null),
      'its processed stamp',
      WAIT_MS,
    );
    await b.shutdown();
    const pub = await h().broker({ poolSize: 2 });
    const [ready, dropped] = await pub.publishMany(desc, [{ n: 1 }, { n: 2 }]);
    const [delayed] = await pub.publishMany(desc, [{ n: 3 }], {
      notBefore: new Date(Date.now() + 3_600_000),
    });
    // A row kept delayed past the scenario, so no later row takes a cancelled row's id again
    // (SQLite gives the highest id plus one).
    await pub.publishMany(desc, [{ n: 9 }], { notBefore: new Date(Date.now() + 3_600_000) });
    const admin = new Admin(await h().open({ poolSize: 2 }));
    const missing = 987_654_321;
    const report = await admin.cancel(
      desc,
      { ids: [ready, delayed, done, missing] },
      { deadLetter: dead, reason: 'order withdrawn' },
    );
    expect(ids(report.changed), 'the ready and the delayed row left').toEqual(ids([ready, delayed]));
    expect(report.signalled).toEqual([]);
    expect(report.skipped.map((s) => [String(s.id), s.reason]).sort()).toEqual(
      [
        [String(done), 'done'],
        [String(missing), 'not-found'],
      ].sort(),
    );
    // The dead letter keeps them with the failure record.
    const deadRows = await h().rows(dlq);
    expect(ids(deadRows.map((r) => r.id))).toEqual(ids([ready, delayed]));
    for (const r of deadRows) {
      expect(r.error_class).toBe('cancelled');
      expect(r.last_error).toBe('order withdrawn');
      expect(r.failed_at ?? null).not.toBeNull();
    }
    expect((await admin.get(desc, ready, { deadLetter: dead }))?.errorClass).toBe('cancelled');
    // Without a dead letter the row is dropped: stamped processed where the table stamps.
    const drop = await admin.cancel(desc, { ids: [dropped] });
    expect(ids(drop.changed)).toEqual(ids([dropped]));
    const left = (await h().rows(name)).find((r) => String(r.id) === String(dropped));
    expect(left?.processed_at ?? null, 'the dropped row is stamped processed').not.toBeNull();
    // Never delivered: a row published after them is, and none of them was.
    const [after] = await pub.publishMany(desc, [{ n: 4 }]);
    const c = await h().broker({ poolSize: 3 });
    c.subscribe(queue(desc), async (_m, x) => {
      delivered.push(String(x.id));
    });
    await c.start();
    await until(() => delivered.includes(String(after)), 'a later row delivered', WAIT_MS);
    expect(delivered.filter((id) => [ready, delayed, dropped].map(String).includes(id))).toEqual([]);
  });

  for (const batch of [false, true])
    test(`R-LIFE-3 a row whose cancel is recorded but which no handler runs (its broker died) never runs: the broker that claims it settles it as cancelled without its ${batch ? 'batch handler' : 'handler'} (${form})`, {
      timeout: 60_000,
    }, async (ctx) => {
      const made = await cancellable(h(), form, false);
      if (made === null) return ctx.skip('the dialect has no control table');
      const { desc, name, dlq, control } = made;
      const b = await h().broker({ poolSize: 3 });
      const [left, other] = await b.publishMany(desc, [{ n: 1 }, { n: 2 }]);
      // The cancel a broker that died left behind: the control row of a row back in the queue.
      const a = await h().open({ poolSize: 2 });
      const conn = await a.pool.acquire();
      await a.dialect.prepare(desc).control!.writeControl(conn, control, {
        queue: name,
        kind: 'cancel',
        target: String(left),
        reason: 'left behind',
      });
      a.pool.release(conn);
      const starts: string[] = [];
      const cancelled: { id: unknown; inWork: boolean }[] = [];
      b.on('cancelled', (e) => void cancelled.push(e));
      const q = queue(desc).maxAttempts(3).deadLetter({ table: dlq });
      if (batch)
        b.subscribe(q.batch(5), async (items) => {
          for (const i of items) starts.push(String(i.ctx.id));
        });
      else
        b.subscribe(q, async (_m, c) => {
          starts.push(String(c.id));
        });
      await b.start();
      await until(() => starts.includes(String(other)), 'the other row delivered', WAIT_MS);
      await until(async () => (await h().rows(dlq)).length === 1, 'the cancelled row dead-lettered', WAIT_MS);
      const [row] = await h().rows(dlq);
      expect(String(row?.id)).toBe(String(left));
      expect([row?.error_class, row?.last_error]).toEqual(['cancelled', 'left behind']);
      expect(starts, 'its handler never ran').not.toContain(String(left));
      // The event follows the settlement's commit, which other sessions may see first.
      await until(() => cancelled.length > 0, 'the cancelled event', WAIT_MS);
      expect(cancelled.map((e) => [String(e.id), e.inWork])).toEqual([[String(left), false]]);
      await until(
        async () => (await h().target.exec(`SELECT * FROM ${control}`)).length === 0,
        'the control row deleted',
        WAIT_MS,
      );
    });

  for (const variant of [
    { deadLetter: true, answer: 'acks' },
    { deadLetter: false, answer: 'throws' },
  ] as const) {
    test(`R-LIFE-3 cancel a running row from another connection: its ctx.signal aborts with a CancelledError, it settles as cancelled (${variant.deadLetter ? 'dead letter' : 'dropped'}) though the handler ${variant.answer} and attempts remain, and is never retried (${form})`, {
      timeout: 90_000,
    }, async (ctx) => {
      const made = await cancellable(h(), form, false);
      if (made === null) return ctx.skip('the dialect has no control table');
      const { desc, name, dlq, control } = made;
      const dead = { table: dlq };
      const starts: string[] = [];
      let aborted: unknown;
      let abortedAt = 0;
      const cancelled: { id: unknown; inWork: boolean; reason: string; deadLettered: boolean }[] = [];
      const b = await h().broker({ poolSize: 4 });
      b.on('cancelled', (e) => void cancelled.push(e));
      const [running] = await b.publishMany(desc, [{ n: 1 }]);
      // Attempts remain: five with a dead letter, without limit without one.
      let q = queue(desc).backoff('immediate').workers(2);
      if (variant.deadLetter) q = q.maxAttempts(5).deadLetter(dead);
      b.subscribe(q, async (m, c) => {
        starts.push(String(c.id));
        if ((m as { n: number }).n !== 1) return;
        // Held open until its signal aborts (or a long safety bound, which fails the scenario).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 60_000);
          c.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        aborted = c.signal.reason;
        abortedAt = Date.now();
        if (variant.answer === 'throws') throw new Error('stopped by its signal');
      });
      await b.start();
      await until(() => starts.includes(String(running)), 'the handler started', WAIT_MS);
      // Kept delayed past the scenario, so the later row takes no cancelled row's id again
      // (SQLite gives the highest id plus one).
      const [keeper] = await b.publishMany(desc, [{ n: 9 }], { notBefore: new Date(Date.now() + 3_600_000) });
      const admin = new Admin(await h().open({ poolSize: 2 }));
      const report = await admin.cancel(desc, { ids: [running] }, { reason: 'stop it' });
      const cancelledAt = Date.now();
      expect(report.changed, 'a row in work does not leave at once').toEqual([]);
      expect(ids(report.signalled)).toEqual(ids([running]));
      expect(report.skipped).toEqual([]);
      await until(() => aborted !== undefined, "the handler's signal aborts", WAIT_MS);
      // Measured and reported, not asserted: the bound is the broker's once-a-second read.
      console.info(
        `R-LIFE-3 ${h().target.name} (${form}): the signal aborted ${abortedAt - cancelledAt} ms after cancel() returned`,
      );
      expect(aborted).toBeInstanceOf(CancelledError);
      const err = aborted as CancelledError;
      expect(err.code).toBe('CANCELLED');
      expect(String(err.rowId)).toBe(String(running));
      expect(err.table).toBe(name);
      expect(err.reason).toBe('stop it');
      // It settles as cancelled: out of the queue table, into the dead letter with its record.
      await until(
        async () => !(await h().rows(name)).some((r) => String(r.id) === String(running)),
        'the cancelled row left the queue table',
        WAIT_MS,
      );
      if (variant.deadLetter) {
        const [row] = await h().rows(dlq);
        expect(String(row?.id)).toBe(String(running));
        expect(row?.error_class).toBe('cancelled');
        expect(row?.last_error).toBe('stop it');
      } else {
        expect(await h().rows(dlq)).toEqual([]);
      }
      await until(() => cancelled.length === 1, 'the cancelled event', WAIT_MS);
      expect(cancelled[0]).toMatchObject({
        inWork: true,
        reason: 'stop it',
        deadLettered: variant.deadLetter,
      });
      // Its cancel leaves the control table.
      await until(
        async () => (await h().target.exec(`SELECT * FROM ${control}`)).length === 0,
        'the control row deleted',
        WAIT_MS,
      );
      // Never retried: a row published after it is delivered, and it did not start again.
      const [later] = await b.publishMany(desc, [{ n: 2 }]);
      await until(() => starts.includes(String(later)), 'a later row delivered', WAIT_MS);
      await until(
        async () => ids((await h().rows(name)).map((r) => r.id)).join() === String(keeper),
        'the later row settled',
        WAIT_MS,
      );
      expect(starts.filter((id) => id === String(running))).toHaveLength(1);
    });
  }
}
