import type { Dialect, TableOps } from './dialect.js';
import type { Connection, Pool } from './driver.js';
import { ConfigError } from './errors.js';
import type { Logger } from './logger.js';
import { RATE_COLUMNS, type RateGrant, type RateLimit } from './rate-limit.js';
import { checkSideTable } from './side-table.js';

/**
 * Rate limits at run time: the start-up check of the budget table and each subscription's gate
 * before a claim. What a limit is, and what a dialect is asked for, is in rate-limit.ts.
 */

/**
 * Checks at start that the dialect runs rate limits and that the budget table exists with its
 * columns. Throws a {@link ConfigError} naming the table and the fix.
 */
export async function validateRate(
  dialect: Dialect,
  conn: Connection,
  t: {
    /** The queue table. */
    readonly table: string;
    /** Its rate limit, if it has one. */
    readonly rateLimit?: RateLimit | undefined;
  },
  ops: TableOps,
): Promise<void> {
  const rl = t.rateLimit;
  if (rl === undefined) return;
  if (ops.rates === undefined) {
    throw new ConfigError(`${dialect.name} has no rate limits`, {
      table: t.table,
      fix: 'drop rateLimit from the description, or use a dialect that implements reserveRate',
    });
  }
  const fix = `create it with the DDL ${dialect.name}'s ddl() prints for this table`;
  await checkSideTable(dialect, conn, t.table, 'rate', rl.table, RATE_COLUMNS, fix);
}

/**
 * One subscription's gate before each claim: a statement that takes what the current window has
 * left (up to the claim's size), then the claim asks for at most that; what the claim did not
 * take goes back to the window. A window used up answers how long until it ends, and the
 * subscription sleeps that long instead of claiming.
 */
export class RateGate {
  constructor(
    private readonly limit: RateLimit,
    private readonly ops: TableOps,
    private readonly pool: Pool,
    private readonly logger: Logger,
  ) {}

  /** Takes up to `want` deliveries from the current window. */
  async reserve(want: number): Promise<RateGrant> {
    const rates = this.ops.rates;
    if (rates === undefined)
      throw new ConfigError('the dialect has no rate limits', { table: this.limit.name });
    const { table, name, max, perMs } = this.limit;
    return this.on((conn) => rates.reserveRate(conn, { table, name, want, max, perMs }));
  }

  /** Gives back what a claim granted `grant` did not take (`taken` rows); logs, never throws. */
  async giveBack(grant: RateGrant, taken: number): Promise<void> {
    const unused = grant.granted - taken;
    const rates = this.ops.rates;
    if (unused <= 0 || rates === undefined) return;
    try {
      await this.on((conn) =>
        rates.returnRate(conn, { table: this.limit.table, name: this.limit.name }, grant.windowStart, unused),
      );
    } catch (err) {
      this.logger.warn('giving back an unused rate reservation failed; the window counts it', {
        table: this.limit.name,
        unused,
        error: err,
      });
    }
  }

  /** Runs `fn` on a pool connection: released after, closed where `fn` throws. */
  private async on<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    const conn = await this.pool.acquire();
    let result: T;
    try {
      result = await fn(conn);
    } catch (err) {
      await this.pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    this.pool.release(conn);
    return result;
  }
}
