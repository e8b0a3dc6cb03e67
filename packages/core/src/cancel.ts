import { type ControlOps, type ControlTable, cancelRow } from './control-table.js';
import type { AnyTable } from './description.js';
import type { DeadLetterTarget, Settlement, TableOps } from './dialect.js';
import type { Connection } from './driver.js';
import { MAX_ERROR_LENGTH } from './outcome.js';

/**
 * Cancelling rows (`admin.cancel`, `broker.cancel`): what the admin change's transaction runs. The
 * rows asked for that are not in work leave at once as cancelled, as an expired row leaves (the
 * dead letter where one is named, with the failure record `errorClass = 'cancelled'`, else
 * dropped); for a row in work a control row `(queue, 'cancel', id, reason)` asks the broker running
 * it to abort its handler and settle it as cancelled (`subscription/cancels.ts`).
 */

/** Options of a cancel. */
export interface CancelOptions {
  /** Kept as the row's `lastError` (and the `CancelledError`'s `reason`). Default `cancelled`. */
  readonly reason?: string;
  /**
   * Where a cancelled row goes: the queue's dead-letter group or table (with `errorClass`
   * `cancelled`). Default: none, the row is dropped (deleted, or stamped `processed_at`). A row in
   * work goes where the subscription running it sends its dead letters.
   */
  readonly deadLetter?: DeadLetterTarget | undefined;
}

/** Why a cancel left an id alone: no such row, settled already, or a dead letter. */
export type CancelSkip = 'not-found' | 'done' | 'dead' | 'in-work';

/** What a cancel did. */
export interface CancelReport {
  /** The rows that left at once as cancelled (ready or delayed: none was in work). */
  readonly changed: unknown[];
  /** The rows in work whose cancel was recorded for the broker running them (it aborts within a second). */
  readonly signalled: unknown[];
  /** The ids left alone, each with why. */
  readonly skipped: {
    /** The id asked for. */
    readonly id: unknown;
    /** Why it was left alone. */
    readonly reason: CancelSkip;
  }[];
}

/**
 * The rows the change picked (not in work; in the advisory form their keys held) leave as
 * cancelled, in the change's transaction: the form-free settlement by id, as an expired row's.
 * Answers the ids that left.
 */
export async function leaveCancelled(
  conn: Connection,
  ops: TableOps,
  ids: readonly unknown[],
  deadLetter: DeadLetterTarget | undefined,
  reason: string,
): Promise<unknown[]> {
  const now = new Date();
  const failure = { message: reason.slice(0, MAX_ERROR_LENGTH), name: 'cancelled' };
  const left: unknown[] = [];
  for (const id of ids) {
    const s: Settlement =
      deadLetter === undefined
        ? { kind: 'finish', id, now }
        : { kind: 'deadLetter', id, now, target: deadLetter, inTransaction: true, failure };
    if ((await ops.settle(conn, s)) > 0) left.push(id);
  }
  return left;
}

/**
 * For each id the change did not take that a plain read shows live (in work, or held a moment by
 * another change), a cancel row in the control table, in the change's transaction; for the others
 * (gone, done, dead) any cancel row left from before is deleted. Answers the ids recorded.
 */
export async function recordCancels(
  conn: Connection,
  table: AnyTable,
  ops: TableOps,
  control: { ops: ControlOps; control: ControlTable },
  ids: readonly unknown[],
  reason: string,
): Promise<unknown[]> {
  if (ids.length === 0 || ops.admin === undefined) return [];
  const rows = await ops.admin.list(conn, { state: 'all', ids, limit: ids.length, now: new Date() });
  const signalled: unknown[] = [];
  const { ops: write, control: ct } = control;
  for (const r of rows) {
    const state = String(r.sqlinbox_state);
    if (state === 'dead' || state === 'done') continue;
    const id = r[table.id.column];
    await write.writeControl(conn, ct.table, cancelRow(ct.name, id, reason));
    signalled.push(id);
  }
  // A cancel an earlier call left for a row that has ended since (it settled before its broker read
  // the cancel) goes now.
  const told = new Set(signalled.map(String));
  for (const id of ids) {
    if (!told.has(String(id))) await write.deleteControl(conn, ct.table, cancelRow(ct.name, id, reason));
  }
  return signalled;
}

/** The change's report split: the ids signalled leave the skipped ones. */
export function cancelReport(
  report: { changed: unknown[]; skipped: { id: unknown; reason: string }[] },
  signalled: readonly unknown[],
): CancelReport {
  const told = new Set(signalled.map(String));
  return {
    changed: report.changed,
    signalled: [...signalled],
    skipped: report.skipped
      .filter((s) => !told.has(String(s.id)))
      .map((s) => ({ id: s.id, reason: s.reason as CancelSkip })),
  };
}
