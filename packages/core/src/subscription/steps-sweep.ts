import type { AnyTable } from '../description.js';
import type { TableOps } from '../dialect.js';
import type { Pool } from '../driver.js';
import { nodeStates } from '../flows/states.js';
import type { Logger } from '../logger.js';
import type { StepsOps, StepsTable } from '../steps-table.js';

/** How often a broker sweeps a table's orphan step records, in ms (the first sweep at its start). */
export const STEPS_SWEEP_MS = 30_000;

/** Rows whose records one sweep reads at most. */
export const STEPS_SWEEP_ROWS = 500;

/**
 * The orphan sweep of a subscription's steps table (R-FLOW-7): the records of rows that are no
 * longer live (gone from the queue table, processed, or dead) are deleted. A row's final
 * settlement deletes its records, but outside transactional mode that delete runs after the
 * settlement committed, so a crash between the two leaves them; a row deleted by hand, or pruned
 * while it kept records, leaves them too. Nothing else reads them, so they would stay forever.
 *
 * Each sweep reads the rows with records, at most {@link STEPS_SWEEP_ROWS}, in row id order after
 * the last sweep's (each with its records' latest `finished_at`), reads those rows through the
 * admin list, and deletes the records of the rows not live that finished at or before that
 * instant, so a record written since the read stays. At its start, then every
 * {@link STEPS_SWEEP_MS}, on every broker subscribed to the table.
 */
export class StepsSweeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  /** The last row id of the previous sweep where it read a full page (undefined: from the start). */
  private after: string | undefined;

  private constructor(
    private readonly table: AnyTable,
    private readonly ops: TableOps,
    private readonly steps: StepsTable,
    private readonly sops: Required<StepsOps>,
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly everyMs: number,
  ) {}

  /**
   * The sweeper of a table's steps (`ops` prepared with the subscription's dead letter); undefined
   * where it declares none, or the dialect has no orphan sweep.
   */
  static of(
    table: AnyTable,
    ops: TableOps,
    pool: Pool,
    logger: Logger,
    everyMs = STEPS_SWEEP_MS,
  ): StepsSweeper | undefined {
    const s = ops.steps;
    if (table.steps === undefined || s === undefined || ops.admin === undefined) return undefined;
    if (s.stepRows === undefined || s.deleteStepsUpTo === undefined) return undefined;
    return new StepsSweeper(table, ops, table.steps, s as Required<StepsOps>, pool, logger, everyMs);
  }

  /** Sweeps now, then every `everyMs`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops; resolves once the sweep in flight has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.sweep()
        .catch((err: unknown) => {
          this.logger.warn('sweeping orphan step records failed; the next sweep tries again', {
            table: this.table.table,
            stepsTable: this.steps.table,
            error: err,
          });
        })
        .finally(() => {
          this.running = undefined;
          this.schedule(this.everyMs);
        });
    }, ms);
    this.timer.unref?.();
  }

  /** One sweep: answers how many records it deleted. */
  async sweep(): Promise<number> {
    const conn = await this.pool.acquire();
    let deleted = 0;
    try {
      const { table, name } = this.steps;
      const rows = await this.sops.stepRows(conn, table, name, STEPS_SWEEP_ROWS, this.after);
      this.after = rows.length < STEPS_SWEEP_ROWS ? undefined : rows[rows.length - 1]?.rowId;
      if (rows.length > 0) {
        const states = await nodeStates(
          conn,
          this.table,
          this.ops,
          rows.map((r) => r.rowId),
        );
        const orphans = rows.filter((r) => states.get(r.rowId)?.state !== 'live');
        if (orphans.length > 0) deleted = await this.sops.deleteStepsUpTo(conn, table, name, orphans);
      }
    } catch (err) {
      await this.pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    this.pool.release(conn);
    if (deleted > 0)
      this.logger.info('orphan step records deleted (of rows no longer live)', {
        table: this.table.table,
        stepsTable: this.steps.table,
        count: deleted,
      });
    return deleted;
  }
}
