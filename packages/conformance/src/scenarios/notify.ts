import {
  Admin,
  type AnyTable,
  Broker,
  CancelledError,
  type Form,
  Outcome,
  queue,
  ResultDeadError,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, until, wrapOps } from '../harness.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 30_000;

/** A poll so long that a scenario which waits for an effect sees it only where a notification brought it. */
const NEVER = '1h';

/**
 * A table of `form` with a control table (and `processedAt`, a result column and a dead-letter
 * table where asked); null where the dialect has no control statements.
 */
async function lifecycleTable(
  h: Harness,
  form: Form,
  extras: { result?: boolean } = {},
): Promise<{ desc: AnyTable; name: string; control: string; dlq: string } | null> {
  const control = h.name('ctl');
  const made = await h.create(form, {
    processedAt: true,
    deadLetterTable: true,
    control,
    ...(extras.result === true ? { result: true } : {}),
  });
  const adapter = await h.open({ poolSize: 2 });
  if (adapter.dialect.prepare(made.desc).control === undefined) return null;
  return { desc: made.desc, name: made.name, control, dlq: made.dlq! };
}

/** Whether the adapter notifies a topic's writes across sessions (`wakeup.listenTopic`: PostgreSQL's NOTIFY). */
async function notifiesTopics(h: Harness): Promise<boolean> {
  return (await h.open({ poolSize: 1 })).wakeup?.listenTopic !== undefined;
}

const NO_TOPICS = 'the adapter notifies no control writes or settlements (its brokers poll for them)';

/**
 * Notified lifecycle: on PostgreSQL a pause, resume or cancel written by another session, and a
 * settlement of a table that keeps results, reach the brokers by NOTIFY at the commit; each
 * scenario sets the poll it would otherwise wait for to an hour, so the effect it waits for can
 * only come from the notification. Every dialect: a broker's own settlement wakes its result
 * wait, and stale cancels (of rows settled before any broker read them) are deleted.
 */
export function notifyScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-2 with the control poll set to an hour, a pause and a resume written by another session reach a running broker by notification: it emits paused, then resumed and delivers the row published meanwhile (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    if (!(await notifiesTopics(h()))) return ctx.skip(NO_TOPICS);
    const made = await lifecycleTable(h(), form);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc } = made;
    const notices: string[] = [];
    const starts: string[] = [];
    const b = await h().broker({ poolSize: 4, controlPollInterval: NEVER });
    b.on('paused', () => void notices.push('paused'));
    b.on('resumed', () => void notices.push('resumed'));
    b.subscribe(queue(desc), async (_m, c) => {
      starts.push(String(c.id));
    });
    await b.start();
    const [first] = await b.publishMany(desc, [{ n: 1 }]);
    await until(() => starts.includes(String(first)), 'the first row delivered', WAIT_MS);
    const admin = new Admin(await h().open({ poolSize: 2 }));
    await admin.pause(desc);
    await until(() => notices.includes('paused'), 'the broker noticed the pause', WAIT_MS);
    const pub = await h().broker({ poolSize: 2 });
    const [second] = await pub.publishMany(desc, [{ n: 2 }]);
    await admin.resume(desc);
    await until(() => notices.includes('resumed'), 'the broker noticed the resume', WAIT_MS);
    await until(() => starts.includes(String(second)), 'the row published while paused delivered', WAIT_MS);
    expect(notices).toEqual(['paused', 'resumed']);
  });

  test(`R-LIFE-2 with the control poll set to an hour, a pause notified between a broker's first read of the control table and the start of its poll is read at start, not at the next poll (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    if (!(await notifiesTopics(h()))) return ctx.skip(NO_TOPICS);
    const made = await lifecycleTable(h(), form);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, name } = made;
    const adapter = await h().open({ poolSize: 4 });
    const admin = new Admin(await h().open({ poolSize: 2 }));
    // A listener of the control topic beside the broker's, on the same wake-up channel: when it
    // hears a notification, the broker's listener has been handed it too.
    let heard = 0;
    const unlisten = await adapter.wakeup!.listenTopic!(name, 'control', () => void heard++);
    // The broker's first read of the control table (at start, after its listener is in place)
    // answers what it read; only then is the pause written, and its notification reaches the
    // broker before the read returns, so before the broker's poll starts.
    let reads = 0;
    const dialect = wrapOps(adapter.dialect, (ops) =>
      ops.control === undefined
        ? {}
        : {
            control: Object.assign(Object.create(ops.control), {
              async readControl(...args: Parameters<typeof ops.control.readControl>) {
                const rows = await ops.control!.readControl(...args);
                if (++reads === 1) {
                  await admin.pause(desc);
                  await until(() => heard > 0, 'the pause notification heard', WAIT_MS);
                }
                return rows;
              },
            }),
          },
    );
    const b = new Broker(
      { ...adapter, dialect },
      { logger: h().logger, pollInterval: 50, controlPollInterval: NEVER },
    );
    h().brokers.push(b);
    const notices: string[] = [];
    b.on('paused', () => void notices.push('paused'));
    b.subscribe(queue(desc), async () => {});
    await b.start();
    await until(() => notices.includes('paused'), 'the broker noticed the pause', WAIT_MS);
    expect(reads).toBeGreaterThanOrEqual(2);
    await unlisten();
  });

  test(`R-LIFE-3 with the control poll set to an hour, a cancel made by another session aborts a running handler's signal by notification, and the row settles as cancelled (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    if (!(await notifiesTopics(h()))) return ctx.skip(NO_TOPICS);
    const made = await lifecycleTable(h(), form);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, name } = made;
    const starts: string[] = [];
    let aborted: unknown;
    const b = await h().broker({ poolSize: 4, controlPollInterval: NEVER });
    b.subscribe(queue(desc), async (_m, c) => {
      starts.push(String(c.id));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 60_000);
        c.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      aborted = c.signal.reason;
    });
    await b.start();
    const [running] = await b.publishMany(desc, [{ n: 1 }]);
    await until(() => starts.includes(String(running)), 'the handler started', WAIT_MS);
    const admin = new Admin(await h().open({ poolSize: 2 }));
    const report = await admin.cancel(desc, { ids: [running] }, { reason: 'notified' });
    expect(report.signalled.map(String)).toEqual([String(running)]);
    await until(() => aborted !== undefined, "the handler's signal aborted", WAIT_MS);
    expect(aborted).toBeInstanceOf(CancelledError);
    expect((aborted as CancelledError).reason).toBe('notified');
    await until(
      async () =>
        (await h().rows(name)).some((r) => String(r.id) === String(running) && r.processed_at != null),
      'the cancelled row settled (dropped: stamped processed)',
      WAIT_MS,
    );
    expect(starts.filter((id) => id === String(running))).toHaveLength(1);
  });

  test(`R-LIFE-4 with the result poll set to an hour, result() in one broker resolves when another broker settles the row, by notification: an ack with a value, a plain ack, a death (ResultDeadError) (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    if (!(await notifiesTopics(h()))) return ctx.skip(NO_TOPICS);
    const made = await lifecycleTable(h(), form, { result: true });
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, dlq } = made;
    const dead = { table: dlq };
    const waiter = await h().broker({ poolSize: 2 });
    const [valued, plain, dying] = await waiter.publishMany(desc, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    // The waits start before any broker runs the rows, and would read again only after an hour
    // (their timeout too, so no last read at a timeout can answer them).
    const stop = new AbortController();
    // Each wait's answer in its row's place: the rows settle in any order.
    const answers: unknown[] = [];
    let answered = 0;
    const waits = [valued, plain, dying].map((id, i) =>
      waiter
        .result(desc, id, { timeout: NEVER, pollInterval: NEVER, deadLetter: dead, signal: stop.signal })
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        )
        .then((a) => {
          answers[i] = a;
          answered++;
        }),
    );
    const worker = await h().broker({ poolSize: 3 });
    worker.subscribe(queue(desc).maxAttempts(1).deadLetter(dead), async (m) => {
      const n = (m as { n: number }).n;
      if (n === 3) throw new Error('it dies');
      return n === 1 ? Outcome.ack({ doubled: 2 }) : undefined;
    });
    await worker.start();
    try {
      await until(() => answered === 3, 'the three waits woken by the settlements', WAIT_MS);
    } finally {
      stop.abort();
    }
    const [a, b, c] = await Promise.all(waits).then(() => answers);
    expect(a).toEqual({ value: { doubled: 2 } });
    expect(b).toEqual({ value: undefined });
    expect((c as { error: unknown }).error).toBeInstanceOf(ResultDeadError);
  });

  test(`R-LIFE-4 with the result poll set to an hour, result() resolves when the same broker's subscription settles the row: woken by its own settlement (${form})`, {
    timeout: 90_000,
  }, async () => {
    const { desc } = await h().create(form, { processedAt: true, result: true });
    const b = await h().broker({ poolSize: 3 });
    const [id] = await b.publishMany(desc, [{ n: 21 }]);
    const stop = new AbortController();
    const answers: unknown[] = [];
    const waiting = b
      .result(desc, id, { timeout: NEVER, pollInterval: NEVER, signal: stop.signal })
      .then((v) => void answers.push(v));
    b.subscribe(queue(desc), async (m) => Outcome.ack({ doubled: (m as { n: number }).n * 2 }));
    await b.start();
    try {
      await until(() => answers.length === 1, 'the wait woken by the settlement', WAIT_MS);
    } finally {
      stop.abort();
    }
    await waiting;
    expect(answers).toEqual([{ doubled: 42 }]);
  });

  test(`R-LIFE-3 a cancel whose row settled or was deleted before any broker read it is deleted from the control table by the brokers; a cancel of a live row and a pause stay (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    const made = await lifecycleTable(h(), form);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, name, control } = made;
    const pub = await h().broker({ poolSize: 2 });
    const [settled, deleted, live] = await pub.publishMany(desc, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    // The queue paused, so the live row stays ready and unclaimed.
    const admin = new Admin(await h().open({ poolSize: 2 }));
    await admin.pause(desc);
    // Cancels recorded for the three rows, as a broker records a cancel of a row in work.
    const a = await h().open({ poolSize: 2 });
    const conn = await a.pool.acquire();
    const ops = a.dialect.prepare(desc).control!;
    for (const id of [settled, deleted, live])
      await ops.writeControl(conn, control, {
        queue: name,
        kind: 'cancel',
        target: String(id),
        reason: 'late',
      });
    a.pool.release(conn);
    // Then two rows leave before any broker read the cancels: one settled, one deleted.
    await h().target.exec(
      `UPDATE ${name} SET processed_at = CURRENT_TIMESTAMP WHERE id = ${String(settled)}`,
    );
    await h().target.exec(`DELETE FROM ${name} WHERE id = ${String(deleted)}`);
    const b = await h().broker({ poolSize: 3 });
    b.subscribe(queue(desc), async () => {});
    await b.start();
    const cancels = async () =>
      (await h().target.exec(`SELECT * FROM ${control}`))
        .filter((r) => r.kind === 'cancel')
        .map((r) => String(r.target))
        .sort();
    // One statement decides all three: once the two stale ones are gone, the live one's stays.
    await until(async () => (await cancels()).length < 3, 'the stale cancels deleted', WAIT_MS);
    expect(await cancels()).toEqual([String(live)]);
    expect(await admin.paused(desc)).toEqual({ queue: true, groups: [] });
  });
}
