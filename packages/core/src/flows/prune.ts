import type { AnyTable } from '../description.js';
import type { TableOps } from '../dialect.js';
import type { Connection } from '../driver.js';
import type { FlowEdge, FlowOps, FlowTable } from '../flow-table.js';
import { nodeStates } from './states.js';

/** Pages (of at most the retention's batch size) a retention turn reads of the flow tables at most. */
export const FLOW_PAGES_PER_TURN = 20;

/** What one turn of flow pruning did. */
export interface FlowPruneTurn {
  /** Flow rows deleted: edges and parents-table rows. */
  readonly count: number;
  /** Pages it read (each of at most the retention's batch size). */
  readonly batches: number;
}

/** What `Flows.prune` deleted. */
export interface FlowPruneReport {
  /** Edges deleted. */
  readonly edges: number;
  /** Parents-table rows deleted. */
  readonly parents: number;
  /** Pages read (each of at most the batch size), of both tables. */
  readonly pages: number;
}

/**
 * Retention's pruning of a table's flow rows (R-FLOW-6), one turn at a time: the rows a flow keeps
 * after it ended, whose jobs' rows are gone (pruned, or deleted at the ack) from the queue table
 * and its dead letter.
 *
 * - An edge goes once it is settled (`done` or `dead`) and both its child's and its parent's rows
 *   are gone.
 * - A parent's row in the parents table goes once the parent is done waiting (woken, no child
 *   pending) and its row is gone.
 *
 * So nothing a flow still in work reads is deleted: a pending edge stays, a parent still waiting
 * keeps its row and every edge to it (its row is there), and a job's edge to a parent that still
 * runs stays. A turn reads the edge table, then the parents table, in key order, a page of at most
 * `limit` at a time, from where the last turn stopped, and each page's rows through the admin list
 * (`nodeStates`); it deletes by key, in statements of at most 200 edges or 500 parents.
 */
export class FlowPruner {
  /** The last edge of the previous full page: the next page reads on after it. */
  private edgeAfter: FlowEdge | undefined;
  /** The last parent of the previous full page. */
  private parentAfter: string | undefined;
  /** The table being read: each goes on where the last turn stopped, then hands over to the other. */
  private phase: 'edges' | 'parents' = 'edges';

  private constructor(
    private readonly table: AnyTable,
    private readonly ops: TableOps,
    private readonly f: FlowTable,
    private readonly flows: Required<FlowOps>,
  ) {}

  /** The pruner of a table's flow rows; undefined where it declares none or the dialect cannot prune them. */
  static of(table: AnyTable, ops: TableOps): FlowPruner | undefined {
    const flows = ops.flows;
    if (table.flows === undefined || flows === undefined || ops.admin === undefined) return undefined;
    if (
      flows.settledEdges === undefined ||
      flows.deleteEdges === undefined ||
      flows.settledParents === undefined ||
      flows.deleteParents === undefined
    )
      return undefined;
    return new FlowPruner(table, ops, table.flows, flows as Required<FlowOps>);
  }

  /**
   * One turn: pages of at most `limit` rows until both tables were read through once, or
   * {@link FLOW_PAGES_PER_TURN} pages, or `more()` says the turn is over.
   */
  async turn(conn: Connection, limit: number, more: () => boolean): Promise<FlowPruneTurn> {
    let count = 0;
    let pages = 0;
    let handovers = 0;
    for (; pages < FLOW_PAGES_PER_TURN && handovers < 2 && more(); pages++) {
      const page =
        this.phase === 'edges' ? await this.edgePage(conn, limit) : await this.parentPage(conn, limit);
      count += page.count;
      if (page.last) {
        this.phase = this.phase === 'edges' ? 'parents' : 'edges';
        handovers++;
      }
    }
    return { count, batches: pages };
  }

  /**
   * Both tables read through once from the start, the edge table then the parents table, a page of
   * at most `limit` rows at a time, by the same rule as a turn (`Flows.prune`, for a table without
   * a retention).
   */
  async through(conn: Connection, limit: number): Promise<FlowPruneReport> {
    this.edgeAfter = undefined;
    this.parentAfter = undefined;
    let [edges, parents, pages] = [0, 0, 0];
    for (let last = false; !last; pages++) {
      const page = await this.edgePage(conn, limit);
      edges += page.count;
      last = page.last;
    }
    for (let last = false; !last; pages++) {
      const page = await this.parentPage(conn, limit);
      parents += page.count;
      last = page.last;
    }
    this.phase = 'edges';
    return { edges, parents, pages };
  }

  /** The ids among `ids` whose row is gone from the queue table and its dead letter. */
  private async gone(conn: Connection, ids: readonly string[]): Promise<Set<string>> {
    const states = await nodeStates(conn, this.table, this.ops, [...new Set(ids)]);
    return new Set([...states].filter(([, s]) => s.rowState === 'missing').map(([id]) => id));
  }

  private async edgePage(conn: Connection, limit: number): Promise<{ count: number; last: boolean }> {
    const page = await this.flows.settledEdges(conn, this.f, limit, this.edgeAfter);
    this.edgeAfter = page.length < limit ? undefined : page[page.length - 1];
    let count = 0;
    if (page.length > 0) {
      const gone = await this.gone(
        conn,
        page.flatMap((e) => [e.child, e.parent]),
      );
      const both = page.filter((e) => gone.has(e.child) && gone.has(e.parent));
      if (both.length > 0) {
        count = await this.flows.deleteEdges(conn, this.f, both);
      }
    }
    return { count, last: this.edgeAfter === undefined };
  }

  private async parentPage(conn: Connection, limit: number): Promise<{ count: number; last: boolean }> {
    const page = await this.flows.settledParents(conn, this.f, limit, this.parentAfter);
    this.parentAfter = page.length < limit ? undefined : page[page.length - 1]?.parent;
    let count = 0;
    if (page.length > 0) {
      const gone = await this.gone(
        conn,
        page.map((p) => p.parent),
      );
      const ids = page.map((p) => p.parent).filter((id) => gone.has(id));
      if (ids.length > 0) {
        count = await this.flows.deleteParents(conn, this.f, ids);
      }
    }
    return { count, last: this.parentAfter === undefined };
  }
}
