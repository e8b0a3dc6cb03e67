import type { AnyTable } from './description.js';
import { ConfigError, SqlInboxError } from './errors.js';

/**
 * Expiry: a row whose deadline (the description's `expiresAt` column) has passed is never handed
 * to a handler. The check runs where a delivery would start, after the claim (a lease row claimed
 * ahead of the workers waits in this process before it starts), on the host's clock; such a row
 * leaves as expired instead: to the queue's dead letter, or settled as a drop where the queue has
 * none (deleted, or stamped `processed_at`). No statement of its own: the claim that found the
 * row holds it, and the form's own settlement lets it go.
 */

/** The publish option that sets a row's deadline (see `PublishOptions`). */
export interface ExpiryOptions {
  /**
   * The row is never delivered after this instant: a subscription that claims it later moves it
   * to its dead letter (or drops it where the queue has none) without running the handler. Needs
   * an `expiresAt` column. Default: none, the row waits as long as it takes.
   */
  readonly expiresAt?: Date;
}

/** A row's deadline passed before its delivery started (the `settled` event's `error` for it). */
export class ExpiredError extends SqlInboxError {
  /** The row's deadline. */
  readonly deadline: Date;
  constructor(table: string, rowId: unknown, deadline: Date) {
    super('EXPIRED', `${table} row ${String(rowId)} expired at ${deadline.toISOString()} before it started`, {
      table,
      rowId,
    });
    this.deadline = deadline;
  }
}

/** The insert field `expiresAt` adds, validated: a `ConfigError` naming the table and the fix. */
export function expiryOf(
  table: AnyTable,
  opts: ExpiryOptions,
): {
  /** The row's deadline. */
  expiresAt?: Date;
} {
  const at = opts.expiresAt;
  if (at === undefined) return {};
  if (table.expiresAt === undefined) {
    throw new ConfigError('publish with expiresAt, but the table has no expiresAt column', {
      table: table.table,
      fix: 'describe the expiresAt column (an instant; ddl() prints it)',
    });
  }
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) {
    throw new ConfigError(`expiresAt ${String(at)} is not a valid Date`, {
      table: table.table,
      column: table.expiresAt,
    });
  }
  return { expiresAt: at };
}

/**
 * The row's deadline where it has passed at `now` (epoch ms), else undefined (no deadline
 * column, none set, or still ahead). Drivers answer an instant as a Date, epoch milliseconds
 * (SQLite), or text (read as UTC where it names no zone).
 */
export function expiredAt(
  table: AnyTable,
  row: Readonly<Record<string, unknown>>,
  now = Date.now(),
): Date | undefined {
  const column = table.expiresAt;
  if (column === undefined) return undefined;
  const ms = instantMs(row[column]);
  return ms !== null && ms <= now ? new Date(ms) : undefined;
}

function instantMs(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v);
  const text = String(v);
  const zoned = /[zZ]$|[+-]\d\d:?\d\d$/.test(text);
  const ms = Date.parse(zoned ? text : `${text.replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? null : ms;
}
