import type { AnyTable } from '../description.js';
import type { DeadLetterTarget, Dialect, TableOps } from '../dialect.js';
import type { Pool } from '../driver.js';
import type { Events } from '../events.js';
import type { FlowEdge, FlowOps, FlowTable } from '../flow-table.js';
import type { Logger } from '../logger.js';
import { MAX_ERROR_LENGTH } from '../outcome.js';
import { flowParts, type NodeState, nodeStates } from './states.js';

/** How often a broker's sweep looks at every pending edge of a table it subscribes to, in ms. */
export const FLOW_RECONCILE_MS = 1_000;

/** Pending edges one sweep reads at most. */
const SWEEP_LIMIT = 500;

/** Kicked children one sweep takes at most (the rest wait in the set for the next). */
const KICK_CHUNK = 200;

/** What a sweeper needs of its subscription and broker. */
export interface SweepDeps {
  readonly dialect: Dialect;
  readonly pool: Pool;
  readonly logger: Logger;
  readonly events: Events;
  /** The subscription's dead letter: where a dead child is found, and where a `'dead'` policy sends its parent. */
  readonly deadLetter: DeadLetterTarget | undefined;
  /** Wakes this process's subscription of the table (a parent just became due). */
  readonly wake: () => void;
}

/**
 * Settles the edges of children that have settled, for one subscription's table. Nothing in a
 * broker's memory decides: a sweep reads pending edges and their children's rows, and for each
 * child settled (processed, gone, or dead) runs one transaction: the edge `pending -> done|dead`
 * (guarded, so of sweeps racing on one edge one takes it), the parent's count down by one (its row
 * lock serializes the parent's children), and, where the count reached 0 (or the child died and the
 * policy says so), the parent woken (`retry_after = now`) or dead-lettered, once (`woken`).
 * A settlement this broker saw sweeps its row's edges at once; every second a reconcile sweep takes
 * any pending edge whose child settled elsewhere, or whose sweep a crash cut off.
 */
export class FlowSweeper {
  private readonly f: FlowTable;
  private readonly flows: FlowOps;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private off: (() => void) | undefined;
  private kicked = new Set<string>();
  private reconcileDue = false;
  /**
   * Where the next reconcile reads on: the last child id of the previous one where it read a full
   * page, so every pending edge is read in turn however many wait ahead of it (undefined: from the
   * start).
   */
  private cursor: string | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly table: AnyTable,
    private readonly ops: TableOps,
    private readonly deps: SweepDeps,
  ) {
    const parts = flowParts(table, ops, deps.dialect.name);
    this.f = parts.f;
    this.flows = parts.flows;
  }

  /** Starts sweeping: on this broker's settlements of the table, and every second. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const t = this.table.table;
    this.off = this.deps.events.on('settled', (e) => {
      if (e.table === t && e.plan !== 'return') this.kick(String(e.id));
    });
    this.reconcileDue = true;
    this.schedule(0);
  }

  /** Stops; resolves once the sweep in flight has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Sweeps the edges of child `id` soon. */
  kick(id: string): void {
    this.kicked.add(id);
    this.pump();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.reconcileDue = true;
      this.pump();
    }, ms);
    this.timer.unref?.();
  }

  /** Runs one sweep at a time: the kicked children first, else a reconcile where one is due. */
  private pump(): void {
    if (this.running !== undefined || this.stopped) return;
    const kicked: string[] = [];
    for (const id of this.kicked) {
      if (kicked.length >= KICK_CHUNK) break;
      kicked.push(id);
    }
    for (const id of kicked) this.kicked.delete(id);
    const reconcile = kicked.length === 0 && this.reconcileDue;
    if (kicked.length === 0 && !reconcile) return;
    if (reconcile) this.reconcileDue = false;
    this.running = this.sweep(reconcile ? undefined : kicked)
      .then(() => undefined)
      .catch((err: unknown) => {
        this.deps.logger.warn('a flow sweep failed; the next one retries', {
          table: this.table.table,
          error: err,
        });
      })
      .finally(() => {
        this.running = undefined;
        if (reconcile) this.schedule(FLOW_RECONCILE_MS);
        this.pump();
      });
  }

  /** Settles the pending edges (of `children`, or the first of the table's) whose child settled. */
  async sweep(children: readonly string[] | undefined): Promise<number> {
    const { pool } = this.deps;
    const conn = await pool.acquire();
    let settled = 0;
    try {
      const reconcile = children === undefined;
      const edges = await this.flows.pendingEdges(
        conn,
        this.f,
        children,
        SWEEP_LIMIT,
        reconcile ? this.cursor : undefined,
      );
      if (reconcile) this.cursor = edges.length < SWEEP_LIMIT ? undefined : edges[edges.length - 1]?.child;
      if (edges.length === 0) {
        pool.release(conn);
        return 0;
      }
      const states = await nodeStates(conn, this.table, this.ops, [...new Set(edges.map((e) => e.child))]);
      // A dead child's edge in a transaction of its own (its error); the done children's edges
      // one transaction per parent.
      const done = new Map<string, FlowEdge[]>();
      for (const e of edges) {
        const s = states.get(e.child);
        if (s === undefined || s.state === 'live') continue;
        if (s.state === 'dead') settled += await this.settleEdges(conn, e.parent, [e], s);
        else done.set(e.parent, [...(done.get(e.parent) ?? []), e]);
      }
      for (const [parent, group] of done) settled += await this.settleEdges(conn, parent, group, undefined);
      // Children with more pending edges than one read takes (many parents): kicked again, so
      // the next sweep reads on, while this one took some.
      if (!reconcile && edges.length >= SWEEP_LIMIT && settled > 0)
        for (const c of children) this.kicked.add(c);
    } catch (err) {
      await pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    pool.release(conn);
    return settled;
  }

  /**
   * One transaction on one parent's row: the edge of a dead child (`dead`, its state), or the edges
   * of done children (in one statement, children in id order); answers how many edges it took.
   */
  private async settleEdges(
    conn: Parameters<Pool['release']>[0],
    parent: string,
    group: readonly FlowEdge[],
    dead: NodeState | undefined,
  ): Promise<number> {
    const { dialect } = this.deps;
    const first = group[0]!;
    let woke = false;
    await dialect.begin(conn, { isolation: this.table.isolation, mode: this.table.mode });
    try {
      const took =
        dead === undefined
          ? await this.flows.settleDone(conn, this.f, parent, group.map((e) => e.child).sort())
          : await this.flows.settleEdge(conn, this.f, parent, first.child, 'dead', dead.error);
      if (took > 0) {
        const died = dead !== undefined;
        const p = await this.flows.countDown(conn, this.f, parent, died, took);
        if (p !== null && !p.woken) {
          const kill = died && p.policy === 'dead';
          const wake = !kill && (p.pending <= 0 || (died && p.policy === 'fail'));
          if ((kill || wake) && (await this.flows.markWoken(conn, this.f, parent)) > 0) {
            if (wake) {
              await this.ops.admin!.reschedule(conn, [parent], new Date());
              woke = true;
            } else await this.deadLetterParent(conn, first);
          }
        }
      }
      await dialect.commit(conn);
      if (woke) this.deps.wake();
      return took;
    } catch (err) {
      await dialect.rollback(conn).catch(() => undefined);
      throw err;
    }
  }

  /** A `'dead'` policy's parent leaves for the dead letter (dropped where the queue has none), never running. */
  private async deadLetterParent(conn: Parameters<Pool['release']>[0], e: FlowEdge): Promise<void> {
    const now = new Date();
    const target = this.deps.deadLetter;
    const message = `flow child ${e.name === '' ? e.child : `${e.name} (${e.child})`} died`.slice(
      0,
      MAX_ERROR_LENGTH,
    );
    await this.ops.settle(
      conn,
      target === undefined
        ? { kind: 'finish', id: e.parent, now }
        : {
            kind: 'deadLetter',
            id: e.parent,
            now,
            target,
            inTransaction: true,
            failure: { message, name: 'flow_child_dead' },
          },
    );
  }
}
