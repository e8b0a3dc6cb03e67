import type { FinishSettlement, ReturnSettlement } from '../dialect.js';
import type { Connection } from '../driver.js';
import { LeaseLostError } from '../errors.js';
import {
  type BatchWaiter,
  destroyQuietly,
  type FormContext,
  type Held,
  type HeldState,
  settlementError,
} from './form.js';

/** A settlement a batch takes: an ack or a drop (`finish`), or a retry (`return`), with its token. */
export type BatchedSettlement = FinishSettlement | ReturnSettlement;

/** The batch's answer for one row: changed (it still held its token), not changed, or failed alone. */
export type BatchResult = boolean | { error: unknown };

/** Who hears a batched row's end: a delivery, or a function given the batch's own answer for the row. */
export type BatchListener = BatchWaiter | ((r: BatchResult) => void);

/** Settlements per batched statement at most (the dialect's builder may split further). */
const SETTLE_BATCH = 500;

/**
 * Settlements waiting for one batched flush: the acks and drops, the retries, and, index by index
 * over both, each row's held record and who hears its end.
 */
interface Batch {
  readonly finishes: FinishSettlement[];
  readonly returns: ReturnSettlement[];
  readonly held: Held[];
  readonly waiters: BatchListener[];
}

/** What one flush did: the keys of the rows it changed, the settlements that failed alone. */
interface BatchDone {
  readonly changed: Set<string>;
  failed: Map<string, { error: unknown }> | undefined;
}

/**
 * The lease form's batched settlements: the settlements of one moment settle together, the first
 * of a turn of the event loop opening a batch that flushes once the turn ends. Acks and drops go
 * in `settleMany`'s statements, retries in `returnMany`'s (each row keeping its own failure record,
 * `retry_after` and lease end), on one connection.
 */
export class LeaseBatches {
  private open: Batch | undefined;

  constructor(
    private readonly ctx: FormContext,
    /** Moves a row along the form's transitions. */
    private readonly to: (h: Held, next: HeldState) => void,
  ) {}

  /** Whether the dialect settles retries in batches (`returnMany`). */
  get returns(): boolean {
    return this.ctx.ops.batch?.returnMany !== undefined;
  }

  /**
   * Queues a settlement for this turn's batch. Once its statement has run, the row's `waiter` hears
   * how it ended; a function hears the batch's own answer for the row instead, and the row's state
   * is left to it.
   */
  join(s: BatchedSettlement, h: Held, waiter: BatchListener): void {
    let batch = this.open;
    if (batch === undefined) {
      const opened: Batch = { finishes: [], returns: [], held: [], waiters: [] };
      this.open = batch = opened;
      setImmediate(() => {
        this.open = undefined;
        void this.flush(opened);
      });
    }
    if (s.kind === 'finish') batch.finishes.push(s);
    else batch.returns.push(s);
    batch.held.push(h);
    batch.waiters.push(waiter);
  }

  /** Runs a batch's statements, then tells each row's waiter how it ended. Never throws. */
  private async flush(batch: Batch): Promise<void> {
    const { ctx } = this;
    const done: BatchDone = { changed: new Set(), failed: undefined };
    let error: { error: unknown } | undefined;
    let conn: Connection | undefined;
    try {
      conn = await ctx.pool.acquire();
      const { finishes, returns } = batch;
      for (let i = 0; i < finishes.length; i += SETTLE_BATCH) {
        const chunk = finishes.slice(i, i + SETTLE_BATCH);
        conn = await this.flushChunk(conn, chunk, done, (c) => ctx.ops.batch!.settleMany(c, chunk));
      }
      for (let i = 0; i < returns.length; i += SETTLE_BATCH) {
        const chunk = returns.slice(i, i + SETTLE_BATCH);
        conn = await this.flushChunk(conn, chunk, done, (c) => ctx.ops.batch!.returnMany!(c, chunk));
      }
    } catch (err) {
      error = { error: err };
    } finally {
      if (conn !== undefined) ctx.pool.release(conn);
    }
    for (let i = 0; i < batch.held.length; i++) {
      const h = batch.held[i]!;
      const key = bookKey(h.id);
      const result: BatchResult = error ?? done.failed?.get(key) ?? done.changed.has(key);
      const waiter = batch.waiters[i]!;
      try {
        if (typeof waiter === 'function') waiter(result);
        else waiter.batchSettled(this.settledAs(h, result));
      } catch (err) {
        // A waiter that throws must not keep the rows after it from hearing theirs.
        ctx.logger.error('a batched settlement could not report its end', {
          table: ctx.table.table,
          id: h.id,
          error: err,
        });
      }
    }
  }

  /**
   * A batched row's end, from the batch's answer for it: settled (undefined), lost to another
   * claim, or failed (the row keeps its lease until it runs out, as after a crash).
   */
  private settledAs(h: Held, result: BatchResult): Error | undefined {
    if (result === true) {
      this.to(h, 'settled');
      return undefined;
    }
    if (result === false) {
      this.to(h, 'lost');
      return new LeaseLostError(this.ctx.table.table, h.id);
    }
    this.to(h, 'released');
    return result.error instanceof LeaseLostError ? result.error : settlementError(this.ctx, h, result.error);
  }

  /**
   * One batched call (`many`); a batch of one is the plain statement (a batched one may cost a
   * transaction on MySQL). Should the batch fail (a deadlock, a lock wait timeout, a dropped
   * connection), each of its settlements runs alone, so one failure costs one row, not the whole
   * batch, and a transient error does not leave every row of the batch leased until its lease runs
   * out. The connection a statement failed on is closed, never reused nor returned to the pool (it
   * may be dead, or inside the batch's transaction): the next statement takes a fresh one. Answers
   * the connection to go on with, if any.
   */
  private async flushChunk(
    given: Connection | undefined,
    chunk: readonly BatchedSettlement[],
    done: BatchDone,
    many: (conn: Connection) => Promise<unknown[]>,
  ): Promise<Connection | undefined> {
    const { ctx } = this;
    let conn = given;
    if (chunk.length > 1 && conn !== undefined) {
      try {
        for (const id of await many(conn)) done.changed.add(bookKey(id));
        return conn;
      } catch (err) {
        ctx.logger.warn('a batched settlement failed; its rows settle one by one', {
          table: ctx.table.table,
          rows: chunk.length,
          error: err,
        });
        await destroyQuietly(ctx, conn);
        conn = undefined;
      }
    }
    for (const s of chunk) {
      try {
        conn ??= await ctx.pool.acquire();
        if ((await ctx.ops.settle(conn, s)) > 0) done.changed.add(bookKey(s.id));
      } catch (err) {
        done.failed ??= new Map();
        done.failed.set(bookKey(s.id), { error: err });
        if (conn !== undefined) await destroyQuietly(ctx, conn);
        conn = undefined;
      }
    }
    return conn;
  }
}

/** A row id as a key of the lease book and of a batch's answers. */
export function bookKey(id: unknown): string {
  return typeof id === 'object' && id !== null ? JSON.stringify(id) : String(id);
}
