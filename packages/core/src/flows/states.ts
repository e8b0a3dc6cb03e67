import type { AnyTable } from '../description.js';
import type { Dialect, TableOps } from '../dialect.js';
import type { Connection, Row } from '../driver.js';
import { ConfigError } from '../errors.js';
import { FLOW_COLUMNS, type FlowOps, type FlowTable } from '../flow-table.js';
import { decodeResult } from '../result.js';
import { checkSideTable } from '../side-table.js';

/** A flow node's row as the queue table shows it. */
export interface NodeState {
  /**
   * `done`: processed (acked or dropped), or gone from the table (a table without `processedAt`
   * deletes its rows at the ack); `dead`: in the dead letter; `live`: ready, delayed or in work.
   */
  readonly state: 'done' | 'dead' | 'live';
  /** The row's state as the admin API reads it (`ready`, `delayed`, `inWork`, `done`, `dead`), or `missing`. */
  readonly rowState: string;
  /** The value its handler acked with, where the table keeps results. */
  readonly result: unknown;
  /** The failure record's last error, where the table keeps one. */
  readonly error: string | null;
}

/** The flow statements and the admin list of a table, or a ConfigError saying what is missing. */
export function flowParts(table: AnyTable, ops: TableOps, dialect: string): { f: FlowTable; flows: FlowOps } {
  const f = table.flows;
  if (f === undefined) {
    throw new ConfigError('the table declares no flow tables', {
      table: table.table,
      fix: 'declare flows: true in its description, and create the tables ddl() prints',
    });
  }
  if (ops.flows === undefined || ops.admin === undefined) {
    throw new ConfigError(`${dialect} has no flow statements`, { table: table.table });
  }
  return { f, flows: ops.flows };
}

/** Ids per admin list. */
const CHUNK = 500;

/**
 * The rows of the ids named as the queue table (or its dead-letter table, where the ops were
 * prepared with one) shows them now, by id as text.
 */
export async function nodeStates(
  conn: Connection,
  table: AnyTable,
  ops: TableOps,
  ids: readonly string[],
): Promise<Map<string, NodeState>> {
  const out = new Map<string, NodeState>();
  const admin = ops.admin;
  if (admin === undefined || ids.length === 0) return out;
  const now = new Date();
  const add = (rows: Row[]) => {
    for (const r of rows) {
      const id = String(r[table.id.column]);
      const rowState = String(r.sqlinbox_state);
      const e = table.lastError === undefined ? null : r[table.lastError];
      out.set(id, {
        state: rowState === 'done' ? 'done' : rowState === 'dead' ? 'dead' : 'live',
        rowState,
        result: table.result === undefined ? undefined : decodeResult(r[table.result]),
        error: e == null ? null : String(e),
      });
    }
  };
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    add(await admin.list(conn, { state: 'all', ids: part, limit: part.length, now }));
    const missing = part.filter((id) => !out.has(id));
    if (missing.length > 0)
      add(await admin.list(conn, { state: 'dead', ids: missing, limit: missing.length, now }));
  }
  for (const id of ids) {
    if (!out.has(id)) out.set(id, { state: 'done', rowState: 'missing', result: undefined, error: null });
  }
  return out;
}

/**
 * Start-up check of a table's flow tables: both exist with their columns. A ConfigError names the
 * table and the fix.
 */
export async function validateFlows(
  dialect: Dialect,
  conn: Connection,
  t: AnyTable,
  ops: TableOps,
): Promise<void> {
  if (t.flows === undefined) return;
  const { f } = flowParts(t, ops, dialect.name);
  const fix = `create it with the DDL ${dialect.name}'s ddl() prints for this table (or run migrate)`;
  for (const [table, want] of [
    [f.edges, FLOW_COLUMNS.edges],
    [f.parents, FLOW_COLUMNS.parents],
  ] as const)
    await checkSideTable(dialect, conn, t.table, 'flow', table, want, fix);
}
