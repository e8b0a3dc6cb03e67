import {
  CANCEL_SWEEP_BATCH,
  CANCEL_SWEEP_MS,
  CONTROL_COLUMNS,
  CONTROL_READ_MS,
  type ControlOps,
  type ControlRow,
  type ControlTable,
  cancelsOf,
  controlRow,
  type PausedState,
  type PauseScope,
  pausedOf,
} from './control-table.js';
import type { AnyTable } from './description.js';
import type { Dialect, TableOps } from './dialect.js';
import type { Connection, Pool } from './driver.js';
import { ConfigError } from './errors.js';
import type { Events } from './events.js';
import type { Logger } from './logger.js';
import { checkSideTable } from './side-table.js';

export * from './control-table.js';

/**
 * Lifecycle control: a queue (or one FIFO group of it) paused and resumed from any process. The
 * state lives in the control table (`sqlinbox_control`, one table for any number of queues): a
 * pause is a row, a resume deletes it. Every broker subscribed to a table that declares `control`
 * reads that table's rows at start, at once where a notification says they changed (PostgreSQL's
 * NOTIFY, sent by the control write's statement at its commit), and at most once a second (the
 * broker's `controlPollInterval`) after, and its claim pump obeys what it read: a paused queue claims nothing and starts no handler; a paused group's rows are passed
 * over. Handlers in work when the pause is noticed run on and settle as they say.
 */

/** The dialect's control statements, or a {@link ConfigError} naming the table and the fix. */
export function controlOps(
  dialect: Dialect,
  t: { readonly table: string; readonly control?: ControlTable | undefined },
  ops: TableOps,
): { ops: ControlOps; control: ControlTable } {
  const control = t.control;
  if (control === undefined) {
    throw new ConfigError('the table declares no control table', {
      table: t.table,
      fix: 'add control: true to the description (or .control()), and create the table ddl() prints',
    });
  }
  if (ops.control === undefined) {
    throw new ConfigError(`${dialect.name} has no control table`, {
      table: t.table,
      fix: 'drop control from the description, or use a dialect that implements it',
    });
  }
  return { ops: ops.control, control };
}

/** Writes (pause) or deletes (resume) a scope's control row, on a pool connection. */
export async function setPaused(
  dialect: Dialect,
  pool: Pool,
  t: AnyTable,
  paused: boolean,
  scope: PauseScope = {},
): Promise<void> {
  const { ops, control } = controlOps(dialect, t, dialect.prepare(t));
  if (scope.group !== undefined && t.group === undefined) {
    throw new ConfigError('pausing a group needs a group column', {
      table: t.table,
      fix: 'declare the FIFO group column, or pause the whole queue',
    });
  }
  const row = controlRow(control.name, scope);
  const conn = await pool.acquire();
  try {
    if (paused) await ops.writeControl(conn, control.table, row);
    else await ops.deleteControl(conn, control.table, row);
  } catch (err) {
    await pool.destroy(conn).catch(() => undefined);
    throw err;
  }
  pool.release(conn);
}

/** What is paused of a queue, read from the database. */
export async function readPaused(dialect: Dialect, pool: Pool, t: AnyTable): Promise<PausedState> {
  const { ops, control } = controlOps(dialect, t, dialect.prepare(t));
  const conn = await pool.acquire();
  let rows: ControlRow[];
  try {
    rows = await ops.readControl(conn, control.table, [control.name]);
  } catch (err) {
    await pool.destroy(conn).catch(() => undefined);
    throw err;
  }
  pool.release(conn);
  return pausedOf(rows, control.name);
}

/**
 * Checks at start that the dialect has control statements and that the control table exists with
 * its columns. Throws a {@link ConfigError} naming the table and the fix.
 */
export async function validateControl(
  dialect: Dialect,
  conn: Connection,
  t: { readonly table: string; readonly control?: ControlTable | undefined },
  ops: TableOps,
): Promise<void> {
  if (t.control === undefined) return;
  const { control } = controlOps(dialect, t, ops);
  const fix = `create it with the DDL ${dialect.name}'s ddl() prints for this table (or run migrate)`;
  await checkSideTable(dialect, conn, t.table, 'control', control.table, CONTROL_COLUMNS, fix);
}

/**
 * The `k` smallest of `keys` greater than `after`, in order (string order, as `sort()` has it):
 * one pass over the keys, holding at most `k` of them, never sorting them all.
 */
export function smallestAfter(keys: Iterable<string>, after: string, k: number): string[] {
  const out: string[] = [];
  if (k <= 0) return out;
  for (const key of keys) {
    if (key <= after) continue;
    if (out.length === k && key >= out[k - 1]!) continue;
    // Where it goes: the first kept key greater than it.
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (out[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    out.splice(lo, 0, key);
    if (out.length > k) out.pop();
  }
  return out;
}

/**
 * One subscription's view of its queue's control rows: read at start ({@link read}, before the
 * first claim) and then at most once a second while the subscription runs. Each change is told to
 * the pump (`changed`), emitted (`paused`, `resumed`) and logged once. The database is the
 * authority; this cache decides only what this broker does next.
 */
export class ControlWatch {
  private state: PausedState = { queue: false, groups: [] };
  private groupSet: ReadonlySet<string> = new Set();
  /** Whether a read has answered (before it, the queue counts as paused: nothing starts unread). */
  private known = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private reading: Promise<void> = Promise.resolve();
  /** When the last read that answered started (ms): a pause committed before it is known. */
  private lastReadAt = 0;
  /** The rows in work whose cancel is recorded, as last read: the row's id as text to the reason. */
  private cancelMap: ReadonlyMap<string, string> = new Map();
  /** Told after every read that answered (the deliveries waiting for a fresh cache may start). */
  answered: (() => void) | undefined;
  /** A read asked for by {@link nudge} that has not started yet (a burst of notifications is one read). */
  private nudged = false;
  /**
   * A notification came before {@link start} (its listener is in place before the first read):
   * the first read may have missed the change, so {@link start} reads again at once.
   */
  private missed = false;
  /** {@link stop} was called (and no {@link start} since): notifications are ignored. */
  private stopped = false;
  /** When the last sweep of stale cancels started (ms; -Infinity: never). */
  private sweptAt = Number.NEGATIVE_INFINITY;
  private sweeping = false;
  /** The last target the previous sweep checked: the next one goes on after it, so every cancel gets its turn. */
  private sweepAfter = '';

  constructor(
    private readonly ops: ControlOps,
    private readonly control: ControlTable,
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly events: Events,
    /** Told after every read that changed what is paused. */
    private readonly changed: () => void,
    private readonly everyMs = CONTROL_READ_MS,
  ) {}

  /** Whether the whole queue is paused (or not read yet). */
  get queuePaused(): boolean {
    return !this.known || this.state.queue;
  }

  /**
   * Whether the cache is older than the notice bound: its last answered read started more than a
   * second ago (the next read is late, or in flight). No handler starts then: a handler that
   * starts at T had a read start after T - 1 s, so a pause committed a second before T was seen.
   */
  get stale(): boolean {
    return !this.known || Date.now() - this.lastReadAt > this.everyMs;
  }

  /** The groups paused. */
  get groups(): ReadonlySet<string> {
    return this.groupSet;
  }

  /** When the last read that answered started (ms; 0 before the first). */
  get readAt(): number {
    return this.lastReadAt;
  }

  /** The cancels recorded for rows in work, as last read (id as text to reason). */
  get cancels(): ReadonlyMap<string, string> {
    return this.cancelMap;
  }

  /** What is paused, as last read. */
  get paused(): PausedState {
    return { queue: this.state.queue, groups: [...this.state.groups] };
  }

  /**
   * Reads now: a read that starts after this call (one at a time, in order: a read in flight
   * may have started before a change this call's caller just committed).
   */
  read(): Promise<void> {
    const next = this.reading.catch(() => undefined).then(() => this.readOnce());
    this.reading = next;
    return next;
  }

  /**
   * Reads soon, for a notification that the control rows changed (PostgreSQL's NOTIFY at a control
   * write's commit): one read after the one in flight, however many notifications come meanwhile.
   * The poll goes on beside it, for a notification lost with its listener. One that comes before
   * {@link start} (during or after the first read) makes `start` read at once.
   */
  nudge(): void {
    if (!this.running) {
      if (!this.stopped) this.missed = true;
      return;
    }
    if (this.nudged) return;
    this.nudged = true;
    const next = this.reading
      .catch(() => undefined)
      .then(() => {
        this.nudged = false;
        return this.running ? this.readOnce() : undefined;
      });
    this.reading = next;
    next.catch((err: unknown) => {
      this.logger.warn('reading the control table failed', {
        table: this.control.name,
        controlTable: this.control.table,
        error: err,
      });
    });
  }

  /**
   * Reads once a second (the interval given) until {@link stop}: the first read at once where none
   * answered yet, or where a notification came since the listener was in place.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    const now = !this.known || this.missed;
    this.missed = false;
    this.schedule(now ? 0 : this.everyMs);
  }

  /** Stops the reads (a read in flight still ends). */
  stop(): void {
    this.running = false;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The next read `ms` after the last one started (read starts are a second apart, not a second plus the read). */
  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const started = Date.now();
      void this.read()
        .catch((err: unknown) => {
          this.logger.warn('reading the control table failed', {
            table: this.control.name,
            controlTable: this.control.table,
            error: err,
          });
        })
        .finally(() => this.schedule(Math.max(0, started + this.everyMs - Date.now())));
    }, ms);
    this.timer.unref?.();
  }

  private async readOnce(): Promise<void> {
    const started = Date.now();
    const conn = await this.pool.acquire();
    let rows: ControlRow[];
    try {
      rows = await this.ops.readControl(conn, this.control.table, [this.control.name]);
    } catch (err) {
      await this.pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    this.pool.release(conn);
    this.lastReadAt = started;
    this.cancelMap = cancelsOf(rows, this.control.name);
    this.apply(pausedOf(rows, this.control.name));
    this.answered?.();
    if (this.cancelMap.size > 0 && started - this.sweptAt >= CANCEL_SWEEP_MS) void this.sweep();
  }

  /**
   * Deletes the cancels read whose row is no longer live (settled, dead, or deleted before any
   * broker read its cancel), which no settlement would ever delete: at most once every 10 s, one
   * statement of at most 100 cancels, each sweep going on after the last one's. A sweep that fails
   * is logged; the next one tries again.
   */
  private async sweep(): Promise<void> {
    const sweepCancels = this.ops.sweepCancels;
    if (sweepCancels === undefined || this.sweeping) return;
    this.sweeping = true;
    this.sweptAt = Date.now();
    let batch = smallestAfter(this.cancelMap.keys(), this.sweepAfter, CANCEL_SWEEP_BATCH);
    if (batch.length === 0) batch = smallestAfter(this.cancelMap.keys(), '', CANCEL_SWEEP_BATCH);
    this.sweepAfter = batch.length < CANCEL_SWEEP_BATCH ? '' : batch[batch.length - 1]!;
    try {
      const conn = await this.pool.acquire();
      let deleted: number;
      try {
        deleted = await sweepCancels.call(this.ops, conn, this.control.table, this.control.name, batch);
      } catch (err) {
        await this.pool.destroy(conn).catch(() => undefined);
        throw err;
      }
      this.pool.release(conn);
      if (deleted > 0)
        this.logger.info('stale cancels deleted from the control table', {
          table: this.control.name,
          controlTable: this.control.table,
          count: deleted,
        });
    } catch (err) {
      this.logger.warn('deleting stale cancels from the control table failed', {
        table: this.control.name,
        controlTable: this.control.table,
        error: err,
      });
    } finally {
      this.sweeping = false;
    }
  }

  /** Takes a new state: tells each change once. */
  private apply(next: PausedState): void {
    const before = this.state;
    const wasKnown = this.known;
    this.state = next;
    this.groupSet = new Set(next.groups);
    this.known = true;
    const table = this.control.name;
    const tell = (paused: boolean, scope: 'queue' | 'group', value: string | null) => {
      this.logger.info(paused ? 'queue paused' : 'queue resumed', {
        table,
        scope,
        ...(value === null ? {} : { group: value }),
      });
      this.events.emit(paused ? 'paused' : 'resumed', { table, scope, value });
    };
    let changed = !wasKnown;
    if (next.queue !== before.queue) {
      tell(next.queue, 'queue', null);
      changed = true;
    }
    const had = new Set(before.groups);
    for (const g of next.groups) {
      if (!had.has(g)) {
        tell(true, 'group', g);
        changed = true;
      }
    }
    for (const g of before.groups) {
      if (!this.groupSet.has(g)) {
        tell(false, 'group', g);
        changed = true;
      }
    }
    if (changed) this.changed();
  }
}
