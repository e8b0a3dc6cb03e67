import { Admin, type Capabilities, ConfigError, type Form, Outcome, queue, StepError } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, payloadOf, skipWithoutChild, tableInput, until } from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';

/** The step records a steps table holds, as `name=value` sorted (the value's JSON as kept). */
async function records(h: Harness, steps: string): Promise<string[]> {
  const rows = await h.target.exec(`SELECT step_name, result FROM ${steps}`);
  return rows.map((r) => `${String(r.step_name)}=${JSON.stringify(payloadOf(r.result))}`).sort();
}

/**
 * Durable steps (R-FLOW-7): `ctx.step(name, fn)` keeps each finished step's value in the steps
 * table; a retry of the row, after a throw or a crash, gets the kept values and runs only the
 * steps not finished; the row's final settlement deletes its records.
 */
export function stepsScenarios(h: () => Harness, form: Form, caps: Capabilities): void {
  test(`R-FLOW-7 a handler of 3 steps throws after step 2 on its first delivery: the retry runs only step 3 and gets steps 1-2's kept values; the ack deletes the records (${form})`, async () => {
    const steps = h().name('steps');
    const { desc } = await h().create(form, { steps });
    const b = await h().broker();
    const calls = { one: 0, two: 0, three: 0 };
    const seen: unknown[] = [];
    let keptAtRetry: string[] = [];
    let deliveries = 0;
    b.subscribe(queue(desc).backoff('immediate'), async (_m, ctx) => {
      deliveries++;
      if (deliveries === 2) keptAtRetry = await records(h(), steps);
      const one = await ctx.step('one', () => {
        calls.one++;
        return { charged: 'ch_1', attempt: ctx.attempt };
      });
      const two = await ctx.step('two', async () => {
        calls.two++;
        return `mail to ${one.charged}`;
      });
      if (deliveries === 1) throw new Error('fails after step two');
      const three = await ctx.step('three', () => {
        calls.three++;
        return [one, two];
      });
      seen.push({ one, two, three, attempt: ctx.attempt });
    });
    await b.start();
    await b.publish(desc, { order: 7 });
    await until(() => seen.length === 1, 'the retry acked');
    expect(calls).toEqual({ one: 1, two: 1, three: 1 });
    expect(deliveries).toBe(2);
    const one = { charged: 'ch_1', attempt: 1 };
    expect(seen[0]).toEqual({ one, two: 'mail to ch_1', three: [one, 'mail to ch_1'], attempt: 2 });
    // The records the retry found: steps one and two, their values as kept ({"value": ..}).
    expect(keptAtRetry).toEqual([
      `one=${JSON.stringify({ value: one })}`,
      `two=${JSON.stringify({ value: 'mail to ch_1' })}`,
    ]);
    await until(async () => (await records(h(), steps)).length === 0, 'the ack deleted the records');
  });

  test(`R-FLOW-7 a batch handler runs ctx.step per message: each row keeps its own steps; a row retried alone (item.ctx.retry()) gets its kept values and runs only the steps not finished, while the rows acked beside it lose their records (${form})`, async () => {
    const steps = h().name('steps');
    const { desc } = await h().create(form, { steps });
    const b = await h().broker();
    const [a, c, d] = (await b.publishMany(desc, [{ n: 1 }, { n: 2 }, { n: 3 }])).map(String) as [
      string,
      string,
      string,
    ];
    const runs: string[] = [];
    const deliveries = new Map<string, number>();
    const done = new Map<string, unknown[]>();
    let keptAtRetry: string[] = [];
    b.subscribe(queue(desc).batch(3).backoff('immediate'), async (items) => {
      for (const { ctx } of items) {
        const id = String(ctx.id);
        const n = (deliveries.get(id) ?? 0) + 1;
        deliveries.set(id, n);
        if (id === a && n === 2)
          keptAtRetry = (await h().target.exec(`SELECT row_id, step_name FROM ${steps}`))
            .filter((r) => String(r.row_id) === a)
            .map((r) => String(r.step_name))
            .sort();
        const one = await ctx.step('one', () => {
          runs.push(`${id}:one`);
          return `one of ${id} at delivery ${n}`;
        });
        const two = await ctx.step('two', () => {
          runs.push(`${id}:two`);
          return { two: id, delivery: n };
        });
        // Row a fails alone after its second step, on its first delivery.
        if (id === a && n === 1) {
          await ctx.retry();
          continue;
        }
        const three = await ctx.step('three', () => {
          runs.push(`${id}:three`);
          return n;
        });
        done.set(id, [one, two, three]);
      }
    });
    await b.start();
    await until(() => done.size === 3, 'every row acked');
    expect(deliveries).toEqual(
      new Map([
        [a, 2],
        [c, 1],
        [d, 1],
      ]),
    );
    // Each step of each row ran once: row a's retry got steps one and two from its records.
    expect(runs.sort()).toEqual(
      [a, c, d].flatMap((id) => ['one', 'two', 'three'].map((s) => `${id}:${s}`)).sort(),
    );
    expect(keptAtRetry).toEqual(['one', 'two']);
    expect(done.get(a)).toEqual([`one of ${a} at delivery 1`, { two: a, delivery: 1 }, 2]);
    expect(done.get(c)).toEqual([`one of ${c} at delivery 1`, { two: c, delivery: 1 }, 1]);
    await until(async () => (await records(h(), steps)).length === 0, 'the acks deleted the records');
  });

  test(`R-FLOW-7 a row waiting for its retry with step records, removed (admin.remove) or cancelled (admin.cancel), leaves none behind: a row that comes back with its id finds none (${form})`, async () => {
    const steps = h().name('steps');
    const control = h().name('ctl');
    const { desc } = await h().create(form, { steps, retryAfter: true, control });
    const b = await h().broker();
    let delivered = 0;
    b.subscribe(queue(desc), async (_m, ctx) => {
      await ctx.step('one', () => ({ row: String(ctx.id) }));
      delivered++;
      return Outcome.retryAfter(3_600_000);
    });
    const [a, c, d] = await b.publishMany(desc, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await b.start();
    await until(() => delivered === 3, 'three rows ran their step and wait an hour');
    await b.shutdown();
    const rowIds = async () =>
      (await h().target.exec(`SELECT row_id FROM ${steps}`)).map((r) => String(r.row_id)).sort();
    expect(await rowIds()).toEqual([a, c, d].map(String).sort());
    const admin = new Admin(await h().open());
    expect((await admin.remove(desc, { ids: [a] })).changed.map(String)).toEqual([String(a)]);
    expect(await rowIds()).toEqual([c, d].map(String).sort());
    if ((await h().open()).dialect.prepare(desc).control !== undefined) {
      expect((await admin.cancel(desc, { ids: [c] })).changed.map(String)).toEqual([String(c)]);
      expect(await rowIds()).toEqual([String(d)]);
    }
  });

  test(`R-FLOW-7 R-FLOW-6 a table with steps or flows never gives a deleted row's generated id to a new row, even once the table is empty (${form})`, async () => {
    for (const side of ['steps', 'flows'] as const) {
      const { desc } = await h().create(form, { [side]: h().name(side), retryAfter: side === 'flows' });
      const b = await h().broker();
      const [first] = await b.publishMany(desc, [{ n: 1 }]);
      let handled = 0;
      b.subscribe(queue(desc), async () => {
        handled++;
      });
      await b.start();
      await until(
        async () => handled === 1 && (await h().rows(desc.table)).length === 0,
        'the row acked and deleted',
      );
      const [next] = await b.publishMany(desc, [{ n: 2 }]);
      expect(String(next)).not.toBe(String(first));
      await b.shutdown();
    }
  });

  test(`R-FLOW-7 one step name twice in a delivery is a StepError; an empty name too; undefined and null values are kept as such; a table without steps refuses ctx.step with a ConfigError saying to declare steps (${form})`, async () => {
    const steps = h().name('steps');
    const { desc } = await h().create(form, { steps });
    const plain = await h().create(form);
    const b = await h().broker();
    const errors: unknown[] = [];
    const refused: unknown[] = [];
    const values: unknown[] = [];
    let deliveries = 0;
    let runs = 0;
    b.subscribe(queue(desc).backoff('immediate'), async (_m, ctx) => {
      deliveries++;
      const u = await ctx.step('undefined', () => {
        runs++;
        return undefined;
      });
      const n = await ctx.step('null', () => {
        runs++;
        return null;
      });
      if (deliveries === 1) {
        errors.push(await ctx.step('null', () => 1).catch((e: unknown) => e));
        errors.push(await ctx.step('', () => 1).catch((e: unknown) => e));
        throw new Error('once more');
      }
      values.push(u, n);
    });
    b.subscribe(queue(plain.desc), async (_m, ctx) => {
      refused.push(await ctx.step('x', () => 1).catch((e: unknown) => e));
      return Outcome.ack();
    });
    await b.start();
    await b.publish(desc, { a: 1 });
    await b.publish(plain.desc, { b: 1 });
    await until(() => values.length === 2 && refused.length === 1, 'both tables handled');
    expect(values).toEqual([undefined, null]);
    expect(runs).toBe(2); // the retry ran neither step again
    const [twice, empty] = errors;
    const [none] = refused;
    expect(twice).toBeInstanceOf(StepError);
    expect(twice).toMatchObject({ code: 'STEP', step: 'null', table: desc.table });
    expect(String((twice as Error).message)).toContain('run twice in one delivery');
    expect(empty).toBeInstanceOf(StepError);
    expect(none).toBeInstanceOf(ConfigError);
    expect(String((none as Error).message)).toContain('declare steps: true');
    await until(async () => (await records(h(), steps)).length === 0, 'the ack deleted the records');
  });

  test(`R-FLOW-7 orphan step records (a crash between a settlement and its delete leaves them, as does a row deleted or pruned) are swept by the brokers subscribed, from their start: the records of a row gone and of a processed row go; a live row's and another queue's stay (${form})`, async () => {
    const steps = h().name('steps');
    const { desc, name } = await h().create(form, { steps, retryAfter: true, processedAt: true });
    const adapter = await h().open({ poolSize: 2 });
    const b = await h().broker();
    const [live] = await b.publishMany(desc, [{ n: 1 }], { notBefore: new Date(Date.now() + 3_600_000) });
    const [done] = await b.publishMany(desc, [{ n: 2 }], { notBefore: new Date(Date.now() - 60_000) });
    // Processed without a delivery: its stamp copied from its (past) retry_after, in the dialect's type.
    await h().target.exec(`UPDATE ${name} SET processed_at = retry_after WHERE id = ${String(done)}`);
    const ops = adapter.dialect.prepare(desc).steps!;
    const conn = await adapter.pool.acquire();
    const write = (queue: string, rowId: unknown, step: string) =>
      ops.writeStep(conn, { table: steps, queue, rowId: String(rowId) }, step, '{"value":1}');
    await write(name, live, 'one');
    await write(name, done, 'one');
    await write(name, 987654321, 'one');
    await write(name, 987654321, 'two');
    await write('another_queue', 987654321, 'one');
    adapter.pool.release(conn);
    const left = async () =>
      (await h().target.exec(`SELECT queue_name, row_id, step_name FROM ${steps}`))
        .map((r) => `${String(r.queue_name)}/${String(r.row_id)}/${String(r.step_name)}`)
        .sort();
    expect(await left()).toHaveLength(5);
    b.subscribe(queue(desc), async () => undefined);
    await b.start();
    const kept = [`${name}/${String(live)}/one`, 'another_queue/987654321/one'].sort();
    await until(async () => (await left()).join() === kept.join(), 'the orphan records swept');
    // The sweep logs after its delete commits (and its connection is back): waited for, not read at once.
    await until(() => h().logger.has('info', 'orphan step records deleted'), 'the sweep logged its deletes');
  });

  test(`R-FLOW-7 a broker SIGKILLed between steps (after step 1's record committed): a second broker resumes after the last finished step; step 1's fn ran exactly once across both processes (${form})`, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    const steps = h().name('steps');
    const { desc, name } = await h().create(form, { steps });
    const pub = await h().broker();
    await pub.publish(desc, { crash: 'between steps' });
    const { child, claimed } = await h().crashChild(tableInput(form, name, { steps: { table: steps } }), {
      lease: '2s',
      mode: 'steps',
    });
    let childRuns = 0;
    child.on('message', (m: { type?: string }) => {
      if (m?.type === 'step') childRuns++;
    });
    const inHandler = (await claimed) as { attempt: number; one?: unknown };
    expect(await records(h(), steps)).toEqual([`one=${JSON.stringify({ value: { pid: child.pid } })}`]);
    child.kill('SIGKILL');
    await exited(child);

    const b = await h().broker({ lease: '30s' });
    const calls = { one: 0, two: 0 };
    const got: unknown[] = [];
    b.subscribe(queue(desc), async (_m, c) => {
      const one = await c.step('one', () => {
        calls.one++;
        return { pid: process.pid };
      });
      const two = await c.step('two', () => {
        calls.two++;
        return 2;
      });
      got.push({ one, two, attempt: c.attempt });
    });
    await b.start();
    await until(() => got.length === 1, 'the row delivered again and acked', 15_000);
    expect(inHandler.attempt).toBe(1);
    expect(childRuns).toBe(1);
    expect(calls).toEqual({ one: 0, two: 1 });
    expect(got[0]).toMatchObject({ one: { pid: child.pid }, two: 2 });
    await until(async () => (await h().rows(name)).length === 0, 'acked');
    await until(async () => (await records(h(), steps)).length === 0, 'the ack deleted the records');
  });

  only([caps.transactional, NEEDS.transactional])(
    `R-FLOW-7 R-TX-1 transactional mode: a step's write through ctx.tx and its record commit together; a throw after the step rolls both back, so the retry runs the step again, and the ack commits its write once (${form})`,
    async () => {
      const steps = h().name('steps');
      const { desc, name } = await h().create(form, { steps });
      const out = await h().create(form, {}, h().name('out'));
      const b = await h().broker();
      let runs = 0;
      let deliveries = 0;
      let keptAtRetry: string[] | undefined;
      const seen: unknown[] = [];
      b.subscribe(queue(desc).transactional().backoff('immediate'), async (_m, ctx) => {
        deliveries++;
        // Read through the delivery's own transaction (another connection would wait on SQLite).
        if (deliveries === 2) {
          const r = await ctx.tx.query(`SELECT step_name FROM ${steps}`);
          keptAtRetry = r.rows.map((x) => String((x as { step_name: unknown }).step_name));
        }
        const run = await ctx.step('write', async () => {
          runs++;
          await b.publish(out.desc, { run: runs }, { tx: ctx.tx });
          return runs;
        });
        if (deliveries === 1) throw new Error('fails after the step');
        const after = await ctx.step('after', () => run * 10);
        seen.push(after);
        return Outcome.ack();
      });
      await b.start();
      await b.publish(desc, { t: 1 });
      await until(() => seen.length === 1, 'the retry acked');
      await until(async () => (await h().rows(name)).length === 0, 'acked');
      expect(keptAtRetry).toEqual([]); // the throw rolled the record back with the write
      expect(runs).toBe(2);
      expect(seen).toEqual([20]);
      expect((await h().rows(out.name)).map((r) => payloadOf(r.payload))).toEqual([{ run: 2 }]);
      expect(await records(h(), steps)).toEqual([]); // deleted in the ack's transaction
    },
  );
}
