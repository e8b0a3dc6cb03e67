import { processBatch } from './batch.js';
import type { Budget } from './budget.js';
import { type Codec, decodePayload, defaultCodec, validatePayload } from './codec.js';
import type { Queryable } from './description.js';
import type { Dialect, TableOps } from './dialect.js';
import type { Pool, Row } from './driver.js';
import {
  ClosedError,
  claimErrorPolicy,
  classify,
  type ErrorKind,
  HandlerError,
  LeaseLostError,
  SettlementError,
  SqlInboxError,
} from './errors.js';
import type { Events, ReleaseReason } from './events.js';
import { AdvisoryForm } from './forms/advisory.js';
import type { BatchWaiter, ClaimForm, FormContext, Held } from './forms/form.js';
import { LeaseForm } from './forms/lease.js';
import { RowLockForm } from './forms/row-lock.js';
import { RowLockBatchForm } from './forms/row-lock-batch.js';
import type { Logger } from './logger.js';
import { Outcome, outcomeOf, type Plan, planOf } from './outcome.js';
import { type Backoff, backoffDelay, DEFAULT_BACKOFF, type QueueSettings } from './queue.js';
import { RateGate } from './rate.js';
import { HeldBack, holdsBack } from './relay.js';
import { Slots } from './slots.js';

/** What a handler is given beside its message. */
export interface Context<Tx extends Queryable | undefined = Queryable | undefined> {
  /** The queue table. */
  readonly table: string;
  /** The row's id. */
  readonly id: unknown;
  /** The attempt as it stood before this delivery's claim: 1 on the first delivery. */
  readonly attempt: number;
  /** The row as the claim read it. */
  readonly row: Readonly<Row>;
  /** Fires on shutdown, on lease loss and at the handler's timeout; its reason says which. */
  readonly signal: AbortSignal;
  /** The broker's logger, its records carrying the table and the row's id. */
  readonly logger: Logger;
  /** Transactional mode: the delivery's transaction; `ack` commits what the handler wrote through it. */
  readonly tx: Tx;
  /**
   * Settles now and reports the settlement's own failure (`LeaseLostError`, `ClosedError`,
   * `SettlementError`) to the handler. Returning an outcome settles the same way, but then a
   * failure only reaches the logs and the `settlementError` event.
   */
  settle(outcome: Outcome): Promise<void>;
  /** Settles now as `Outcome.ack()`: the row is deleted, or stamped `processed_at`. */
  ack(): Promise<void>;
  /** Settles now as `Outcome.drop()`: a poisoned message, settled exactly like an ack. */
  drop(): Promise<void>;
  /** Settles now as `Outcome.retry()`: delivered again, or dead-lettered at `maxAttempts`. */
  retry(): Promise<void>;
  /** Settles now as `Outcome.retryAfter(delay)`: delivered again no earlier than `delay` (ms, or an instant). */
  retryAfter(delay: number | Date): Promise<void>;
}

/** A handler: answers an outcome, or nothing for ack; a throw is a retry. */
export type Handler<T, Tx extends Queryable | undefined = Queryable | undefined> = (
  message: T,
  ctx: Context<Tx>,
) => Promise<Outcome | undefined | void> | Outcome | undefined | void;

/** What a subscription shares with its broker. */
export interface SubscriptionHost {
  readonly dialect: Dialect;
  readonly pool: Pool;
  readonly budget: Budget;
  readonly logger: Logger;
  readonly events: Events;
  readonly leaseMs: number;
  readonly pollMs: number;
}

/**
 * One mounted queue: the pump that keeps a claim in flight per free worker within the pool
 * budget, the handlers in work, and their settlements.
 */
export class Subscription {
  readonly settings: QueueSettings;
  readonly form: ClaimForm;
  private readonly ops: TableOps;
  private readonly codec: Codec<unknown>;
  /** @internal What a delivery reads of its subscription, made once (every row reads it). */
  readonly internals: {
    readonly host: SubscriptionHost;
    readonly codec: Codec<unknown>;
    readonly handler: Handler<unknown, any>;
  };
  private readonly pollMs: number;
  /** The most claims in flight at once: 1 where the table takes one claim at a time, else the workers. */
  private readonly mostClaims: number;
  private readonly claimAhead: boolean;
  private readonly freeOnReturn: boolean;

  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private inWork = 0;
  private claims = 0;
  private claimSlots = 0;
  /**
   * Default claim ahead (lease, no `prefetch`): rows held beyond the workers. Starts at the workers
   * and doubles, up to {@link MAX_AHEAD}, each time a claim that was topping up rows
   * already held arrives after the workers ran dry: the rows ahead did not last the claim's round
   * trip at the rate the handlers drain them. It shrinks again while claims arrive with most of
   * the rows ahead still waiting (slower handlers).
   */
  private ahead = 0;
  /** Claims in a row that took rows, since the start or the last empty claim. */
  private takingClaims = 0;
  /** Rows whose handler returned and whose settlement has not ended (their worker is free). */
  private settling = 0;
  /** Claimed rows waiting for a free worker (or their lane). */
  private waiting: Held[] = [];
  private laneBusy: boolean[] = [];
  /** After an empty claim: claim one at a time, once per poll interval, until a claim takes a row. */
  private idle = false;
  /**
   * Claims that may run at once: one after a claim that took fewer rows than it asked for (the
   * table ran dry, or other claims had the rest) or failed, and after the first claim that took
   * rows again; doubling with each further claim that took all it asked for, up to
   * {@link mostClaims}. A
   * backlog fans out to every free worker within a few claims; a trickle of rows costs about one
   * empty claim per row, not one per free worker.
   */
  private fanOut = 1;
  /** Claims in a row, as they ended, that took all the rows they asked for. */
  private fullClaims = 0;
  private lastEmpty = 0;
  private woken = false;
  private pauseUntil = 0;
  private claimErrors = 0;
  private waiters: (() => void)[] = [];
  /** Deliveries whose handler runs, each in its `slot` (not a `Set`: see {@link Slots}). */
  readonly deliveries = new Slots<Delivery>();
  /** A relay's records left by a retry, passed over until the relay starts again. */
  readonly heldBack: HeldBack | undefined;
  /** Rows this subscription passes over for a while: a backoff without a `retry_after` column, a failure's pause. */
  readonly passOver: PassOver;
  /** The table's rate limit: each claim first reserves its rows from the window in the database. */
  private readonly rate: RateGate | undefined;

  constructor(
    private readonly host: SubscriptionHost,
    settings: QueueSettings,
    handler: Handler<unknown, any>,
  ) {
    this.settings = settings;
    const t = settings.table;
    this.heldBack = settings.relay ? new HeldBack() : undefined;
    // One set of ids every claim passes over: a relay's held-back records and the rows passed over.
    this.passOver = new PassOver(this.heldBack);
    this.ops = host.dialect.prepare(t, { deadLetter: settings.deadLetter, exclude: this.passOver.ids });
    this.codec = settings.codec ?? defaultCodec(t.payload?.type ?? 'json');
    this.internals = { host, codec: this.codec, handler };
    this.pollMs = settings.pollMs ?? host.pollMs;
    const caps = host.dialect.capabilities;
    const oneClaimAtATime =
      caps.oneClaimAtATime ||
      t.group !== undefined ||
      t.partitionKey !== undefined ||
      (t.form === 'lease' && caps.oneLeaseClaimAtATime);
    this.mostClaims = oneClaimAtATime ? 1 : Math.max(1, settings.workers);
    this.claimAhead =
      t.form === 'lease' && caps.claimAhead && !settings.transactional && settings.batch === undefined;
    this.ahead = settings.workers;
    // A lease row whose handler returned no longer needs its worker while its ack settles (batched
    // with others): the worker takes the next row at once. Lanes keep theirs until the row settles.
    this.freeOnReturn = this.claimAhead && settings.lanes === undefined;
    this.laneBusy = Array.from({ length: settings.lanes ?? 0 }, () => false);
    this.rate =
      t.rateLimit === undefined ? undefined : new RateGate(t.rateLimit, this.ops, host.pool, host.logger);
    const ctx: FormContext = {
      table: t,
      dialect: host.dialect,
      ops: this.ops,
      pool: host.pool,
      budget: host.budget,
      logger: host.logger,
      transactional: settings.transactional,
      begin: { isolation: t.isolation, mode: t.mode },
      deadLetter: settings.deadLetter,
      leaseMs: settings.leaseMs ?? host.leaseMs,
      now: () => (t.clock === 'database' ? null : new Date()),
    };
    this.form =
      t.form === 'rowlock'
        ? settings.batch !== undefined
          ? new RowLockBatchForm(ctx)
          : new RowLockForm(ctx)
        : t.form === 'lease'
          ? new LeaseForm(
              ctx,
              (h, err) => this.leaseLost(h, err),
              (count) => host.events.emit('leaseExtended', { table: t.table, count }),
            )
          : new AdvisoryForm(ctx);
  }

  get table(): string {
    return this.settings.table.table;
  }

  /** Starts claiming. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.announce();
    this.loopDone = this.loop().catch((err) => {
      this.host.logger.error('subscription stopped on an unexpected error', {
        table: this.table,
        error: err,
      });
    });
  }

  /** Says at start what a setting will do that the user may not expect. */
  private announce(): void {
    const { logger, budget, pool } = this.host;
    const s = this.settings;
    if (s.maxAttempts === undefined && !s.relay) {
      logger.warn(
        'failures retry without limit: no maxAttempts is set, so a message that always fails is retried forever',
        {
          table: this.table,
          backoff: s.backoff === false ? 'immediate' : (s.backoff ?? DEFAULT_BACKOFF),
        },
      );
    }
    // Row lock and advisory deliveries (and transactional ones) each hold a connection.
    const holdsConnection = this.form.form !== 'lease' || s.transactional;
    if (holdsConnection && s.batch === undefined && s.workers > budget.limit) {
      logger.warn(
        `workers(${s.workers}) on ${this.table}: at most ${budget.limit} handlers run at once, since each delivery holds a connection and the pool of ${pool.size} keeps one for claims`,
        { table: this.table, workers: s.workers, running: budget.limit, poolSize: pool.size },
      );
    }
  }

  /** Claims now instead of at the next poll (a publish, a notification). */
  wake(): void {
    this.woken = true;
    this.notify();
  }

  /**
   * Stops claiming and waits for the claims in flight. Rows claimed but not yet handed to a
   * handler go back to the queue at once. The deliveries in work keep their hold: leases
   * are still extended until {@link stopExtending}.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await this.loopDone;
    while (this.claims > 0) await this.changed();
    const waiting = this.waiting;
    this.waiting = [];
    await Promise.all(waiting.map((h) => this.release(h, 'stopped')));
  }

  /** Stops extending the leases of the deliveries still in work (the broker shut down). */
  async stopExtending(): Promise<void> {
    if (this.form instanceof LeaseForm) await this.form.stop();
  }

  /** Deliveries still in work, for shutdown. */
  inFlight(): Delivery[] {
    return this.deliveries.values();
  }

  private async loop(): Promise<void> {
    let yielded = Date.now();
    while (this.running) {
      const wait = this.step();
      if (wait !== undefined) await wait;
      // A driver whose statements answer through promises alone never leaves the microtask queue:
      // let timers and I/O run at least every 20 ms, whatever fails or succeeds.
      if (Date.now() - yielded >= 20) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        yielded = Date.now();
      }
    }
  }

  /** One step of the pump: start a claim, or answer what to wait for. */
  private step(): Promise<unknown> | undefined {
    const now = Date.now();
    if (this.pauseUntil > now) return this.changedOr(this.pauseUntil - now, false);
    const size = this.claimSize();
    if (size <= 0) return this.changed();
    // Idle (the last claim took nothing), the fan-out is 1: one claim at a time.
    if (this.claims >= this.fanOut) return this.changed();
    if (this.idle && !this.woken) {
      const due = this.lastEmpty + this.pollMs - now;
      if (due > 0) return this.changedOr(due, true);
    }
    this.passOver.purge(now);
    if (!this.host.budget.tryTakeForClaim()) {
      return Promise.race([this.host.budget.whenChanged(), this.changed()]);
    }
    this.woken = false;
    this.startClaim(size);
    return undefined;
  }

  /** Rows the next claim may take: one per free worker. */
  private claimSize(): number {
    const { workers, transactional, claimBatch, batch } = this.settings;
    // A batch subscription: one claim per free worker, each claim a batch of rows.
    if (batch !== undefined) return this.inWork + this.claims < workers ? batch : 0;
    const queued = this.inWork + this.waiting.length + this.claimSlots;
    let size: number;
    let most = claimBatch ?? workers;
    if (this.claimAhead) {
      // Up to workers + ahead rows held, the rows beyond the free workers waiting in the lease book
      //. prefetch(n) fixes ahead at n and claims once fewer than max(workers, n) are
      // held; by default ahead follows the drain rate (see `ahead`) and a claim waits until fewer
      // than max(workers, ahead / 2) are held, so each claim tops up at least half of it.
      const fixed = this.settings.prefetch;
      const ahead = fixed ?? this.ahead;
      if (queued >= Math.max(workers, fixed ?? Math.ceil(ahead / 2))) return 0;
      // Settlements slower than claims: no more rows until the acks catch up.
      if (this.settling >= 2 * (workers + ahead)) return 0;
      size = workers + ahead - queued;
      most = claimBatch ?? workers + ahead;
    } else {
      size = workers - queued;
    }
    if (size <= 0) return 0;
    if (this.form.form === 'rowlock' || transactional) return 1;
    return Math.min(size, most);
  }

  private startClaim(size: number): void {
    this.claims++;
    this.claimSlots += size;
    // A claim topping up rows already held (not the first after the start or an empty claim).
    const toppingUp = this.takingClaims > 0;
    const done = () => {
      this.claims--;
      this.claimSlots -= size;
      this.host.budget.claimDone();
    };
    this.claimWithinRate(size).then(
      (held) => {
        done();
        this.claimErrors = 0;
        // The window is used up: the pump sleeps until it ends (pauseUntil), not idle.
        if (held === RATE_LIMITED) {
          this.notify();
          return;
        }
        // The first full claim after a thin one may have taken the only row: the next one goes alone.
        this.fullClaims = held.length >= size ? this.fullClaims + 1 : 0;
        this.fanOut = this.fullClaims >= 2 ? Math.min(this.fanOut * 2, this.mostClaims) : 1;
        if (held.length === 0) {
          this.idle = true;
          this.lastEmpty = Date.now();
          this.takingClaims = 0;
        } else {
          this.idle = false;
          this.takingClaims++;
          if (toppingUp) this.adjustAhead(held.length >= size);
        }
        const batch: Held[] = [];
        const claimedWanted = this.host.events.wants('claimed');
        for (const h of held) {
          // A claim that ran while a retry settled may still find the record: it waits for the next start.
          if (this.heldBack?.has(h.id)) {
            void this.form.drop(h, true);
            continue;
          }
          if (claimedWanted)
            this.host.events.emit('claimed', { table: this.table, id: h.id, attempt: h.attempt });
          // Stopped meanwhile: stop() gives the row back, and waits for that.
          if (!this.running) this.waiting.push(h);
          else if (this.settings.batch === undefined) this.dispatch(h);
          else batch.push(h);
        }
        if (batch.length > 0) this.runBatch(batch);
        this.notify();
      },
      (err: unknown) => {
        done();
        this.claimErrors++;
        this.fanOut = 1;
        this.fullClaims = 0;
        // The dialect's classification decides the pause: a deadlock or a serialization
        // failure claims again soon; the database out of reach backs off, doubling, at most 30 s.
        // The form has retired a connection whose session failed (see the forms' claim).
        const kind = classify(this.host.dialect, err);
        const policy = claimErrorPolicy(kind, this.claimErrors, this.pollMs);
        this.pauseUntil = Date.now() + policy.delayMs;
        this.host.logger[policy.level]('claim failed', {
          table: this.table,
          kind,
          error: err,
          retryInMs: policy.delayMs,
        });
        this.host.events.emit('claimError', {
          table: this.table,
          error: err,
          kind,
          retryInMs: policy.delayMs,
        });
        this.notify();
      },
    );
  }

  /**
   * Claims through the table's rate limit where it has one: reserves up to `size` deliveries from
   * the current window, claims at most that many, and gives back what the claim did not take.
   * An empty grant claims nothing and pauses the pump until the window ends: a limited queue
   * waits without a statement. The budget room the caller took goes back as a claim's would.
   */
  private async claimWithinRate(size: number): Promise<Held[] | typeof RATE_LIMITED> {
    const rate = this.rate;
    if (rate === undefined) return this.form.claim(size);
    let grant: Awaited<ReturnType<RateGate['reserve']>>;
    try {
      grant = await rate.reserve(size);
    } catch (err) {
      this.host.budget.give();
      throw err;
    }
    if (grant.granted <= 0) {
      this.host.budget.give();
      // A few milliseconds past the window's end, so the next reservation meets the new window.
      this.pauseUntil = Math.max(this.pauseUntil, Date.now() + Math.max(1, grant.waitMs) + 2);
      return RATE_LIMITED;
    }
    let held: Held[];
    try {
      held = await this.form.claim(grant.granted);
    } catch (err) {
      await rate.giveBack(grant, 0);
      throw err;
    }
    if (held.length < grant.granted) await rate.giveBack(grant, held.length);
    return held;
  }

  /**
   * Sizes the default claim ahead from what the claim found on its return: workers idle with no
   * row waiting means the rows ahead ran out before the claim came back, so the next claims take
   * twice as many ahead (only after a claim that took all it asked for: a table running dry is no
   * reason to hold more); most of them still waiting means the handlers drain slower than the
   * claims come back, so fewer are held.
   */
  private adjustAhead(full: boolean): void {
    if (!this.claimAhead || this.settings.prefetch !== undefined) return;
    const { workers } = this.settings;
    if (full && this.waiting.length === 0 && this.inWork < workers) {
      this.ahead = Math.min(Math.max(MAX_AHEAD, workers), this.ahead * 2);
    } else if (this.waiting.length * 2 > this.ahead) {
      this.ahead = Math.max(workers, Math.floor((this.ahead * 3) / 4));
    }
  }

  private dispatch(h: Held): void {
    this.waiting.push(h);
    this.pump();
  }

  /** Hands waiting rows to free workers (or free lanes, keeping each lane's claim order). */
  private pump(): void {
    if (!this.running) return; // stopped: no handler starts; stop() releases the rows waiting
    const lanes = this.settings.lanes;
    if (lanes === undefined) {
      while (this.waiting.length > 0 && this.inWork < this.settings.workers)
        this.run(this.waiting.shift()!, -1);
      return;
    }
    for (let i = 0; i < this.waiting.length; ) {
      const h = this.waiting[i]!;
      const lane = laneOf(h.row[this.settings.table.partitionKey!], lanes);
      if (
        !this.laneBusy[lane] &&
        !this.waiting
          .slice(0, i)
          .some((w) => laneOf(w.row[this.settings.table.partitionKey!], lanes) === lane)
      ) {
        this.waiting.splice(i, 1);
        this.run(h, lane);
      } else {
        i++;
      }
    }
  }

  private run(h: Held, lane: number): void {
    this.inWork++;
    if (lane >= 0) this.laneBusy[lane] = true;
    const d = new Delivery(this, h, lane);
    d.slot = this.deliveries.add(d);
    d.process();
  }

  /** A delivery's handler returned (lease form, claim ahead): its worker is free before it settles. */
  returned(d: Delivery): void {
    if (!this.freeOnReturn) return;
    d.early = true;
    this.settling++;
    this.free(d);
  }

  /** A delivery ended, settled or not (it says so itself, once). */
  ended(d: Delivery): void {
    this.deliveries.delete(d.slot, d);
    if (d.early) {
      this.settling--;
      this.notify();
    }
    this.free(d);
  }

  /** Frees the delivery's worker (and lane), once. */
  private free(d: Delivery): void {
    if (d.freed) return;
    d.freed = true;
    this.inWork--;
    if (d.lane >= 0) this.laneBusy[d.lane] = false;
    this.pump();
    this.notify();
  }

  /** Drops a claimed row unsettled, back to the queue as its form says, and tells `released` listeners. */
  async release(h: Held, reason: ReleaseReason): Promise<void> {
    const wasInWork = h.state === 'in_work';
    await this.form.drop(h, reason === 'stopped');
    if (wasInWork && h.state === 'released')
      this.host.events.emit('released', { table: this.table, id: h.id, attempt: h.attempt, reason });
  }

  /** A batch subscription's claim: one handler call for its rows, one worker. */
  private runBatch(held: Held[]): void {
    this.inWork++;
    const batch = held.map((h) => new Delivery(this, h));
    for (const d of batch) d.slot = this.deliveries.add(d);
    void processBatch(this, batch).finally(() => {
      for (const d of batch) this.deliveries.delete(d.slot, d);
      this.inWork--;
      this.notify();
    });
  }

  private leaseLost(h: Held, err: LeaseLostError): void {
    this.host.logger.warn('lease lost', { table: this.table, id: h.id });
    this.host.events.emit('leaseLost', { table: this.table, id: h.id, attempt: h.attempt });
    const i = this.waiting.indexOf(h);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      this.notify();
    }
    for (const d of this.deliveries.values()) if (d.held === h) d.abort(err);
  }

  // --- what the delivery needs ---------------------------------------------------------------

  /**
   * The delay before a row whose handler threw is delivered again: the queue's backoff at this
   * attempt, or 0 where the queue asked for the immediate retry (and for a relay, which holds the
   * record back until its next start instead).
   */
  backoffMs(attempt: number): number {
    const b = this.settings.backoff;
    if (b === false || this.settings.relay) return 0;
    return backoffDelay(b ?? DEFAULT_BACKOFF, attempt);
  }

  /**
   * The pause after a failure of the engine's own (a payload that cannot be decoded, a settlement
   * or a delivery transaction that fails): the queue's backoff, or the default one where the queue
   * retries thrown errors at once, since these fail the same way again.
   */
  failureMs(attempt: number): number {
    const b: Backoff = this.settings.backoff || DEFAULT_BACKOFF;
    return backoffDelay(b, attempt);
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private changedOr(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        if (!wakeable && this.running && !this.woken) return; // still paused
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * A handler's context: one object per delivery, its settling members made only when read (most
 * handlers return an outcome and read none), each a function of its own so that
 * `const { ack } = ctx` works.
 */
class DeliveryContext implements Context {
  readonly id: unknown;
  readonly attempt: number;
  readonly row: Readonly<Row>;

  constructor(
    private readonly delivery: Delivery,
    readonly table: string,
    readonly logger: Logger,
    readonly tx: Queryable | undefined,
  ) {
    this.id = delivery.held.id;
    this.attempt = delivery.held.attempt;
    this.row = delivery.held.row;
  }

  get signal(): AbortSignal {
    return this.delivery.signal;
  }

  get settle(): (outcome: Outcome) => Promise<void> {
    return (o) => this.delivery.settle(o);
  }

  get ack(): () => Promise<void> {
    return () => this.delivery.settle(Outcome.ack());
  }

  get drop(): () => Promise<void> {
    return () => this.delivery.settle(Outcome.drop());
  }

  get retry(): () => Promise<void> {
    return () => this.delivery.settle(Outcome.retry());
  }

  get retryAfter(): (delay: number | Date) => Promise<void> {
    return (d) => this.delivery.settle(Outcome.retryAfter(d));
  }
}

/** Whether a handler's result is a promise (or any thenable) to wait for. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null | undefined)?.then === 'function';
}

/** A row's decoded payload, or why it could not be decoded. */
type Decoded = { message: unknown } | { error: unknown };

/** What {@link Subscription} claims answer when the rate limit's window is used up. */
const RATE_LIMITED = Symbol('rate limited');

/** The default claim ahead grows to this many rows beyond the workers at most. */
const MAX_AHEAD = 500;

function laneOf(key: unknown, lanes: number): number {
  // FNV-1a over the key's text: stable across processes, so replicas agree on lanes.
  const s = String(key ?? '');
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % lanes;
}

/** One claimed row on its way through its handler to its settlement. */
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
  /** The outcome a settlement that joined the form's batched statement applies (see {@link batchSettled}). */
  private batchedAs: 'ack' | 'drop' | undefined;

  constructor(
    private readonly sub: Subscription,
    readonly held: Held,
    /** The `workersByKey` lane it runs in, -1 for none. */
    readonly lane = -1,
  ) {}

  abort(reason: unknown): void {
    if (this.aborted !== undefined) return;
    this.aborted = { reason };
    this.controller?.abort(reason);
  }

  /** The delivery's abort signal: fires on shutdown, on lease loss and at the handler's timeout. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted !== undefined) this.controller.abort(this.aborted.reason);
    }
    return this.controller.signal;
  }

  /**
   * Decode, run the handler, settle by its outcome, then tell the subscription the delivery ended.
   * Never throws. The common delivery (no schema, no transaction, no timeout) runs through plain
   * callbacks, not an async function, and its ack joins the form's batched statement with no
   * promise of its own: one delivery's frame and microtasks are what every row costs, and what a
   * row waiting on the batch keeps alive.
   */
  process(): void {
    const decoding = this.decode();
    const s = this.sub.settings;
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
      result = this.sub.internals.handler(decoding.message, this.context());
    } catch (err) {
      this.ends(this.failed(err));
      return;
    }
    if (isThenable(result)) {
      Promise.resolve(result).then(
        (r) => this.ends(this.returned(r)),
        (err: unknown) => this.ends(this.failed(err)),
      );
      return;
    }
    this.ends(this.returned(result));
  }

  /** The delivery ends once `settling` has; undefined: a batched settlement ends it (see {@link batchSettled}). */
  private ends(settling: Promise<void> | undefined): void {
    if (settling === undefined) return;
    const end = () => this.sub.ended(this);
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
    this.sub.returned(this);
    if (this.settlement === undefined && this.joinBatch(outcome.kind)) return undefined;
    return this.finish(outcome);
  }

  /**
   * An ack or a drop the handler returned, where the form batches it (see
   * {@link ClaimForm.settleBatched}): it settles as {@link settle} would, heard by
   * {@link batchSettled}.
   */
  private joinBatch(kind: Outcome['kind']): boolean {
    const form = this.sub.form;
    if (form.settleBatched === undefined || (kind !== 'ack' && kind !== 'drop')) return false;
    if (!form.settleBatched(this.held, kind === 'ack' ? ACK : DROP, this)) return false;
    this.batchedAs = kind;
    this.settlement = BATCHED;
    return true;
  }

  /** The end of a settlement that joined the form's batched statement: as {@link apply} and {@link finish} tell it. */
  batchSettled(error: Error | undefined): void {
    const kind = this.batchedAs!;
    if (error === undefined) {
      this.applied(kind === 'ack' ? ACK : DROP, kind);
    } else {
      if (!(error instanceof LeaseLostError) && !(error instanceof ClosedError))
        this.sub.passOver.add(this.held.id, this.sub.failureMs(this.held.attempt));
      this.report(error);
    }
    this.sub.ended(this);
  }

  /** {@link process} with every step: a schema, a delivery transaction, a timeout. */
  private async processInFull(decoding: Decoded | Promise<Decoded>): Promise<void> {
    const { host, handler } = this.sub.internals;
    const s = this.sub.settings;
    const t = s.table;
    const h = this.held;
    const decoded = decoding instanceof Promise ? await decoding : decoding;
    if ('error' in decoded) return this.settleUndecodable(decoded.error);
    const message = decoded.message;
    try {
      // Only a transactional delivery opens anything here.
      if (h.conn !== undefined) await this.sub.form.beginHandler(h);
    } catch (err) {
      // The row returns, but this subscription passes it over a while: a transaction that will not
      // open fails the same way at once.
      const pauseMs = this.sub.failureMs(h.attempt);
      host.logger.warn('opening the delivery transaction failed; the row returns', {
        table: t.table,
        id: h.id,
        kind: classify(host.dialect, err),
        error: err,
        retryInMs: pauseMs,
      });
      this.sub.passOver.add(h.id, pauseMs);
      await this.sub.release(h, 'beginFailed');
      return;
    }
    let outcome: Outcome;
    const timeout = s.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      const run = Promise.resolve(handler(message, this.context()));
      const result =
        timeout === undefined
          ? await run
          : await Promise.race([
              run,
              new Promise<typeof TIMED_OUT>((resolve) => {
                timer = setTimeout(() => resolve(TIMED_OUT), timeout);
              }),
            ]);
      if (result === TIMED_OUT) {
        host.logger.warn('handler timed out; its delivery is dropped and the row returns', {
          table: t.table,
          id: h.id,
          timeoutMs: timeout,
        });
        this.abort(new SqlInboxError('TIMEOUT', `handler of ${t.table} row ${String(h.id)} timed out`));
        this.sub.heldBack?.add(h.id);
        await this.dropUnsettled('timeout');
        return;
      }
      outcome = outcomeOf(result);
    } catch (err) {
      clearTimeout(timer);
      await this.failed(err);
      return;
    } finally {
      clearTimeout(timer);
    }
    this.sub.returned(this);
    await this.finish(outcome);
  }

  /**
   * The handler threw: a retry, counted, logged with the row id, after the queue's
   * backoff; a thrown non-Error is wrapped in a `HandlerError`. Never throws.
   */
  async failed(thrown: unknown): Promise<void> {
    const { host } = this.sub.internals;
    const h = this.held;
    const err = thrown instanceof Error ? thrown : new HandlerError(this.sub.table, h.id, thrown);
    // A handler that threw because shutdown aborted it did not fail its message: no backoff.
    const shutDown = this.aborted?.reason instanceof ClosedError;
    const backoffMs = this.settled || shutDown ? 0 : this.sub.backoffMs(h.attempt);
    host.logger.warn('handler failed; retrying', {
      table: this.sub.table,
      id: h.id,
      attempt: h.attempt,
      error: err,
      ...(backoffMs > 0 ? { retryInMs: Math.round(backoffMs) } : {}),
    });
    this.failure = err;
    await this.finish(Outcome.retry(), backoffMs);
  }

  /**
   * Decodes the row's payload; a failure answers the error for {@link settleUndecodable}. Without
   * a schema it answers at once, not through a promise (one less microtask per row).
   */
  decode(): Decoded | Promise<Decoded> {
    const { codec } = this.sub.internals;
    const s = this.sub.settings;
    const t = s.table;
    let value: unknown;
    try {
      value = decodePayload(t, this.held.row, this.held.id, codec);
    } catch (error) {
      return { error };
    }
    if (s.schema === undefined) return { message: value };
    return validatePayload(t, this.held.id, value, s.schema).then(
      (message) => ({ message }),
      (error: unknown) => ({ error }),
    );
  }

  /** A payload that cannot be decoded never reaches the handler and is never deleted. */
  async settleUndecodable(err: unknown): Promise<void> {
    const { host } = this.sub.internals;
    const s = this.sub.settings;
    const t = s.table;
    const h = this.held;
    host.logger.error('payload cannot be decoded', { table: t.table, id: h.id, error: err });
    this.failure = err;
    if (s.deadLetter !== undefined) {
      this.settlement = this.apply({ kind: 'deadLetter', outcome: 'retry' }, 'retry');
      await this.settlement.catch((e) => this.report(e));
      return;
    }
    // Retried like a failed handler, but never at once: it would fail the same way in a hot loop.
    // The delay lives where a thrown error's does (retry_after, the lease, or this subscription
    // passing the row over), so the rows behind it are claimed meanwhile.
    this.settlement = this.apply(this.plan(Outcome.retry(), this.sub.failureMs(h.attempt)), 'retry');
    await this.settlement.catch((e) => this.report(e));
  }

  /**
   * Settles by the handler's outcome unless the handler settled already; never throws.
   * `backoffMs` delays a retry (a thrown error's backoff).
   */
  finish(outcome: Outcome, backoffMs = 0): Promise<void> {
    if (this.settlement !== undefined) {
      // Settled through ctx: the handler was told of a failure; the listeners are told here.
      const { host } = this.sub.internals;
      const h = this.held;
      return this.settlement.catch((e) =>
        host.events.emit('settlementError', {
          table: this.sub.settings.table.table,
          id: h.id,
          attempt: h.attempt,
          error: e,
          kind: kindOf(host.dialect, e),
        }),
      );
    }
    return this.settle(outcome, backoffMs).catch((e) => this.report(e));
  }

  /** Whether the handler (or its outcome) has settled or dropped this delivery. */
  get settled(): boolean {
    return this.settlement !== undefined;
  }

  /** Drops the delivery unless it settled already: its row returns as the form says. */
  async dropUnsettled(reason: ReleaseReason): Promise<void> {
    this.settlement ??= this.sub.release(this.held, reason);
    await this.settlement.catch(() => {});
  }

  /** Settles once; a second call fails. `backoffMs` delays a retry (a thrown error's backoff). */
  settle(outcome: Outcome, backoffMs = 0): Promise<void> {
    if (this.settlement !== undefined) {
      return Promise.reject(
        new SqlInboxError(
          'ALREADY_SETTLED',
          `row ${String(this.held.id)} of ${this.sub.table} is already settled`,
          {
            table: this.sub.table,
            rowId: this.held.id,
          },
        ),
      );
    }
    this.settlement = this.apply(this.plan(outcome, backoffMs), outcome.kind);
    return this.settlement;
  }

  private plan(outcome: Outcome, backoffMs = 0): Plan {
    const { host } = this.sub.internals;
    const t = this.sub.settings.table;
    return planOf(
      outcome,
      this.held.attempt,
      {
        maxAttempts: this.sub.settings.maxAttempts,
        hasRetryAfter: t.retryAfter !== undefined,
        now: Date.now(),
        backoffMs,
      },
      (msg) => host.logger.warn(msg, { table: t.table, id: this.held.id }),
    );
  }

  private apply(plan: Plan, outcome: Outcome['kind']): Promise<void> {
    // Held back before the settlement returns the record, so no claim of this run takes it again.
    if (holdsBack(plan)) this.sub.heldBack?.add(this.held.id);
    // A delay with no retry_after column to hold it: row lock and advisory rows are passed over by
    // this subscription (the lease form keeps the lease instead), from before the row returns.
    if (plan.kind === 'return' && plan.retryAfter === undefined && (plan.backoffMs ?? 0) > 0)
      if (this.sub.form.form !== 'lease') this.sub.passOver.add(this.held.id, plan.backoffMs!);
    let settling: Promise<void>;
    try {
      settling = this.sub.form.settle(this.held, plan);
    } catch (err) {
      settling = Promise.reject(err);
    }
    return settling.then(
      () => this.applied(plan, outcome),
      (err: unknown) => {
        // A settlement that failed never re-delivers at once: the row is passed over a
        // while (a lease row keeps its lease until it runs out anyway). Not where the row is lost
        // to another claim, nor where shutdown released it.
        if (!(err instanceof LeaseLostError) && !(err instanceof ClosedError))
          this.sub.passOver.add(this.held.id, this.sub.failureMs(this.held.attempt));
        throw err;
      },
    );
  }

  /** Tells the listeners of a settlement that committed. */
  private applied(plan: Plan, outcome: Outcome['kind']): void {
    const { host } = this.sub.internals;
    const t = this.sub.settings.table.table;
    if (host.events.wants('settled'))
      host.events.emit('settled', {
        table: t,
        id: this.held.id,
        outcome,
        plan: plan.kind,
        attempt: this.held.attempt,
        durationMs: Date.now() - this.started,
        ...(this.failure === undefined ? {} : { error: this.failure }),
      });
    if (plan.kind === 'deadLetter')
      host.events.emit('deadLettered', { table: t, id: this.held.id, attempt: this.held.attempt });
  }

  private report(err: unknown): void {
    const { host } = this.sub.internals;
    const kind = kindOf(host.dialect, err);
    const level = err instanceof LeaseLostError ? 'warn' : 'error';
    host.logger[level]('settlement failed', { table: this.sub.table, id: this.held.id, kind, error: err });
    host.events.emit('settlementError', {
      table: this.sub.table,
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
    return new DeliveryContext(this, this.sub.table, this.sub.internals.host.logger, tx);
  }

  private txConn() {
    const conn = this.held.conn;
    if (conn === undefined || !this.held.tx) {
      throw new SqlInboxError(
        'TX_CLOSED',
        `the transaction of ${this.sub.table} row ${String(this.held.id)} has ended`,
        {
          table: this.sub.table,
          rowId: this.held.id,
        },
      );
    }
    return conn;
  }
}

const TIMED_OUT: unique symbol = Symbol('timed out');

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

/**
 * Ids a subscription passes over until an instant each (a backoff on a table without a
 * `retry_after` column, a relay's held-back records). `ids` is the set its claims read (the dialect binds them at each statement);
 * a relay's held-back records share it and stay in it.
 */
export class PassOver {
  readonly ids: Set<unknown>;
  private readonly until = new Map<string, { id: unknown; until: number }>();

  constructor(private readonly heldBack: HeldBack | undefined) {
    this.ids = heldBack?.ids ?? new Set<unknown>();
  }

  /** Passes the row over for `ms` from now (a later end wins). */
  add(id: unknown, ms: number): void {
    if (!(ms > 0)) return;
    const k = keyOf(id);
    const end = Date.now() + ms;
    const had = this.until.get(k);
    if (had !== undefined && had.until >= end) return;
    if (had === undefined && this.heldBack?.has(id)) return;
    this.until.set(k, { id: had?.id ?? id, until: end });
    this.ids.add(had?.id ?? id);
  }

  /** Drops the ids whose time has come. */
  purge(now: number): void {
    if (this.until.size === 0) return;
    for (const [k, e] of this.until) {
      if (e.until > now) continue;
      this.until.delete(k);
      if (!this.heldBack?.has(e.id)) this.ids.delete(e.id);
    }
  }
}

function keyOf(id: unknown): string {
  return typeof id === 'object' && id !== null ? JSON.stringify(id) : String(id);
}
