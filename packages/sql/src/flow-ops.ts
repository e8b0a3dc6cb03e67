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
    async countDown(conn, f, parent, dead): Promise<FlowParent | null> {
      await r.run(conn, st().countDown(f, parent, dead));
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
  };
}
