import { type Duration, durationMs } from './duration.js';
import { ConfigError } from './errors.js';

/**
 * Retention: settled rows kept for a set time, then deleted by the brokers that subscribe the
 * table, in bounded batches, one broker at a time per table. Processed rows (stamped
 * `processedAt`) age by that stamp; dead letters (the subscription's dead-letter group or table)
 * by the `deadAt` column, which the pruner stamps on a dead row the first time it sees it.
 */

/** An age: a {@link Duration}, or whole days as text (`'7d'`). */
export type RetentionAge = Duration | `${number}d`;

/** Retention as a description declares it (`inbox({ retention })`, `.retention(..)`). */
export interface RetentionInput {
  /**
   * How long a processed row (stamped in the `processedAt` column) is kept after its stamp. The
   * table must stamp (`processedAt`); a table that deletes its rows at the ack has none to prune.
   * Default: kept forever.
   */
  readonly processed?: RetentionAge;
  /**
   * How long a dead letter (a row in the subscription's dead-letter group or table) is kept after
   * it was first seen dead. Needs `deadAt`. Default: kept forever.
   */
  readonly dead?: RetentionAge;
  /**
   * The column (an instant, NULL until then) a dead letter's death is stamped in: the pruner
   * stamps each dead row it finds without one, and deletes it once the stamp is older than `dead`.
   * In the queue table (and so in a dead-letter table, which has the same columns).
   */
  readonly deadAt?: string;
  /** How often each broker tries to prune (one of them wins each turn). Default `'1m'`. */
  readonly every?: Duration;
  /**
   * Rows one delete statement removes at most; a turn deletes batch after batch until one comes
   * back short. Default 1,000.
   */
  readonly batchSize?: number;
  /** The table the turns are recorded in. Default `sqlinbox_schedules`, the schedules' tick table. */
  readonly ticksTable?: string;
}

/** The resolved retention of a table description. */
export interface Retention {
  /** Processed rows' age in milliseconds; undefined: kept. */
  readonly processedMs: number | undefined;
  /** Dead letters' age in milliseconds; undefined: kept. */
  readonly deadMs: number | undefined;
  /** The dead letters' death column; undefined without `dead`. */
  readonly deadAt: string | undefined;
  /** Milliseconds between turns. */
  readonly everyMs: number;
  /** Rows per delete statement. */
  readonly batchSize: number;
  /** The turn records' table (validated identifier). */
  readonly ticksTable: string;
}

/** Longest batch: the statements bind it, and a bigger one holds locks longer than a turn should. */
const BATCH_MAX = 100_000;

/** Reads an age: a duration, or `'Nd'` days. */
export function retentionMs(age: RetentionAge, what: string): number {
  if (typeof age === 'string') {
    const m = /^(\d+(?:\.\d+)?)d$/.exec(age);
    if (m !== null) return durationMs(Number(m[1]) * 86_400_000, what);
  }
  return durationMs(age as Duration, what);
}

/**
 * Validates a description's retention (that `processed` has a `processedAt` column to age by is
 * checked with the whole description, in `finishDescription`); `ident` is passed in so this module stays below the
 * description's. Throws a {@link ConfigError} naming the table and, where it is one, the column.
 */
export function retentionOf(
  input: RetentionInput,
  table: string,
  ident: (name: string, what: string, table?: string, qualified?: boolean) => string,
): Retention {
  const r = input as Partial<RetentionInput> | null | undefined;
  if (r === null || typeof r !== 'object') {
    throw new ConfigError('retention is { processed?, dead?, deadAt? }', {
      table,
      fix: "write e.g. { processed: '7d' }",
    });
  }
  const age = (v: RetentionAge | undefined, name: string) => {
    if (v === undefined) return undefined;
    try {
      return retentionMs(v, `retention.${name} of ${table}`);
    } catch (err) {
      if (err instanceof ConfigError) {
        throw new ConfigError(err.message, { table, fix: "write e.g. '7d', '12h' or '30m'" });
      }
      throw err;
    }
  };
  const processedMs = age(r.processed, 'processed');
  const deadMs = age(r.dead, 'dead');
  if (processedMs === undefined && deadMs === undefined) {
    throw new ConfigError('retention names neither processed nor dead: nothing would be pruned', {
      table,
      fix: "give retention.processed (e.g. '7d') or retention.dead with retention.deadAt",
    });
  }
  const deadAt = r.deadAt === undefined ? undefined : ident(r.deadAt, 'retention.deadAt', table);
  if (deadMs !== undefined && deadAt === undefined) {
    throw new ConfigError(
      'retention.dead needs a column that says when a row died: a dead letter keeps no time of its death otherwise',
      {
        table,
        column: 'deadAt',
        fix: "add a nullable instant column (ddl() prints it) and name it: retention: { dead: '30d', deadAt: 'dead_at' }",
      },
    );
  }
  if (deadAt !== undefined && deadMs === undefined) {
    throw new ConfigError('retention.deadAt is set without retention.dead', {
      table,
      column: deadAt,
      fix: "give retention.dead, e.g. '30d'",
    });
  }
  const everyMs = durationMs(r.every ?? '1m', `retention.every of ${table}`);
  const batchSize = r.batchSize ?? 1_000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > BATCH_MAX) {
    throw new ConfigError(`retention.batchSize must be a whole number from 1 to ${BATCH_MAX}`, {
      table,
      fix: 'leave it out for 1,000 rows per statement',
    });
  }
  const ticksTable = ident(r.ticksTable ?? 'sqlinbox_schedules', 'retention ticks table', table, true);
  return { processedMs, deadMs, deadAt, everyMs, batchSize, ticksTable };
}
