import {
  type AnyTable,
  Broker,
  ConfigError,
  type Dialect,
  type Form,
  inbox,
  queue,
  type RateOps,
  type RateReservation,
  type TableOps,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, noChildModule, sleep, spawnBroker, tableInput, until } from '../harness.js';
import type { OpenAdapter } from '../target.js';

/**
 * Creates the queue table and, from the dialect's `ddl` for the rate-limited description, its
 * budget table (dropped at cleanup); null where the dialect has no rate limits.
 */
async function limitedTable(
  h: Harness,
  form: Form,
  max: number,
  per: string,
): Promise<{
  desc: AnyTable;
  name: string;
  rates: string;
  adapter: OpenAdapter;
  input: Record<string, unknown>;
} | null> {
  const { desc: plain, name } = await h.create(form);
  const adapter = await h.open({ poolSize: 2 });
  if (adapter.dialect.prepare(plain).rates === undefined) return null;
  const rates = h.name('rates');
  const input = tableInput(form, name, { rateLimit: { max, per, table: rates } });
  const desc = inbox(input as never) as AnyTable;
  const all = adapter.dialect.ddl(desc);
  const extra = all.slice(adapter.dialect.ddl(plain).length);
  expect(extra.join('\n'), 'ddl() prints the budget table').toContain(rates);
  h.tables.push(rates);
  for (const stmt of extra) await h.target.exec(stmt);
  return { desc, name, rates, adapter, input };
}

/** A dialect whose prepared statements count the rate reservations they run. */
function countingReservations(dialect: Dialect): { dialect: Dialect; count: () => number } {
  let n = 0;
  const counted = Object.create(dialect, {
    prepare: {
      value: (t: AnyTable, opts?: Parameters<Dialect['prepare']>[1]): TableOps => {
        const ops = dialect.prepare(t, opts);
        const rates = ops.rates;
        if (rates === undefined) return ops;
        const counted: RateOps = {
          reserveRate: (conn, r) => {
            n++;
            return rates.reserveRate(conn, r);
          },
          returnRate: (conn, b, windowStart, count) => rates.returnRate(conn, b, windowStart, count),
        };
        return Object.assign(Object.create(ops), { rates: counted }) as TableOps;
      },
    },
  }) as Dialect;
  return { dialect: counted, count: () => n };
}

/**
 * Rate limits (R-FLOW-4): at most `max` deliveries started per window, held in a table of the
 * database and enforced by it across brokers and processes. The quick scenarios run in `form`;
 * the statements' own scenario (form-free) and the 20-second one across 3 processes only where
 * `long` is set (once per adapter).
 */
export function rateScenarios(h: () => Harness, form: Form, long: boolean, seconds: number): void {
  test(`R-FLOW-4 start refuses a rate-limited table whose budget table is missing, naming the fix (${form})`, async (ctx) => {
    const { name } = await h().create(form);
    const adapter = await h().open({ poolSize: 2 });
    const desc = inbox(
      tableInput(form, name, { rateLimit: { max: 5, per: '1s', table: h().name('nothere') } }) as never,
    ) as AnyTable;
    if (adapter.dialect.prepare(desc).rates === undefined) return ctx.skip('the dialect has no rate limits');
    const b = await h().broker({ poolSize: 2 });
    b.subscribe(queue(desc), async () => {});
    const err = await b.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toMatch(/rate table .* does not exist/);
  });

  test(`R-FLOW-4 a limited queue starts at most 3 per 1 s window and waits for the next one without a statement (${form})`, async (ctx) => {
    const made = await limitedTable(h(), form, 3, '1s');
    if (made === null) return ctx.skip('the dialect has no rate limits');
    const { desc } = made;
    const { dialect, count } = countingReservations(made.adapter.dialect);
    const adapter = await h().open({ poolSize: 4 });
    const pub = await h().broker({ poolSize: 2 });
    await pub.publishMany(
      desc,
      Array.from({ length: 20 }, (_, n) => ({ n })),
    );
    const b = new Broker({ ...adapter, dialect }, { logger: h().logger, pollInterval: 50 });
    h().brokers.push(b);
    const starts: number[] = [];
    b.subscribe(queue(desc).workers(2), async () => {
      starts.push(Date.now());
    });
    // Start just after a window's edge, so the first window is (nearly) whole.
    await sleep(1_000 - (Date.now() % 1_000) + 30);
    await b.start();
    await until(() => starts.length >= 3, 'the first window delivered');
    // Windows counted from the first delivery's (a slow start may pass the window it began in).
    const w0 = Math.floor(starts[0]! / 1_000) * 1_000;
    await sleep(Math.max(0, w0 + 800 - Date.now()));
    const reservedInFirst = count();
    // Through the next window and into the one after.
    await sleep(Math.max(0, w0 + 2_500 - Date.now()));
    // A window starts at most 3, but for rows a claim reserved at the very end of the window
    // before and took just after its edge: at most what that window left unused (documented).
    const last = Math.floor(Math.max(...starts) / 1_000) * 1_000;
    let before = 0;
    for (let w = w0; w <= last; w += 1_000) {
      const n = starts.filter((s) => s >= w && s < w + 1_000).length;
      expect(n, `started in the window at ${w}`).toBeLessThanOrEqual(3 + (3 - before));
      before = Math.min(n, 3);
    }
    expect(starts.length).toBeGreaterThanOrEqual(6);
    expect(starts.length).toBeLessThanOrEqual(12);
    // A claim per grant and one that finds the window used up, per window: polling at 50 ms
    // while the budget is empty would have run some 50 reservations by now.
    expect(reservedInFirst, 'reservations in the first window').toBeLessThanOrEqual(6);
    expect(count(), 'reservations over 2.5 windows').toBeLessThanOrEqual(15);
    console.info(
      `R-FLOW-4 ${h().target.name} (${form}): ${starts.length} started in 2.5 windows of 3, ${count()} reservations`,
    );
  });

  if (!long) return;

  test(`R-FLOW-4 a reservation takes what the window has left, gives back what a claim did not take, and answers the time to the window's end (${form})`, async (ctx) => {
    const made = await limitedTable(h(), form, 50, '1s');
    if (made === null) return ctx.skip('the dialect has no rate limits');
    const { adapter, rates, name } = made;
    const ops = adapter.dialect.prepare(made.desc);
    // Away from a window's edge, so the steps below meet one window.
    if (Date.now() % 1_000 > 700) await sleep(1_000 - (Date.now() % 1_000) + 20);
    const r = (want: number): RateReservation => ({ table: rates, name, want, max: 50, perMs: 1_000 });
    const conn = await adapter.pool.acquire();
    try {
      const a = await ops.rates!.reserveRate(conn, r(30));
      expect(a.granted).toBe(30);
      expect(a.windowStart % 1_000).toBe(0);
      expect(a.waitMs).toBeGreaterThan(0);
      expect(a.waitMs).toBeLessThanOrEqual(1_000);
      const b = await ops.rates!.reserveRate(conn, r(30));
      expect(b.windowStart).toBe(a.windowStart);
      expect(b.granted, 'the window had 20 left').toBe(20);
      const c = await ops.rates!.reserveRate(conn, r(5));
      expect(c.granted, 'the window is used up').toBe(0);
      await ops.rates!.returnRate(conn, { table: rates, name }, c.windowStart, 7);
      const d = await ops.rates!.reserveRate(conn, r(10));
      expect(d.granted, '7 given back').toBe(7);
      // The next window starts at 0 used.
      await sleep(d.waitMs + 20);
      const e = await ops.rates!.reserveRate(conn, r(60));
      expect(e.windowStart).toBeGreaterThan(d.windowStart);
      expect(e.granted).toBe(50);
      // A give-back for a window that has ended changes nothing.
      await ops.rates!.returnRate(conn, { table: rates, name }, d.windowStart, 50);
      const f = await ops.rates!.reserveRate(conn, r(1));
      expect(f.granted).toBe(f.windowStart === e.windowStart ? 0 : 1);
    } finally {
      adapter.pool.release(conn);
    }
    // Racing reservations on separate connections: one window never grants more than its max.
    const racing = await h().open({ poolSize: 4 });
    const grants = await Promise.all(
      Array.from({ length: 24 }, async () => {
        const c = await racing.pool.acquire();
        try {
          return await ops.rates!.reserveRate(c, r(3));
        } finally {
          racing.pool.release(c);
        }
      }),
    );
    const byWindow = new Map<number, number>();
    for (const g of grants) byWindow.set(g.windowStart, (byWindow.get(g.windowStart) ?? 0) + g.granted);
    for (const [w, n] of byWindow) expect(n, `granted in the window at ${w}`).toBeLessThanOrEqual(50);
  });

  const max = 50;
  test(`R-FLOW-4 3 brokers in separate processes hold ${max} per 1 s for ${seconds} s: claiming in every window, never more claimed by a window's end than the windows so far allow (${form})`, {
    timeout: (seconds + 60) * 1_000,
  }, async (ctx) => {
    const why = noChildModule(h().target);
    if (why !== undefined) return ctx.skip(why);
    const made = await limitedTable(h(), form, max, '1s');
    if (made === null) return ctx.skip('the dialect has no rate limits');
    const { desc, name, input } = made;
    // More than the limit lets through in the run, so the limit, not the backlog, sets the pace.
    const backlog = max * (seconds + 10);
    const pub = await h().broker({ poolSize: 2 });
    for (let i = 0; i < backlog; i += 500) {
      await pub.publishMany(
        desc,
        Array.from({ length: Math.min(500, backlog - i) }, (_, n) => ({ n: i + n })),
      );
    }
    const spawn = () =>
      spawnBroker<{ starts: number[]; claims: number[] }>(h(), {
        mode: 'rate',
        table: input,
        workers: 4,
        poolSize: 4,
      });
    const children = [spawn(), spawn(), spawn()];
    await Promise.all(children.map((c) => c.ready));
    const allReady = Date.now();
    await sleep(seconds * 1_000);
    const stopFrom = Date.now();
    for (const c of children) c.child.send({ type: 'stop' });
    const reports = await Promise.all(children.map((c) => c.report));
    await Promise.all(children.map((c) => exited(c.child)));
    const left = (await h().rows(name)).length;
    expect(left, 'the backlog outlasted the run').toBeGreaterThan(0);

    // Whole windows while all three ran, from the second: a claim reserved in the window the
    // brokers started in may take its rows a round trip later, at the start of the next.
    const from = Math.ceil(allReady / 1_000) * 1_000 + 1_000;
    const to = Math.floor(stopFrom / 1_000) * 1_000;
    const windows = (to - from) / 1_000;
    // A delivery starts when its row is claimed (the budget counts claims); a handler starts a
    // moment later, on a loaded host sometimes in the next window, so its count is reported only.
    // Counted from the window before `from`, the one each measured window follows.
    const perWindow = (stamps: (r: { starts: number[]; claims: number[] }) => number[]) => {
      const counts = new Map<number, number>();
      for (let w = from - 1_000; w < to; w += 1_000) counts.set(w, 0);
      for (const r of reports) {
        for (const s of stamps(r)) {
          if (s < from - 1_000 || s >= to) continue;
          const w = Math.floor(s / 1_000) * 1_000;
          counts.set(w, counts.get(w)! + 1);
        }
      }
      return [...counts.values()];
    };
    const all = perWindow((r) => r.claims);
    const counts = all.slice(1);
    const handlerCounts = perWindow((r) => r.starts).slice(1);
    const perProcess = reports.map((r) => r.claims.filter((s) => s >= from && s < to).length);
    const total = counts.reduce((a, n) => a + n, 0);
    const rate = total / windows;
    console.info(
      `R-FLOW-4 ${h().target.name} (${form}): ${total} claimed in ${windows} whole windows, ${rate.toFixed(1)}/s` +
        ` (limit ${max}/s), per window ${counts.join(' ')}` +
        ` (by handler start ${handlerCounts.join(' ')}), per process ${perProcess.join('/')}`,
    );
    expect(windows).toBeGreaterThanOrEqual(seconds - 3);
    // The limit is a budget per window: claims stamped by the time a window ends took at most the
    // allowances of the windows up to it, plus what the window before the first counted one
    // reserved and delivered late. A claim takes its rows a round trip after its reservation, on
    // a loaded host a second or more (61 stamped in one window of 50 was seen, the window after
    // one that fell short); delay only moves claims later, so the running sum holds whatever the
    // host's load, and a limiter that let through more than its budget fails it within a window or
    // two. (The database's own count per window, exact, is the reservation scenario's.)
    let sum = 0;
    for (const [k, n] of all.entries()) {
      sum += n;
      expect(
        sum,
        `claims up to the end of window ${k} of ${windows} (counted from the one before the first): at most ${k + 2} windows of ${max}`,
      ).toBeLessThanOrEqual((k + 2) * max);
    }
    // How near the brokers come to the limit is their speed, which a loaded host lowers (the row
    // lock form held 22/s of 50 on one, each delivery holding a connection): reported above, and
    // measured by the benchmark, not asserted here. What is asserted: the limit is never passed,
    // and the brokers kept claiming in every window (a limiter that stalls them fails).
    for (const [k, n] of counts.entries())
      expect(n, `window ${k + 1} of ${windows} claimed rows`).toBeGreaterThan(0);
    expect(rate, 'at most 10% over the limit').toBeLessThanOrEqual(max * 1.1);
    // Which broker reserves a window first is a race, won by one for a few windows at a time: over
    // a long run more than one delivers.
    if (seconds >= 20)
      expect(perProcess.filter((n) => n > 0).length, 'more than one process delivered').toBeGreaterThan(1);
  });
}
