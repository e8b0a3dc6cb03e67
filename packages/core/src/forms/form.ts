import type { Budget } from '../budget.js';
import type { AnyTable, CustomStatement, Form } from '../description.js';
import type {
  BeginOptions,
  DeadLetterTarget,
  Dialect,
  FailureRecord,
  Settlement,
  TableOps,
} from '../dialect.js';
import type { Connection, Pool, Row } from '../driver.js';
import { classify, type ErrorKind, SettlementError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Plan } from '../outcome.js';

/**
 * The life of one claimed row, as the seeds name it:
 * `in_work` (claimed, its handler may run) -> `settling` (its statement runs) -> `settled`;
 * or `released` (dropped unsettled, or released by shutdown: back in the queue);
 * or `lost` (lease form: another claim holds it now).
 */
export type HeldState = 'in_work' | 'settling' | 'settled' | 'released' | 'lost';

/**
 * The moves a form lets its rows make: from each state, the states it may go to. A state with no
 * entry is final.
 */
export type Transitions = Readonly<Partial<Record<HeldState, readonly HeldState[]>>>;

/**
 * Moves a row to `to` along a form's `transitions`: the one way a row's state changes. A move the
 * form does not list is a bug in the form, and throws.
 */
export function moveHeld(transitions: Transitions, table: string, h: Held, to: HeldState): void {
  if (transitions[h.state]?.includes(to) !== true) {
    throw new Error(`sqlinbox: a row of ${table} cannot move from ${h.state} to ${to} (row ${String(h.id)})`);
  }
  h.state = to;
}

/** Hears the end of a settlement that joined a batched statement. */
export interface BatchWaiter {
  /**
   * The settlement ended: `error` undefined where the row settled, else why not (`LeaseLostError`,
   * `SettlementError`), exactly as {@link ClaimForm.settle} would have thrown it.
   */
  batchSettled(error: Error | undefined): void;
}

/** A claimed row and what holds it. */
export interface Held {
  /**
   * The row as the claim read it. A lease row whose ack joined a batched statement lets go of it
   * (an empty row): nothing reads it after, and hundreds of rows wait on each batch.
   */
  row: Row;
  readonly id: unknown;
  /** The deliveries of the row started so far, this one included: 1 on the first, in every form. */
  readonly attempt: number;
  /** The connection the delivery holds: row lock and advisory forms, and transactional mode. */
  conn: Connection | undefined;
  /** Whether `conn` counts against the pool budget. */
  budgeted: boolean;
  /** Advisory form: the row's key, locked on `conn`. */
  readonly key: string | undefined;
  /** Lease form: the expiry the row holds, which is the delivery's ownership token. */
  token: Date | undefined;
  /** Whether a delivery transaction (transactional mode) is open on `conn`. */
  tx: boolean;
  state: HeldState;
  /** Lease form: the row's slot in the subscription's lease book while it is there, else -1. */
  slot: number;
}

/** What every form is given by its subscription. */
export interface FormContext {
  readonly table: AnyTable;
  readonly dialect: Dialect;
  readonly ops: TableOps;
  readonly pool: Pool;
  readonly budget: Budget;
  readonly logger: Logger;
  readonly transactional: boolean;
  /** The table's isolation level and SQLite mode, for every transaction a form opens. */
  readonly begin: BeginOptions;
  readonly deadLetter: DeadLetterTarget | undefined;
  /** Lease length in milliseconds (whole seconds). */
  readonly leaseMs: number;
  /** The host's instant, or null where the table reads the database clock. */
  now(): Date | null;
}

/** The state machine of one claim form. */
export interface ClaimForm {
  readonly form: Form;
  /**
   * Claims up to `n` rows. The caller has taken one connection's room in the budget for it
   * (`tryTakeForClaim`); the form gives that room back or hands it to a delivery.
   */
  claim(n: number): Promise<Held[]>;
  /** Opens the delivery's transaction in transactional mode (a no-op otherwise). */
  beginHandler(h: Held): Promise<void>;
  /** Applies a plan; throws `LeaseLostError`, `SettlementError` or `ClosedError`. */
  settle(h: Held, plan: Plan): Promise<void>;
  /**
   * {@link settle} without a promise of the row's own, where the form can: it answers false (and
   * does nothing) where it cannot, else the settlement joins the form's next batched statement and
   * `waiter` hears its end. A backlog settles through here, so the only thing a row waiting on the
   * batch keeps alive is its waiter.
   */
  settleBatched?(h: Held, plan: Plan, waiter: BatchWaiter): boolean;
  /**
   * A delivery dropped unsettled: its row goes back to the queue as the form says. `undelivered`:
   * no handler saw the row (released at stop), so an attempt the claim counted is taken back.
   */
  drop(h: Held, undelivered?: boolean): Promise<void>;
  /**
   * Shutdown: what the broker does to a delivery still in work when it closes. Answers what
   * became of a lock (advisory form) for the count that `shutdown()` returns.
   */
  closeHeld(h: Held): Promise<'released' | 'closed' | 'kept'>;
  /**
   * Shutdown: stops what the form does in the background for the rows it holds (the lease form
   * extends leases: no extension statement is sent once this resolves). A no-op in the other forms.
   */
  stop(): Promise<void>;
  /**
   * Resolves once every release and close the form runs in the background has ended (the
   * advisory form lets go of a dropped delivery's lock so). At once in the other forms.
   */
  drained(): Promise<void>;
}

/**
 * The attempt a delivery reports: the deliveries of the row started so far, this one included (1
 * on the first). The lease claim and the advisory take have counted it in the row they answer
 * (`counted`); the row lock form counts it at its settlement, so its claim reads one less.
 */
export function attemptOf(ctx: FormContext, row: Row, counted: boolean): number {
  const col = ctx.table.attempt?.column;
  if (col === undefined) return 1;
  const v = Number(row[col]);
  if (!Number.isFinite(v)) return 1;
  return Math.max(1, counted ? v : v + 1);
}

/**
 * Runs the outcome's custom statement where the description gives one, else the dialect's. A
 * custom statement is given the ack's value as the result column keeps it (`result`); where it
 * ended a row of a table that keeps results (an ack or a drop that changed the row), the dialect's
 * result notification follows on the same connection (delivered at the commit where a transaction
 * is open), since the dialect's own statement would have sent it.
 */
export async function runSettlement(
  ctx: FormContext,
  conn: Connection,
  h: Held,
  s: Settlement,
  plan: Plan,
): Promise<number> {
  const custom: CustomStatement | undefined =
    plan.kind === 'deadLetter' ? undefined : ctx.table.custom[plan.outcome];
  if (custom !== undefined) {
    const changed = await custom(conn, {
      table: ctx.table.table,
      id: h.id,
      row: h.row,
      token: h.token,
      retryAfter: plan.kind === 'return' ? plan.retryAfter : undefined,
      result: s.kind === 'finish' ? s.result : undefined,
    });
    if (plan.kind === 'finish' && changed > 0 && ctx.table.result !== undefined)
      await ctx.ops.notifyResult?.(conn, h.id);
    return changed;
  }
  return ctx.ops.settle(conn, s);
}

/** The settlement statement of a plan, before form-specific fields. */
export function settlementOf(
  ctx: FormContext,
  h: Held,
  plan: Plan,
  opts: { countAttempt: boolean; clearLease: boolean; inTransaction: boolean },
): Settlement | undefined {
  const now = instant();
  switch (plan.kind) {
    case 'finish': {
      // The row lock form counts the delivery in the statement that stamps the row.
      const counted = opts.countAttempt && ctx.table.attempt !== undefined ? COUNTED : {};
      // An ack is what every row settles by: no object beyond the settlement itself.
      if (plan.result !== undefined)
        return { kind: 'finish', id: h.id, now, ...tokenOf(h), result: plan.result, ...counted };
      return h.token === undefined
        ? { kind: 'finish', id: h.id, now, ...counted }
        : { kind: 'finish', id: h.id, now, token: h.token };
    }
    case 'deadLetter':
      if (ctx.deadLetter === undefined) return undefined;
      return {
        kind: 'deadLetter',
        id: h.id,
        now,
        target: ctx.deadLetter,
        inTransaction: opts.inTransaction,
        ...tokenOf(h),
        ...failureOf(plan),
        ...(opts.countAttempt && ctx.table.attempt !== undefined ? COUNTED : {}),
      };
    case 'return': {
      const countAttempt = opts.countAttempt && ctx.table.attempt !== undefined;
      const retryAfter = plan.retryAfter === undefined ? {} : { retryAfter: plan.retryAfter };
      // A failure is written where the table keeps the record, even with nothing else to write.
      const record = plan.failure !== undefined && recordsFailures(ctx.table);
      if (!countAttempt && !opts.clearLease && plan.retryAfter === undefined && !record) return undefined;
      return {
        kind: 'return',
        id: h.id,
        now,
        countAttempt,
        clearLease: opts.clearLease,
        ...retryAfter,
        ...tokenOf(h),
        ...(record ? failureOf(plan) : {}),
      };
    }
  }
}

/** A settlement's mark that it counts the delivery (row lock form). */
const COUNTED = { countAttempt: true } as const;

/** The plan's failure as a settlement carries it, where it has one. */
function failureOf(plan: Plan): { failure?: FailureRecord } {
  return plan.kind === 'finish' || plan.failure === undefined ? {} : { failure: plan.failure };
}

/** Whether the table has a column of the failure record that a failure writes. */
export function recordsFailures(t: AnyTable): boolean {
  return t.lastError !== undefined || t.errorClass !== undefined || t.failedAt !== undefined;
}

/** The lease's token as a settlement carries it, where the row has one. */
function tokenOf(h: Held): { token?: Date } {
  return h.token === undefined ? {} : { token: h.token };
}

let lastInstant = new Date(0);

/**
 * Now, as a `Date` shared by every settlement made within the same millisecond: the acks of a
 * backlog are made hundreds to the millisecond, and each waits on its batched statement. Never
 * mutated.
 */
function instant(): Date {
  const ms = Date.now();
  if (lastInstant.getTime() !== ms) lastInstant = new Date(ms);
  return lastInstant;
}

/** A failed settlement statement, typed with the dialect's classification of its error. */
export function settlementError(ctx: FormContext, h: Held, err: unknown): SettlementError {
  return new SettlementError(ctx.table.table, h.id, err, classify(ctx.dialect, err));
}

/** Whether the dialect says the error lost the connection's session: the connection is then retired. */
export function lostSession(ctx: FormContext, err: unknown): boolean {
  const kind: ErrorKind = classify(ctx.dialect, err);
  return kind === 'connection' || kind === 'shutdown';
}

/** Rolls back and returns a connection to the pool; destroys it where the rollback fails. */
export async function rollbackAndRelease(ctx: FormContext, conn: Connection): Promise<'released' | 'closed'> {
  try {
    await ctx.dialect.rollback(conn);
  } catch (err) {
    ctx.logger.warn('rollback failed; closing the connection', { table: ctx.table.table, error: err });
    await destroyQuietly(ctx, conn);
    return 'closed';
  }
  ctx.pool.release(conn);
  return 'released';
}

/** Closes a connection, logging (not throwing) a failure: the server ends the session either way. */
export async function destroyQuietly(ctx: FormContext, conn: Connection): Promise<void> {
  try {
    await ctx.pool.destroy(conn);
  } catch (err) {
    ctx.logger.debug('closing a connection failed', { table: ctx.table.table, error: err });
  }
}

/**
 * Runs `fn` on a connection of the pool: released when `fn` resolves, closed when it throws (the
 * connection may be dead, or inside a transaction the statement opened), never returned unconfirmed.
 */
export async function withConnection<T>(ctx: FormContext, fn: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await ctx.pool.acquire();
  let result: T;
  try {
    result = await fn(conn);
  } catch (err) {
    await destroyQuietly(ctx, conn);
    throw err;
  }
  ctx.pool.release(conn);
  return result;
}

/** Gives back the budget room a held connection took. */
export function giveBack(ctx: FormContext, h: Held): void {
  if (h.budgeted) {
    h.budgeted = false;
    ctx.budget.give();
  }
}

/** Rejects after `ms`; used to bound a release-and-close. */
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
