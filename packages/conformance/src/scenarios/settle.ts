import { type Capabilities, ConfigError, type Form, Outcome, queue, ServerTooOldError } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, payloadOf, sleep, until } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';

/** Claim, publish and settlement scenarios, per form (SPEC sections 2, 3, 6, 7). */
export function settleScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  test(`R-PUB-1 R-PUB-2 R-SET-1 a published message and a row inserted by plain SQL are both delivered and acked (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const seen: unknown[] = [];
    b.subscribe(queue(desc), async (m) => {
      seen.push(m);
    });
    await b.start();
    await b.publish(desc, { n: 1, text: "it's; DROP TABLE x; --" });
    await h().insertPlain(name, '{"n":2}');
    await until(() => seen.length === 2, 'two deliveries');
    expect(seen).toContainEqual({ n: 1, text: "it's; DROP TABLE x; --" });
    expect(seen).toContainEqual({ n: 2 });
    await until(async () => (await h().rows(name)).length === 0, 'acked rows deleted');
  });

  test(`R-ATT-2 R-ATT-1 the first delivery reads attempt 1, the second 2 (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      return attempts.length === 1 ? Outcome.retry() : Outcome.ack();
    });
    await b.start();
    await b.publish(desc, { a: 1 });
    await until(() => attempts.length === 2, 'a retry and a second delivery');
    expect(attempts).toEqual([1, 2]);
    await until(async () => (await h().rows(name)).length === 0, 'row deleted after the ack');
  });

  test(`R-SET-1 retry() puts the row back as the form says (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    let calls = 0;
    let stopped: Promise<unknown> | undefined;
    b.subscribe(queue(desc), async () => {
      calls++;
      // Stop claiming before this retry settles, so the row is seen as one retry left it.
      stopped = b.shutdown({ timeout: 5_000 });
      return Outcome.retry();
    });
    await b.start();
    await b.publish(desc, { r: 1 });
    await until(() => stopped !== undefined, 'first delivery');
    await stopped;
    expect(calls).toBe(1);
    const [row] = await h().rows(name);
    // Every form counts the attempt once for one delivery: row lock at settlement, lease at claim,
    // advisory at take.
    expect(Number(row!.attempt)).toBe(1);
    if (form === 'lease') expect(row!.locked_until).toBeNull();
  });

  test(`R-SET-2 drop settles like ack: the poisoned message leaves the queue (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    let calls = 0;
    b.subscribe(queue(desc), async () => {
      calls++;
      return Outcome.drop();
    });
    await b.start();
    await b.publish(desc, { poison: true });
    await until(async () => (await h().rows(name)).length === 0, 'dropped row gone');
    expect(calls).toBe(1);
  });

  test(`R-SET-1 with a processed_at column, settled rows are stamped instead of deleted (${form})`, async () => {
    const { desc, name } = await h().create(form, { processedAt: true });
    const b = await h().broker();
    let calls = 0;
    b.subscribe(queue(desc), async () => {
      calls++;
    });
    await b.start();
    const before = Date.now();
    await b.publish(desc, { stamp: 1 });
    await until(async () => (await h().rows(name)).every((r) => r.processed_at !== null), 'row stamped');
    const [row] = await h().rows(name);
    expect(ms(row!.processed_at)!).toBeGreaterThanOrEqual(before - 2_000);
    await sleep(300);
    expect(calls).toBe(1); // a stamped row is not delivered again
  });

  test(`R-SET-3 retryAfter on a table without retry_after is a retry, with a warning (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      return attempts.length === 1 ? Outcome.retryAfter(60_000) : Outcome.ack();
    });
    await b.start();
    await b.publish(desc, { d: 1 });
    await until(() => attempts.length === 2, 'redelivered at once');
    expect(attempts).toEqual([1, 2]);
    expect(h().logger.has('warn', 'retryAfter on a table without a retry_after column')).toBe(true);
  });

  test(`R-DLQ-3 R-SET-1 retryAfter is not delivered before its time and survives a broker restart (${form})`, async () => {
    const { desc, name } = await h().create(form, { retryAfter: true });
    const b1 = await h().broker();
    let first = 0;
    b1.subscribe(queue(desc), async () => {
      first++;
      return Outcome.retryAfter(1_500);
    });
    await b1.start();
    const t0 = Date.now();
    await b1.publish(desc, { later: 1 });
    await until(() => first === 1, 'first delivery');
    await until(async () => (await h().rows(name))[0]?.retry_after != null, 'retry_after written');
    await b1.shutdown({ timeout: 5_000 });
    const [row] = await h().rows(name);
    expect(ms(row!.retry_after)!).toBeGreaterThan(t0 + 1_000);
    // A new broker (a restarted service) delivers it, and not before its time.
    const b2 = await h().broker();
    let deliveredAt = 0;
    b2.subscribe(queue(desc), async () => {
      deliveredAt = Date.now();
    });
    await b2.start();
    await until(() => deliveredAt > 0, 'delivered after the delay', 10_000);
    expect(deliveredAt).toBeGreaterThanOrEqual(ms(row!.retry_after)! - 50);
    expect(first).toBe(1);
  });

  test(`R-SET-4 a thrown handler error is a retry, logged with the row id (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      if (attempts.length === 1) throw new Error('boom');
    });
    await b.start();
    const id = await b.publish(desc, { t: 1 });
    await until(() => attempts.length === 2, 'retried');
    const entry = h().logger.entries.find((e) => e.msg.includes('handler failed'));
    expect(String(entry?.fields?.id)).toBe(String(id));
  });

  test(`R-SET-4 R-ERR-2 a payload failing its schema never reaches the handler and is never deleted (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    let handled = 0;
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (v: unknown) =>
          typeof (v as { ok?: unknown })?.ok === 'boolean'
            ? { value: v as { ok: boolean } }
            : { issues: [{ message: 'ok must be a boolean' }] },
      },
    };
    b.subscribe(queue(desc).schema(schema).pollInterval(100), async () => {
      handled++;
    });
    await b.start();
    await h().insertPlain(name, '{"ok":"nope"}');
    await until(() => h().logger.has('error', 'payload cannot be decoded'), 'decode error logged');
    await b.shutdown({ timeout: 5_000 });
    expect(handled).toBe(0);
    const rows = await h().rows(name);
    expect(rows).toHaveLength(1);
    expect(payloadOf(rows[0]!.payload)).toEqual({ ok: 'nope' });
    expect(Number(rows[0]!.attempt)).toBeGreaterThanOrEqual(1);
  });

  test(`R-SET-5 R-ERR-1 a settlement whose statement fails surfaces its error to the handler (${form})`, async () => {
    const { name } = await h().create(form);
    // A custom ack statement that fails stands for a failing settlement statement.
    const broken = h().describe(form, name, {});
    const failing = { ...broken, custom: { ack: async () => Promise.reject(new Error('statement failed')) } };
    const b = await h().broker();
    let error: unknown;
    let calls = 0;
    b.subscribe(queue(failing as typeof broken).pollInterval(60_000), async (_m, ctx) => {
      calls++;
      if (calls > 1) return;
      await ctx.ack().catch((e: unknown) => {
        error = e;
      });
    });
    await b.start();
    const id = await b.publish(broken, { s: 1 });
    await until(() => error !== undefined, 'settlement error');
    expect(error).toMatchObject({ code: 'SETTLEMENT', table: name });
    expect(String((error as { rowId: unknown }).rowId)).toBe(String(id));
    const rows = await h().rows(name);
    expect(rows).toHaveLength(1); // the row stays, as its form says
    if (form === 'lease') expect(rows[0]!.locked_until).not.toBeNull(); // until its lease runs out (R-LEASE-7)
  });

  test(`R-DESC-8 R-ERR-1 a missing column stops the subscription at start, naming table and column (${form})`, async () => {
    const { name } = await h().create(form);
    const desc = h().describe(form, name, { columns: ['no_such_column'] });
    const b = await h().broker();
    let handled = 0;
    b.subscribe(queue(desc), async () => {
      handled++;
    });
    await h().insertPlain(name, '{"x":1}');
    const err = await b.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ table: name, column: 'no_such_column' });
    await sleep(200);
    expect(handled).toBe(0);
    expect(Number((await h().rows(name))[0]!.attempt)).toBe(0); // nothing claimed
  });

  test(`R-DESC-8 a missing table stops the subscription at start with a ConfigError (${form})`, async () => {
    const desc = h().describe(form, h().name('missing'));
    const b = await h().broker();
    b.subscribe(queue(desc), async () => {});
    await expect(b.start()).rejects.toMatchObject({ code: 'CONFIG', table: desc.table });
  });

  test(`R-USER-3 the DDL runs again without error and changes nothing: its tables and indexes are created where missing (${form})`, async () => {
    // Every index the DDL makes, and the dead-letter table: run once by create, then twice more.
    const extras = {
      processedAt: true,
      group: true,
      priority: true,
      uniqueKey: true,
      retryAfter: true,
      deadLetterTable: true,
    };
    const { desc, name, dlq } = await h().create(form, extras);
    const b = await h().broker();
    await b.publish(desc, { n: 1 }, { group: 'g', key: 'k1', priority: 2 });
    const dialect = (await h().open()).dialect;
    for (let i = 0; i < 2; i++)
      for (const stmt of dialect.ddl(desc, { deadLetterTable: dlq! })) await h().target.exec(stmt);
    // The row published before is still there: nothing was dropped or made again.
    expect((await h().rows(name)).map((r) => payloadOf(r.payload))).toEqual([{ n: 1 }]);
    // The unique key's index still holds: a second publish of the key inserts nothing.
    await b.publish(desc, { n: 2 }, { group: 'g', key: 'k1', priority: 1 });
    expect(await h().rows(name)).toHaveLength(1);
  });

  test(`R-USER-4 maxAttempts without a dead letter stops start saying what is missing, after the table check (${form})`, async () => {
    // A missing table is reported first, before the queue's settings.
    const missing = h().describe(form, h().name('missing'));
    const first = await h().broker();
    first.subscribe(queue(missing).maxAttempts(3), async () => {});
    await expect(first.start()).rejects.toMatchObject({
      code: 'CONFIG',
      table: missing.table,
      message: expect.stringMatching(/no such table/),
    });

    const { desc, name } = await h().create(form);
    const b = await h().broker();
    b.subscribe(queue(desc).maxAttempts(3), async () => {});
    const err = (await b.start().then(
      () => undefined,
      (e: unknown) => e,
    )) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.table).toBe(name);
    expect(err.message).toContain(
      'maxAttempts(3) is set without a dead letter: a message that fails its last attempt would have nowhere to go',
    );
    expect(err.fix).toContain(`.deadLetter({ table: '${name.split('.').pop()}_dead' })`);
    expect(err.fix).toContain('or drop .maxAttempts() to retry without limit');

    const c = await h().broker();
    c.subscribe(queue(desc).deadLetter({ table: `${name}_dead` }), async () => {});
    await expect(c.start()).rejects.toMatchObject({
      message: expect.stringMatching(/deadLetter is set without maxAttempts/),
    });
  });

  test(`R-ERR-2 shutdown fires ctx.signal with its reason, also for a handler that reads the signal only after the abort (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker({ poolSize: 6 });
    const bothIn = gate();
    const readLate = gate();
    let inHandler = 0;
    const early: { aborted?: boolean; reason?: unknown } = {};
    const late: { aborted?: boolean; reason?: unknown } = {};
    b.subscribe(queue(desc).workers(2), async (m, ctx) => {
      if (++inHandler === 2) bothIn.open();
      if ((m as { k: number }).k === 1) {
        // Reads the signal at once and waits for it.
        const signal = ctx.signal;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        Object.assign(early, { aborted: signal.aborted, reason: signal.reason });
      } else {
        await readLate.promise; // first reads the signal after shutdown began
        Object.assign(late, { aborted: ctx.signal.aborted, reason: ctx.signal.reason });
      }
    });
    await b.publishMany(desc, [{ k: 1 }, { k: 2 }]);
    await b.start();
    await bothIn.promise;
    const closing = b.shutdown({ timeout: '5s' });
    await until(() => early.aborted !== undefined, 'the reading handler saw the abort');
    readLate.open();
    await closing;
    expect(early.aborted).toBe(true);
    expect(late.aborted).toBe(true);
    expect(late.reason).toBe(early.reason);
    expect(early.reason).toBeDefined();
  });

  test(`R-DESC-8 R-POOL-6 prefetch where it cannot apply stops the subscription at start with a ConfigError (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    // A row lock or advisory delivery holds its lock itself; a lease one needs a dialect that claims ahead.
    const refused = form !== 'lease' || !caps.claimAhead;
    b.subscribe(queue(desc).workers(2).prefetch(4), async () => {});
    await h().insertPlain(name, '{"x":1}');
    if (refused) {
      await expect(b.start()).rejects.toMatchObject({ code: 'CONFIG', table: name });
      expect(Number((await h().rows(name))[0]!.attempt)).toBe(0); // nothing claimed
    } else {
      await b.start();
      await until(async () => (await h().rows(name)).length === 0, 'the row delivered');
    }
  });

  test(`R-DB-1 a server older than the floor stops the subscription with ServerTooOldError (${form})`, async () => {
    const { desc } = await h().create(form);
    const b = await h().broker({ serverVersion: h().target.tooOldVersion });
    b.subscribe(queue(desc), async () => {});
    const err = await b.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServerTooOldError);
    expect((err as ServerTooOldError).found).toContain(h().target.tooOldVersion.split('-')[0]!);
  });

  test(`R-DESC-1 a table with every role column (and others, ignored) is claimed and settled (${form})`, async () => {
    const { desc, name } = await h().create(form, {
      retryAfter: true,
      processedAt: true,
      group: true,
      partitionKey: true,
      columns: ['note'],
    });
    const b = await h().broker();
    const seen: unknown[] = [];
    b.subscribe(queue(desc), async (m, ctx) => {
      seen.push({ m, attempt: ctx.attempt, group: ctx.row.grp, key: ctx.row.pkey });
    });
    await b.start();
    await b.publish(
      desc,
      { all: 1 },
      { group: 'g', partitionKey: 'p', columns: { note: 'ignored by the queue' } },
    );
    await until(() => seen.length === 1, 'delivered');
    expect(seen[0]).toEqual({ m: { all: 1 }, attempt: 1, group: 'g', key: 'p' });
    await until(async () => (await h().rows(name))[0]?.processed_at != null, 'stamped');
  });

  only(
    [caps.transactional, NEEDS.transactional],
    [caps.isolationLevels.includes('repeatable_read'), 'the adapter has no repeatable_read isolation level'],
    [form === 'lease', 'a lease form scenario: it runs in the lease form only'],
  )(
    'R-TX-8 a lease table in transactional mode at repeatable_read stops at start with a clear error',
    async () => {
      const { name } = await h().create('lease');
      const rr = h().describe('lease', name, { isolation: 'repeatable_read' });
      const b = await h().broker();
      b.subscribe(queue(rr).transactional(), async () => {});
      await expect(b.start()).rejects.toMatchObject({ code: 'CONFIG', table: name });
    },
  );
}
