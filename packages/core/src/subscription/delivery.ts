import { type Codec, decodePayload, validatePayload } from '../codec.js';
import type { Queryable } from '../description.js';
import type { Dialect } from '../dialect.js';
import {
  type CancelledError,
  ClosedError,
  classify,
  type ErrorKind,
  HandlerError,
  LeaseLostError,
  SettlementError,
  SqlInboxError,
} from '../errors.js';
import type { Events, ReleaseReason } from '../events.js';
import { ExpiredError, expiredAt } from '../expiry.js';
import type { BatchWaiter, ClaimForm, Held } from '../forms/form.js';
import type { Logger } from '../logger.js';
import { failureOf, Outcome, outcomeOf, type Plan, planOf } from '../outcome.js';
import { type Backoff, backoffDelay, DEFAULT_BACKOFF, type QueueSettings } from '../queue.js';
import { type HeldBack, holdsBack } from '../relay.js';
import { encodeResult } from '../result.js';
import { StepError } from '../steps-table.js';
import type { Cancels } from './cancels.js';
import { DeliveryContext } from './context.js';
import { logFailure, timeoutError } from './failure-log.js';
import type { Context, Handler } from './handler.js';
import type { PassOver } from './pass-over.js';
import { DeliverySteps, type StepsKeeper } from './steps.js';
import { raceTimeout, TIMED_OUT } from './timeout.js';

/**
 * What a delivery reads of the subscription that made it, made once per subscription: its
 * settings, the form that settles its row, and who hears that its worker is free and that it ended.
 */
export interface DeliveryHost {
  readonly settings: QueueSettings;
  readonly dialect: Dialect;
  readonly logger: Logger;
  readonly events: Events;
  readonly codec: Codec<unknown>;
  readonly handler: Handler<unknown, any>;
  readonly form: ClaimForm;
  /** Rows passed over a while after a failure or a backoff with no `retry_after` column. */
  readonly passOver: PassOver;
  /** A relay's records left by a retry, passed over until the relay starts again. */
  readonly heldBack: HeldBack | undefined;
  /** The cancels the control table records, where the table declares one (see `cancels.ts`). */
  readonly cancels?: Cancels | undefined;
  /** The steps table's statements, where the table declares one (see `steps.ts`). */
  readonly steps?: StepsKeeper | undefined;
  /** The handler returned: where its worker need not wait for the settlement, it is free now. */
  returned(d: Delivery): void;
  /** The delivery ended, settled or not (each delivery says so once). */
  ended(d: Delivery): void;
}

/**
 * The delay before a row whose handler threw is delivered again: the queue's backoff at this
 * attempt, or 0 where the queue asked for the immediate retry (and for a relay, which holds the
 * record back until its next start instead).
 */
export function backoffMs(settings: QueueSettings, attempt: number): number {
  const b = settings.backoff;
  if (b === false || settings.relay) return 0;
  return backoffDelay(b ?? DEFAULT_BACKOFF, attempt);
}

/**
 * The pause after a failure of the engine's own (a payload that cannot be decoded, a settlement
 * or a delivery transaction that fails): the queue's backoff, or the default one where the queue
 * retries thrown errors at once, since these fail the same way again.
 */
export function failureMs(settings: QueueSettings, attempt: number): number {
  const b: Backoff = settings.backoff || DEFAULT_BACKOFF;
  return backoffDelay(b, attempt);
}

/** Drops a claimed row unsettled, back to the queue as its form says, and tells `released` listeners. */
export async function release(
  form: ClaimForm,
  events: Events,
  table: string,
  h: Held,
  reason: ReleaseReason,
): Promise<void> {
  const wasInWork = h.state === 'in_work';
  await form.drop(h, reason === 'stopped' || reason === 'paused');
  if (wasInWork && h.state === 'released')
    events.emit('released', { table, id: h.id, attempt: h.attempt, reason });
}

/** Whether a handler's result is a promise (or any thenable) to wait for. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null | undefined)?.then === 'function';
}

/** A row's decoded payload, or why it could not be decoded. */
export type Decoded = { message: unknown } | { error: unknown };

/**
 * One claimed row on its way through its handler to its settlement.
 *
 * A settlement takes one road, {@link submit}: where the handler returned an ack or a drop and
 * the form batches it, the row joins the form's batched statement and hears its end through
 * {@link batchSettled}; otherwise the form settles it with a promise of its own. Both ends meet
 * in {@link settledBy}.
 */
export class Delivery implements BatchWaiter {
  /** Made when the handler first reads `ctx.signal`: most handlers never do, and a signal is not free. */
  private controller: AbortController | undefined;
  private aborted: { reason: unknown } | undefined;
  private settlement: Promise<void> | undefined;
  private readonly started = Date.now();
  /** The handler's thrown error or the payload's decode error, for the `settled` event. */
  private failure: unknown;
  /** Set when the broker released this delivery at shutdown. */
  closed = false;
  /** Its worker was freed when the handler returned, before the settlement (lease form). */
  early = false;
  /** Its worker (and lane) are free again. */
  freed = false;
  /** Its slot among the subscription's deliveries in work. */
  slot = -1;
  /** A cancel of its row, noticed before it settled: whatever the handler answers, the row settles as cancelled. */
  private cancelled: { err: CancelledError; inWork: boolean } | undefined;
  /** The plan a settlement that joined the form's batched statement applies (see {@link batchSettled}). */
  private batchedAs: Plan | undefined;
  /** Its durable steps, made at the first `ctx.step` (or where its settlement deletes the row's). */
  private stepsOf: DeliverySteps | undefined;
  /** The handler ran past its timeout: its `ctx.tx` is closed to it before the row settles. */
  private fenced = false;
  /** The failure's log line said dead-lettering already: the plan says nothing more. */
  private limitLogged = false;

  constructor(
    private readonly host: DeliveryHost,
    readonly held: Held,
    /** The `workersByKey` lane it runs in, -1 for none. */
    readonly lane = -1,
  ) {}

  private get table(): string {
    return this.host.settings.table.table;
  }

  /** Whether the table has a column of the failure record a failure writes. */
  private get keepsRecord(): boolean {
    const t = this.host.settings.table;
    return t.lastError !== undefined || t.errorClass !== undefined || t.failedAt !== undefined;
  }

  /** `ctx.step(name, fn)`: the value kept for `name`, or `fn`'s, kept (see `steps.ts`). */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    // A record written after the final settlement would outlive its row.
    if (this.settlement !== undefined)
      return Promise.reject(
        new StepError(this.table, this.held.id, name, 'its delivery has settled already'),
      );
    return this.steps().run(name, fn);
  }

  private steps(): DeliverySteps {
    this.stepsOf ??= new DeliverySteps(this.host.steps, this.table, this.held);
    return this.stepsOf;
  }

  abort(reason: unknown): void {
    if (this.aborted !== undefined) return;
    this.aborted = { reason };
    this.controller?.abort(reason);
  }

  /**
   * Its row was cancelled while its handler runs (see `cancels.ts`): the signal aborts with `err`,
   * and the settlement, whatever the handler answers, is the cancellation. Too late once settled.
   */
  cancel(err: CancelledError): void {
    if (this.cancelled !== undefined || this.settlement !== undefined) return;
    this.cancelled = { err, inWork: true };
    this.abort(err);
  }

  /** The delivery's abort signal: fires on shutdown, on lease loss, at the handler's timeout and on a cancel. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted !== undefined) this.controller.abort(this.aborted.reason);
    }
    return this.controller.signal;
  }

  /**
   * Decode, run the handler, settle by its outcome, then tell the host the delivery ended.
   * Never throws. The common delivery (no schema, no transaction, no timeout) runs through plain
   * callbacks, not an async function, and its ack joins the form's batched statement with no
   * promise of its own: one delivery's frame and microtasks are what every row costs, and what a
   * row waiting on the batch keeps alive.
   */
  process(): void {
    const deadline = this.expiredSince();
    if (deadline !== undefined) {
      this.ends(this.settleExpired(deadline));
      return;
    }
    const cancelled = this.cancelledBeforeStart();
    if (cancelled !== undefined) {
      this.ends(cancelled);
      return;
    }
    const decoding = this.decode();
    const s = this.host.settings;
    // A held connection needs the full path only to open the handler's transaction (transactional
    // mode): a row lock or advisory delivery otherwise runs its handler here too.
    if (
      decoding instanceof Promise ||
      (s.transactional && this.held.conn !== undefined) ||
      s.timeoutMs !== undefined
    ) {
      this.ends(this.processInFull(decoding));
      return;
    }
    if ('error' in decoding) {
      this.ends(this.settleUndecodable(decoding.error));
      return;
    }
    let result: unknown;
    try {
      result = this.call(decoding.message);
    } catch (err) {
      this.ends(this.threw(err));
      return;
    }
    if (isThenable(result)) {
      Promise.resolve(result).then(
        (r) => this.ends(this.returned(r)),
        (err: unknown) => this.ends(this.threw(err)),
      );
      return;
    }
    this.ends(this.returned(result));
  }

  /**
   * A row whose cancel is recorded before its handler starts (its broker died, or it came back)
   * never runs: its settlement as cancelled, else undefined. Single and batch deliveries alike.
   */
  cancelledBeforeStart(): Promise<void> | undefined {
    const cancel = this.host.cancels?.errorOf(this.held.id);
    if (cancel === undefined) return undefined;
    this.cancelled = { err: cancel, inWork: false };
    return this.finish(Outcome.drop());
  }

  /** Calls the handler, inside the broker's handler hooks where it has any (`broker.aroundHandler`). */
  private call(message: unknown): unknown {
    const { handler, events } = this.host;
    const ctx = this.context();
    return events.hooked ? events.handle(ctx, () => handler(message, ctx)) : handler(message, ctx);
  }

  /** The delivery ends once `settling` has; undefined: a batched settlement ends it (see {@link batchSettled}). */
  private ends(settling: Promise<void> | undefined): void {
    if (settling === undefined) return;
    const end = () => this.host.ended(this);
    settling.then(end, end);
  }

  /**
   * The handler returned `result`: its outcome settles the delivery. Answers undefined where the
   * settlement joined the form's batched statement.
   */
  private returned(result: unknown): Promise<void> | undefined {
    let outcome: Outcome;
    try {
      outcome = outcomeOf(result);
    } catch (err) {
      return this.failed(err);
    }
    this.host.returned(this);
    const kind = outcome.kind;
    // An ack with a result takes a statement of its own: the batched one carries no value per row.
    if (
      this.settlement === undefined &&
      (kind === 'drop' || (kind === 'ack' && outcome.result === undefined))
    ) {
      // An ack or a drop may join the form's batched statement (see ClaimForm.settleBatched).
      const settling = this.submit(kind === 'ack' ? ACK : DROP, kind, true);
      if (settling === undefined) return undefined;
      this.settlement = settling;
      return settling.catch((e) => this.report(e));
    }
    return this.finish(outcome);
  }

  /**
   * The handler threw (or its promise rejected): it has ended as a return ends, so its worker is
   * free before the retry settles where the form lets it (lease form: the retry joins the form's
   * batched statement as an ack does), then {@link failed}.
   */
  private threw(err: unknown): Promise<void> {
    this.host.returned(this);
    return this.failed(err);
  }

  /** The end of a settlement that joined the form's batched statement, heard from the form. */
  batchSettled(error: Error | undefined): void {
    const plan = this.batchedAs!;
    this.settledBy(plan, plan.outcome, error);
    if (error !== undefined) this.report(error);
    this.host.ended(this);
  }

  /** {@link process} with every step: a schema, a delivery transaction, a timeout. */
  private async processInFull(decoding: Decoded | Promise<Decoded>): Promise<void> {
    const { host } = this;
    const s = host.settings;
    const h = this.held;
    const decoded = decoding instanceof Promise ? await decoding : decoding;
    if ('error' in decoded) return this.settleUndecodable(decoded.error);
    const message = decoded.message;
    try {
      // Only a transactional delivery opens anything here.
      if (h.conn !== undefined) await host.form.beginHandler(h);
    } catch (err) {
      // The row returns, but this subscription passes it over a while: a transaction that will not
      // open fails the same way at once.
      const pauseMs = failureMs(s, h.attempt);
      host.logger.warn('opening the delivery transaction failed; the row returns', {
        table: this.table,
        id: h.id,
        kind: classify(host.dialect, err),
        error: err,
        retryInMs: pauseMs,
      });
      host.passOver.add(h.id, pauseMs);
      await release(host.form, host.events, this.table, h, 'beginFailed');
      return;
    }
    let outcome: Outcome;
    const timeout = s.timeoutMs;
    try {
      const result = await raceTimeout(() => this.call(message), timeout);
      if (result === TIMED_OUT) {
        // A failure like a throw: backoff, the failure record, the dead letter at the limit.
        const err = timeoutError(this.table, h.id, timeout!);
        this.abort(err);
        // Closed before the settlement: the handler's statements sent so far run first on the
        // connection, and the retry's rollback to the savepoint undoes them; later ones fail.
        this.fenced = true;
        await this.failed(err);
        return;
      }
      outcome = outcomeOf(result);
    } catch (err) {
      await this.failed(err);
      return;
    }
    host.returned(this);
    await this.finish(outcome);
  }

  /**
   * The handler threw: a retry, counted, logged with the row id, after the queue's
   * backoff; a thrown non-Error is wrapped in a `HandlerError`. Never throws.
   */
  async failed(thrown: unknown): Promise<void> {
    const h = this.held;
    const err = thrown instanceof Error ? thrown : new HandlerError(this.table, h.id, thrown);
    // A handler that threw because shutdown aborted it did not fail its message: no backoff.
    const shutDown = this.aborted?.reason instanceof ClosedError;
    const delay = this.settled || shutDown ? 0 : backoffMs(this.host.settings, h.attempt);
    // One line, with the outcome it leads to: retrying, or dead-lettering at the limit.
    if (this.cancelled === undefined)
      this.limitLogged = logFailure(this.host.logger, this.host.settings, h, err, {
        settled: this.settled,
        delay,
      });
    this.failure = err;
    await this.finish(Outcome.retry(), delay);
  }

  /**
   * Decodes the row's payload; a failure answers the error for {@link settleUndecodable}. Without
   * a schema it answers at once, not through a promise (one less microtask per row).
   */
  decode(): Decoded | Promise<Decoded> {
    const s = this.host.settings;
    const t = s.table;
    let value: unknown;
    try {
      value = decodePayload(t, this.held.row, this.held.id, this.host.codec);
    } catch (error) {
      return { error };
    }
    if (s.schema === undefined) return { message: value };
    return validatePayload(t, this.held.id, value, s.schema).then(
      (message) => ({ message }),
      (error: unknown) => ({ error }),
    );
  }

  /** The row's deadline where it has passed now (see `expiry.ts`), else undefined. */
  expiredSince(): Date | undefined {
    const t = this.host.settings.table;
    return t.expiresAt === undefined ? undefined : expiredAt(t, this.held.row);
  }

  /** A row past its deadline never reaches the handler: to the dead letter, else dropped. Never throws. */
  async settleExpired(deadline: Date): Promise<void> {
    const s = this.host.settings;
    const h = this.held;
    const deadLettered = s.deadLetter !== undefined;
    this.failure = new ExpiredError(this.table, h.id, deadline);
    const plan: Plan = deadLettered
      ? { kind: 'deadLetter', outcome: 'retry' }
      : { kind: 'finish', outcome: 'drop' };
    this.settlement = this.submit(plan, 'drop', false)!;
    try {
      await this.settlement;
    } catch (e) {
      this.report(e);
      return;
    }
    this.host.logger.info(`row expired before it started: ${deadLettered ? 'dead-lettered' : 'dropped'}`, {
      table: this.table,
      id: h.id,
      deadline,
    });
    this.host.events.emit('expired', {
      table: this.table,
      id: h.id,
      attempt: h.attempt,
      deadline,
      deadLettered,
    });
  }

  /** A payload that cannot be decoded never reaches the handler and is never deleted. */
  async settleUndecodable(err: unknown): Promise<void> {
    const s = this.host.settings;
    const h = this.held;
    this.host.logger.error('payload cannot be decoded', { table: this.table, id: h.id, error: err });
    this.failure = err;
    // Retried like a failed handler, but never at once: it would fail the same way in a hot loop.
    // The delay lives where a thrown error's does (retry_after, the lease, or this subscription
    // passing the row over), so the rows behind it are claimed meanwhile.
    const plan: Plan =
      s.deadLetter !== undefined
        ? { kind: 'deadLetter', outcome: 'retry' }
        : this.plan(Outcome.retry(), failureMs(s, h.attempt));
    this.settlement = this.submit(plan, 'retry', false)!;
    await this.settlement.catch((e) => this.report(e));
  }

  /**
   * Settles by the handler's outcome unless the handler settled already; never throws.
   * `backoffMs` delays a retry (a thrown error's backoff); `failure`, the error a batch handler
   * threw, is the row's failure record.
   */
  finish(outcome: Outcome, delay = 0, failure?: unknown): Promise<void> {
    if (failure !== undefined) this.failure ??= failure;
    if (this.settlement !== undefined) {
      // Settled through ctx: the handler was told of a failure; the listeners are told here.
      const { host } = this;
      const h = this.held;
      return this.settlement.catch((e) =>
        host.events.emit('settlementError', {
          table: this.table,
          id: h.id,
          attempt: h.attempt,
          error: e,
          kind: kindOf(host.dialect, e),
        }),
      );
    }
    // A result that cannot be encoded settled nothing: it fails the delivery as a throw would.
    return this.settle(outcome, delay).catch((e) =>
      this.settlement === undefined ? this.failed(e) : this.report(e),
    );
  }

  /** Whether the handler (or its outcome) has settled or dropped this delivery. */
  get settled(): boolean {
    return this.settlement !== undefined;
  }

  /** Drops the delivery unless it settled already: its row returns as the form says. */
  async dropUnsettled(reason: ReleaseReason): Promise<void> {
    const { host } = this;
    this.settlement ??= release(host.form, host.events, this.table, this.held, reason);
    await this.settlement.catch(() => {});
  }

  /** Settles once; a second call fails. `delay` delays a retry (a thrown error's backoff). */
  settle(outcome: Outcome, delay = 0): Promise<void> {
    if (this.settlement !== undefined) {
      return Promise.reject(
        new SqlInboxError(
          'ALREADY_SETTLED',
          `row ${String(this.held.id)} of ${this.table} is already settled`,
          {
            table: this.table,
            rowId: this.held.id,
          },
        ),
      );
    }
    let plan: Plan;
    try {
      plan = this.plan(outcome, delay);
    } catch (err) {
      // An ack whose result cannot be encoded: nothing settled, the handler may settle otherwise.
      return Promise.reject(err);
    }
    this.settlement = this.submit(plan, outcome.kind, false)!;
    return this.settlement;
  }

  private plan(outcome: Outcome, delay = 0): Plan {
    if (outcome.kind === 'ack') return outcome.result === undefined ? ACK : this.resultPlan(outcome.result);
    if (outcome.kind === 'drop') return DROP;
    const s = this.host.settings;
    return planOf(
      outcome,
      this.held.attempt,
      {
        maxAttempts: s.maxAttempts,
        hasRetryAfter: s.table.retryAfter !== undefined,
        now: Date.now(),
        backoffMs: delay,
      },
      (msg) => {
        if (!this.limitLogged) this.host.logger.warn(msg, { table: this.table, id: this.held.id });
      },
    );
  }

  /** An ack with a result: encoded for the result column, or a plain ack (warned once) where the table has none. */
  private resultPlan(value: unknown): Plan {
    const s = this.host.settings;
    if (s.table.result === undefined) {
      if (!unkept.has(s)) {
        unkept.add(s);
        this.host.logger.warn('a handler acked with a value, but the table has no result column: not kept', {
          table: this.table,
          id: this.held.id,
        });
      }
      return ACK;
    }
    return { kind: 'finish', outcome: 'ack', result: encodeResult(this.table, value) };
  }

  /**
   * The one road of every settlement to the form. `batched`: the plan (an ack or a drop the
   * handler returned) may join the form's batched statement; then it answers undefined and
   * {@link batchSettled} hears the end. Else the form's own settlement, whose promise it answers.
   */
  private submit(given: Plan, outcome: Outcome['kind'], batched: boolean): Promise<void> | undefined {
    const { form, heldBack, passOver } = this.host;
    const h = this.held;
    // A cancelled row leaves as an expired one does: its dead letter, else dropped; never retried.
    const cancelled = this.cancelled !== undefined;
    if (cancelled) this.failure = this.cancelled!.err;
    const chosen: Plan = !cancelled
      ? given
      : this.host.settings.deadLetter !== undefined
        ? { kind: 'deadLetter', outcome: 'retry' }
        : DROP;
    // The failure record, where the table keeps one: written by the settlement statement itself.
    const plan: Plan =
      chosen.kind === 'finish' || this.failure === undefined || !this.keepsRecord
        ? chosen
        : { ...chosen, failure: failureOf(this.failure) };
    // A final settlement deletes the row's step records: in an ack's transaction, else after it.
    const dropSteps =
      plan.kind !== 'return' && this.host.steps !== undefined && (this.stepsOf?.used || h.attempt > 1);
    const stepsInTx = dropSteps && plan.kind === 'finish' && plan.outcome === 'ack' && h.tx;
    if (batched && !cancelled && !dropSteps && form.settleBatched?.(h, plan, this)) {
      this.batchedAs = plan;
      this.settlement = BATCHED;
      return undefined;
    }
    // Held back before the settlement returns the record, so no claim of this run takes it again.
    if (holdsBack(plan)) heldBack?.add(h.id);
    // A delay with no retry_after column to hold it: row lock and advisory rows are passed over by
    // this subscription (the lease form keeps the lease instead), from before the row returns.
    if (plan.kind === 'return' && plan.retryAfter === undefined && (plan.backoffMs ?? 0) > 0)
      if (form.form !== 'lease') passOver.add(h.id, plan.backoffMs!);
    let settling: Promise<void>;
    try {
      // Settled even where the delete failed: the form ends the transaction either way.
      const go = () => form.settle(h, plan);
      settling = stepsInTx ? this.steps().dropInTx().then(go, go) : go();
    } catch (err) {
      settling = Promise.reject(err);
    }
    return settling.then(
      () => {
        this.settledBy(plan, outcome, undefined);
        if (dropSteps && !stepsInTx) return this.steps().dropAfter();
      },
      (err: unknown) => {
        this.settledBy(plan, outcome, err);
        throw err;
      },
    );
  }

  /**
   * Where every settlement ends. Committed: the listeners hear it. Failed: the row is never
   * delivered again at once but passed over a while (a lease row keeps its lease until it runs
   * out anyway); not where the row is lost to another claim, nor where shutdown released it.
   */
  private settledBy(plan: Plan, outcome: Outcome['kind'], error: unknown): void {
    const { host } = this;
    const h = this.held;
    if (error !== undefined) {
      if (!(error instanceof LeaseLostError) && !(error instanceof ClosedError))
        host.passOver.add(h.id, failureMs(host.settings, h.attempt));
      return;
    }
    if (host.events.wants('settled'))
      host.events.emit('settled', {
        table: this.table,
        id: h.id,
        outcome,
        plan: plan.kind,
        attempt: h.attempt,
        durationMs: Date.now() - this.started,
        ...(this.failure === undefined ? {} : { error: this.failure }),
      });
    if (plan.kind === 'deadLetter')
      host.events.emit('deadLettered', { table: this.table, id: h.id, attempt: h.attempt });
    const c = this.cancelled;
    if (c !== undefined) host.cancels?.settled(h, c.err, plan.kind === 'deadLetter', c.inWork);
  }

  private report(err: unknown): void {
    const { host } = this;
    const kind = kindOf(host.dialect, err);
    const level = err instanceof LeaseLostError ? 'warn' : 'error';
    host.logger[level]('settlement failed', { table: this.table, id: this.held.id, kind, error: err });
    host.events.emit('settlementError', {
      table: this.table,
      id: this.held.id,
      attempt: this.held.attempt,
      error: err,
      kind,
    });
  }

  /** The handler's context for this delivery. */
  context(): Context {
    const h = this.held;
    const tx: Queryable | undefined =
      h.tx && h.conn !== undefined
        ? { query: (sql, params) => this.txConn().query(sql, params) as never }
        : undefined;
    return new DeliveryContext(this, this.table, this.host.logger, tx);
  }

  private txConn() {
    const conn = this.held.conn;
    if (conn === undefined || !this.held.tx || this.fenced) {
      throw new SqlInboxError(
        'TX_CLOSED',
        `the transaction of ${this.table} row ${String(this.held.id)} has ended`,
        {
          table: this.table,
          rowId: this.held.id,
        },
      );
    }
    return conn;
  }
}

/** The subscriptions already warned that their table keeps no result. */
const unkept = new WeakSet<QueueSettings>();

/** The plans of an ack and a drop, the same for every row. */
const ACK: Plan = { kind: 'finish', outcome: 'ack' };
const DROP: Plan = { kind: 'finish', outcome: 'drop' };

/**
 * A delivery's settlement once it joined the form's batched statement: there is no promise of the
 * row's own to wait for, and a second settle still fails as already settled.
 */
const BATCHED: Promise<void> = Promise.resolve();

/** A settlement failure's kind: the one the form classified, else the dialect's classification. */
function kindOf(dialect: Dialect, err: unknown): ErrorKind {
  return err instanceof SettlementError ? err.kind : classify(dialect, err);
}
