import type { Connection } from '../driver.js';
import { ClosedError } from '../errors.js';
import type { Plan } from '../outcome.js';
import {
  attemptOf,
  type ClaimForm,
  destroyQuietly,
  type FormContext,
  type Held,
  type HeldState,
  moveHeld,
  rollbackAndRelease,
  runSettlement,
  settlementError,
  settlementOf,
  type Transitions,
} from './form.js';

/**
 * A row of a batch: in work, then settling behind its savepoint (settled pending the batch's
 * commit, or released where its statement was undone), or released unsettled.
 */
export const TRANSITIONS: Transitions = {
  in_work: ['settling', 'released'],
  settling: ['settled', 'released'],
};

/** Set before each row's settlement statement, so a failing one undoes that row alone. */
const ROW_SAVEPOINT = 'sqlinbox_row';

/** One claim's transaction, shared by the rows it locked. */
interface Batch {
  readonly conn: Connection;
  /** Rows not yet settled or released. */
  open: number;
  /** The statements of the batch run one after another on its connection. */
  tail: Promise<unknown>;
  /** The transaction can no longer commit (a savepoint could not be rolled back to). */
  broken: boolean;
  ended: Promise<'released' | 'closed'> | undefined;
}

/**
 * The row lock form for batch subscriptions: one claim opens a transaction
 * and locks up to n rows `FOR UPDATE SKIP LOCKED` on one connection, which the batch holds (one
 * connection per batch, not per row). Each row settles on its own inside that transaction, behind
 * a savepoint, so a failing statement undoes its row alone; the transaction commits once every
 * row of the batch is settled or released, and that commit is the batch's settlement.
 * A released row had no statement: the commit (or a rollback) returns it unchanged, as a
 * rollback returns a single row.
 *
 * claimed (BEGIN, SELECT .. FOR UPDATE SKIP LOCKED) -> in work -> settling (SAVEPOINT, statement)
 * -> settled (pending the commit); or released -> ended (COMMIT once no row is in work).
 */
export class RowLockBatchForm implements ClaimForm {
  readonly form = 'rowlock' as const;
  private readonly batches = new WeakMap<Held, Batch>();

  constructor(private readonly ctx: FormContext) {}

  async claim(n: number): Promise<Held[]> {
    const { ctx } = this;
    let conn: Connection;
    try {
      conn = await ctx.pool.acquire();
    } catch (err) {
      ctx.budget.give();
      throw err;
    }
    let rows: Awaited<ReturnType<typeof ctx.ops.claimLocked>>;
    try {
      await ctx.dialect.begin(conn, ctx.begin);
      rows = await ctx.ops.claimLocked(conn, n, ctx.now());
    } catch (err) {
      await rollbackAndRelease(ctx, conn);
      ctx.budget.give();
      throw err;
    }
    if (rows.length === 0) {
      await rollbackAndRelease(ctx, conn);
      ctx.budget.give();
      return [];
    }
    // The batch keeps the claim's budget room for its connection until it ends.
    const batch: Batch = {
      conn,
      open: rows.length,
      tail: Promise.resolve(),
      broken: false,
      ended: undefined,
    };
    return rows.map((row) => {
      const h: Held = {
        row,
        id: row[ctx.table.id.column],
        attempt: attemptOf(ctx, row, false),
        conn: undefined,
        budgeted: false,
        key: undefined,
        token: undefined,
        tx: false,
        state: 'in_work',
        slot: -1,
      };
      this.batches.set(h, batch);
      return h;
    });
  }

  async beginHandler(h: Held): Promise<void> {
    void h; // a batch is never transactional
  }

  async settle(h: Held, plan: Plan): Promise<void> {
    const { ctx } = this;
    const batch = this.batches.get(h);
    if (h.state !== 'in_work' || batch === undefined) {
      throw new ClosedError('settle', { table: ctx.table.table, rowId: h.id });
    }
    this.to(h, 'settling');
    const run = batch.tail.then(() => this.statement(batch, h, plan));
    batch.tail = run.catch(() => {});
    try {
      await run;
      this.to(h, 'settled');
    } catch (err) {
      // The row's statement is undone: it returns as it was when the batch ends.
      this.to(h, 'released');
      throw settlementError(ctx, h, err);
    } finally {
      await this.rowDone(batch);
    }
  }

  async drop(h: Held): Promise<void> {
    const batch = this.batches.get(h);
    if (h.state !== 'in_work' || batch === undefined) return;
    this.to(h, 'released');
    await this.rowDone(batch);
  }

  async closeHeld(h: Held): Promise<'released' | 'closed' | 'kept'> {
    const batch = this.batches.get(h);
    if (h.state !== 'in_work' || batch === undefined) return 'kept';
    this.to(h, 'released');
    // Shutdown: the rows settled so far commit; the released ones return unchanged.
    return (await this.rowDone(batch)) ?? 'kept';
  }

  /** The one way this form changes a row's state: along {@link TRANSITIONS}. */
  private to(h: Held, next: HeldState): void {
    moveHeld(TRANSITIONS, this.ctx.table.table, h, next);
  }

  async stop(): Promise<void> {}

  async drained(): Promise<void> {}

  /** One row's settlement statement, inside the batch's transaction, behind a savepoint. */
  private async statement(batch: Batch, h: Held, plan: Plan): Promise<void> {
    const { ctx } = this;
    if (batch.broken) throw new Error('the batch transaction failed earlier; its rows return');
    // The delivery is counted here, in the settlement statement.
    const s = settlementOf(ctx, h, plan, { countAttempt: true, clearLease: false, inTransaction: true });
    // retry() without an attempt column writes nothing: the end of the transaction returns the row.
    if (s === undefined) return;
    try {
      await ctx.dialect.savepoint(batch.conn, ROW_SAVEPOINT);
    } catch (err) {
      batch.broken = true;
      throw err;
    }
    try {
      await runSettlement(ctx, batch.conn, h, s, plan);
    } catch (err) {
      try {
        await ctx.dialect.rollbackToSavepoint(batch.conn, ROW_SAVEPOINT);
      } catch {
        batch.broken = true;
      }
      throw err;
    }
  }

  /** A row left work; the last one ends the batch. Answers the end's result to the last row. */
  private rowDone(batch: Batch): Promise<'released' | 'closed'> | undefined {
    batch.open--;
    if (batch.open > 0) return undefined;
    batch.ended ??= this.end(batch);
    return batch.ended;
  }

  /** Commits what the rows settled and returns the connection; a failed commit returns every row. */
  private async end(batch: Batch): Promise<'released' | 'closed'> {
    const { ctx } = this;
    await batch.tail;
    let result: 'released' | 'closed';
    if (batch.broken) {
      ctx.logger.error('a batch transaction failed; every row of the batch returns to the queue', {
        table: ctx.table.table,
      });
      result = await rollbackAndRelease(ctx, batch.conn);
    } else {
      try {
        await ctx.dialect.commit(batch.conn);
        ctx.pool.release(batch.conn);
        result = 'released';
      } catch (err) {
        // As after a crash: the server rolls back, every row returns with its attempt unchanged.
        ctx.logger.error('the commit of a batch failed; every row of the batch returns to the queue', {
          table: ctx.table.table,
          error: err,
        });
        // The session's state is unknown after a failed COMMIT: closed, never returned to the pool.
        await destroyQuietly(ctx, batch.conn);
        result = 'closed';
      }
    }
    ctx.budget.give();
    return result;
  }
}
