import { ClosedError } from '../errors.js';
import type { Plan } from '../outcome.js';
import {
  attemptOf,
  type ClaimForm,
  destroyQuietly,
  type FormContext,
  giveBack,
  type Held,
  type HeldState,
  lostSession,
  moveHeld,
  rollbackAndRelease,
  runSettlement,
  settlementError,
  settlementOf,
  type Transitions,
} from './form.js';

const SAVEPOINT = 'sqlinbox_claim';

/** A row lock row: in work, then settling by its statement and COMMIT, or released by a rollback. */
export const TRANSITIONS: Transitions = {
  in_work: ['settling', 'released'],
  settling: ['settled', 'released'],
};
/**
 * The delivery is counted in the settlement statement (retry, ack or drop that stamps the row, dead
 * letter); the transaction is the claim's, so a rollback (a crash, a release) counts nothing.
 */
const SETTLE_OPTIONS = { countAttempt: true, clearLease: false, inTransaction: true } as const;

/**
 * The row lock form. A claim opens a transaction and selects its row `FOR UPDATE SKIP
 * LOCKED`; the transaction stays open while the handler runs, and the settlement statement's
 * COMMIT is the settlement. A crash rolls it back and the row is claimable at once.
 *
 * claimed (BEGIN, SELECT .. FOR UPDATE SKIP LOCKED) -> in work (transaction open; transactional
 * mode: SAVEPOINT sqlinbox_claim) -> settling (statement, COMMIT) -> settled;
 * dropped -> ROLLBACK -> released.
 */
export class RowLockForm implements ClaimForm {
  readonly form = 'rowlock' as const;
  constructor(private readonly ctx: FormContext) {}

  async claim(n: number): Promise<Held[]> {
    const { ctx } = this;
    // One row per claim: every row lock delivery holds its own transaction and connection.
    void n;
    let conn: Awaited<ReturnType<typeof ctx.pool.acquire>>;
    try {
      conn = await ctx.pool.acquire();
    } catch (err) {
      ctx.budget.give();
      throw err;
    }
    let rows: Awaited<ReturnType<typeof ctx.ops.claimLocked>>;
    try {
      await ctx.dialect.begin(conn, ctx.begin);
      rows = await ctx.ops.claimLocked(conn, 1, ctx.now());
    } catch (err) {
      // A session the database ended is retired, not rolled back into the pool.
      if (lostSession(ctx, err)) await destroyQuietly(ctx, conn);
      else await rollbackAndRelease(ctx, conn);
      ctx.budget.give();
      throw err;
    }
    const row = rows[0];
    if (row === undefined) {
      await rollbackAndRelease(ctx, conn);
      ctx.budget.give();
      return [];
    }
    const held: Held = {
      row,
      id: row[ctx.table.id.column],
      attempt: attemptOf(ctx, row, false),
      conn,
      budgeted: true,
      key: undefined,
      token: undefined,
      tx: false,
      state: 'in_work',
      slot: -1,
    };
    return [held];
  }

  async beginHandler(h: Held): Promise<void> {
    if (!this.ctx.transactional || h.conn === undefined) return;
    // The handler writes inside the claim transaction; a retry discards them back to here.
    await this.ctx.dialect.savepoint(h.conn, SAVEPOINT);
    h.tx = true;
  }

  async settle(h: Held, plan: Plan): Promise<void> {
    const { ctx } = this;
    const conn = h.conn;
    if (h.state !== 'in_work' || conn === undefined) {
      throw new ClosedError('settle', { table: ctx.table.table, rowId: h.id });
    }
    this.to(h, 'settling');
    let committing = false;
    try {
      if (h.tx && plan.kind !== 'finish') await ctx.dialect.rollbackToSavepoint(conn, SAVEPOINT);
      if (h.tx && plan.kind === 'finish' && plan.outcome === 'drop') {
        // drop settles like ack, but the handler's writes of a poisoned message are not kept.
        await ctx.dialect.rollbackToSavepoint(conn, SAVEPOINT);
      }
      // The delivery is counted here, in the settlement statement.
      const s = settlementOf(ctx, h, plan, SETTLE_OPTIONS);
      if (s === undefined) {
        // retry() without an attempt column: nothing to write, the rollback returns the row.
        this.to(h, 'settled');
        await this.finishConnection(h, 'rollback');
        return;
      }
      await runSettlement(ctx, conn, h, s, plan);
      committing = true;
      await ctx.dialect.commit(conn);
    } catch (err) {
      // Not where the row settled with no statement and the release after it failed.
      if ((h.state as HeldState) === 'settling') this.to(h, 'released');
      // A failed COMMIT leaves the session's state unknown: closed, never returned to the pool.
      await this.finishConnection(h, committing ? 'close' : 'rollback');
      throw err instanceof ClosedError ? err : settlementError(ctx, h, err);
    }
    this.to(h, 'settled');
    await this.finishConnection(h, 'release');
  }

  async drop(h: Held): Promise<void> {
    if (h.state !== 'in_work') return;
    this.to(h, 'released');
    await this.finishConnection(h, 'rollback');
  }

  async closeHeld(h: Held): Promise<'released' | 'closed' | 'kept'> {
    if (h.state !== 'in_work') return 'kept';
    this.to(h, 'released');
    return (await this.finishConnection(h, 'rollback')) ?? 'released';
  }

  /** The one way this form changes a row's state: along {@link TRANSITIONS}. */
  private to(h: Held, next: HeldState): void {
    moveHeld(TRANSITIONS, this.ctx.table.table, h, next);
  }

  async stop(): Promise<void> {}

  async drained(): Promise<void> {}

  private async finishConnection(
    h: Held,
    how: 'release' | 'rollback' | 'close',
  ): Promise<'released' | 'closed' | undefined> {
    const conn = h.conn;
    if (conn === undefined) return undefined;
    h.conn = undefined;
    h.tx = false;
    let result: 'released' | 'closed' = 'released';
    if (how === 'rollback') result = await rollbackAndRelease(this.ctx, conn);
    else if (how === 'close') {
      await destroyQuietly(this.ctx, conn);
      result = 'closed';
    } else this.ctx.pool.release(conn);
    giveBack(this.ctx, h);
    return result;
  }
}
