import type { Connection, Row } from './driver.js';
import { sideTableOption } from './side-option.js';

/**
 * Flows (R-FLOW-6): the flow tables' names, types and statements' shape, below the description
 * and the dialect (flows/ holds what a broker and a publisher run). A parent row is published
 * held (its `retry_after` at {@link HELD_UNTIL}) with one row in the parents table counting its
 * children not yet settled, and one edge row per (child, parent). Whoever sees a child settled
 * (a broker's sweep) marks its edge in one transaction with the parent's count: the edge's
 * `state = 'pending'` guard lets one transaction only take an edge, the count's row lock
 * serializes the children of one parent, so exactly one transaction brings the count to 0 and
 * wakes the parent.
 */

/** The edge table unless a description names another. */
export const FLOW_TABLE = 'sqlinbox_flow';

/** The instant a held parent's `retry_after` stands at until its children settle (no claim takes it). */
export const HELD_UNTIL = new Date('2037-12-31T00:00:00.000Z');

/** The flow tables as a description declares them (`inbox({ flows })`). */
export type FlowInput =
  | true
  | {
      /** The edge table. Default `sqlinbox_flow`; the parents table is its name with `_parent` after it. */
      readonly table?: string;
    };

/** The resolved flow tables of a description. */
export interface FlowTable {
  /** The edge table: one row per (child, parent). */
  readonly edges: string;
  /** The parents table: one row per parent, its count of children not yet settled and its policy. */
  readonly parents: string;
  /** The queue's name in those tables: the queue table's name. */
  readonly name: string;
}

/**
 * What a parent does when one of its children dies (is dead-lettered): `'dead'` moves the parent
 * to the dead letter at once, never running it; `'fail'` wakes it at once, and `flowChildren`
 * throws a `FlowChildDeadError` in its handler (the delivery fails, and follows the queue's
 * retries); `'continue'` counts the dead child as settled, and the parent runs once every child
 * has settled, seeing the dead one's outcome.
 */
export type ChildDeadPolicy = 'fail' | 'dead' | 'continue';

/** An edge's state: its child not yet settled, processed, or dead. */
export type EdgeState = 'pending' | 'done' | 'dead';

/** One edge row as the flow statements read it. */
export interface FlowEdge {
  /** The parent's id, as text. */
  readonly parent: string;
  /** The child's id, as text. */
  readonly child: string;
  /** The child's name in the flow (the key it was published under). */
  readonly name: string;
  /** The edge's state. */
  readonly state: EdgeState;
  /** A dead child's last error, where the table kept one. */
  readonly error: string | null;
}

/** One parents-table row. */
export interface FlowParent {
  /** The parent's id, as text. */
  readonly parent: string;
  /** Children not yet settled. */
  readonly pending: number;
  /** Children that died. */
  readonly dead: number;
  /** The flow's policy for a dying child. */
  readonly policy: ChildDeadPolicy;
  /** Whether the parent was woken (or dead-lettered) already. */
  readonly woken: boolean;
}

/** The flow tables' statements (`TableOps.flows`), each on the caller's connection or transaction. */
export interface FlowOps {
  /** Inserts a parent's row: `pending` children, its policy, not woken. */
  insertParent(
    conn: Connection,
    f: FlowTable,
    parent: string,
    pending: number,
    policy: ChildDeadPolicy,
  ): Promise<void>;
  /** Inserts one edge, pending. */
  insertEdge(conn: Connection, f: FlowTable, parent: string, child: string, name: string): Promise<void>;
  /**
   * Pending edges: of the children named, or (none named) the queue's first `limit` in key order,
   * after the child id `after` where one is given.
   */
  pendingEdges(
    conn: Connection,
    f: FlowTable,
    children: readonly string[] | undefined,
    limit: number,
    after?: string,
  ): Promise<FlowEdge[]>;
  /**
   * Marks a pending edge settled (`done` or `dead`, with the child's error); answers 1 where this
   * call took it, 0 where it was settled already. Inside the sweep's transaction.
   */
  settleEdge(
    conn: Connection,
    f: FlowTable,
    parent: string,
    child: string,
    state: 'done' | 'dead',
    error: string | null,
  ): Promise<number>;
  /**
   * Marks the pending edges from `children` to `parent` done, in one statement per 500 children;
   * answers how many this call took (those still pending). Inside the sweep's transaction.
   */
  settleDone(conn: Connection, f: FlowTable, parent: string, children: readonly string[]): Promise<number>;
  /**
   * Counts `by` settled children (default 1) off the parent's row (and one dead child, with
   * `dead`), then reads the row as this transaction left it (the update holds its lock until the
   * commit).
   */
  countDown(
    conn: Connection,
    f: FlowTable,
    parent: string,
    dead: boolean,
    by?: number,
  ): Promise<FlowParent | null>;
  /** Marks the parent woken; answers 1 where this call did it. */
  markWoken(conn: Connection, f: FlowTable, parent: string): Promise<number>;
  /** The edges of the parents named (their children). */
  edgesOf(conn: Connection, f: FlowTable, parents: readonly string[]): Promise<FlowEdge[]>;
  /** The edges of the children named (their parents). */
  parentEdgesOf(conn: Connection, f: FlowTable, children: readonly string[]): Promise<FlowEdge[]>;
  /** The parents-table rows of the parents named. */
  parentsOf(conn: Connection, f: FlowTable, parents: readonly string[]): Promise<FlowParent[]>;
  /**
   * Optional (retention prunes flow rows, with the three below): settled edges (`done`, `dead`),
   * the queue's first `limit` in key order (child, parent), after the edge `after` where one is given.
   */
  settledEdges?(conn: Connection, f: FlowTable, limit: number, after?: FlowEdge): Promise<FlowEdge[]>;
  /** Deletes the settled edges named (a pending one stays); answers how many went. */
  deleteEdges?(conn: Connection, f: FlowTable, edges: readonly FlowEdge[]): Promise<number>;
  /**
   * Parents-table rows of parents done waiting (woken, no child pending), the queue's first `limit`
   * in parent id order, after `after` where one is given.
   */
  settledParents?(conn: Connection, f: FlowTable, limit: number, after?: string): Promise<FlowParent[]>;
  /** Deletes the parents-table rows named that are done waiting; answers how many went. */
  deleteParents?(conn: Connection, f: FlowTable, parents: readonly string[]): Promise<number>;
}

/** The columns of the edge table and the parents table, as `ddl()` prints them. */
export const FLOW_COLUMNS = {
  /** The edge table's columns. */
  edges: ['queue_name', 'child_id', 'parent_id', 'child_name', 'state', 'error', 'settled_ms'],
  /** The parents table's columns. */
  parents: ['queue_name', 'parent_id', 'pending', 'dead', 'policy', 'woken'],
} as const;

/**
 * Validates a description's flow tables; `validateIdentifier` is passed in so this module stays
 * below the description's. Throws a `ConfigError` naming the table.
 */
export function flowsOf(
  input: FlowInput,
  table: string,
  ident: (name: string, what: string, table?: string, qualified?: boolean) => string,
): FlowTable {
  const name = sideTableOption(input, 'flows', table, 'app_flow') ?? FLOW_TABLE;
  const edges = ident(name, 'flow table', table, true);
  return { edges, parents: ident(`${edges}_parent`, 'flow parents table', table, true), name: table };
}

/** An edge from a flow statement's row. */
export function edgeOf(r: Row): FlowEdge {
  return {
    parent: String(r.parent_id),
    child: String(r.child_id),
    name: String(r.child_name ?? ''),
    state: String(r.state) as EdgeState,
    error: r.error == null ? null : String(r.error),
  };
}

/** A parents-table row from a flow statement's row. */
export function parentOf(r: Row): FlowParent {
  return {
    parent: String(r.parent_id),
    pending: Number(r.pending),
    dead: Number(r.dead),
    policy: String(r.policy) as ChildDeadPolicy,
    woken: Number(r.woken) !== 0,
  };
}
