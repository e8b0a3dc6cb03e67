import { Cron } from 'croner';
import { type AnyTable, validateIdentifier } from './description.js';
import type { Dialect, TableOps } from './dialect.js';
import type { Connection, Pool } from './driver.js';
import { type Duration, durationMs } from './duration.js';
import { ConfigError } from './errors.js';
import type { Events } from './events.js';
import type { Logger } from './logger.js';

/**
 * What a schedule publishes for ticks that passed while no broker ran it (or while the broker's
 * process stood still): `'latest'` the newest of them only, `'all'` each of them oldest first (at
 * most `catchUpLimit`, the newest ones), `'none'` none at start (a running broker that wakes late
 * still publishes the tick it woke for).
 */
export type CatchUp = 'latest' | 'all' | 'none';

/** One tick of a schedule, as a payload function receives it. */
export interface Tick {
  /** The schedule's name. */
  readonly name: string;
  /** The instant the cron expression names (whole seconds). */
  readonly at: Date;
}

/**
 * What a schedule publishes at a tick: a message, or a function of the tick that answers one (or
 * a promise of one).
 */
export type SchedulePayload = ((tick: Tick) => unknown) | object | string | number | boolean | null;

/**
 * What a schedule of a table whose description states its message type `P` (`typed<T>()`,
 * `.payload<T>(..)`) publishes: a `P`, or a function of the tick that answers one (or a promise of
 * one). A description without a message type takes any {@link SchedulePayload}.
 */
export type SchedulePayloadFor<P> = unknown extends P
  ? SchedulePayload
  : P | ((tick: Tick) => P | Promise<P>);

/** Options of `broker.schedule(..)`. */
export interface ScheduleOptions {
  /** IANA time zone the cron expression is read in, e.g. `Europe/Berlin`. Default `UTC`. */
  readonly timezone?: string;
  /** Ticks that passed while nothing ran the schedule (see {@link CatchUp}). Default `'latest'`. */
  readonly catchUp?: CatchUp;
  /** Most ticks one catch-up publishes with `catchUp: 'all'` (the newest ones). Default 100. */
  readonly catchUpLimit?: number;
  /**
   * How long a tick's record is kept. A tick older than this is never published (its record may
   * be gone), so it also bounds how far back a catch-up reaches. Default 24 hours.
   */
  readonly keep?: Duration;
  /** The table holding one row per schedule and tick. Default `sqlinbox_schedules`. */
  readonly ticksTable?: string;
  /** Group of the published rows (a table with a group column). Default none. */
  readonly group?: string;
  /** Priority of the published rows (a table with a priority column). Default the column's default. */
  readonly priority?: number;
  /** Extra column values of the published rows. Default none. */
  readonly columns?: Readonly<Record<string, unknown>>;
}

/** The default tick table. */
export const SCHEDULE_TABLE = 'sqlinbox_schedules';

/** A schedule as `broker.schedule(..)` answers it. */
export interface MountedSchedule {
  /** The schedule's name, unique within the tick table. */
  readonly name: string;
  /** The next tick this broker will fire, or null when stopped or the expression has no more. */
  next(): Date | null;
  /** Resolves once the schedule runs (its tick table read); rejects with its start-up problem. */
  readonly ready: Promise<void>;
}

/** A schedule's checked settings. */
export interface ScheduleSettings {
  readonly name: string;
  readonly pattern: string;
  readonly table: AnyTable;
  readonly payload: SchedulePayload;
  readonly cron: Cron;
  readonly timezone: string;
  readonly catchUp: CatchUp;
  readonly catchUpLimit: number;
  readonly keepMs: number;
  readonly ticksTable: string;
  readonly publish: { group?: string; priority?: number; columns?: Readonly<Record<string, unknown>> };
}

/** Longest name a tick row takes (the DDL's `VARCHAR(255)`). */
const NAME_MAX = 255;
/** The longest `setTimeout` delay; a tick further away is reached in steps. */
const MAX_DELAY = 2 ** 31 - 1;
/** The longest wait before a failed tick is tried again. */
const RETRY_MAX_MS = 60_000;
/** Prunes a schedule's old ticks at most this often per broker. */
const PRUNE_EVERY_MS = 60_000;

/** Checks `broker.schedule(..)`'s arguments; a ConfigError names what is wrong. */
export function scheduleSettings(
  name: string,
  pattern: string,
  table: AnyTable,
  payload: SchedulePayload,
  opts: ScheduleOptions,
): ScheduleSettings {
  if (typeof name !== 'string' || name.length === 0 || name.length > NAME_MAX) {
    throw new ConfigError(`a schedule's name is text of 1 to ${NAME_MAX} characters`, { table: table.table });
  }
  const timezone = opts.timezone ?? 'UTC';
  let cron: Cron;
  try {
    cron = new Cron(pattern, { timezone });
    cron.nextRun();
  } catch (err) {
    throw new ConfigError(
      `schedule ${name}: ${err instanceof Error ? err.message : String(err)} (cron ${JSON.stringify(pattern)}, time zone ${timezone})`,
      { table: table.table, fix: 'give a cron expression of 5 or 6 fields and an IANA time zone' },
    );
  }
  const catchUp = opts.catchUp ?? 'latest';
  if (!['latest', 'all', 'none'].includes(catchUp)) {
    throw new ConfigError(`schedule ${name}: catchUp is 'latest', 'all' or 'none', got ${String(catchUp)}`, {
      table: table.table,
    });
  }
  const catchUpLimit = opts.catchUpLimit ?? 100;
  if (!Number.isSafeInteger(catchUpLimit) || catchUpLimit < 1) {
    throw new ConfigError(`schedule ${name}: catchUpLimit must be a whole number of at least 1`, {
      table: table.table,
    });
  }
  const ticksTable = validateIdentifier(opts.ticksTable ?? SCHEDULE_TABLE, 'ticks table', table.table, true);
  if (opts.group !== undefined && table.group === undefined) {
    throw new ConfigError(`schedule ${name}: a group, but the table has no group column`, {
      table: table.table,
    });
  }
  if (opts.priority !== undefined && (table.priority === undefined || !Number.isSafeInteger(opts.priority))) {
    throw new ConfigError(`schedule ${name}: a priority needs a priority column and a whole number`, {
      table: table.table,
    });
  }
  for (const c of Object.keys(opts.columns ?? {})) validateIdentifier(c, 'column', table.table);
  let keepMs: number;
  try {
    keepMs = durationMs(opts.keep ?? '24h', 'keep');
  } catch (err) {
    throw new ConfigError(`schedule ${name}: ${err instanceof Error ? err.message : String(err)}`, {
      table: table.table,
    });
  }
  return {
    name,
    pattern,
    table,
    payload,
    cron,
    timezone,
    catchUp,
    catchUpLimit,
    keepMs,
    ticksTable,
    publish: {
      ...(opts.group === undefined ? {} : { group: opts.group }),
      ...(opts.priority === undefined ? {} : { priority: opts.priority }),
      ...(opts.columns === undefined ? {} : { columns: opts.columns }),
    },
  };
}

/** What a running schedule needs from its broker. */
export interface ScheduleDeps {
  readonly dialect: Dialect;
  readonly pool: Pool;
  readonly logger: Logger;
  readonly events: Events;
  readonly ops: TableOps;
  /** Inserts the tick's message on `conn` (inside the tick's transaction); answers its id. */
  publish(conn: Connection, message: unknown): Promise<unknown>;
  /** After the commit: wakes this process's subscriptions on the table. */
  wake(): void;
}

/**
 * One schedule in one broker: a timer to its next tick, and at each tick one transaction that
 * records the tick in the tick table and, only where that record is new, inserts the message. The
 * tick table's primary key (schedule, tick) decides which broker publishes, so any number of
 * brokers and restarts publish one row per tick.
 */
export class ScheduleRunner {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The newest tick this broker dealt with (published, found recorded, or passed by the policy). */
  private cursor: number | undefined;
  private firing: Promise<void> | undefined;
  private stopped = false;
  private nextAt: Date | null = null;
  private lastPrune = 0;
  /**
   * Failed fires in a row: while above 0 every tick after the cursor stays due, whatever the
   * policy, and the timer tries again after a backoff (or at the next tick, if sooner).
   */
  private failures = 0;

  constructor(
    readonly settings: ScheduleSettings,
    private readonly deps: ScheduleDeps,
  ) {}

  get name(): string {
    return this.settings.name;
  }

  next(): Date | null {
    return this.stopped ? null : this.nextAt;
  }

  /** Reads the newest recorded tick (a missing tick table fails here); {@link run} goes on from it. */
  async prepare(): Promise<void> {
    const ops = this.deps.ops.schedules;
    const s = this.settings;
    if (ops === undefined) {
      throw new ConfigError(`the ${this.deps.dialect.name} dialect has no schedules`, {
        table: s.table.table,
      });
    }
    const conn = await this.deps.pool.acquire();
    let last: Date | null;
    try {
      last = await ops.lastTick(conn, s.ticksTable, s.name);
    } catch (err) {
      throw new ConfigError(
        `schedule ${s.name}: cannot read the tick table ${s.ticksTable} (${err instanceof Error ? err.message : String(err)})`,
        {
          table: s.table.table,
          fix: `create it with the DDL that ddl() prints with { schedules: '${s.ticksTable}' }`,
        },
      );
    } finally {
      this.deps.pool.release(conn);
    }
    // A schedule never run before starts at its next tick: it has nothing to catch up.
    this.cursor = last === null ? Date.now() : last.getTime();
  }

  /** Publishes the ticks the catch-up policy asks for, then arms the timer. */
  async run(): Promise<void> {
    if (this.stopped) return;
    this.firing = this.fire(true);
    await this.firing;
  }

  async start(): Promise<void> {
    await this.prepare();
    await this.run();
  }

  /**
   * Stops the timer and waits for a tick in flight; no row is published after it resolves. A tick
   * already due whose timer has not fired yet (a busy thread, a late timer) is published first.
   */
  async stop(): Promise<void> {
    if (this.stopped) return await this.firing;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const due = this.timer !== undefined && this.nextAt !== null && this.nextAt.getTime() <= Date.now();
    this.timer = undefined;
    // fire() deals with its first due tick before it looks at `stopped` again.
    if (due) this.firing = this.fire(false);
    this.stopped = true;
    await this.firing;
  }

  /**
   * The ticks due now, after the cursor and within `keep`, as the policy picks them: the newest
   * always (but `none` at start), the older ones with `all`. After a failed tick, every tick
   * since the cursor (at most `catchUpLimit`): the policy is for ticks that passed while nothing
   * ran, and these were this broker's to publish.
   */
  private due(now: number, atStart: boolean): number[] {
    const s = this.settings;
    const floor = Math.max(this.cursor ?? now, now - s.keepMs);
    const n = s.catchUp === 'all' || this.failures > 0 ? s.catchUpLimit : 1;
    const ticks = s.cron
      .previousRuns(n, new Date(now + 1))
      .map((d) => d.getTime())
      .filter((t) => t > floor && t <= now)
      .reverse();
    if (atStart && s.catchUp === 'none') return [];
    return ticks;
  }

  private async fire(atStart: boolean): Promise<void> {
    this.timer = undefined;
    const now = Date.now();
    const newest = this.settings.cron.previousRuns(1, new Date(now + 1))[0]?.getTime();
    const ticks = this.due(now, atStart);
    let failed = false;
    for (const tick of ticks) {
      if (this.stopped) return;
      try {
        await this.publishTick(tick);
      } catch (err) {
        this.deps.logger.error('a schedule tick failed; nothing was published for it', {
          schedule: this.name,
          table: this.settings.table.table,
          tick: new Date(tick).toISOString(),
          error: err,
        });
        this.deps.events.emit('scheduleError', {
          schedule: this.name,
          table: this.settings.table.table,
          tick: new Date(tick),
          error: err,
        });
        failed = true;
        break;
      }
      this.cursor = tick;
    }
    this.failures = failed ? this.failures + 1 : 0;
    // Ticks the policy passed over count as dealt with; a failed tick is due again.
    if (!failed && newest !== undefined) this.cursor = Math.max(this.cursor ?? newest, newest);
    this.arm(failed);
  }

  /**
   * A timer to the next tick after the cursor, in steps where it is beyond `setTimeout`'s reach. A
   * tick that came while this one was being published (a slow database, a slow payload function)
   * is due at once, so a broker busy past the next tick still publishes it. After a failed tick the
   * timer waits for the next tick after now or for a backoff (1 s, doubling up to a minute),
   * whichever comes first, so a failed tick is tried again soon and a database that is down is
   * not tried in a loop.
   */
  private arm(failed = false): void {
    if (this.stopped) return;
    const from = failed || this.cursor === undefined ? Date.now() : this.cursor;
    const next = this.settings.cron.nextRun(new Date(from));
    let at = next?.getTime() ?? Number.POSITIVE_INFINITY;
    if (failed) at = Math.min(at, Date.now() + Math.min(RETRY_MAX_MS, 1_000 * 2 ** (this.failures - 1)));
    if (at === Number.POSITIVE_INFINITY) {
      this.nextAt = null;
      return;
    }
    this.nextAt = new Date(at);
    const delay = Math.min(MAX_DELAY, Math.max(1, at - Date.now()));
    this.timer = setTimeout(() => {
      this.firing = this.fire(false);
    }, delay);
  }

  /**
   * One tick in one transaction: the tick's record, and the message only where the record is new
   * (another broker that wrote it first has published it). Then, at most once a minute, the
   * schedule's records older than `keep` are deleted.
   */
  private async publishTick(tick: number): Promise<void> {
    const { dialect, pool, ops } = this.deps;
    const s = this.settings;
    const at = new Date(tick);
    const conn = await pool.acquire();
    let id: unknown;
    let won = false;
    try {
      await dialect.begin(conn, { isolation: s.table.isolation, mode: s.table.mode });
      try {
        won = await ops.schedules!.recordTick(conn, s.ticksTable, s.name, at);
        if (won) {
          const message =
            typeof s.payload === 'function'
              ? await (s.payload as (t: Tick) => unknown)({ name: s.name, at })
              : s.payload;
          id = await this.deps.publish(conn, message);
        }
        await dialect.commit(conn);
      } catch (err) {
        await dialect.rollback(conn).catch(() => {});
        throw err;
      }
      if (won && Date.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        await ops
          .schedules!.pruneTicks(conn, s.ticksTable, s.name, new Date(tick - s.keepMs))
          .catch((err: unknown) => {
            this.deps.logger.warn('pruning old schedule ticks failed', { schedule: s.name, error: err });
          });
      }
    } finally {
      pool.release(conn);
    }
    if (won) {
      this.deps.wake();
      this.deps.events.emit('scheduled', { schedule: s.name, table: s.table.table, tick: at, id });
    }
  }
}
