import type { AnyTable } from '../description.js';
import type { TableOps } from '../dialect.js';
import type { Connection } from '../driver.js';
import type { EdgeState, FlowEdge } from '../flow-table.js';
import { flowParts, nodeStates } from './states.js';

/** One node of a flow as `tree()` shows it, its children below it (a shared child under each parent). */
export interface FlowNode {
  /** Its id (as text). */
  readonly id: string;
  /** Its name in the flow ('' for the root asked for). */
  readonly name: string;
  /** Its row's state: `waiting` (held for its children), `ready`, `delayed`, `inWork`, `done`, `dead`, or `missing`. */
  readonly state: string;
  /** The edge to the node above it, where there is one. */
  readonly edge: EdgeState | undefined;
  /** Children not yet settled (parents only). */
  readonly pending: number | undefined;
  /** Its children, in name order. */
  readonly children: FlowNode[];
}

/** A parent of a row in a flow, as `Admin.flowParents()` shows it. */
export interface FlowParentRef {
  /** The parent's id (as text). */
  readonly id: string;
  /** The name the row has under this parent. */
  readonly name: string;
  /** The state of the edge from the row to this parent. */
  readonly edge: EdgeState;
}

/** Most nodes a tree walks. */
const TREE_MAX = 10_000;
/** Deepest level a tree shows. */
const DEPTH_MAX = 64;

/**
 * The flow below row `id` as a tree, on the caller's connection: each node's row state, its edge,
 * its count of children pending (R-FLOW-6). Shared by `Flows.tree` and `Admin.tree`.
 */
export async function flowTree(
  conn: Connection,
  table: AnyTable,
  ops: TableOps,
  dialect: string,
  id: unknown,
): Promise<FlowNode> {
  const { f, flows } = flowParts(table, ops, dialect);
  const below = new Map<string, FlowEdge[]>();
  let level = [String(id)];
  const seen = new Set(level);
  while (level.length > 0 && seen.size <= TREE_MAX) {
    const edges = await flows.edgesOf(conn, f, level);
    for (const e of edges) below.set(e.parent, [...(below.get(e.parent) ?? []), e]);
    level = [...new Set(edges.map((e) => e.child))].filter((c) => !seen.has(c));
    for (const c of level) seen.add(c);
  }
  const states = await nodeStates(conn, table, ops, [...seen]);
  const parents = new Map((await flows.parentsOf(conn, f, [...below.keys()])).map((p) => [p.parent, p]));
  for (const edges of below.values()) edges.sort(byName);
  const node = (nid: string, name: string, edge: EdgeState | undefined, depth: number): FlowNode => {
    const p = parents.get(nid);
    const rowState = states.get(nid)?.rowState ?? 'missing';
    const waiting = p !== undefined && !p.woken && (rowState === 'delayed' || rowState === 'ready');
    return {
      id: nid,
      name,
      state: waiting ? 'waiting' : rowState,
      edge,
      pending: p?.pending,
      children:
        depth > DEPTH_MAX ? [] : (below.get(nid) ?? []).map((e) => node(e.child, e.name, e.state, depth + 1)),
    };
  };
  return node(String(id), '', undefined, 0);
}

/** The parents of row `id` in flows (the edges where it is the child), in parent id order. */
export async function flowParents(
  conn: Connection,
  table: AnyTable,
  ops: TableOps,
  dialect: string,
  id: unknown,
): Promise<FlowParentRef[]> {
  const { f, flows } = flowParts(table, ops, dialect);
  const edges = await flows.parentEdgesOf(conn, f, [String(id)]);
  return edges
    .map((e) => ({ id: e.parent, name: e.name, edge: e.state }))
    .sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
}

/** Children in name order (a parent's children have distinct names). */
export function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
