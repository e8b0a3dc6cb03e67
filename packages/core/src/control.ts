import {
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
 * reads that table's rows at start and at most once a second after, and its claim pump obeys what
 * it read: a paused queue claims nothing and starts no handler; a paused group's rows are passed
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

  /** Reads once a second until {@link stop}. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(this.known ? this.everyMs : 0);
  }

  /** Stops the reads (a read in flight still ends). */
  stop(): void {
    this.running = false;
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
