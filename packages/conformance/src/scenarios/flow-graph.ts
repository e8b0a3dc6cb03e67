import {
  type AnyTable,
  type Broker,
  type ChildDeadPolicy,
  type Context,
  type FlowChild,
  type FlowNode,
  Flows,
  type Form,
  Outcome,
  queue,
} from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, until } from '../harness.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 60_000;

export type Job = { kind: 'child' | 'parent'; n: number; fail?: boolean };

/** A flow table of `form`: `retry_after`, `processed_at`, results, the failure record, a dead-letter table. */
export async function flowTable(h: Harness, form: Form, control = false, group = false) {
  const flows = h.name('flow');
  const made = await h.create(form, {
    retryAfter: true,
    processedAt: true,
    result: true,
    failureRecord: true,
    deadLetterTable: true,
    flows,
    group,
    ...(control ? { control: h.name('ctl') } : {}),
  });
  const adapter = await h.open({ poolSize: 3 });
  return { ...made, flows: new Flows(adapter), edges: flows };
}

/** What a handler saw: each start, with the instant, and what each parent read of its children. */
export class Ledger {
  readonly starts: { id: string; at: number }[] = [];
  readonly read = new Map<string, FlowChild[]>();
  runs(id: unknown): number {
    return this.starts.filter((s) => s.id === String(id)).length;
  }
}

/** A handler for flow rows: a child acks `{ n }` (or throws where `fail`), a parent reads its children. */
export function flowHandler(flows: Flows, desc: AnyTable, ledger: Ledger, dlq?: string) {
  return async (m: unknown, ctx: Context) => {
    const job = m as Job;
    ledger.starts.push({ id: String(ctx.id), at: Date.now() });
    if (job.kind === 'parent') {
      const kids = await flows.children(
        desc,
        ctx.id,
        dlq === undefined ? {} : { deadLetter: { table: dlq } },
      );
      ledger.read.set(String(ctx.id), kids);
      return Outcome.ack({
        parent: job.n,
        sum: kids.reduce((a, k) => a + ((k.result as { n?: number })?.n ?? 0), 0),
      });
    }
    if (job.fail) throw new Error(`child ${job.n} fails`);
    return Outcome.ack({ n: job.n });
  };
}

/** Processed rows of the table by id as text. */
export async function processed(h: Harness, name: string): Promise<Set<string>> {
  return new Set((await h.rows(name)).filter((r) => r.processed_at != null).map((r) => String(r.id)));
}

/** Flows (R-FLOW-6): a parent runs once, after all its children settled, and reads their results. */
export function flowGraphScenarios(h: () => Harness, form: Form): void {
  test(`R-FLOW-6 fan-out/fan-in: a parent with 200 children handled on 3 brokers runs once, after every child settled, and reads every child's result (${form})`, {
    timeout: 180_000,
  }, async () => {
    const { desc, name, flows } = await flowTable(h(), form);
    const ledger = new Ledger();
    const children = 200;
    const jobs: Record<string, { message: Job; after?: string[] }> = {};
    for (let n = 0; n < children; n++) jobs[`c${n}`] = { message: { kind: 'child', n } };
    jobs.parent = { message: { kind: 'parent', n: -1 }, after: Object.keys(jobs) };
    const ids = await flows.publish(desc, { jobs });
    // Before any broker runs: the parent waits, held in the database.
    expect((await flows.tree(desc, ids.parent)).state).toBe('waiting');
    let seenAtParent: Set<string> | undefined;
    const brokers: Broker[] = [];
    for (let i = 0; i < 3; i++) {
      const b = await h().broker({ poolSize: 4 });
      const handle = flowHandler(flows, desc, ledger);
      b.subscribe(queue(desc).workers(3), async (m, ctx) => {
        // At the parent's start every child's settlement has committed.
        if ((m as Job).kind === 'parent') seenAtParent = await processed(h(), name);
        return handle(m, ctx);
      });
      brokers.push(b);
    }
    for (const b of brokers) await b.start();
    await until(
      async () => (await processed(h(), name)).has(String(ids.parent)),
      'the parent processed',
      WAIT_MS,
    );
    expect(ledger.runs(ids.parent)).toBe(1);
    for (let n = 0; n < children; n++) expect(seenAtParent?.has(String(ids[`c${n}`]))).toBe(true);
    const read = ledger.read.get(String(ids.parent))!;
    expect(read).toHaveLength(children);
    expect(read.every((k) => k.state === 'done')).toBe(true);
    expect(new Set(read.map((k) => (k.result as { n: number }).n))).toEqual(
      new Set(Array.from({ length: children }, (_, n) => n)),
    );
    expect(await brokers[0]!.result(desc, ids.parent, { timeout: 1_000 })).toEqual({
      parent: -1,
      sum: (children * (children - 1)) / 2,
    });
    const tree = await flows.tree(desc, ids.parent);
    expect(tree.state).toBe('done');
    expect(tree.pending).toBe(0);
    expect(tree.children).toHaveLength(children);
  });

  test(`R-FLOW-6 a chain A -> B -> C runs in order, each after the one before settled, each reading its result; a child with two parents (charge -> stock, mail -> ship) wakes both (${form})`, {
    timeout: 120_000,
  }, async () => {
    const { desc, name, flows } = await flowTable(h(), form);
    const ledger = new Ledger();
    const chain = await flows.publish(desc, {
      jobs: {
        a: { message: { kind: 'child', n: 1 } },
        b: { message: { kind: 'parent', n: 2 }, after: ['a'] },
        c: { message: { kind: 'parent', n: 3 }, after: ['b'] },
      },
    });
    const order = await flows.publish(desc, {
      jobs: {
        charge: { message: { kind: 'child', n: 10 } },
        stock: { message: { kind: 'parent', n: 11 }, after: ['charge'] },
        mail: { message: { kind: 'parent', n: 12 }, after: ['charge'] },
        ship: { message: { kind: 'parent', n: 13 }, after: ['stock', 'mail'] },
      },
    });
    const b1 = await h().broker();
    const b2 = await h().broker();
    for (const b of [b1, b2]) b.subscribe(queue(desc).workers(2), flowHandler(flows, desc, ledger));
    await b1.start();
    await b2.start();
    await until(
      async () => {
        const done = await processed(h(), name);
        return done.has(String(chain.c)) && done.has(String(order.ship));
      },
      'the chain and the order done',
      WAIT_MS,
    );
    const at = (id: unknown) => ledger.starts.find((s) => s.id === String(id))!.at;
    expect(at(chain.a)).toBeLessThanOrEqual(at(chain.b));
    expect(at(chain.b)).toBeLessThanOrEqual(at(chain.c));
    for (const id of [...Object.values(chain), ...Object.values(order)]) expect(ledger.runs(id)).toBe(1);
    expect(ledger.read.get(String(chain.b))).toMatchObject([{ name: 'a', state: 'done', result: { n: 1 } }]);
    expect(ledger.read.get(String(chain.c))).toMatchObject([
      { name: 'b', state: 'done', result: { parent: 2, sum: 1 } },
    ]);
    // charge has two parents: each read it.
    expect(ledger.read.get(String(order.stock))).toMatchObject([{ name: 'charge', result: { n: 10 } }]);
    expect(ledger.read.get(String(order.mail))).toMatchObject([{ name: 'charge', result: { n: 10 } }]);
    expect(ledger.read.get(String(order.ship))?.map((k) => k.name)).toEqual(['mail', 'stock']);
    expect(at(order.ship)).toBeGreaterThanOrEqual(Math.max(at(order.stock), at(order.mail)));
    const tree = await flows.tree(desc, order.ship);
    expect(tree.children.map((c) => c.children[0]?.name)).toEqual(['charge', 'charge']);
  });

  test(`R-FLOW-6 a dying child follows its flow's policy: 'dead' dead-letters the parent unrun, 'fail' wakes it and its read of the children fails, 'continue' runs it after all settled with the dead child's outcome (${form})`, {
    timeout: 120_000,
  }, async () => {
    const { desc, name, dlq, flows } = await flowTable(h(), form);
    const ledger = new Ledger();
    const publish = (policy: ChildDeadPolicy, base: number) =>
      flows.publish(desc, {
        onChildDead: policy,
        jobs: {
          ok: { message: { kind: 'child', n: base } },
          bad: { message: { kind: 'child', n: base + 1, fail: true } },
          parent: { message: { kind: 'parent', n: base + 2 }, after: ['ok', 'bad'] },
        },
      });
    const dead = await publish('dead', 100);
    const fail = await publish('fail', 200);
    const cont = await publish('continue', 300);
    const b = await h().broker();
    b.subscribe(
      queue(desc).workers(3).maxAttempts(1).deadLetter({ table: dlq! }),
      flowHandler(flows, desc, ledger, dlq),
    );
    await b.start();
    const deadIds = async () => new Set((await h().rows(dlq!)).map((r) => String(r.id)));
    await until(
      async () => {
        const gone = await deadIds();
        return (
          gone.has(String(dead.parent)) &&
          gone.has(String(fail.parent)) &&
          (await processed(h(), name)).has(String(cont.parent))
        );
      },
      "each policy's parent settled",
      WAIT_MS,
    );
    // 'dead': never ran; its failure record names the child.
    expect(ledger.runs(dead.parent)).toBe(0);
    const deadRow = (await h().rows(dlq!)).find((r) => String(r.id) === String(dead.parent))!;
    expect(deadRow.error_class).toBe('flow_child_dead');
    expect(String(deadRow.last_error)).toContain('bad');
    // 'fail': ran once, its read threw FlowChildDeadError, so it died.
    expect(ledger.runs(fail.parent)).toBe(1);
    const failRow = (await h().rows(dlq!)).find((r) => String(r.id) === String(fail.parent))!;
    expect(failRow.error_class).toBe('FlowChildDeadError');
    // 'continue': ran once after both settled, seeing the dead child's outcome.
    expect(ledger.runs(cont.parent)).toBe(1);
    const read = ledger.read.get(String(cont.parent))!;
    expect(read.map((k) => [k.name, k.state])).toEqual([
      ['bad', 'dead'],
      ['ok', 'done'],
    ]);
    expect(read[0]!.error).toContain('child 301 fails');
    expect(read[1]!.result).toEqual({ n: 300 });
  });

  test(`R-FLOW-6 children finishing on different brokers at the same moment wake their parent exactly once: 10 flows of 2 children, each child held until its sibling runs on the other broker (${form})`, {
    timeout: 120_000,
  }, async () => {
    // The x children in FIFO group x, the y children in group y: one broker runs an x while the
    // other runs its sibling y.
    const { desc, name, flows, edges } = await flowTable(h(), form, false, true);
    const ledger = new Ledger();
    const parents: unknown[] = [];
    const pairs = new Map<string, string>();
    for (let f = 0; f < 10; f++) {
      const ids = await flows.publish(desc, {
        jobs: {
          x: { message: { kind: 'child', n: f * 2 }, options: { group: 'x' } },
          y: { message: { kind: 'child', n: f * 2 + 1 }, options: { group: 'y' } },
          parent: { message: { kind: 'parent', n: 1000 + f }, after: ['x', 'y'] },
        },
      });
      parents.push(ids.parent);
      pairs.set(String(ids.x), String(ids.y));
      pairs.set(String(ids.y), String(ids.x));
    }
    const running = new Map<string, string>();
    const both = new Set<string>();
    const brokers: Broker[] = [];
    for (const label of ['one', 'two']) {
      const b = await h().broker({ poolSize: 4 });
      const handle = flowHandler(flows, desc, ledger);
      b.subscribe(queue(desc).workers(1).claimBatch(1), async (m, ctx) => {
        const id = String(ctx.id);
        const sibling = pairs.get(id);
        if (sibling !== undefined) {
          running.set(id, label);
          // Held (a second at most: the other broker may be busy with another pair) until the
          // sibling runs, so the two settle together, most often on the two brokers.
          for (let i = 0; i < 100 && !running.has(sibling); i++) await new Promise((r) => setTimeout(r, 10));
          if (running.has(sibling) && running.get(sibling) !== label) both.add(id);
        }
        return handle(m, ctx);
      });
      brokers.push(b);
    }
    await Promise.all(brokers.map((b) => b.start()));
    await until(
      async () => {
        const done = await processed(h(), name);
        return parents.every((p) => done.has(String(p)));
      },
      'every parent processed',
      WAIT_MS,
    );
    for (const p of parents) expect(ledger.runs(p)).toBe(1);
    // Pairs ran on the two brokers at once (where the database runs handlers side by side).
    if (h().caps.multipleConnections) expect(both.size).toBeGreaterThan(0);
    const rows = await h().rows(`${edges}_parent`);
    expect(rows).toHaveLength(10);
    for (const r of rows) {
      expect(Number(r.pending)).toBe(0);
      expect(Number(r.woken)).toBe(1);
    }
    expect((await h().rows(edges)).every((r) => r.state === 'done')).toBe(true);
  });

  test(`R-FLOW-6 admin shows a flow as a tree with each node's state; cancelling the flow cancels every node not started (${form})`, {
    timeout: 60_000,
  }, async (ctx) => {
    const t = await flowTable(h(), form, true);
    const adapter = await h().open({ poolSize: 2 });
    if (adapter.dialect.prepare(t.desc).control === undefined)
      return ctx.skip('the dialect has no control table');
    const ids = await t.flows.publish(t.desc, {
      jobs: {
        a: { message: { kind: 'child', n: 1 } },
        b: { message: { kind: 'child', n: 2 } },
        mid: { message: { kind: 'parent', n: 3 }, after: ['a', 'b'] },
        root: { message: { kind: 'parent', n: 4 }, after: ['mid'] },
      },
    });
    const tree = await t.flows.tree(t.desc, ids.root);
    expect(tree).toMatchObject({
      id: String(ids.root),
      state: 'waiting',
      pending: 1,
      children: [
        {
          name: 'mid',
          state: 'waiting',
          edge: 'pending',
          pending: 2,
          children: [
            { name: 'a', state: 'ready', edge: 'pending', children: [] },
            { name: 'b', state: 'ready', edge: 'pending', children: [] },
          ],
        },
      ],
    });
    const report = await t.flows.cancel(t.desc, ids.root, { deadLetter: { table: t.dlq! } });
    expect(report.changed.map(String).sort()).toEqual(Object.values(ids).map(String).sort());
    expect((await h().rows(t.name)).length).toBe(0);
    const after = await t.flows.tree(t.desc, ids.root, { deadLetter: { table: t.dlq! } });
    expect(after.state).toBe('dead');
    expect(after.children[0]!.children.map((c) => c.state)).toEqual(['dead', 'dead']);
  });

  test(`R-FLOW-6 tree() shows a child shared by several parents under each of them, at any depth, with each edge's own state and the shared child's own children; children in name order (${form})`, {
    timeout: 60_000,
  }, async () => {
    const { desc, name, flows } = await flowTable(h(), form);
    const ids = await flows.publish(desc, {
      jobs: {
        leaf: { message: { kind: 'child', n: 1 } },
        other: { message: { kind: 'child', n: 2 } },
        shared: { message: { kind: 'parent', n: 3 }, after: ['leaf'] },
        p1: { message: { kind: 'parent', n: 4 }, after: ['shared'] },
        p2: { message: { kind: 'parent', n: 5 }, after: ['shared', 'other'] },
        root: { message: { kind: 'parent', n: 6 }, after: ['shared', 'p2', 'p1'] },
      },
    });
    const sharedNodes = (n: FlowNode): FlowNode[] => [
      ...(n.id === String(ids.shared) ? [n] : []),
      ...n.children.flatMap(sharedNodes),
    ];
    const before = await flows.tree(desc, ids.root);
    expect(before.children.map((c) => c.name)).toEqual(['p1', 'p2', 'shared']);
    expect(before.children[1]!.children.map((c) => c.name)).toEqual(['other', 'shared']);
    // Under root directly, under p1 and under p2: three times, each with its edge and its leaf.
    const waiting = sharedNodes(before);
    expect(waiting).toHaveLength(3);
    for (const n of waiting)
      expect(n).toMatchObject({
        name: 'shared',
        state: 'waiting',
        edge: 'pending',
        pending: 1,
        children: [{ id: String(ids.leaf), name: 'leaf', state: 'ready', edge: 'pending', children: [] }],
      });
    const ledger = new Ledger();
    const b = await h().broker();
    b.subscribe(queue(desc).workers(2), flowHandler(flows, desc, ledger));
    await b.start();
    await until(
      async () => (await processed(h(), name)).has(String(ids.root)),
      'the root processed',
      WAIT_MS,
    );
    const after = await flows.tree(desc, ids.root);
    const done = sharedNodes(after);
    expect(done).toHaveLength(3);
    for (const n of done)
      expect(n).toMatchObject({
        state: 'done',
        edge: 'done',
        pending: 0,
        children: [{ name: 'leaf', state: 'done', edge: 'done' }],
      });
    // The shared child ran once, and each of its three parents read its result.
    expect(ledger.runs(ids.shared)).toBe(1);
    for (const p of [ids.p1, ids.p2, ids.root])
      expect(ledger.read.get(String(p))?.find((k) => k.name === 'shared')?.result).toEqual({
        parent: 3,
        sum: 1,
      });
  });

  test(`R-FLOW-6 R-USER-4 a missing flow table stops the start with a ConfigError naming it; a flow naming an unknown job or forming a cycle is refused before anything is written (${form})`, async () => {
    const { desc, name, flows, edges } = await flowTable(h(), form);
    await expect(
      flows.publish(desc, {
        jobs: {
          a: { message: { kind: 'child', n: 1 } },
          b: { message: { kind: 'parent', n: 2 }, after: ['nope'] },
        },
      }),
    ).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining('nope') });
    await expect(
      flows.publish(desc, {
        jobs: {
          a: { message: { kind: 'parent', n: 1 }, after: ['b'] },
          b: { message: { kind: 'parent', n: 2 }, after: ['a'] },
        },
      }),
    ).rejects.toMatchObject({ code: 'CONFIG', message: expect.stringContaining('cycle') });
    expect(await h().rows(name)).toHaveLength(0);
    await h().target.exec(`DROP TABLE ${edges}_parent`);
    const b = await h().broker();
    b.subscribe(queue(desc), async () => undefined);
    await expect(b.start()).rejects.toMatchObject({
      code: 'CONFIG',
      table: name,
      message: expect.stringContaining(`${edges}_parent does not exist`),
    });
  });
}
