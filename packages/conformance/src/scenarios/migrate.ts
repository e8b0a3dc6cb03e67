import { ConfigError, Flows, type Form, type MigrationReport, migrate, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, payloadOf, until } from '../harness.js';

/**
 * `migrate` over tables that exist: a description that gained columns (the failure record, the
 * result, a priority, a unique key, a group, a delay) brings its queue table and dead-letter table
 * up to date, keeps their rows, and the table then passes the checks of `start()`.
 */
export function migrateScenarios(h: () => Harness, form: Form): void {
  test(`R-USER-3 migrate adds the columns a description gained to its table and dead-letter table, keeping their rows (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    await b.publish(desc, { n: 1 });
    const adapter = await h().open();
    // First a group alone, so the next step adds columns beside an index the table has.
    await migrate(adapter, [{ table: h().describe(form, name, { group: true }), deadLetterTable: dlq! }]);
    const gained = {
      processedAt: true,
      retryAfter: true,
      group: true,
      priority: true,
      uniqueKey: true,
      failureRecord: true,
      result: true,
    } as const;
    let wider = h().describe(form, name, gained);
    const full: MigrationReport | Error = await migrate(adapter, [
      { table: wider, deadLetterTable: dlq! },
    ]).catch((err: Error) => err);
    if (full instanceof Error) {
      // A database that cannot add the insert time (its default is the clock) says so, naming it,
      // and changes nothing; the rest is added without it.
      expect(full).toBeInstanceOf(ConfigError);
      expect(full).toMatchObject({ code: 'CONFIG', table: name, column: 'created_at' });
      wider = { ...wider, createdAt: undefined };
      await migrate(adapter, [{ table: wider, deadLetterTable: dlq! }]);
    } else {
      const alters = full.steps[0]!.statements.filter((s) => /^ALTER TABLE/i.test(s.trim()));
      expect(alters.length).toBeGreaterThanOrEqual(8);
    }
    // Again: nothing left to add.
    const again = await migrate(adapter, [{ table: wider, deadLetterTable: dlq! }]);
    expect(
      again.steps[0]!.statements.filter((s) => /ADD (COLUMN )?/i.test(s) && /^ALTER/i.test(s.trim())),
    ).toEqual([]);
    // The row published before keeps its payload.
    expect((await h().rows(name)).map((r) => payloadOf(r.payload))).toEqual([{ n: 1 }]);
    // The wider description passes start()'s checks (every column, and the dead-letter table's)
    // and its features work on the added columns.
    const c = await h().broker();
    await c.publish(wider, { n: 2 }, { group: 'g', key: 'k2', priority: 5 } as never);
    await c.publish(wider, { n: 3 }, { group: 'g', key: 'k2', priority: 5 } as never); // the key holds
    const seen: unknown[] = [];
    c.subscribe(queue(wider).maxAttempts(1).deadLetter({ table: dlq! }), async (m) => {
      seen.push(m);
      if ((m as { n: number }).n === 1) throw new Error('old row');
      return Outcome.ack({ done: (m as { n: number }).n });
    });
    await c.start();
    await until(() => seen.length === 2, 'both rows delivered');
    expect(seen).toContainEqual({ n: 1 });
    expect(seen).toContainEqual({ n: 2 });
    await until(async () => (await h().rows(dlq!)).length === 1, 'the old row in the dead-letter table');
    expect((await h().rows(dlq!))[0]?.last_error).toMatch(/old row/);
  });

  test(`R-USER-3 R-FLOW-6 R-FLOW-7 migrate creates the flow tables and the steps table a description gained beside its queue table; a flow and a step then run on them (${form})`, async () => {
    const extras = { retryAfter: true, processedAt: true, result: true } as const;
    const { name } = await h().create(form, extras);
    const flowsName = h().name('flow');
    const stepsName = h().name('steps');
    h().tables.push(flowsName, `${flowsName}_parent`, stepsName);
    const wider = h().describe(form, name, { ...extras, flows: flowsName, steps: stepsName });
    const adapter = await h().open();
    const report = await migrate(adapter, [{ table: wider }]);
    const created = report.steps[0]!.statements.filter((s) => /^CREATE TABLE/i.test(s.trim()));
    for (const t of [flowsName, `${flowsName}_parent`, stepsName])
      expect(created.some((s) => s.includes(t))).toBe(true);
    for (const t of [flowsName, `${flowsName}_parent`, stepsName]) expect(await h().rows(t)).toEqual([]);
    // Again: recorded, nothing new to create.
    expect((await migrate(adapter, [{ table: wider }])).steps[0]!.recorded).toBe(true);
    // The tables pass start()'s checks, and a parent runs after its child, which runs a step.
    const flows = new Flows(adapter);
    const ids = await flows.publish(wider, {
      jobs: { child: { message: { n: 1 } }, parent: { message: { n: 2 }, after: ['child'] } },
    });
    const read: unknown[] = [];
    const b = await h().broker();
    b.subscribe(queue(wider), async (m, ctx) => {
      if ((m as { n: number }).n === 1)
        return Outcome.ack(await ctx.step('one', async () => ({ stepped: 1 })));
      read.push(...(await flows.children(wider, ctx.id)).map((c) => c.result));
      return Outcome.ack({ parent: true });
    });
    await b.start();
    await until(
      async () =>
        (await h().rows(name)).find((r) => String(r.id) === String(ids.parent))?.processed_at != null,
      'the parent processed',
      30_000,
    );
    expect(read).toEqual([{ stepped: 1 }]);
    await b.shutdown();
    await h().target.exec(`DELETE FROM sqlinbox_migrations WHERE target = '${name}'`);
  });
}
