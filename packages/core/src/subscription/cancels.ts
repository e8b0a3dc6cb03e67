import type { ControlOps, ControlTable } from '../control-table.js';
import { cancelRow } from '../control-table.js';
import type { Pool } from '../driver.js';
import { CancelledError } from '../errors.js';
import type { Events } from '../events.js';
import type { Logger } from '../logger.js';

/** What {@link Cancels} reads of the control table's cache (a `ControlWatch`). */
export interface CancelCache {
  /** The cancels recorded for rows in work, as last read: the row's id as text to the reason. */
  readonly cancels: ReadonlyMap<string, string>;
  /** When the last read that answered started (ms). */
  readonly readAt: number;
}

/** What {@link Cancels.sweep} needs of a delivery in work. */
export interface Cancellable {
  readonly held: { readonly id: unknown };
  cancel(err: CancelledError): void;
}

/**
 * A subscription's side of cancelling a row in work (`admin.cancel`, `broker.cancel`): the cancel
 * is a control row `(queue, 'cancel', id, reason)`, read with the pauses once a second. After each
 * read the deliveries in work whose id it holds are aborted with a {@link CancelledError}
 * ({@link sweep}); a held row whose id it holds settles as cancelled without its handler
 * ({@link errorOf}, read at the delivery's start). Once such a row has settled as cancelled its
 * control row is deleted ({@link settled}), right after the settlement's commit.
 */
export class Cancels {
  /**
   * Control rows this subscription deleted (or is deleting: Infinity), by id as text, with when
   * the delete ended: a cache read before then still holds them, and is not acted on again (a row
   * published later may take the same id where the database reuses ids).
   */
  private readonly gone = new Map<string, number>();

  constructor(
    private readonly cache: CancelCache,
    private readonly ops: ControlOps,
    private readonly control: ControlTable,
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly events: Events,
  ) {}

  /** The error a cancel recorded for the row asks its delivery to end with; undefined: none. */
  errorOf(id: unknown): CancelledError | undefined {
    const key = String(id);
    const gone = this.gone.get(key);
    if (gone !== undefined) {
      if (this.cache.readAt <= gone) return undefined;
      this.gone.delete(key);
    }
    const reason = this.cache.cancels.get(key);
    return reason === undefined ? undefined : new CancelledError(this.control.name, id, reason);
  }

  /** Aborts each delivery in work whose row's cancel the cache holds (a delivery ignores a second one). */
  sweep(deliveries: Iterable<Cancellable>): void {
    for (const [key, at] of this.gone) if (this.cache.readAt > at) this.gone.delete(key);
    if (this.cache.cancels.size === 0) return;
    for (const d of deliveries) {
      const err = this.errorOf(d.held.id);
      if (err !== undefined) d.cancel(err);
    }
  }

  /**
   * A cancelled row settled as cancelled: told (event, log line), and its control row deleted on a
   * pool connection. A delete that fails is logged; the row it names is gone, so the next read's
   * cancel finds no delivery of it, and the next cancel of that id writes none.
   */
  settled(
    h: { readonly id: unknown; readonly attempt: number },
    err: CancelledError,
    deadLettered: boolean,
    inWork: boolean,
  ): void {
    const table = this.control.name;
    this.logger.info(`row cancelled: ${deadLettered ? 'dead-lettered' : 'dropped'}`, {
      table,
      id: h.id,
      reason: err.reason,
      inWork,
    });
    this.events.emit('cancelled', {
      table,
      id: h.id,
      attempt: h.attempt,
      deadLettered,
      inWork,
      reason: err.reason,
    });
    const key = String(h.id);
    this.gone.set(key, Number.POSITIVE_INFINITY);
    void this.remove(h.id)
      .catch((error: unknown) =>
        this.logger.warn('deleting a cancel from the control table failed', {
          table,
          controlTable: this.control.table,
          id: h.id,
          error,
        }),
      )
      .finally(() => this.gone.set(key, Date.now()));
  }

  private async remove(id: unknown): Promise<void> {
    const conn = await this.pool.acquire();
    try {
      await this.ops.deleteControl(conn, this.control.table, cancelRow(this.control.name, id, ''));
    } catch (err) {
      await this.pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    this.pool.release(conn);
  }
}
