import { Admin, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, skipWithoutChild, spawnBroker, tableInput, until } from '../harness.js';
import { flowHandler, flowTable, type Job, Ledger, processed } from './flow-graph.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 120_000;

/**
 * Flows across a crash: children settled by a process that dies before any sweep of their edges
 * ran (the worst moment: the settlement committed, the edge not yet), and children in work when it
 * died. Nothing in the dead process's memory is needed: a broker elsewhere finishes the edges.
 */
export function flowCrashScenarios(h: () => Harness, form: Form): void {
  test(`R-FLOW-6 children settled by a process SIGKILLed before it swept their edges, others in work when it died: a broker in another process finishes their edges and runs each parent once, after all its children settled (${form})`, {
    timeout: 240_000,
  }, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    const { desc, name, flows, edges } = await flowTable(h(), form);
    const ledgerName = h().name('ledger');
    await h().create(form, { columns: ['row_id'] }, ledgerName);
    const flowsCount = 4;
    const perFlow = 50;
    const parents: unknown[] = [];
    const childrenOf = new Map<string, string[]>();
    for (let f = 0; f < flowsCount; f++) {
      const jobs: Record<string, { message: Job; after?: string[] }> = {};
      for (let n = 0; n < perFlow; n++) jobs[`c${n}`] = { message: { kind: 'child', n } };
      jobs.parent = { message: { kind: 'parent', n: f }, after: Object.keys(jobs) };
      const ids = await flows.publish(desc, { jobs });
      parents.push(ids.parent);
      childrenOf.set(
        String(ids.parent),
        Object.entries(ids)
          .filter(([k]) => k !== 'parent')
          .map(([, v]) => String(v)),
      );
    }
    // The process that dies settles children and never sweeps an edge: its description names no
    // flow tables (it still honours retry_after, so it never takes a held parent).
    const worker = spawnBroker(h(), {
      mode: 'ledger',
      table: tableInput(form, name, { retryAfter: 'retry_after', processedAt: 'processed_at' }),
      ledger: {
        table: ledgerName,
        id: { column: 'id', generated: true },
        payload: 'payload',
        columns: ['row_id'],
      },
      workers: 4,
      poolSize: 6,
      lease: '2s',
    });
    await worker.ready;
    const count = async (t: string) =>
      Number((await h().target.exec(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n);
    await until(
      async () => (await count(ledgerName)) >= 60,
      'sixty children settled by the doomed process',
      WAIT_MS,
    );
    worker.child.kill('SIGKILL');
    await exited(worker.child);
    const settledByDead = await processed(h(), name);
    expect(settledByDead.size).toBeGreaterThan(0);
    // Every edge still pending: the settlements committed, no sweep followed.
    expect((await h().rows(edges)).every((r) => r.state === 'pending')).toBe(true);

    const ledger = new Ledger();
    const early: string[] = [];
    const b = await h().broker({ lease: '30s' });
    const handle = flowHandler(flows, desc, ledger);
    b.subscribe(queue(desc).workers(4), async (m, c) => {
      if ((m as Job).kind === 'parent') {
        const done = await processed(h(), name);
        if (!(childrenOf.get(String(c.id)) ?? []).every((id) => done.has(id))) early.push(String(c.id));
      }
      return handle(m, c);
    });
    await b.start();
    await until(
      async () => {
        const done = await processed(h(), name);
        return parents.every((p) => done.has(String(p)));
      },
      'every parent processed',
      WAIT_MS,
    );
    expect(early).toEqual([]);
    for (const p of parents) {
      expect(ledger.runs(p)).toBe(1);
      expect(ledger.read.get(String(p))?.filter((k) => k.state === 'done')).toHaveLength(perFlow);
    }
    expect((await h().rows(edges)).every((r) => r.state === 'done')).toBe(true);
  });

  test(`R-FLOW-6 the reconcile reads every pending edge in turn: an edge whose child settled unswept behind 600 edges of children not yet due still wakes its parent (${form})`, {
    timeout: 120_000,
  }, async () => {
    const { desc, name, flows, edges } = await flowTable(h(), form);
    const admin = new Admin(await h().open());
    const wide: Record<string, { message: Job; after?: string[] }> = {};
    for (let n = 0; n < 600; n++) wide[`c${n}`] = { message: { kind: 'child', n } };
    wide.parent = { message: { kind: 'parent', n: 0 }, after: Object.keys(wide) };
    const a = await flows.publish(desc, { jobs: wide });
    const waiting = Object.entries(a)
      .filter(([k]) => k !== 'parent')
      .map(([, v]) => v);
    // Its children not due for a day: their edges stay pending, ahead in key order.
    await admin.reschedule(desc, { ids: waiting }, new Date(Date.now() + 86_400_000));
    const b = await flows.publish(desc, {
      jobs: {
        only: { message: { kind: 'child', n: 1 } },
        parent: { message: { kind: 'parent', n: 1 }, after: ['only'] },
      },
    });
    // Precondition: the lone child's edge is beyond a reconcile's first page (500) in key order.
    const order = (await h().rows(edges))
      .filter((r) => r.state === 'pending')
      .map((r) => String(r.child_id))
      .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    expect(order.indexOf(String(b.only))).toBeGreaterThanOrEqual(500);
    // Settled by a broker that knows nothing of flows: its edge is left pending.
    const plain = h().describe(form, name, {
      retryAfter: true,
      processedAt: true,
      result: true,
      failureRecord: true,
    });
    const blind = await h().broker();
    blind.subscribe(queue(plain), async () => {});
    await blind.start();
    await until(
      async () => (await processed(h(), name)).has(String(b.only)),
      'the lone child settled, unswept',
    );
    await blind.shutdown();
    expect((await h().rows(edges)).find((r) => String(r.child_id) === String(b.only))?.state).toBe('pending');
    const ledger = new Ledger();
    const c = await h().broker();
    c.subscribe(queue(desc), flowHandler(flows, desc, ledger));
    await c.start();
    await until(
      async () => (await processed(h(), name)).has(String(b.parent)),
      'the parent behind the page ran',
      60_000,
    );
    expect(ledger.runs(b.parent)).toBe(1);
    expect(ledger.runs(a.parent)).toBe(0);
  });
}
