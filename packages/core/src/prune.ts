import type { AnyTable } from './description.js';
import type { Dialect, RetentionOps, ScheduleOps, TableOps } from './dialect.js';
import type { Connection, Pool } from './driver.js';
import { ConfigError } from './errors.js';
import type { Events } from './events.js';
import type { FlowPruner } from './flows/prune.js';
import type { Logger } from './logger.js';

/** The record name of a table's retention turns in the tick table. */
export function pruneTurnName(table: string): string {
  return `retention:${table}`;
}

/**
 * Start-up check of a table's retention: the dialect prunes, and the tick table its turns are
 * recorded in can be read. A ConfigError names the table and the fix.
 */
export async function validateRetention(
  dialect: Dialect,
  conn: Connection,
  t: AnyTable,
  ops: TableOps,
): Promise<void> {
  const r = t.retention;
  if (r === undefined) return;
  if (ops.retention === undefined || ops.schedules === undefined) {
    throw new ConfigError(`${dialect.name} has no retention`, {
      table: t.table,
      fix: 'drop retention from the description, or use a dialect that implements it',
    });
  }
  try {
    await ops.schedules.lastTick(conn, r.ticksTable, pruneTurnName(t.table));
  } catch (err) {
    throw new ConfigError(
      `retention: cannot read the tick table ${r.ticksTable} its turns are recorded in (${err instanceof Error ? err.message : String(err)})`,
      { table: t.table, fix: `create it with the DDL ${dialect.name}'s ddl() prints for this table` },
    );
  }
}

/** What a pruner needs from its broker. */
export interface PrunerDeps {
  readonly pool: Pool;
  readonly logger: Logger;
  readonly events: Events;
  /** Prepared with the subscription's dead letter (without one, dead letters are not pruned). */
  readonly retention: RetentionOps;
  /** The tick table's records: a turn is taken by recording it. */
  readonly ticks: ScheduleOps;
  /** Whether the subscription has a dead letter to prune. */
  readonly hasDeadLetter: boolean;
  /** The table's flow rows' pruning, where it declares flows (`FlowPruner.of`). */
  readonly flows?: FlowPruner | undefined;
}

/**
 * The pruner of one table in one broker. Time is cut into turns of `retention.every`, aligned on
 * the epoch; at each turn every broker that subscribes the table tries to record the turn in the
 * tick table, and the one whose insert wrote it (the primary key (name, tick) decides) prunes
 * during that turn and no longer: it stops between batches once the turn is over, so two turns'
 * pruners never run together. A turn deletes batch after batch of at most `batchSize` rows until
 * one comes back short: processed rows stamped before `now - processed`, then dead letters, first
 * stamping the death of those that have none, stamped before `now - dead`; then, where the table
 * declares flows, the flow rows whose jobs' rows are all gone (see `FlowPruner`).
 */
export class Pruner {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private lastTurn = Number.NEGATIVE_INFINITY;

  constructor(
    readonly table: AnyTable,
    private readonly deps: PrunerDeps,
  ) {
    if (table.retention === undefined) {
      throw new ConfigError('the table has no retention', { table: table.table });
    }
  }

  private get settings() {
    return this.table.retention!;
  }

  /** Runs the current turn (where this broker wins it), then arms the timer for the next. */
  start(): void {
    if (this.stopped || this.running !== undefined || this.timer !== undefined) return;
    this.running = this.turn().finally(() => {
      this.running = undefined;
      this.arm();
    });
  }

  /** Stops the timer and waits for a turn in flight (it stops after its current statement). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private arm(): void {
    if (this.stopped) return;
    const every = this.settings.everyMs;
    const next = (Math.floor(Date.now() / every) + 1) * every;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.start();
      },
      Math.max(1, next - Date.now()),
    );
  }

  private async turn(): Promise<void> {
    const r = this.settings;
    const t = this.table.table;
    const turn = Math.floor(Date.now() / r.everyMs) * r.everyMs;
    if (turn <= this.lastTurn) return;
    this.lastTurn = turn;
    const end = turn + r.everyMs;
    const name = pruneTurnName(t);
    const { pool, retention, ticks } = this.deps;
    let conn: Connection;
    try {
      conn = await pool.acquire();
    } catch (err) {
      this.deps.logger.warn('a retention turn found no connection; the next turn tries again', {
        table: t,
        error: err,
      });
      return;
    }
    try {
      if (!(await ticks.recordTick(conn, r.ticksTable, name, new Date(turn)))) return;
      // The records of turns older than 10 turns (or a day) are of no use to anyone.
      await ticks.pruneTicks(conn, r.ticksTable, name, new Date(turn - Math.max(10 * r.everyMs, 86_400_000)));
      const more = () => !this.stopped && Date.now() < end;
      const batches = async (prune: () => Promise<number>) => {
        let count = 0;
        let statements = 0;
        for (;;) {
          const n = await prune();
          count += n;
          statements++;
          if (n < r.batchSize || !more()) return { count, statements };
        }
      };
      const removed: Record<string, number> = {};
      if (r.processedMs !== undefined) {
        const before = new Date(Date.now() - r.processedMs);
        const p = await batches(() => retention.pruneProcessed(conn, before, r.batchSize));
        if (p.count > 0) {
          removed.processed = p.count;
          this.deps.events.emit('pruned', {
            table: t,
            kind: 'processed',
            count: p.count,
            batches: p.statements,
          });
        }
      }
      if (r.deadMs !== undefined && this.deps.hasDeadLetter && more()) {
        await retention.markDead(conn, new Date());
        const before = new Date(Date.now() - r.deadMs);
        const d = await batches(() => retention.pruneDead(conn, before, r.batchSize));
        if (d.count > 0) {
          removed.dead = d.count;
          this.deps.events.emit('pruned', { table: t, kind: 'dead', count: d.count, batches: d.statements });
        }
      }
      if (this.deps.flows !== undefined && more()) {
        const f = await this.deps.flows.turn(conn, r.batchSize, more);
        if (f.count > 0) {
          removed.flows = f.count;
          this.deps.events.emit('pruned', { table: t, kind: 'flows', count: f.count, batches: f.batches });
        }
      }
      if (Object.keys(removed).length > 0) {
        this.deps.logger.info('retention pruned settled rows', { table: t, ...removed });
      }
    } catch (err) {
      this.deps.logger.warn('a retention turn failed; the next turn tries again', { table: t, error: err });
    } finally {
      pool.release(conn);
    }
  }
}
