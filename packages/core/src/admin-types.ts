/** The shapes the admin API takes and answers: which rows, where dead letters are kept, a row, a page, a change's report. */
import type { DeadLetterTarget, RowState } from './dialect.js';
import type { Row } from './driver.js';
import type { Logger } from './logger.js';

/**
 * Which rows an admin change concerns: a list of ids, every row whose group column holds `group`
 * (for dead letters kept as a group: the dead-letter group's name), or every row in scope.
 */
export type Selection =
  | {
      /** These rows, by id. */
      readonly ids: readonly unknown[];
    }
  | {
      /** Every row whose group column holds this value. */
      readonly group: string;
    }
  | {
      /** Every row in scope. */
      readonly all: true;
    };

/** Where a table keeps its dead letters, for the admin calls that read or change them. */
export interface AdminTableOptions {
  /** The dead-letter group or table. Default: none (no row counts as dead). */
  readonly deadLetter?: DeadLetterTarget | undefined;
}

/** One row as the admin API shows it. */
export interface AdminRow {
  /** The row's id. */
  readonly id: unknown;
  /** The value its handler acked with (the result column), decoded; undefined: none, or no such column. */
  readonly result?: unknown;
  /** Its state; a row another session holds (row lock or advisory key) reads `inWork`. */
  readonly state: RowState;
  /** The attempt column, or null where the table has none. */
  readonly attempt: number | null;
  /** Not due before this instant (`retry_after`), or null. */
  readonly retryAfter: Date | null;
  /** The lease (`locked_until`), or null. */
  readonly lockedUntil: Date | null;
  /** The FIFO group column's value, or null (no group, or no group column). */
  readonly group: string | null;
  /** When the row was settled (`processed_at`), or null: unsettled, or no such column. */
  readonly processedAt: Date | null;
  /** The last error's message (the failure record), or null: none yet, or no such column. */
  readonly lastError: string | null;
  /** The last error's class (its `name`, or `expired`), or null: none yet, or no such column. */
  readonly errorClass: string | null;
  /** When the row last failed, or died, or null: never, or no such column. */
  readonly failedAt: Date | null;
  /** When the row was inserted, or null: no such column (or a row inserted without a value). */
  readonly createdAt: Date | null;
  /** The payload's first characters (bytes read as UTF-8, JSON as its text). */
  readonly preview: string;
  /** Whether the preview was cut. */
  readonly truncated: boolean;
  /** The row as the driver returned it. */
  readonly row: Row;
}

/** One page of {@link Admin.list}. */
export interface AdminPage {
  /** The page's rows, in id order. */
  readonly rows: AdminRow[];
  /** Pass as `after` for the next page; undefined at the end. */
  readonly next: unknown;
}

/** Why an admin change left a row alone. */
export type SkipReason = 'not-found' | 'in-work' | 'not-dead' | 'dead' | 'done';

/** What an admin change did: the ids it changed and, for ids asked for by name, the ones it left. */
export interface ChangeReport {
  /** The ids of the rows the change touched. */
  readonly changed: unknown[];
  /** The ids asked for by name that the change left alone, each with why. */
  readonly skipped: {
    /** The id asked for. */
    readonly id: unknown;
    /** Why it was left alone. */
    readonly reason: SkipReason;
  }[];
}

/** Options of {@link Admin}. */
export interface AdminOptions {
  /** Characters of payload a listed row shows. Default 120. */
  readonly preview?: number;
  /**
   * Where the admin reports what it cannot do for its result waits (a LISTEN that failed: the
   * waits then read the row only). Default: the console, warnings and errors.
   */
  readonly logger?: Logger;
}
