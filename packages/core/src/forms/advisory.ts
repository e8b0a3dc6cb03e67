import type { Connection } from '../driver.js';
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
  runSettlement,
  settlementError,
  settlementOf,
  type Transitions,
  within,
} from './form.js';

/**
 * An advisory row: in work while its key is locked, then settling by its statement on that
 * connection (settled, or released where it failed), or released unsettled; the lock goes with it.
 */
export const TRANSITIONS: Transitions = {
  in_work: ['settling', 'released'],
  settling: ['settled', 'released'],
};

/** One timeout bounds a dropped delivery's release and close. */
const DROP_TIMEOUT_MS = 5_000;

/**
 * The advisory lock form. A claim selects candidates, locks each candidate's key on a
 * connection of its own without waiting, then takes the row (counting the attempt, committed).
 * No transaction stays open; the connection holding the lock stays with the delivery until it
 * settles, then the lock is released and the connection goes back to the pool.
 *
 * candidates -> locked (key taken on its connection) -> in work -> settling (statement on that
 * connection, then release) -> settled; dropped -> release and close -> released.
 */
export class AdvisoryForm implements ClaimForm {
  readonly form = 'advisory' as const;
  /** Keys this subscription's deliveries hold (the candidate select leaves them out). */
  private readonly own = new Set<string>();
  /** Releases and closes still running, which `shutdown()` waits for. */
  private readonly closing = new Set<Promise<unknown>>();

  constructor(private readonly ctx: FormContext) {}

  async claim(n: number): Promise<Held[]> {
    const { ctx } = this;
    const spare: Connection[] = [];
    let first: Connection;
    try {
      first = await ctx.pool.acquire();
    } catch (err) {
      ctx.budget.give();
      throw err;
    }
    spare.push(first);
    const held: Held[] = [];
    const now = ctx.now();
    let failure: unknown;
    const { advisory } = ctx.ops;
    // The dialect's lock and take in one statement, where it has one and the lock is its own.
    const both = ctx.table.lock === undefined && advisory.lockAndTake !== undefined;
    try {
      const candidates = await advisory.candidates(first, n, now, this.own);
      for (const c of candidates) {
        if (this.own.has(c.key)) continue;
        // A batch holds one connection per row and takes what the pool gives at once.
        const conn = spare.pop() ?? (await this.extraConnection());
        if (conn === undefined) break;
        let locked = false;
        let row: Awaited<ReturnType<typeof ctx.ops.advisory.take>> = null;
        try {
          if (both) ({ locked, row } = await advisory.lockAndTake!(conn, c.key, c.id, now));
          else locked = await this.lock(conn, c.key);
        } catch (err) {
          // Closing the connection ends its session and any lock the statement took.
          await this.closeConnection(conn);
          throw err;
        }
        if (!locked) {
          spare.push(conn);
          continue;
        }
        this.own.add(c.key);
        if (!both) {
          try {
            row = await advisory.take(conn, c.id, now);
          } catch (err) {
            await this.unlockAndRelease(conn, c.key, spare);
            throw err;
          }
        }
        if (row === null) {
          // Settled by another holder between the select and the lock.
          await this.unlockAndRelease(conn, c.key, spare);
          continue;
        }
        held.push({
          row,
          id: row[ctx.table.id.column],
          attempt: attemptOf(ctx, row, ctx.table.attempt !== undefined),
          conn,
          budgeted: true,
          key: c.key,
          token: undefined,
          tx: false,
          state: 'in_work',
          slot: -1,
        });
      }
    } catch (err) {
      failure = err;
      for (const h of held) await this.closeHeld(h);
      throw err;
    } finally {
      // A session the database ended is retired, not given back to the pool.
      const retire = failure !== undefined && lostSession(ctx, failure);
      for (const conn of spare) {
        if (retire) await destroyQuietly(ctx, conn);
        else ctx.pool.release(conn);
        ctx.budget.give();
      }
    }
    return held;
  }

  async beginHandler(h: Held): Promise<void> {
    if (!this.ctx.transactional || h.conn === undefined) return;
    await this.ctx.dialect.begin(h.conn, this.ctx.begin);
    h.tx = true;
  }

  async settle(h: Held, plan: Plan): Promise<void> {
    const { ctx } = this;
    const conn = h.conn;
    if (h.state !== 'in_work' || conn === undefined) {
      // Shutdown released this delivery's lock: its row is back in the queue.
      throw new ClosedError('settle', { table: ctx.table.table, rowId: h.id });
    }
    this.to(h, 'settling');
    let failure: unknown;
    try {
      if (h.tx) {
        if (plan.kind === 'finish' && plan.outcome === 'ack') {
          const s = settlementOf(ctx, h, plan, {
            countAttempt: false,
            clearLease: false,
            inTransaction: true,
          })!;
          await runSettlement(ctx, conn, h, s, plan);
          await ctx.dialect.commit(conn);
          h.tx = false;
        } else {
          await ctx.dialect.rollback(conn);
          h.tx = false;
          await this.statement(conn, h, plan);
        }
      } else {
        // retry() runs no statement: the take counted the attempt, the release returns the row.
        await this.statement(conn, h, plan);
      }
    } catch (err) {
      failure = err;
    }
    // A failed statement still releases the lock, and the row returns as it was.
    if (h.tx) {
      try {
        await ctx.dialect.rollback(conn);
      } catch {
        // the release below closes the connection if the session is unusable
      }
      h.tx = false;
    }
    this.to(h, failure === undefined ? 'settled' : 'released');
    await this.releaseHeld(h);
    if (failure !== undefined) throw settlementError(ctx, h, failure);
  }

  async drop(h: Held): Promise<void> {
    if (h.state !== 'in_work') return;
    this.to(h, 'released');
    // Release the lock and close the connection in the background, bounded by one timeout.
    const conn = h.conn;
    h.conn = undefined;
    if (conn === undefined) return;
    const task = (async () => {
      try {
        await within(
          (async () => {
            if (h.key !== undefined) await this.unlock(conn, h.key);
            await this.ctx.pool.destroy(conn);
          })(),
          DROP_TIMEOUT_MS,
        );
      } catch (err) {
        this.ctx.logger.warn('releasing a dropped delivery timed out or failed; closing its connection', {
          table: this.ctx.table.table,
          id: h.id,
          error: err,
        });
        void destroyQuietly(this.ctx, conn);
      } finally {
        if (h.key !== undefined) this.own.delete(h.key);
        giveBack(this.ctx, h);
      }
    })();
    this.track(task);
  }

  async closeHeld(h: Held): Promise<'released' | 'closed' | 'kept'> {
    if (h.state !== 'in_work') return 'kept';
    this.to(h, 'released');
    return this.releaseHeld(h);
  }

  /** The one way this form changes a row's state: along {@link TRANSITIONS}. */
  private to(h: Held, next: HeldState): void {
    moveHeld(TRANSITIONS, this.ctx.table.table, h, next);
  }

  async stop(): Promise<void> {}

  /** Resolves when every release and close still running has ended. */
  async drained(): Promise<void> {
    while (this.closing.size > 0) await Promise.allSettled([...this.closing]);
  }

  private async statement(conn: Connection, h: Held, plan: Plan): Promise<void> {
    const s = settlementOf(this.ctx, h, plan, {
      countAttempt: false,
      clearLease: false,
      inTransaction: false,
    });
    if (s !== undefined) await runSettlement(this.ctx, conn, h, s, plan);
  }

  /** Releases the delivery's lock and returns its connection, or closes it where the release is not confirmed. */
  private async releaseHeld(h: Held): Promise<'released' | 'closed'> {
    const conn = h.conn;
    h.conn = undefined;
    if (conn === undefined) return 'released';
    const task = this.unlockAndRelease(conn, h.key!);
    this.track(task);
    const result = await task;
    giveBack(this.ctx, h);
    return result;
  }

  private async unlockAndRelease(
    conn: Connection,
    key: string,
    spare?: Connection[],
  ): Promise<'released' | 'closed'> {
    let confirmed = false;
    try {
      confirmed = await this.unlock(conn, key);
    } catch (err) {
      this.ctx.logger.warn('releasing an advisory lock failed; closing its connection', {
        table: this.ctx.table.table,
        key,
        error: err,
      });
    }
    this.own.delete(key);
    if (!confirmed) {
      await this.closeConnection(conn, spare !== undefined);
      return 'closed';
    }
    if (spare !== undefined) spare.push(conn);
    else this.ctx.pool.release(conn);
    return 'released';
  }

  /** Closes a connection; a claim's own spare connection also gives back its budget room. */
  private async closeConnection(conn: Connection, claimSpare = true): Promise<void> {
    await destroyQuietly(this.ctx, conn);
    if (claimSpare) this.ctx.budget.give();
  }

  private async extraConnection(): Promise<Connection | undefined> {
    if (!this.ctx.budget.tryTake()) return undefined;
    const conn = await this.ctx.pool.tryAcquire().catch(() => null);
    if (conn === null) {
      this.ctx.budget.give();
      return undefined;
    }
    return conn;
  }

  private lock(conn: Connection, key: string): Promise<boolean> {
    const custom = this.ctx.table.lock;
    return custom !== undefined ? custom(conn, key) : this.ctx.ops.advisory.lock(conn, key);
  }

  private unlock(conn: Connection, key: string): Promise<boolean> {
    const custom = this.ctx.table.unlock;
    return custom !== undefined ? custom(conn, key) : this.ctx.ops.advisory.unlock(conn, key);
  }

  private track(task: Promise<unknown>): void {
    this.closing.add(task);
    void task.finally(() => this.closing.delete(task)).catch(() => {});
  }
}
