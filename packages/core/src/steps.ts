import type { Dialect, TableOps } from './dialect.js';
import type { Connection } from './driver.js';
import { ConfigError } from './errors.js';
import { checkSideTable } from './side-table.js';
import { STEPS_COLUMNS, type StepsTable } from './steps-table.js';

export * from './steps-table.js';

/**
 * Checks at start that the dialect has the steps statements and that the steps table exists with
 * its columns. Throws a {@link ConfigError} naming the table and the fix.
 */
export async function validateSteps(
  dialect: Dialect,
  conn: Connection,
  t: { readonly table: string; readonly steps?: StepsTable | undefined },
  ops: TableOps,
): Promise<void> {
  const steps = t.steps;
  if (steps === undefined) return;
  if (ops.steps === undefined) {
    throw new ConfigError(`${dialect.name} has no steps table`, {
      table: t.table,
      fix: 'drop steps from the description, or use a dialect that implements it',
    });
  }
  const fix = `create it with the DDL ${dialect.name}'s ddl() prints for this table (or run migrate)`;
  await checkSideTable(dialect, conn, t.table, 'steps', steps.table, STEPS_COLUMNS, fix);
}

/**
 * Deletes the step records of rows that left the queue table without a delivery's final
 * settlement (`admin.remove`, `admin.cancel` of rows not in work), in the caller's transaction, so
 * no record is left for a row that comes back with the same id. Answers `ids`.
 */
export async function dropStepsOf(
  conn: Connection,
  t: { readonly steps?: StepsTable | undefined },
  ops: TableOps,
  ids: unknown[],
): Promise<unknown[]> {
  if (t.steps !== undefined && ops.steps !== undefined && ids.length > 0)
    await ops.steps.deleteSteps(conn, t.steps.table, t.steps.name, ids.map(String));
  return ids;
}
