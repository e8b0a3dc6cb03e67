import { type AnyTable, ConfigError, type Dialect, type Form, inbox, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, noChildModule, sleep, spawnBroker, tableInput, until } from '../harness.js';

/** The limit every scenario here declares, and the keys it publishes under. */
const LIMIT = 2;
const KEYS = ['k0', 'k1', 'k2', 'k3'];

/** Publishes `perKey` rows of each key (one publish per key, so a key's rows are consecutive ids). */
async function publishKeyed(h: Harness, desc: AnyTable, perKey: number, withNullKey = 0): Promise<number> {
  const b = await h.broker({ poolSize: 2 });
  for (const ckey of KEYS) {
    await b.publishMany(
      desc,
      Array.from({ length: perKey }, (_, n) => ({ ckey, n })),
      { columns: { ckey } },
    );
  }
  if (withNullKey > 0) {
    await b.publishMany(
      desc,
      Array.from({ length: withNullKey }, (_, n) => ({ ckey: null, n })),
    );
  }
  return KEYS.length * perKey + withNullKey;
}

/** Whether `err` is a lock another session held past the wait, as `dialect` classifies it. */
function transientLock(dialect: Dialect, err: unknown): boolean {
  const kind = dialect.classifyError(err);
  return kind === 'lock_timeout' || kind === 'deadlock';
}

/** Rows in work per key, as the database holds them: a lease written, the row not yet settled. */
async function inWorkByKey(h: Harness, name: string): Promise<Map<string, number>> {
  const rows = await h.target.exec(
    `SELECT ckey, COUNT(*) AS n FROM ${name} WHERE locked_until IS NOT NULL AND ckey IS NOT NULL GROUP BY ckey`,
  );
  return new Map(rows.map((r) => [String(r.ckey ?? r.CKEY), Number(r.n ?? r.N)]));
}

/** What a concurrency child reports when it stops. */
interface ConcurrencyReport {
  handled: string[];
  failures: number;
}

/**
 * The claim forms in which the dialect holds per-key concurrency: its statements' `concurrency`
 * feature, read from a table that declares it (preparing touches no database).
 */
export function concurrencyForms(dialect: Dialect): readonly Form[] {
  const input = { table: 'sqlinbox_concurrency_probe', id: 'id', payload: 'payload', lease: 'locked_until' };
  const probe = inbox({ ...input, concurrency: { key: 'ckey', limit: 1 } } as never) as never;
  return dialect.prepare(probe).concurrency?.forms ?? [];
}

/**
 * Per-key concurrency (R-FLOW-3): at most N rows of one key in work at once across brokers, held
 * by the database in the forms its statements' `concurrency` feature names, and refused at start in
 * every other form.
 */
export function concurrencyScenarios(h: () => Harness, form: Form, forms: readonly Form[]): void {
  const held = forms.includes(form);

  if (!held) {
    test(`R-FLOW-3 per-key concurrency in a form the dialect cannot hold it in is refused at start with a ConfigError naming the table (${form})`, async () => {
      const { desc, name } = await h().create(form, { concurrency: LIMIT });
      const b = await h().broker();
      b.subscribe(queue(desc), async () => {});
      const err = await b.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect(err).toMatchObject({ code: 'CONFIG', table: name, column: 'ckey' });
      expect(String((err as Error).message)).toMatch(/concurrency/);
    });
    return;
  }

  test(`R-FLOW-3 the key column is checked at start: a missing column stops it, naming the column (${form})`, async () => {
    const { name } = await h().create(form);
    const desc = h().describe(form, name, { concurrency: LIMIT });
    const b = await h().broker();
    b.subscribe(queue(desc), async () => {});
    await expect(b.start()).rejects.toMatchObject({ code: 'CONFIG', table: name, column: 'ckey' });
  });

  test(`R-FLOW-3 two brokers of 6 workers each: at most ${LIMIT} rows of a key in their handlers at once, the limit reached, every row once, rows without a key unlimited (${form})`, {
    timeout: 60_000,
  }, async () => {
    const { desc, name } = await h().create(form, { concurrency: LIMIT });
    const total = await publishKeyed(h(), desc, 12, 6);
    const running = new Map<string, number>();
    let maxKeyed = 0;
    let maxNull = 0;
    const seen = new Map<string, number>();
    const handler = async (m: unknown, ctx: { id: unknown }) => {
      const k = String((m as { ckey: string | null }).ckey);
      running.set(k, (running.get(k) ?? 0) + 1);
      if (k === 'null') maxNull = Math.max(maxNull, running.get(k)!);
      else maxKeyed = Math.max(maxKeyed, running.get(k)!);
      // A row without a key holds its worker until more than the limit of them ran at once (or 2 s
      // passed), so their overlap is the engine's doing, not the timing of 15 ms handlers (a loaded
      // run once saw only 2 at once).
      const deadline = Date.now() + 2_000;
      while (k === 'null' && maxNull <= LIMIT && Date.now() < deadline) await sleep(5);
      await sleep(15);
      running.set(k, running.get(k)! - 1);
      seen.set(String(ctx.id), (seen.get(String(ctx.id)) ?? 0) + 1);
    };
    const brokers = [await h().broker({ poolSize: 4 }), await h().broker({ poolSize: 4 })];
    for (const b of brokers) b.subscribe(queue(desc).workers(6), handler);
    await Promise.all(brokers.map((b) => b.start()));
    await until(() => seen.size === total, 'every row handled', 30_000);
    expect(maxKeyed).toBeLessThanOrEqual(LIMIT);
    expect(maxKeyed).toBe(LIMIT);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    // Rows without a key (NULL) take no slot: more than the limit of them ran at once.
    expect(maxNull).toBeGreaterThan(LIMIT);
    await until(async () => (await h().rows(name)).length === 0, 'every row settled');
  });

  test(`R-FLOW-3 3 brokers in separate processes: the rows of a key in work, sampled from the database, never pass ${LIMIT}, reach it, and every row is handled once (${form})`, {
    timeout: 90_000,
  }, async (ctx) => {
    const why = noChildModule(h().target);
    if (why !== undefined) return ctx.skip(why);
    const { desc, name } = await h().create(form, { concurrency: LIMIT });
    const spawn = () =>
      spawnBroker<ConcurrencyReport>(h(), {
        mode: 'concurrency',
        table: tableInput('lease', name, { concurrency: { key: 'ckey', limit: LIMIT } }),
        workers: 4,
        poolSize: 4,
        sleepMs: 25,
      });
    const children = [spawn(), spawn(), spawn()];
    await Promise.all(children.map((c) => c.ready));

    // Sample the database while the three drain the table: rows of each key holding a lease.
    // The target's dialect, once: it tells a read that met a lock from a failure.
    const dialect = h().dialect ?? (await h().open()).dialect;
    let sampling = true;
    let samples = 0;
    let maxSeen = 0;
    const over: string[] = [];
    const sampler = (async () => {
      while (sampling) {
        let sample: Map<string, number>;
        try {
          sample = await inWorkByKey(h(), name);
        } catch (err) {
          // A read that met another process's lock (SQLite's "database is locked") is one sample
          // missed, not a failure of what is sampled.
          if (transientLock(dialect, err)) {
            await sleep(3);
            continue;
          }
          throw err;
        }
        for (const [k, n] of sample) {
          maxSeen = Math.max(maxSeen, n);
          if (n > LIMIT) over.push(`${k}: ${n}`);
        }
        samples++;
        await sleep(3);
      }
    })();
    let total: number;
    try {
      total = await publishKeyed(h(), desc, 30);
      await until(async () => (await h().rows(name)).length === 0, 'every row settled', 60_000);
    } finally {
      // Stopped whatever failed: a sampler left running would read a table the cleanup dropped.
      sampling = false;
    }
    await sampler;
    for (const c of children) c.child.send({ type: 'stop' });
    const reports = await Promise.all(children.map((c) => c.report));
    await Promise.all(children.map((c) => exited(c.child)));

    expect(over, 'samples over the limit').toEqual([]);
    expect(samples).toBeGreaterThan(10);
    expect(maxSeen, 'the limit was reached (so the check can fail)').toBe(LIMIT);
    const handled = reports.flatMap((r) => r.handled);
    expect(handled.length).toBe(total);
    expect(new Set(handled).size).toBe(total);
    expect(reports.every((r) => r.failures === 0)).toBe(true);
    // The limit held across processes: more than one of them handled rows. (All three ran
    // throughout; which claims the free slots is theirs to race for.)
    expect(reports.filter((r) => r.handled.length > 0).length).toBeGreaterThanOrEqual(2);
  });
}
