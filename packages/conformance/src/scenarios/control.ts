import { Admin, type AnyTable, type Broker, ConfigError, type Form, inbox, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, noChildModule, sleep, spawnBroker, tableInput, until } from '../harness.js';

/** The notice bound: a broker reads the control table at most once a second. */
const NOTICE_MS = 1_000;

/**
 * What a scenario sees of its brokers, in this process or in children: each handler's start and
 * end (with the broker that ran it) and each broker's `paused`/`resumed` events.
 */
interface Observed {
  starts: { id: string; at: number; who: number }[];
  ends: { id: string; at: number; who: number }[];
  notices: { event: 'paused' | 'resumed'; value: string | null; at: number; who: number }[];
}

/**
 * Creates the queue table and, from the dialect's `ddl` for the description declaring `control`,
 * its control table (dropped at cleanup); null where the dialect has no control statements.
 */
async function controlledTable(
  h: Harness,
  form: Form,
  group: boolean,
): Promise<{ desc: AnyTable; name: string; control: string; input: Record<string, unknown> } | null> {
  const { desc: plain, name } = await h.create(form, { group });
  const adapter = await h.open({ poolSize: 2 });
  if (adapter.dialect.prepare(plain).control === undefined) return null;
  const control = h.name('ctl');
  const input = tableInput(form, name, { control: { table: control }, ...(group ? { group: 'grp' } : {}) });
  const desc = inbox(input as never) as AnyTable;
  const all = adapter.dialect.ddl(desc);
  const extra = all.slice(adapter.dialect.ddl(plain).length);
  expect(extra.join('\n'), 'ddl() prints the control table').toContain(control);
  h.tables.push(control);
  for (const stmt of extra) await h.target.exec(stmt);
  return { desc, name, control, input };
}

/**
 * Starts `n` brokers draining `desc`, each handler sleeping `sleepMs`: in child processes where the
 * target can open the database from one and several sessions share it (`input` is the description
 * as plain input), else in this process. Answers what they do, and a stop that waits for them.
 */
async function brokers(
  h: Harness,
  desc: AnyTable,
  input: Record<string, unknown>,
  n: number,
  sleepMs: number,
  workers: number,
): Promise<{ seen: Observed; where: string; stop: () => Promise<void> }> {
  const seen: Observed = { starts: [], ends: [], notices: [] };
  // Across processes where the database is shared by them: not SQLite, whose advisory keys (and
  // write lock) live in each process (capabilities.multipleConnections false).
  if (noChildModule(h.target) === undefined && h.caps.multipleConnections) {
    const children = Array.from({ length: n }, (_, who) => {
      const c = spawnBroker<unknown>(h, { mode: 'control', table: input, workers, poolSize: 4, sleepMs });
      c.child.on('message', (m: any) => {
        if (m?.type === 'start') seen.starts.push({ id: m.id, at: m.at, who });
        if (m?.type === 'end') seen.ends.push({ id: m.id, at: m.at, who });
        if (m?.type === 'notice') seen.notices.push({ event: m.event, value: m.value, at: m.at, who });
      });
      return c;
    });
    await Promise.all(children.map((c) => c.ready));
    const stop = async () => {
      for (const c of children) c.child.send({ type: 'stop' });
      await Promise.all(children.map((c) => c.report));
      await Promise.all(children.map((c) => exited(c.child)));
    };
    return { seen, where: `${n} processes`, stop };
  }
  const made: Broker<any, any>[] = [];
  for (let who = 0; who < n; who++) {
    const b = await h.broker({ poolSize: 4 });
    for (const e of ['paused', 'resumed'] as const)
      b.on(e, (x) => void seen.notices.push({ event: e, value: x.value, at: Date.now(), who }));
    b.subscribe(queue(desc).workers(workers), async (_m, ctx) => {
      seen.starts.push({ id: String(ctx.id), at: Date.now(), who });
      await sleep(sleepMs);
      seen.ends.push({ id: String(ctx.id), at: Date.now(), who });
    });
    made.push(b);
  }
  await Promise.all(made.map((b) => b.start()));
  return {
    seen,
    where: `${n} brokers in one process`,
    stop: async () => {
      await Promise.all(made.map((b) => b.shutdown()));
    },
  };
}

/**
 * Pause and resume (R-LIFE-2): a pause kept in the control table, honoured by every broker within
 * a second of its commit; handlers in work finish; a resume drains the rest, each row once. A
 * paused FIFO group waits while the others drain.
 */
export function controlScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-2 start refuses a table whose control table is missing, naming it (${form})`, async (ctx) => {
    const { name } = await h().create(form);
    const adapter = await h().open({ poolSize: 2 });
    const missing = h().name('nothere');
    const desc = inbox(tableInput(form, name, { control: { table: missing } }) as never) as AnyTable;
    if (adapter.dialect.prepare(desc).control === undefined)
      return ctx.skip('the dialect has no control table');
    const b = await h().broker({ poolSize: 2 });
    b.subscribe(queue(desc), async () => {});
    const err = await b.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toContain(`control table ${missing} does not exist`);
  });

  test(`R-LIFE-2 pause a queue: within 1 s of pause() returning no handler starts on any broker; handlers in work finish and settle; resume delivers every row once (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    const made = await controlledTable(h(), form, false);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, name, input } = made;
    const total = 120;
    const pub = await h().broker({ poolSize: 2 });
    await pub.publishMany(
      desc,
      Array.from({ length: total }, (_, n) => ({ n })),
    );
    const adapter = await h().open({ poolSize: 2 });
    const admin = new Admin(adapter);
    const run = await brokers(h(), desc, input, 3, 300, 2);
    const { seen } = run;
    await until(() => seen.starts.length >= 6, 'the brokers drain');
    await admin.pause(desc);
    const pausedAt = Date.now();
    expect(await admin.paused(desc)).toEqual({ queue: true, groups: [] });
    expect((await admin.stats(desc)).paused).toEqual({ queue: true, groups: [] });
    // Every broker notices (its `paused` event), and every handler in work ends.
    await until(
      () => new Set(seen.notices.filter((x) => x.event === 'paused').map((x) => x.who)).size === 3,
      'every broker noticed the pause',
    );
    await until(() => seen.ends.length === seen.starts.length, 'the handlers in work finish');
    // The bound itself: nothing may start during the 1.5 s after the notice bound.
    await sleep(Math.max(0, pausedAt + NOTICE_MS + 1_500 - Date.now()));
    const startedBy = seen.starts.length;
    const late = seen.starts.filter((s) => s.at > pausedAt + NOTICE_MS);
    const notices = [0, 1, 2].map(
      (who) => seen.notices.find((x) => x.who === who && x.event === 'paused')!.at - pausedAt,
    );
    const afterNotice = seen.starts.filter(
      (s) => s.at > seen.notices.find((x) => x.who === s.who && x.event === 'paused')!.at,
    );
    // Handlers in work at the pause finished and settled (their rows gone); the rest wait.
    await until(
      async () => (await h().rows(name)).length === total - startedBy,
      'the rows started are settled, the others wait in the table',
    );
    console.info(
      `R-LIFE-2 ${h().target.name} (${form}, ${run.where}): ${startedBy} of ${total} started before the pause took; noticed ${notices.join('/')} ms after pause() returned; ${late.length} started later than 1 s after it`,
    );
    expect(afterNotice, 'no handler starts on a broker after it noticed the pause').toEqual([]);
    expect(late, 'no handler starts later than 1 s after pause() returned').toEqual([]);
    expect(startedBy).toBeLessThan(total);
    expect(seen.starts.length, 'nothing started while the rows were counted').toBe(startedBy);
    await admin.resume(desc);
    expect(await admin.paused(desc)).toEqual({ queue: false, groups: [] });
    await until(async () => (await h().rows(name)).length === 0, 'the queue drains after the resume', 30_000);
    await until(() => seen.ends.length === total, 'every handler ended');
    const ids = seen.starts.map((s) => s.id);
    expect(new Set(ids).size, 'no row started twice').toBe(ids.length);
    expect(ids.length, 'every row delivered').toBe(total);
    expect(new Set(seen.notices.filter((x) => x.event === 'resumed').map((x) => x.who)).size).toBe(3);
    await run.stop();
  });

  test(`R-LIFE-2 pause one FIFO group: its rows wait while the other groups drain; resumed, they run in order (${form})`, {
    timeout: 60_000,
  }, async (ctx) => {
    const made = await controlledTable(h(), form, true);
    if (made === null) return ctx.skip('the dialect has no control table');
    const { desc, name, input } = made;
    const admin = new Admin(await h().open({ poolSize: 2 }));
    await admin.pause(desc, { group: 'a' });
    expect(await admin.paused(desc)).toEqual({ queue: false, groups: ['a'] });
    const pub = await h().broker({ poolSize: 2 });
    for (let n = 0; n < 8; n++)
      for (const g of ['a', 'b', 'c']) await pub.publish(desc, { g, n }, { group: g });
    const run = await brokers(h(), desc, input, 2, 10, 2);
    const { seen } = run;
    const groupOf = new Map<string, string>();
    for (const r of await h().rows(name)) groupOf.set(String(r.id), String(r.grp));
    await until(
      () => seen.ends.filter((s) => groupOf.get(s.id) !== 'a').length === 16,
      'groups b and c drain',
      30_000,
    );
    // The bound: group a's rows are not started during 1.5 s while the others are done.
    await sleep(1_500);
    expect(
      seen.starts.filter((s) => groupOf.get(s.id) === 'a'),
      'no row of the paused group started',
    ).toEqual([]);
    expect((await h().rows(name)).map((r) => String(r.grp))).toEqual(Array(8).fill('a'));
    await admin.resume(desc, { group: 'a' });
    await until(
      () => seen.ends.filter((s) => groupOf.get(s.id) === 'a').length === 8,
      'group a drains after the resume',
      30_000,
    );
    const aIds = seen.starts.filter((s) => groupOf.get(s.id) === 'a').map((s) => Number(s.id));
    expect(aIds, 'group a in order').toEqual([...aIds].sort((x, y) => x - y));
    const ids = seen.starts.map((s) => s.id);
    expect(new Set(ids).size, 'no row started twice').toBe(24);
    await until(async () => (await h().rows(name)).length === 0, 'the table is empty');
    await run.stop();
  });
}
