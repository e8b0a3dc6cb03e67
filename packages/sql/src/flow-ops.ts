import {
  type Connection,
  edgeOf,
  type FlowEdge,
  type FlowOps,
  type FlowParent,
  parentOf,
  type Row,
} from '@sqlinbox/core';
import type { Statement } from './params.js';
import type { QueueStatements } from './statements.js';

/** What the flow runner needs of a table's runner: its statements and how it runs one. */
interface Runner {
  readonly sql: QueueStatements;
  run(conn: Connection, st: Statement): Promise<{ rows: Row[]; rowCount: number }>;
  rows(conn: Connection, st: Statement): Promise<Row[]>;
}

/** Ids per statement of an `IN` list. */
const CHUNK = 500;

/** Edges per delete by key. */
const PAIRS = 200;

/** The flow tables' statements run on the caller's connection (core's `FlowOps`). */
export function flowOps(r: Runner): FlowOps {
  const st = () => r.sql.flows;
  const chunked = async <T>(ids: readonly string[], read: (part: string[]) => Promise<T[]>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await read(ids.slice(i, i + CHUNK))));
    return out;
  };
  return {
    async insertParent(conn, f, parent, pending, policy) {
      await r.run(conn, st().insertParent(f, parent, pending, policy));
    },
    async insertEdge(conn, f, parent, child, name) {
      await r.run(conn, st().insertEdge(f, parent, child, name));
    },
    async pendingEdges(conn, f, children, limit, after): Promise<FlowEdge[]> {
      if (children === undefined)
        return (await r.rows(conn, st().pendingEdges(f, undefined, limit, after))).map(edgeOf);
      return chunked(children, async (part) =>
        (await r.rows(conn, st().pendingEdges(f, part, limit))).map(edgeOf),
      );
    },
    async settleEdge(conn, f, parent, child, state, error) {
      return (await r.run(conn, st().settleEdge(f, parent, child, state, error))).rowCount;
    },
    async settleDone(conn, f, parent, children) {
      let took = 0;
      for (let i = 0; i < children.length; i += CHUNK)
        took += (await r.run(conn, st().settleEdges(f, parent, children.slice(i, i + CHUNK)))).rowCount;
      return took;
    },
    async countDown(conn, f, parent, dead, by = 1): Promise<FlowParent | null> {
      await r.run(conn, st().countDown(f, parent, dead, by));
      const row = (await r.rows(conn, st().parentsOf(f, [parent])))[0];
      return row === undefined ? null : parentOf(row);
    },
    async markWoken(conn, f, parent) {
      return (await r.run(conn, st().markWoken(f, parent))).rowCount;
    },
    edgesOf(conn, f, parents) {
      return chunked(parents, async (part) =>
        (await r.rows(conn, st().edgesBy(f, 'parent_id', part))).map(edgeOf),
      );
    },
    parentEdgesOf(conn, f, children) {
      return chunked(children, async (part) =>
        (await r.rows(conn, st().edgesBy(f, 'child_id', part))).map(edgeOf),
      );
    },
    parentsOf(conn, f, parents) {
      return chunked(parents, async (part) => (await r.rows(conn, st().parentsOf(f, part))).map(parentOf));
    },
    async settledEdges(conn, f, limit, after) {
      return (await r.rows(conn, st().settledEdges(f, limit, after))).map(edgeOf);
    },
    async deleteEdges(conn, f, edges) {
      let took = 0;
      // Two values an edge: SQL Server binds at most 2,100 a statement.
      for (let i = 0; i < edges.length; i += PAIRS)
        took += (await r.run(conn, st().deleteEdges(f, edges.slice(i, i + PAIRS)))).rowCount;
      return took;
    },
    async settledParents(conn, f, limit, after) {
      return (await r.rows(conn, st().settledParents(f, limit, after))).map(parentOf);
    },
    async deleteParents(conn, f, parents) {
      let took = 0;
      for (let i = 0; i < parents.length; i += CHUNK)
        took += (await r.run(conn, st().deleteParents(f, parents.slice(i, i + CHUNK)))).rowCount;
      return took;
    },
  };
}
