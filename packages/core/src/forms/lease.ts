import type { FinishSettlement, ReturnSettlement, Settlement } from '../dialect.js';
import type { Connection, Row } from '../driver.js';
import { ClosedError, ConfigError, LeaseLostError } from '../errors.js';
import type { Plan } from '../outcome.js';
import { Slots } from '../slots.js';
import {
  attemptOf,
  type BatchWaiter,
  type ClaimForm,
  destroyQuietly,
  type FormContext,
  giveBack,
  type Held,
  type HeldState,
  moveHeld,
  rollbackAndRelease,
  runSettlement,
  settlementError,
  settlementOf,
  type Transitions,
  withConnection,
} from './form.js';
import { type BatchResult, bookKey, LeaseBatches } from './lease-batch.js';

/**
 * A lease row: in work (extended each half lease), then settling by a statement that carries its
 * token (settled; lost where another claim's token is in the row; released where the statement
 * failed and the lease runs out), or released unsettled, or lost when an extension finds it gone.
 */
export const TRANSITIONS: Transitions = {
  in_work: ['settling', 'released', 'lost'],
  settling: ['settled', 'lost', 'released'],
};

/**
 * The lease form. The claim writes an expiry into `locked_until`, counts the attempt
 * and commits at once: the handler runs with no transaction open and no connection held. The
 * expiry is the delivery's ownership token: every settlement carries `locked_until = token`.
 *
 * claimed (UPDATE .. locked_until, attempt + 1, COMMIT) -> in work (extended each half lease) ->
 * settling (statement WHERE locked_until = token) -> settled; or lost (another claim's token in
 * the row: LeaseLostError); dropped -> locked_until = NULL -> released.
 */
export class LeaseForm implements ClaimForm {
  readonly form = 'lease' as const;
  /**
   * The lease book: every row this subscription holds by lease, waiting or in work, each in its
   * `slot` (not a `Map`: see {@link Slots}).
   */
  private readonly book = new Slots<Held>();
  private timer: NodeJS.Timeout | undefined;
  private extending: Promise<void> | undefined;
  /** Set by {@link stop}: no extension statement is sent after it. */
  private stopped = false;
  /** The settlements of this turn waiting for their batched statement (see `lease-batch.ts`). */
  private readonly batches: LeaseBatches;

  constructor(
    private readonly ctx: FormContext,
    private readonly onLost: (h: Held, err: LeaseLostError) => void,
    private readonly onExtended: (count: number) => void,
  ) {
    this.batches = new LeaseBatches(ctx, (h, next) => this.to(h, next));
  }

  /** Rows in the lease book (for tests and stats). */
  get booked(): number {
    return this.book.size;
  }

  async claim(n: number): Promise<Held[]> {
    const { ctx } = this;
    let conn: Awaited<ReturnType<typeof ctx.pool.acquire>>;
    try {
      conn = await ctx.pool.acquire();
    } catch (err) {
      ctx.budget.give();
      throw err;
    }
    // One instant for the due rows, the ended leases and the expiry written.
    const now = new Date();
    const expiry = new Date(now.getTime() + ctx.leaseMs);
    let rows: Awaited<ReturnType<typeof ctx.ops.claimLease>>;
    let token = expiry;
    try {
      rows = await this.claimStatement(conn, ctx.transactional ? 1 : n, now, expiry);
      // A claim held up (a lock wait, a network stall) may come back with its lease half gone or
      // already past, and another claim may have taken its rows since: renew before delivering.
      if (rows.length > 0 && Date.now() - now.getTime() > ctx.leaseMs / 2) {
        ({ rows, token } = await this.renewLate(conn, rows, expiry, Date.now() - now.getTime()));
      }
    } catch (err) {
      await destroyQuietly(ctx, conn);
      ctx.budget.give();
      throw err;
    }
    // Transactional mode keeps the claim's connection for the delivery's transaction.
    const keep = ctx.transactional && rows.length > 0;
    if (!keep) {
      ctx.pool.release(conn);
      ctx.budget.give();
    }
    const held = rows.map(
      (row): Held => ({
        row,
        id: row[ctx.table.id.column],
        attempt: attemptOf(ctx, row, true),
        conn: keep ? conn : undefined,
        budgeted: keep,
        key: undefined,
        token,
        tx: false,
        state: 'in_work',
        slot: -1,
      }),
    );
    for (const h of held) h.slot = this.book.add(h);
    this.schedule();
    return held;
  }

  /**
   * The rows of a claim that came back late, their leases moved to a fresh expiry: those whose
   * lease another claim took meanwhile (its token no longer in the row) are left out, undelivered.
   */
  private async renewLate(
    conn: Connection,
    rows: Row[],
    expiry: Date,
    tookMs: number,
  ): Promise<{ rows: Row[]; token: Date }> {
    const { ctx } = this;
    const idColumn = ctx.table.id.column;
    const token = new Date(Math.max(Date.now() + ctx.leaseMs, expiry.getTime() + 1));
    const moved = await ctx.ops.extendLeases(
      conn,
      rows.map((row) => ({ id: row[idColumn], token: expiry })),
      token,
    );
    const movedKeys = new Set(moved.map(bookKey));
    const kept = rows.filter((row) => movedKeys.has(bookKey(row[idColumn])));
    ctx.logger.warn('a claim came back late; its leases were renewed before delivery', {
      table: ctx.table.table,
      tookMs,
      leaseMs: ctx.leaseMs,
      renewed: kept.length,
      takenByAnotherClaim: rows.length - kept.length,
    });
    return { rows: kept, token };
  }

  /** The dialect's claim: the per-key one where the table declares concurrency. */
  private claimStatement(conn: Connection, n: number, now: Date, expiry: Date) {
    const { ctx } = this;
    if (ctx.table.concurrency === undefined) return ctx.ops.claimLease(conn, n, now, expiry);
    const byKey = ctx.ops.concurrency;
    if (byKey === undefined) {
      throw new ConfigError(`${ctx.dialect.name} cannot hold per-key concurrency`, {
        table: ctx.table.table,
        column: ctx.table.concurrency.column,
        fix: 'drop concurrency from the description',
      });
    }
    return byKey.claimLease(conn, n, now, expiry);
  }

  async beginHandler(h: Held): Promise<void> {
    if (!this.ctx.transactional || h.conn === undefined) return;
    await this.ctx.dialect.begin(h.conn, this.ctx.begin);
    h.tx = true;
  }

  /**
   * Settles a delivery. An ack of a row in work (no transaction, no extension in flight), or a
   * retry of one where the dialect batches retries, joins the next batched statement (see
   * {@link settleBatched}, {@link batchedReturn}); everything else takes {@link settleInFull}.
   */
  settle(h: Held, plan: Plan): Promise<void> {
    const s = this.batchedSettlement(h, plan) ?? this.batchedReturn(h, plan);
    if (s === undefined) return this.settleInFull(h, plan);
    return new Promise<void>((resolve, reject) => {
      this.joinBatch(h, s, { batchSettled: (err) => (err === undefined ? resolve() : reject(err)) });
    });
  }

  /**
   * An ack of a row in work, with no transaction and no extension in flight, joins the next
   * batched statement; `waiter` hears how it ended. Answers false, doing nothing, for any other.
   */
  settleBatched(h: Held, plan: Plan, waiter: BatchWaiter): boolean {
    const s = this.batchedSettlement(h, plan);
    if (s === undefined) return false;
    this.joinBatch(h, s, waiter);
    return true;
  }

  /** A row in work settles in this turn's batched statement: `waiter` hears how it ended. */
  private joinBatch(h: Held, s: FinishSettlement | ReturnSettlement, waiter: BatchWaiter): void {
    this.to(h, 'settling');
    this.unbook(h);
    // An ack's row: no custom statement takes it (see batchable), and a handler's ctx keeps its
    // own: nothing here reads the row again.
    if (s.kind === 'finish') h.row = LET_GO;
    this.batches.join(s, h, waiter);
  }

  /** The batched settlement of `plan`, where {@link settleBatched} may take it. */
  private batchedSettlement(h: Held, plan: Plan): FinishSettlement | undefined {
    if (
      this.extending !== undefined ||
      h.state !== 'in_work' ||
      h.conn !== undefined ||
      !this.batchable(plan)
    )
      return undefined;
    const s = settlementOf(this.ctx, h, plan, {
      countAttempt: false,
      clearLease: true,
      inTransaction: false,
    });
    return s?.kind === 'finish' && s.token !== undefined ? (s as FinishSettlement) : undefined;
  }

  /**
   * The batched settlement of a retry of a row in work (no transaction, no extension in flight, no
   * custom statement), where the dialect batches retries: the row returns, or, where a thrown
   * error's backoff has no `retry_after` column to live in, keeps its lease until the delay ends
   * ({@link statement}'s hold), writing its failure record either way.
   */
  private batchedReturn(h: Held, plan: Plan): ReturnSettlement | undefined {
    const { ctx } = this;
    if (
      plan.kind !== 'return' ||
      !this.batches.returns ||
      this.extending !== undefined ||
      h.state !== 'in_work' ||
      h.conn !== undefined ||
      h.token === undefined ||
      ctx.table.custom[plan.outcome] !== undefined
    )
      return undefined;
    const s = settlementOf(ctx, h, plan, { countAttempt: false, clearLease: true, inTransaction: false });
    if (s?.kind !== 'return' || s.token === undefined) return undefined;
    const hold = holdOf(plan);
    if (hold === 0) return s as ReturnSettlement;
    return { ...s, token: s.token, clearLease: false, holdUntil: new Date(Date.now() + Math.ceil(hold)) };
  }

  /** A settlement that failed: the row keeps its lease until it runs out, as after a crash. */
  private async settleFailed(h: Held, err: unknown): Promise<never> {
    this.to(h, 'released');
    await this.dropConnection(h, true);
    if (err instanceof LeaseLostError) throw err;
    throw settlementError(this.ctx, h, err);
  }

  private async settleInFull(h: Held, plan: Plan): Promise<void> {
    const { ctx } = this;
    if (this.extending !== undefined) await this.extending; // an extension in flight may move this row's token
    if (h.state === 'lost') {
      // Found lost by an extension: a transactional delivery's writes roll back, its connection
      // returns.
      await this.dropConnection(h);
      throw new LeaseLostError(ctx.table.table, h.id);
    }
    if (h.state !== 'in_work') throw new ClosedError('settle', { table: ctx.table.table, rowId: h.id });
    this.to(h, 'settling');
    this.unbook(h);
    const s = settlementOf(ctx, h, plan, { countAttempt: false, clearLease: true, inTransaction: false });
    let changed: number;
    try {
      if (h.tx && h.conn !== undefined) {
        changed = await this.settleInTransaction(h, plan);
      } else if (s?.kind === 'finish' && s.token !== undefined && this.batchable(plan)) {
        const result = await new Promise<BatchResult>((resolve) =>
          this.batches.join(s as FinishSettlement, h, resolve),
        );
        if (typeof result === 'object') throw result.error;
        changed = result ? 1 : 0;
      } else {
        changed = await withConnection(ctx, (conn) => this.statement(conn, h, s, plan));
      }
    } catch (err) {
      return this.settleFailed(h, err);
    }
    if (changed === 0) {
      this.to(h, 'lost');
      throw new LeaseLostError(ctx.table.table, h.id);
    }
    this.to(h, 'settled');
  }

  /**
   * A settlement's statement. A retry whose delay has no `retry_after` column to live in (a thrown
   * error's backoff) keeps the row leased until the delay ends: the lease moves to then,
   * while the row still holds this delivery's token, so no claim anywhere takes it before. Where
   * the dialect batches retries (and so knows `holdUntil`), one settlement moves the lease and
   * writes the failure record; elsewhere the lease moves alone.
   */
  private async statement(conn: Connection, h: Held, s: Settlement | undefined, plan: Plan): Promise<number> {
    const { ctx } = this;
    const hold = holdOf(plan);
    if (hold > 0 && h.token !== undefined && ctx.table.custom[plan.outcome] === undefined) {
      const until = new Date(Date.now() + Math.ceil(hold));
      if (s?.kind === 'return' && s.failure !== undefined && this.batches.returns)
        return ctx.ops.settle(conn, { ...s, clearLease: false, holdUntil: until });
      return (await ctx.ops.extendLeases(conn, [{ id: h.id, token: h.token }], until)).length;
    }
    return s === undefined ? 1 : runSettlement(ctx, conn, h, s, plan);
  }

  /**
   * Whether a plan may join a batch: the dialect batches, no custom statement replaces it, and it
   * carries no result (the batched statement is one `IN` list, with no value per row).
   */
  private batchable(plan: Plan): boolean {
    return (
      this.ctx.ops.batch !== undefined &&
      plan.kind === 'finish' &&
      plan.result === undefined &&
      this.ctx.table.custom[plan.outcome] === undefined
    );
  }

  /** Transactional mode: ack commits the handler's writes with the settlement while the lease holds. */
  private async settleInTransaction(h: Held, plan: Plan): Promise<number> {
    const { ctx } = this;
    const conn = h.conn!;
    if (plan.kind === 'finish' && plan.outcome === 'ack') {
      const s = settlementOf(ctx, h, plan, { countAttempt: false, clearLease: true, inTransaction: true })!;
      const changed = await runSettlement(ctx, conn, h, s, plan);
      if (changed === 0) {
        // The lease is lost: the whole transaction, handler writes included, rolls back.
        await this.dropConnection(h);
        throw new LeaseLostError(ctx.table.table, h.id);
      }
      try {
        await ctx.dialect.commit(conn);
      } catch (err) {
        // The commit's outcome is unknown: close the connection, never return it to the pool.
        await this.closeConnection(h);
        throw err;
      }
      h.tx = false;
      this.releaseConnection(h);
      return changed;
    }
    try {
      await ctx.dialect.rollback(conn);
    } catch (err) {
      await this.closeConnection(h);
      throw err;
    }
    h.tx = false;
    const s = settlementOf(ctx, h, plan, { countAttempt: false, clearLease: true, inTransaction: false });
    const changed = await this.statement(conn, h, s, plan);
    this.releaseConnection(h);
    return changed;
  }

  async drop(h: Held, undelivered = false): Promise<void> {
    const { ctx } = this;
    await this.extending;
    if (h.state === 'lost') await this.dropConnection(h);
    if (h.state !== 'in_work') return;
    this.to(h, 'released');
    this.unbook(h);
    await this.dropConnection(h);
    // Released at once, not left to run out; a row no handler saw does not keep the claim's attempt.
    const s = {
      kind: 'return' as const,
      id: h.id,
      now: new Date(),
      countAttempt: false,
      uncountAttempt: undelivered,
      clearLease: true,
    };
    try {
      await withConnection(ctx, (conn) =>
        ctx.ops.settle(conn, h.token === undefined ? s : { ...s, token: h.token }),
      );
    } catch (err) {
      ctx.logger.warn('releasing a dropped lease failed; the row returns when its lease runs out', {
        table: ctx.table.table,
        id: h.id,
        error: err,
      });
    }
  }

  /** After shutdown a delivery keeps its lease and may still settle; it is no longer extended. */
  async closeHeld(h: Held): Promise<'released' | 'closed' | 'kept'> {
    void h;
    return 'kept';
  }

  /**
   * Stops extending leases (the broker shut down). Resolves once an extension in flight has ended:
   * one that has not sent its statement yet sends none, so no lease moves after shutdown resolves.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.book.clear();
    await this.extending;
  }

  async drained(): Promise<void> {}

  /** The one way this form changes a row's state: along {@link TRANSITIONS}. */
  private to(h: Held, next: HeldState): void {
    moveHeld(TRANSITIONS, this.ctx.table.table, h, next);
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    // Each half lease, so a handler may run longer than its lease.
    this.timer = setInterval(() => {
      if (this.extending === undefined && this.book.size > 0) {
        this.extending = this.extend().finally(() => {
          this.extending = undefined;
        });
      }
    }, this.ctx.leaseMs / 2);
    this.timer.unref?.();
  }

  private async extend(): Promise<void> {
    const { ctx } = this;
    const entries = this.book.values().filter((h) => h.state === 'in_work' && h.token !== undefined);
    if (entries.length === 0) return;
    const maxToken = Math.max(...entries.map((h) => h.token!.getTime()));
    // Each extension moves the token forward, strictly.
    const expiry = new Date(Math.max(Date.now() + ctx.leaseMs, maxToken + 1));
    let moved: unknown[] | undefined;
    try {
      moved = await withConnection(ctx, async (conn) =>
        this.stopped
          ? undefined
          : ctx.ops.extendLeases(
              conn,
              entries.map((h) => ({ id: h.id, token: h.token! })),
              expiry,
            ),
      );
    } catch (err) {
      // The database may be out of reach: the leases run on, and run out if this keeps failing.
      ctx.logger.warn('extending leases failed', {
        table: ctx.table.table,
        rows: entries.length,
        error: err,
      });
      return;
    }
    if (moved === undefined) return; // stopped before the statement: nothing moved, nothing lost
    const movedKeys = new Set(moved.map(bookKey));
    for (const h of entries) {
      if (movedKeys.has(bookKey(h.id))) {
        h.token = expiry;
      } else if (h.state === 'in_work') {
        this.to(h, 'lost');
        this.unbook(h);
        this.onLost(h, new LeaseLostError(ctx.table.table, h.id));
      }
    }
    this.onExtended(movedKeys.size);
  }

  /** Takes the row out of the lease book. */
  private unbook(h: Held): void {
    this.book.delete(h.slot, h);
    h.slot = -1;
  }

  private releaseConnection(h: Held): void {
    if (h.conn === undefined) return;
    this.ctx.pool.release(h.conn);
    h.conn = undefined;
    giveBack(this.ctx, h);
  }

  /**
   * A transactional delivery's connection: roll back what it holds, then give it back. After a
   * failed statement (`failed`) a connection with no transaction to roll back is closed instead:
   * nothing confirms its state.
   */
  private async dropConnection(h: Held, failed = false): Promise<void> {
    const conn = h.conn;
    if (conn === undefined) return;
    h.conn = undefined;
    if (h.tx) await rollbackAndRelease(this.ctx, conn);
    else if (failed) await destroyQuietly(this.ctx, conn);
    else this.ctx.pool.release(conn);
    h.tx = false;
    giveBack(this.ctx, h);
  }

  /** A transactional delivery's connection after a failed COMMIT or ROLLBACK: closed, never released. */
  private async closeConnection(h: Held): Promise<void> {
    const conn = h.conn;
    if (conn === undefined) return;
    h.conn = undefined;
    h.tx = false;
    await destroyQuietly(this.ctx, conn);
    giveBack(this.ctx, h);
  }
}

/**
 * The delay a retry's row stays leased for, in ms: a thrown error's backoff where there is no
 * `retry_after` column to hold it (0: none).
 */
function holdOf(plan: Plan): number {
  return plan.kind === 'return' && plan.retryAfter === undefined ? (plan.backoffMs ?? 0) : 0;
}

/** The row of a held record whose ack joined a batched statement (see {@link Held.row}). */
const LET_GO: Row = Object.freeze({});
