import { Admin, type EventMap, Flows, type Form, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, until } from '../harness.js';
import { flowHandler, flowTable, type Job, Ledger, processed } from './flow-graph.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 60_000;

/** Flow rows as the admin API reads them (R-FLOW-6). */
export function flowRowScenarios(h: () => Harness, form: Form): void {
  test(`R-FLOW-6 admin.flowParents() answers the parents a row runs before: a child with two parents names both with its name under each and the edge's state (pending, then done); a row in no flow, a root and a missing id answer none (${form})`, {
    timeout: 60_000,
  }, async () => {
    const { desc, name, flows } = await flowTable(h(), form);
    const admin = new Admin(await h().open({ poolSize: 2 }));
    const ids = await flows.publish(desc, {
      jobs: {
        charge: { message: { kind: 'child', n: 1 } },
        stock: { message: { kind: 'parent', n: 2 }, after: ['charge'] },
        mail: { message: { kind: 'parent', n: 3 }, after: ['charge'] },
        ship: { message: { kind: 'parent', n: 4 }, after: ['stock', 'mail'] },
      },
    });
    const b = await h().broker();
    const [plain] = await b.publishMany(desc, [{ kind: 'child', n: 5 }]);
    // In parent id order (numeric where the ids are numbers).
    const byId = (a: { id: string }, c: { id: string }) => a.id.localeCompare(c.id, 'en', { numeric: true });
    const two = (edge: string) =>
      [
        { id: String(ids.stock), name: 'charge', edge },
        { id: String(ids.mail), name: 'charge', edge },
      ].sort(byId);
    expect(await admin.flowParents(desc, ids.charge)).toEqual(two('pending'));
    expect(await admin.flowParents(desc, ids.stock)).toEqual([
      { id: String(ids.ship), name: 'stock', edge: 'pending' },
    ]);
    expect(await admin.flowParents(desc, ids.ship)).toEqual([]);
    expect(await admin.flowParents(desc, plain)).toEqual([]);
    expect(await admin.flowParents(desc, '987654321')).toEqual([]);

    b.subscribe(queue(desc).workers(2), flowHandler(flows, desc, new Ledger()));
    await b.start();
    await until(async () => (await processed(h(), name)).has(String(ids.ship)), 'the flow done', WAIT_MS);
    expect(await admin.flowParents(desc, ids.charge)).toEqual(two('done'));
    expect(await admin.flowParents(desc, ids.mail)).toEqual([
      { id: String(ids.ship), name: 'mail', edge: 'done' },
    ]);
    expect(await admin.flowParents(desc, plain)).toEqual([]);
  });

  test(`R-FLOW-6 R-LIFE-5 retention prunes the flow rows of jobs whose rows are gone, in bounded pages: a finished flow's edges and parent rows go; a flow still in work keeps its pending edges (a child waiting for its retry), its waiting parent's row and the edge of a child already pruned; a dead child's edge stays while its dead letter does (${form})`, {
    timeout: 120_000,
  }, async () => {
    const edges = h().name('flow');
    // Processed rows are pruned at the next turn (1 ms old); 2 rows a statement, 2 flow rows a page.
    const retention = { processed: 1, every: 200, batchSize: 2 } as const;
    const { desc, name, dlq } = await h().create(form, {
      retryAfter: true,
      processedAt: true,
      result: true,
      failureRecord: true,
      deadLetterTable: true,
      flows: edges,
      retention,
    });
    const adapter = await h().open({ poolSize: 2 });
    const flows = new Flows(adapter);
    const admin = new Admin(adapter);
    const { dying, working } = await publishPruneFlows(flows, desc);
    // The flow in work's child `held` waits an hour after its first delivery (a row in work would
    // do too, but in the row lock form MariaDB's claim locks rows it scanned, which the retention
    // then waits for), until the scenario makes it due again.
    const waiting = gate();
    let heldRuns = 0;
    const b = await h().broker();
    const pruned: EventMap['pruned'][] = [];
    b.on('pruned', (e) => pruned.push(e));
    b.subscribe(
      queue(desc).workers(3).maxAttempts(2).backoff('immediate').deadLetter({ table: dlq! }),
      async (m, ctx) => {
        const job = m as Job;
        if (job.fail) throw new Error(`child ${job.n} fails`);
        if (String(ctx.id) === String(working.held) && ++heldRuns === 1) {
          waiting.open();
          return Outcome.retryAfter(3_600_000);
        }
        return Outcome.ack({ n: job.n });
      },
    );
    await b.start();
    const edgeRows = async () =>
      (await h().rows(edges))
        .map((r) => `${String(r.child_id)}>${String(r.parent_id)}:${String(r.state)}`)
        .sort();
    const parentRows = async () => (await h().rows(`${edges}_parent`)).map((r) => String(r.parent_id)).sort();
    const edge = (child: unknown, parent: unknown, state: string) =>
      `${String(child)}>${String(parent)}:${state}`;
    const turns = async () =>
      Number(
        (
          await h().target.exec(
            `SELECT COUNT(*) AS n FROM sqlinbox_schedules WHERE name = 'retention:${name}'`,
          )
        )[0]?.n,
      );
    await waiting.promise;
    // The finished flows' rows are pruned (their queue rows first), the flow in work keeps its own.
    await until(
      async () => {
        const left = (await h().rows(name)).map((r) => String(r.id)).sort();
        return (
          left.join() === [String(working.held), String(working.waits)].sort().join() &&
          (await parentRows()).length === 1 &&
          (await edgeRows()).length === 3
        );
      },
      'the finished flows pruned',
      WAIT_MS,
    );
    // Two more turns change nothing: what is left is the flow in work and the dead child's edge.
    const before = await turns();
    await until(async () => (await turns()) >= before + 2, 'two more retention turns', WAIT_MS);
    expect(await edgeRows()).toEqual(
      [
        edge(dying.bad, dying.after, 'dead'),
        edge(working.quick, working.waits, 'done'),
        edge(working.held, working.waits, 'pending'),
      ].sort(),
    );
    expect(await parentRows()).toEqual([String(working.waits)]);
    // The flow in work: its child waiting for its retry and its parent waiting, both still there.
    expect((await h().rows(name)).map((r) => String(r.id)).sort()).toEqual(
      [String(working.held), String(working.waits)].sort(),
    );
    const sum = (what: 'count' | 'batches') =>
      pruned.filter((e) => e.table === name && e.kind === 'flows').reduce((a, e) => a + e[what], 0);
    // 4 + 1 edges and 3 + 1 parent rows of the finished flows, at most 2 a page: 5 pages at least.
    expect(sum('count')).toBe(9);
    expect(sum('batches')).toBeGreaterThanOrEqual(5);
    // The flow in work ends: its rows go too; the dead child's edge stays with its dead letter.
    await admin.reschedule(desc, { ids: [working.held] }, new Date());
    await until(
      async () => (await parentRows()).length === 0 && (await edgeRows()).length === 1,
      'the last flow pruned',
      WAIT_MS,
    );
    expect(await edgeRows()).toEqual([edge(dying.bad, dying.after, 'dead')]);
    expect((await h().rows(dlq!)).map((r) => String(r.id))).toEqual([String(dying.bad)]);
    expect(await processed(h(), name)).toEqual(new Set());
    expect(sum('count')).toBe(12);
  });
}

/**
 * The three flows the pruning scenarios publish: a finished order (charge, then stock and mail,
 * then ship), a flow whose child `bad` dies (`continue`), and a flow in work whose child `held`
 * the scenario keeps waiting. Answers the ids of the last two by job name.
 */
export async function publishPruneFlows(flows: Flows, desc: Parameters<Flows['publish']>[0]) {
  await flows.publish(desc, {
    jobs: {
      charge: { message: { kind: 'child', n: 1 } },
      stock: { message: { kind: 'child', n: 2 }, after: ['charge'] },
      mail: { message: { kind: 'child', n: 3 }, after: ['charge'] },
      ship: { message: { kind: 'child', n: 4 }, after: ['stock', 'mail'] },
    },
  });
  const dying = await flows.publish(desc, {
    onChildDead: 'continue',
    jobs: {
      ok: { message: { kind: 'child', n: 5 } },
      bad: { message: { kind: 'child', n: 6, fail: true } },
      after: { message: { kind: 'child', n: 7 }, after: ['ok', 'bad'] },
    },
  });
  const working = await flows.publish(desc, {
    jobs: {
      quick: { message: { kind: 'child', n: 8 } },
      held: { message: { kind: 'child', n: 9 } },
      waits: { message: { kind: 'child', n: 10 }, after: ['quick', 'held'] },
    },
  });
  return { dying, working };
}
