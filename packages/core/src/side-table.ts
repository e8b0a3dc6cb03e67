import type { Dialect } from './dialect.js';
import type { Connection } from './driver.js';
import { ConfigError } from './errors.js';

/**
 * Checks a table a feature keeps beside the queue table (rate budgets, control rows, steps, flow
 * edges) as the database describes it: it exists and has each of `columns`. Throws a
 * {@link ConfigError} naming the queue table, the missing table or column, and `fix`.
 */
export async function checkSideTable(
  dialect: Dialect,
  conn: Connection,
  /** The queue table the feature belongs to (the error's `table`). */
  queueTable: string,
  /** What the table is, as the message names it (`rate`, `control`, `steps`, `flow`). */
  what: string,
  table: string,
  columns: readonly string[],
  fix: string,
): Promise<void> {
  const found = await dialect.describeTable(conn, table);
  if (found === null)
    throw new ConfigError(`${what} table ${table} does not exist`, { table: queueTable, fix });
  const names = new Set(found.map((c) => c.name.toLowerCase()));
  const missing = columns.find((c) => !names.has(c));
  if (missing !== undefined) {
    throw new ConfigError(`${what} table ${table} lacks column ${missing}`, {
      table: queueTable,
      column: missing,
      fix,
    });
  }
}
