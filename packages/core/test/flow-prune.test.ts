import { describe, expect, test } from 'vitest';
import { FLOW_PAGES_PER_TURN, FlowPruner } from '../src/flows/prune.js';
import {
  type Connection,
  type FlowEdge,
  type FlowOps,
  type FlowParent,
  inbox,
  type Pool,
  type Row,
  type StepRows,
  type StepsOps,
  silentLogger,
  type TableOps,
} from '../src/index.js';
import { STEPS_SWEEP_ROWS, StepsSweeper } from '../src/subscription/steps-sweep.js';

const conn = {} as Connection;
const pool = {
  acquire: async () => conn,
  release: () => undefined,
  destroy: async () => undefined,
} as unknown as Pool;

/** Rows of the queue table by id, each with its admin state (`ready`, `done`, ..); an id absent is gone. */
function adminOf(rows: Map<string, string>): TableOps['admin'] {
  return {
    list: async (_c: Connection, q: { state: string; ids?: readonly unknown[] }): Promise<Row[]> =>
      q.state === 'all'
        ? (q.ids ?? [])
            .map(String)
            .filter((id) => rows.has(id))
            .map((id) => ({ id, sqlinbox_state: rows.get(id) }))
        : [],
  } as unknown as TableOps['admin'];
}

describe('flow rows pruning and the orphan step sweep, bounded (units)', () => {
  test(`R-FLOW-6 a retention turn reads at most ${FLOW_PAGES_PER_TURN} pages, goes on from the last page's last edge at the next turn, and deletes only settled edges whose two rows are gone and parents done waiting whose row is gone`, async () => {
    const t = inbox({ table: 'jobs', id: 'id', payload: 'payload', retryAfter: 'retry_after', flows: true });
    const key = (e: { child: string; parent: string }) => `${e.child}>${e.parent}`;
    let edges: FlowEdge[] = [];
    for (let i = 0; i < 50; i++)
      edges.push({
        child: `c${String(i).padStart(2, '0')}`,
        parent: `p${i % 5}`,
        name: 'x',
        state: 'done',
        error: null,
      });
    edges.push({ child: 'c99', parent: 'p0', name: 'x', state: 'pending', error: null });
    let parents: FlowParent[] = [0, 1, 2, 3, 4].map((i) => ({
      parent: `p${i}`,
      pending: i === 4 ? 1 : 0,
      dead: 0,
      policy: 'dead',
      woken: true,
    }));
    // p1 still there (a parent running), c07 still there (its row processed, not yet pruned).
    const rows = new Map([
      ['p1', 'inWork'],
      ['c07', 'done'],
    ]);
    const reads: string[] = [];
    const flows: Partial<FlowOps> = {
      settledEdges: async (_c, _f, limit, after) => {
        reads.push(after === undefined ? 'edges' : `edges after ${key(after)}`);
        return edges
          .filter((e) => e.state !== 'pending')
          .sort((a, b) => (key(a) < key(b) ? -1 : 1))
          .filter(
            (e) =>
              after === undefined ||
              e.child > after.child ||
              (e.child === after.child && e.parent > after.parent),
          )
          .slice(0, limit);
      },
      deleteEdges: async (_c, _f, gone) => {
        const drop = new Set(gone.map(key));
        const before = edges.length;
        edges = edges.filter((e) => !(drop.has(key(e)) && e.state !== 'pending'));
        return before - edges.length;
      },
      settledParents: async (_c, _f, limit, after) => {
        reads.push(after === undefined ? 'parents' : `parents after ${after}`);
        return parents
          .filter((p) => p.woken && p.pending <= 0 && (after === undefined || p.parent > after))
          .slice(0, limit);
      },
      deleteParents: async (_c, _f, ids) => {
        const before = parents.length;
        parents = parents.filter((p) => !(ids.includes(p.parent) && p.woken && p.pending <= 0));
        return before - parents.length;
      },
    };
    const pruner = FlowPruner.of(t, { flows, admin: adminOf(rows) } as unknown as TableOps)!;
    const first = await pruner.turn(conn, 2, () => true);
    // 20 pages of 2 edges: 40 edges read, those of p1 (8) and c07's kept.
    expect(first.batches).toBe(FLOW_PAGES_PER_TURN);
    expect(reads).toHaveLength(FLOW_PAGES_PER_TURN);
    expect(reads.slice(0, 2)).toEqual(['edges', 'edges after c01>p1']);
    expect(first.count).toBe(40 - 8 - 1);
    reads.length = 0;
    const second = await pruner.turn(conn, 2, () => true);
    // On from c39: the last 10 edges (5 pages, the last one short), then the parents.
    expect(reads[0]).toBe('edges after c39>p4');
    expect(reads.filter((r) => r.startsWith('edges'))).toHaveLength(6);
    expect(reads.filter((r) => r.startsWith('parents'))).toEqual([
      'parents',
      'parents after p1',
      'parents after p3',
    ]);
    expect(second.count).toBe(10 - 2 + 3);
    // Left: the pending edge, the edges into p1 (its row is there), c07's; p1's row and p4's (a child pending).
    expect(edges.filter((e) => e.state === 'pending').map(key)).toEqual(['c99>p0']);
    expect(
      new Set(edges.filter((e) => e.state === 'done').map((e) => e.parent === 'p1' || e.child === 'c07')),
    ).toEqual(new Set([true]));
    expect(parents.map((p) => p.parent)).toEqual(['p1', 'p4']);
    // A turn that is over reads nothing.
    reads.length = 0;
    expect(await pruner.turn(conn, 2, () => false)).toEqual({ count: 0, batches: 0 });
    expect(reads).toEqual([]);
  });

  test("R-FLOW-6 flows.prune reads both tables through once, whatever their size, by the turn's rule, and answers the edges and the parent rows it deleted", async () => {
    const t = inbox({ table: 'jobs', id: 'id', payload: 'payload', retryAfter: 'retry_after', flows: true });
    const key = (e: { child: string; parent: string }) => `${e.child}>${e.parent}`;
    let edges: FlowEdge[] = Array.from({ length: 50 }, (_, i) => ({
      child: `c${String(i).padStart(2, '0')}`,
      parent: `p${i % 5}`,
      name: 'x',
      state: 'done' as const,
      error: null,
    }));
    edges.push({ child: 'c99', parent: 'p0', name: 'x', state: 'pending', error: null });
    let parents: FlowParent[] = [0, 1, 2, 3, 4].map((i) => ({
      parent: `p${i}`,
      pending: i === 4 ? 1 : 0,
      dead: 0,
      policy: 'dead',
      woken: true,
    }));
    const rows = new Map([
      ['p1', 'inWork'],
      ['c07', 'done'],
    ]);
    let reads = 0;
    const flows: Partial<FlowOps> = {
      settledEdges: async (_c, _f, limit, after) => {
        reads++;
        return edges
          .filter((e) => e.state !== 'pending')
          .sort((a, b) => (key(a) < key(b) ? -1 : 1))
          .filter((e) => after === undefined || key(e) > key(after))
          .slice(0, limit);
      },
      deleteEdges: async (_c, _f, gone) => {
        const drop = new Set(gone.map(key));
        const before = edges.length;
        edges = edges.filter((e) => !(drop.has(key(e)) && e.state !== 'pending'));
        return before - edges.length;
      },
      settledParents: async (_c, _f, limit, after) => {
        reads++;
        return parents
          .filter((p) => p.woken && p.pending <= 0 && (after === undefined || p.parent > after))
          .slice(0, limit);
      },
      deleteParents: async (_c, _f, ids) => {
        const before = parents.length;
        parents = parents.filter((p) => !(ids.includes(p.parent) && p.woken && p.pending <= 0));
        return before - parents.length;
      },
    };
    const pruner = FlowPruner.of(t, { flows, admin: adminOf(rows) } as unknown as TableOps)!;
    // 50 settled edges in pages of 2 (26 reads, the last one empty), then 4 parents done waiting (3).
    const report = await pruner.through(conn, 2);
    expect(report).toEqual({ edges: 50 - 10 - 1, parents: 3, pages: 29 });
    expect(reads).toBe(29);
    // Left: the pending edge, the edges into p1 (its row is there), and c07's (its row is there).
    expect(edges.map(key).sort()).toEqual(
      [
        'c99>p0',
        'c07>p2',
        ...Array.from({ length: 10 }, (_, i) => `c${String(i * 5 + 1).padStart(2, '0')}>p1`),
      ].sort(),
    );
    expect(parents.map((p) => p.parent)).toEqual(['p1', 'p4']);
    // Again: nothing left to delete.
    expect(await pruner.through(conn, 2)).toMatchObject({ edges: 0, parents: 0 });
  });

  test(`R-FLOW-7 an orphan sweep reads at most ${STEPS_SWEEP_ROWS} rows with records, goes on after the last at the next sweep, and deletes the records of rows not live up to the latest finished_at it read`, async () => {
    const t = inbox({ table: 'jobs', id: 'id', payload: 'payload', steps: true });
    const ids = Array.from({ length: STEPS_SWEEP_ROWS + 10 }, (_, i) => `r${String(i).padStart(4, '0')}`);
    // Every third row is live (ready, delayed or in work); the others are gone, processed or dead.
    const states = ['ready', undefined, 'done', 'delayed', 'dead', undefined, 'inWork'];
    const rows = new Map<string, string>();
    ids.forEach((id, i) => {
      const s = states[i % states.length];
      if (s !== undefined) rows.set(id, s);
    });
    const calls: { after?: string; deleted: StepRows[] }[] = [];
    const steps: Partial<StepsOps> = {
      stepRows: async (_c, _t, queue, limit, after) => {
        expect(queue).toBe('jobs');
        calls.push({ ...(after === undefined ? {} : { after }), deleted: [] });
        return ids
          .filter((id) => after === undefined || id > after)
          .slice(0, limit)
          .map((rowId) => ({ rowId, lastMs: '5' }));
      },
      deleteStepsUpTo: async (_c, _t, _q, gone) => {
        calls[calls.length - 1]!.deleted.push(...gone);
        return gone.length;
      },
    };
    const sweeper = StepsSweeper.of(
      t,
      { steps, admin: adminOf(rows) } as unknown as TableOps,
      pool,
      silentLogger,
    )!;
    const live = (id: string) => ['ready', 'delayed', 'inWork'].includes(rows.get(id) ?? '');
    const first = await sweeper.sweep();
    const second = await sweeper.sweep();
    const third = await sweeper.sweep();
    expect(calls.map((c) => c.after)).toEqual([undefined, ids[STEPS_SWEEP_ROWS - 1], undefined]);
    expect(first).toBe(ids.slice(0, STEPS_SWEEP_ROWS).filter((id) => !live(id)).length);
    expect(second).toBe(ids.slice(STEPS_SWEEP_ROWS).filter((id) => !live(id)).length);
    expect(third).toBe(first);
    for (const c of calls) for (const d of c.deleted) expect(live(d.rowId)).toBe(false);
    expect(calls[0]!.deleted[0]).toEqual({ rowId: 'r0001', lastMs: '5' });
  });
});
