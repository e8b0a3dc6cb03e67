import type { Connection } from './driver.js';
import { ConfigError } from './errors.js';
import { sideTableOption } from './side-option.js';

/**
 * The control table's names, types and pure helpers: what a description and a dialect need of
 * lifecycle control, below both (control.ts holds what a broker runs).
 */

/** The control table unless a description names another. */
export const CONTROL_TABLE = 'sqlinbox_control';

/** The columns of the control table, as `ddl()` prints them. */
export const CONTROL_COLUMNS = ['queue_name', 'kind', 'target', 'reason', 'requested_at'] as const;

/** How often a broker reads the control rows of a table it subscribes to, in ms: the notice bound. */
export const CONTROL_READ_MS = 1_000;

/** The longest queue name or target the control table takes (its DDL's `VARCHAR(255)`). */
const NAME_MAX = 255;

/** The control table as a description declares it (`inbox({ control })`, `.control(..)`). */
export type ControlInput =
  | true
  | {
      /** The control table. Default `sqlinbox_control` (printed by `ddl()`). */
      readonly table?: string;
    };

/** The resolved control table of a description. */
export interface ControlTable {
  /** The control table (validated identifier, optionally schema-qualified). */
  readonly table: string;
  /** The queue's name in that table: the queue table's name. */
  readonly name: string;
}

/** What a control row asks for: the whole queue paused, one group paused, or one row in work cancelled. */
export type ControlKind = 'pause_queue' | 'pause_group' | 'cancel';

/** One row of the control table. */
export interface ControlRow {
  /** The queue table's name. */
  readonly queue: string;
  /** What the row asks for. */
  readonly kind: ControlKind | (string & {});
  /** `''` for the queue, the group's value for a group, the row's id as text for a cancel. */
  readonly target: string;
  /** A cancel's reason (written and read by cancels; a pause writes none). */
  readonly reason?: string | null;
}

/** The control table's statements (`TableOps.control`): all of them or none. */
export interface ControlOps {
  /** The control rows of the queues named, on a connection outside any transaction. */
  readControl(conn: Connection, table: string, queues: readonly string[]): Promise<ControlRow[]>;
  /**
   * Writes a control row, or leaves the one there (an upsert on the primary key); `requested_at` is
   * the database's now. Runs inside the caller's transaction where it has one (a cancel's).
   */
  writeControl(conn: Connection, table: string, row: ControlRow): Promise<void>;
  /** Deletes a control row; answers how many it deleted (0 or 1). */
  deleteControl(conn: Connection, table: string, row: ControlRow): Promise<number>;
  /**
   * Optional: deletes, in one statement, the cancels of this queue among `targets` (ids as text)
   * whose row is no longer live (settled, dead, or gone): a cancel no broker will ever honour.
   * Answers how many it deleted. Absent: such rows stay until a cancel's settlement deletes them.
   */
  sweepCancels?(conn: Connection, table: string, queue: string, targets: readonly string[]): Promise<number>;
}

/** How often a broker at most deletes stale cancels (of rows settled before any broker read them), in ms. */
export const CANCEL_SWEEP_MS = 10_000;

/** The most cancels one sweep statement checks. */
export const CANCEL_SWEEP_BATCH = 100;

/** What is paused of one queue. */
export interface PausedState {
  /** The whole queue. */
  readonly queue: boolean;
  /** The FIFO groups paused, in order. */
  readonly groups: string[];
}

/** A pause's scope: the whole queue, or one FIFO group. */
export interface PauseScope {
  /** One FIFO group (the table's group column's value); default: the whole queue. */
  readonly group?: string;
}

/**
 * Validates a description's control table; `validateIdentifier` is passed in so this module stays
 * below the description's. Throws a {@link ConfigError} naming the table.
 */
export function controlOf(
  input: ControlInput,
  table: string,
  ident: (name: string, what: string, table?: string, qualified?: boolean) => string,
): ControlTable {
  const name = sideTableOption(input, 'control', table, 'ops_control');
  if (table.length > NAME_MAX) {
    throw new ConfigError(`a controlled table's name is at most ${NAME_MAX} characters`, { table });
  }
  return { table: ident(name ?? CONTROL_TABLE, 'control table', table, true), name: table };
}

/** The control row of a scope: the queue's, or a group's. */
export function controlRow(queue: string, scope: PauseScope = {}): ControlRow {
  if (scope.group === undefined) return { queue, kind: 'pause_queue', target: '' };
  if (typeof scope.group !== 'string' || scope.group.length > NAME_MAX) {
    throw new ConfigError(`a paused group is a string of at most ${NAME_MAX} characters`, { table: queue });
  }
  return { queue, kind: 'pause_group', target: scope.group };
}

/** What the rows of one queue say is paused. */
export function pausedOf(rows: readonly ControlRow[], queue: string): PausedState {
  const mine = rows.filter((r) => r.queue === queue);
  return {
    queue: mine.some((r) => r.kind === 'pause_queue'),
    groups: mine
      .filter((r) => r.kind === 'pause_group')
      .map((r) => r.target)
      .sort(),
  };
}

/** The reason a cancel records where the call gives none. */
export const DEFAULT_CANCEL_REASON = 'cancelled';

/** The longest cancel reason the control table keeps (its DDL's `VARCHAR(2000)`). */
const REASON_MAX = 2_000;

/** The control row that asks the broker running a row to cancel it. */
export function cancelRow(queue: string, id: unknown, reason: string): ControlRow {
  const target = String(id);
  if (target.length > NAME_MAX) {
    throw new ConfigError(`a cancelled row's id is at most ${NAME_MAX} characters as text`, { table: queue });
  }
  return { queue, kind: 'cancel', target, reason };
}

/** A cancel's reason, validated: a string of at most 2,000 characters; default `cancelled`. */
export function cancelReason(queue: string, reason: unknown): string {
  if (reason === undefined) return DEFAULT_CANCEL_REASON;
  if (typeof reason !== 'string' || reason.length > REASON_MAX) {
    throw new ConfigError(`a cancel's reason is a string of at most ${REASON_MAX} characters`, {
      table: queue,
      fix: 'pass a shorter reason, or none',
    });
  }
  return reason;
}

/** The cancels the rows of one queue record: the row's id as text to the reason. */
export function cancelsOf(rows: readonly ControlRow[], queue: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of rows) {
    if (r.queue === queue && r.kind === 'cancel') out.set(r.target, r.reason ?? DEFAULT_CANCEL_REASON);
  }
  return out;
}
