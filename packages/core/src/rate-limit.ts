import { type Duration, durationMs } from './duration.js';
import { ConfigError } from './errors.js';

/**
 * Rate limits: at most `max` deliveries started per window of `per` per queue, across every
 * broker and process on the table. The budget lives in a table of the database (one row per
 * limited queue: the current window's start and how much of it was used), so the database decides
 * and no broker needs to know the others. Windows are fixed, aligned on the database clock to
 * multiples of `per` since the epoch (like BullMQ's limiter): at most `max` claims in each of them,
 * so any span of `per` that straddles a window's edge may see up to twice `max`.
 */

/** The table holding rate budgets unless a description names another. */
export const RATE_TABLE = 'sqlinbox_rates';

/** A rate limit as a description declares it (`inbox({ rateLimit })`, `.rateLimit(..)`). */
export interface RateLimitInput {
  /** Most deliveries started per window (a positive integer). */
  readonly max: number;
  /** The window's length: milliseconds, or text such as `'1s'` (whole milliseconds, at least 1). */
  readonly per: Duration;
  /**
   * Per-key budgets are not available yet: a description naming `key` is refused with a
   * `ConfigError`. Default: none, one budget for the queue.
   */
  readonly key?: string;
  /** The budget table. Default `sqlinbox_rates` (printed by `ddl()`). */
  readonly table?: string;
}

/** The resolved rate limit of a table description. */
export interface RateLimit {
  /** Most deliveries started per window. */
  readonly max: number;
  /** The window's length in milliseconds. */
  readonly perMs: number;
  /** The budget table (validated identifier, optionally schema-qualified). */
  readonly table: string;
  /** The budget's name in that table: the queue table's name. */
  readonly name: string;
}

/** The longest budget name the budget table takes (its DDL's `VARCHAR(255)`). */
const NAME_MAX = 255;

/**
 * Validates a description's rate limit; `validateIdentifier` is passed in so this module stays
 * below the description's. Throws a {@link ConfigError} naming the table.
 */
export function rateLimitOf(
  input: RateLimitInput,
  table: string,
  ident: (name: string, what: string, table?: string, qualified?: boolean) => string,
): RateLimit {
  const r = input as Partial<RateLimitInput> | null | undefined;
  if (r === null || typeof r !== 'object') {
    throw new ConfigError('rateLimit is { max, per }', { table, fix: "write e.g. { max: 50, per: '1s' }" });
  }
  if (typeof r.max !== 'number' || !Number.isSafeInteger(r.max) || r.max < 1) {
    throw new ConfigError(`rateLimit.max must be a positive integer, got ${String(r.max)}`, {
      table,
      fix: 'give the most deliveries per window, e.g. 50',
    });
  }
  const perMs = durationMs(r.per as Duration, `rateLimit.per of ${table}`);
  if (!Number.isSafeInteger(perMs)) {
    throw new ConfigError(`rateLimit.per must be whole milliseconds, got ${String(r.per)}`, {
      table,
      fix: "write e.g. '1s' or 250",
    });
  }
  if (r.key !== undefined) {
    throw new ConfigError('per-key rate limits are not available: a rate limit holds for the whole queue', {
      table,
      column: String(r.key),
      fix: 'drop rateLimit.key',
    });
  }
  if (table.length > NAME_MAX) {
    throw new ConfigError(`a rate-limited table's name is at most ${NAME_MAX} characters`, { table });
  }
  return {
    max: r.max,
    perMs,
    table: ident(r.table ?? RATE_TABLE, 'rate table', table, true),
    name: table,
  };
}

/** The columns of the budget table, as `ddl()` prints them. */
export const RATE_COLUMNS = ['name', 'window_start', 'used', 'granted', 'at_ms'] as const;

/** What a reservation got from the current window (see {@link RateOps.reserveRate}). */
export interface RateGrant {
  /** Deliveries the claim may start now: 0 to `want`. */
  readonly granted: number;
  /** The window the grant came from: its start, epoch milliseconds on the database clock. */
  readonly windowStart: number;
  /** Milliseconds from the reservation to the window's end, on the database clock. */
  readonly waitMs: number;
}

/** A reservation asked of the budget table (see {@link RateOps.reserveRate}). */
export interface RateReservation {
  /** The budget table. */
  readonly table: string;
  /** The budget's name (the queue table's). */
  readonly name: string;
  /** Deliveries the claim would start. */
  readonly want: number;
  /** Most deliveries per window. */
  readonly max: number;
  /** The window's length in milliseconds. */
  readonly perMs: number;
}
