import { Bounds } from './bound.js';
import { brokerCancel, brokerStats, type CancelOptions, type CancelReport } from './broker-admin.js';
import { Budget } from './budget.js';
import { CONTROL_READ_MS, type PausedState, type PauseScope, readPaused, setPaused } from './control.js';
import { type Deferred, deferred } from './deferred.js';
import type { Form, IsolationLevel, PayloadOf, Queryable, TableDescription } from './description.js';
import type { Adapter, DeadLetterTarget, Dialect, QueueStats } from './dialect.js';
import type { Pool } from './driver.js';
import { type Duration, durationMs, leaseMs } from './duration.js';
import { ClosedError, ConfigError } from './errors.js';
import { type EventMap, type EventName, Events, type HandlerHook } from './events.js';
import { FlowPruner } from './flows/prune.js';
import { Listeners } from './listeners.js';
import { consoleLogger, type Logger } from './logger.js';
import { Pruner } from './prune.js';
import { Publisher, type PublishOptionsFor } from './publish.js';
import { Queue, type QueueFlags, ThreadQueue } from './queue.js';
import { relaySettings } from './relay.js';
import type { ResultOf, ResultWaitOptions } from './result.js';
import { ResultWaits } from './result-wait.js';
import {
  type MountedSchedule,
  type ScheduleOptions,
  type SchedulePayload,
  type SchedulePayloadFor,
  ScheduleRunner,
  scheduleSettings,
} from './schedule.js';
import { type StartOptions, StartupChecks } from './startup.js';
import type { BatchHandler, Handler } from './subscription/handler.js';
import { Subscription } from './subscription.js';
import { checkConnectionLimit, type ThreadDemand, ThreadPool } from './threads.js';
import { runTransaction } from './transaction.js';

/** A broker's settings. */
export interface BrokerOptions {
  /**
   * Lease length for every lease subscription that sets none (default 30 s; whole seconds, rounded
   * up; zero or less is a `ConfigError`).
   */
  readonly lease?: Duration;
  /**
   * Wait after an empty claim before the next one (default 1 s; more than zero). A publish or
   * notification wakes it sooner.
   */
  readonly pollInterval?: Duration;
  /** Where sqlinbox logs (default: warnings and errors to stderr). */
  readonly logger?: Logger;
  /** How long `shutdown()` waits for handlers in work before it releases them (default 30 s; 0: not at all). */
  readonly shutdownTimeout?: Duration;
  /**
   * The longest any statement the engine runs may take (default 30 s; more than zero): a claim, a
   * settlement, a lease extension, a commit, a publish that took its own connection. One still
   * running then (a server that stopped answering, a lock another session holds, a commit waiting
   * for a standby that left) fails with a `StatementTimeoutError`, is logged as a warning and
   * emitted as the `statementTimeout` event, and its connection is closed, never lent again; the
   * rows it held come back as their form says, and the workers go on. A subscription may set its
   * own (`queue(t).statementTimeout(d)`). Your own statements (`ctx.tx`, `broker.transaction`)
   * are not bounded by it. SQLite's statements run in this process and are not bounded by it:
   * none waits on a server, and a writer waits for the others at most the adapter's `writeWaitMs`.
   */
  readonly statementTimeout?: Duration;
  /**
   * The most connections this service may open (default: no limit): the service pool, the
   * adapter's wake-up listener where it has one (PostgreSQL: 1), and, over the subscriptions on
   * threads, threads x connections. A subscription that would pass
   * it does not start: `subscribe` throws a ConfigError naming the table and the numbers.
   */
  readonly connectionLimit?: number;
  /**
   * How often each subscription of a table with a control table reads it (pauses, resumes,
   * cancels), default 1 s (more than zero). On PostgreSQL a control write also notifies every
   * broker listening, which reads at once, so this read is the fallback for a lost notification
   * (or where no listener runs, as behind PgBouncer's transaction pooling).
   */
  readonly controlPollInterval?: Duration;
}

/** What `shutdown()` resolves to. */
export interface ClosedBroker {
  /** Advisory locks released with their connection back in the pool. */
  readonly locksReleased: number;
  /** Connections that held a lock (or a transaction) and were closed instead. */
  readonly connectionsClosed: number;
  /** Connections the handler threads' own pools closed (only where a subscription runs on threads). */
  readonly threadConnectionsClosed?: number;
}

/** Where a broker stands: not started, starting, running, shutting down, or shut down. */
export type BrokerState = 'new' | 'starting' | 'running' | 'closing' | 'closed';
type State = BrokerState;

/**
 * Owns an adapter (dialect and pool), mounts subscriptions, publishes, wakes subscriptions and
 * shuts down. `F` and `I` are the forms and isolation levels the adapter's database takes: a table
 * description outside them does not type-check at `subscribe`.
 */
export class Broker<F extends Form = Form, I extends IsolationLevel = IsolationLevel> {
  private readonly adapter: Adapter<F, I>;
  private readonly budget: Budget;
  private readonly events: Events;
  private readonly logger: Logger;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly controlMs: number;
  private readonly shutdownMs: number;
  private readonly statementMs: number;
  private readonly subscriptions: Subscription[] = [];
  private readonly schedules: ScheduleRunner[] = [];
  private readonly scheduleReady = new Map<ScheduleRunner, Deferred>();
  /** One retention pruner per table with a retention that a subscription of this broker claims. */
  private readonly pruners = new Map<string, Pruner>();
  private readonly publisher: Publisher;
  /** The start-up checks: the database reached, the server and each subscription's tables. */
  private readonly checks: StartupChecks;
  private state: State = 'new';
  /** The wake-up listeners: new rows, control writes; and the `result()` waits, woken by settlements. */
  private readonly listeners: Listeners;
  private readonly waits: ResultWaits;
  private readonly connectionLimit: number | undefined;
  private readonly threadPools = new Map<Subscription, { pool: ThreadPool; demand: ThreadDemand }>();
  /** The `start()` in flight, which `shutdown()` waits for. */
  private starting: Promise<void> | undefined;
  /** Subscriptions mounted after `start()` whose start-up still runs. */
  private readonly startingOne = new Set<Promise<void>>();
  /** The `ready` of each subscription mounted before `start()`, settled by start's outcome. */
  private readonly readyBeforeStart = new Map<Subscription, Deferred>();
  private closing: Promise<ClosedBroker> | undefined;

  constructor(adapter: Adapter<F, I>, options: BrokerOptions = {}) {
    this.adapter = adapter;
    this.budget = new Budget(adapter.pool);
    this.logger = options.logger ?? consoleLogger();
    this.events = new Events(this.logger);
    this.checks = new StartupChecks(adapter, this.logger);
    this.leaseMs = leaseMs(options.lease ?? 30_000);
    this.pollMs = durationMs(options.pollInterval ?? 1_000, 'pollInterval');
    this.controlMs = durationMs(options.controlPollInterval ?? CONTROL_READ_MS, 'controlPollInterval');
    this.shutdownMs = durationMs(options.shutdownTimeout ?? 30_000, 'shutdownTimeout', { zero: true });
    this.statementMs = durationMs(options.statementTimeout ?? 30_000, 'statementTimeout');
    // Publishes run through a pool and dialect bounded by statementTimeout.
    this.publisher = new Publisher(adapter, this.bounded(undefined, this.statementMs), this.logger, (table) =>
      this.wake(table),
    );
    this.listeners = new Listeners(adapter, this.logger, this.subscriptions, (table) => this.wake(table));
    this.waits = new ResultWaits(adapter, this.logger, this.events);
    this.connectionLimit = options.connectionLimit;
    const limit = options.connectionLimit;
    const own = adapter.pool.size + (adapter.wakeup === undefined ? 0 : 1);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < own)) {
      throw new ConfigError(
        `connectionLimit must be a whole number of at least the service's own connections (${own}: pool and listener), got ${limit}`,
      );
    }
  }

  /** The dialect's name, e.g. `postgres`. */
  get dialect(): string {
    return this.adapter.dialect.name;
  }

  /** Where the broker stands, what it consumes and where it connects: what a health check reads. */
  get status(): {
    /** `new`, `starting`, `running` (its subscriptions claim), `closing` or `closed`. */
    state: BrokerState;
    /** The tables of its subscriptions, in the order they were mounted. */
    tables: string[];
    /** The server, as the adapter names it (e.g. `postgres://127.0.0.1:5432/app`). */
    server: string;
  } {
    return { state: this.state, tables: this.subscriptions.map((s) => s.table), server: this.checks.server };
  }

  /** Connections the subscriptions hold now, and the most they held at once. */
  get poolUse(): {
    /** Connections the subscriptions hold now. */
    held: number;
    /** The most they held at once since the broker was made. */
    peak: number;
    /** The most they may hold: the pool's size less one, kept for publishes and settlements. */
    limit: number;
  } {
    return { held: this.budget.held, peak: this.budget.peak, limit: this.budget.limit };
  }

  /** Listens to a typed event; answers a function that stops listening. */
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void {
    return this.events.on(event, listener);
  }

  /**
   * Adds a hook around every handler call of this broker's subscriptions, mounted before or after
   * (batch handlers excepted): the way to run handlers inside a tracing context (see
   * `@sqlinbox/opentelemetry`). The hook gets the delivery's table, row id and attempt and a `run`
   * that calls the handler; it calls `run` once and answers its answer. Answers a function that
   * removes the hook.
   */
  aroundHandler(hook: HandlerHook): () => void {
    return this.events.around(hook);
  }

  /**
   * Mounts a queue. Before `start()` it starts with the broker; after, at once (its start-up
   * problems then reach `subscription.ready`).
   */
  subscribe<D extends TableDescription<F, I | undefined>, T, QF extends QueueFlags>(
    queue: Queue<D, T, QF>,
    // Without a schema or codec the message is `unknown`: annotate the handler's parameter freely.
    // A batch queue (`.batch(n)`) takes a handler of arrays.
    handler: QF extends { readonly batch: true }
      ? BatchHandler<unknown extends T ? any : T, ResultOf<D>>
      : Handler<unknown extends T ? any : T, QF['tx'] extends true ? Queryable : undefined, ResultOf<D>>,
  ): MountedSubscription;
  /**
   * Mounts a queue whose handler runs on threads (`queue(t).onThreads(...)`). Throws a
   * ConfigError when its threads would pass the broker's `connectionLimit`.
   */
  subscribe<D extends TableDescription<F, I | undefined>, T>(queue: ThreadQueue<D, T>): MountedSubscription;
  subscribe(
    queue: Queue | ThreadQueue,
    handler?: Handler<any, any> | BatchHandler<any>,
  ): MountedSubscription {
    if (this.state === 'closing' || this.state === 'closed') throw new ClosedError('subscribe');
    let threads: { pool: ThreadPool; demand: ThreadDemand } | undefined;
    if (queue instanceof ThreadQueue) {
      const demand = { table: queue.settings.table.table, ...queue.threads };
      const mounted = [...this.threadPools.values()].map((p) => p.demand);
      const service = { pool: this.adapter.pool.size, listener: this.adapter.wakeup === undefined ? 0 : 1 };
      checkConnectionLimit(this.connectionLimit, service, mounted, demand);
      const pool = new ThreadPool(demand.table, queue.threads, this.logger);
      threads = { pool, demand };
      handler = pool.handler;
    }
    const sub = new Subscription(
      {
        ...this.bounded(queue.settings.table.table, queue.settings.statementTimeoutMs ?? this.statementMs),
        budget: this.budget,
        logger: this.logger,
        events: this.events,
        leaseMs: this.leaseMs,
        pollMs: this.pollMs,
        controlMs: this.controlMs,
      },
      queue.settings,
      handler as unknown as Handler<unknown, any>,
    );
    this.subscriptions.push(sub);
    if (threads !== undefined) this.threadPools.set(sub, threads);
    let ready: Promise<void>;
    if (this.state === 'new') {
      // Settled by start()'s outcome.
      const d = deferred();
      this.readyBeforeStart.set(sub, d);
      ready = d.promise;
    } else {
      // Mounted while start() runs or after: starts on its own once the broker runs.
      const starting = this.starting;
      ready = (starting === undefined ? this.startOne(sub) : starting.then(() => this.startOne(sub))).finally(
        () => this.startingOne.delete(ready),
      );
      this.startingOne.add(ready);
    }
    ready.catch(() => {});
    return { table: sub.table, ready, inWork: () => sub.deliveries.size };
  }

  /**
   * Mounts the relay of an outbox table: a subscription whose handler sends each record
   * on. `ack` and `drop` mark the record (its `processedAt` column); a retry, a thrown error or a
   * timeout leaves it unmarked, and this relay passes over it until it starts again (a new broker).
   * The table must describe `processedAt`; a relay takes no `maxAttempts` or `deadLetter`.
   * See docs/outbox.md.
   */
  relay<D extends TableDescription<F, I | undefined>, T, QF extends QueueFlags>(
    queue: Queue<D, T, QF>,
    handler: Handler<unknown extends T ? any : T, QF['tx'] extends true ? Queryable : undefined>,
  ): MountedSubscription {
    return this.subscribe(new Queue<D, T, QF>(relaySettings(queue.settings)), handler as never);
  }

  /**
   * Publishes `payload` into `table` at every tick of the cron expression `pattern` (5 fields, or 6
   * with seconds first; read in `opts.timezone`, default UTC). Exactly one row per tick, whatever
   * number of brokers and processes run the same schedule and however often they restart: each
   * tick is recorded in the tick table (`sqlinbox_schedules`, see `ddl`) in the same transaction
   * as the row, and the record's primary key lets one broker win. `payload` is a message, or a
   * function of the tick that answers one (called only in the broker that won the tick, inside its
   * transaction). Ticks that passed while nothing ran follow `opts.catchUp` (default `'latest'`:
   * the newest of them only; a schedule never run before starts at its next tick). Mount before
   * or after `start()`; `shutdown()` stops the timers, and no row is published after it resolves.
   * A description that states its message type takes that type, or a function answering it.
   */
  schedule<D extends TableDescription<F, I | undefined>>(
    name: string,
    pattern: string,
    table: D,
    payload: SchedulePayloadFor<PayloadOf<D>>,
    opts: ScheduleOptions = {},
  ): MountedSchedule {
    if (this.state === 'closing' || this.state === 'closed') throw new ClosedError('schedule');
    const settings = scheduleSettings(name, pattern, table, payload as SchedulePayload, opts);
    if (this.schedules.some((r) => r.name === name)) {
      throw new ConfigError(`schedule ${name} is mounted already in this broker`, { table: table.table });
    }
    const runner = new ScheduleRunner(settings, {
      dialect: this.adapter.dialect,
      pool: this.adapter.pool,
      logger: this.logger,
      events: this.events,
      ops: this.publisher.ops(table),
      publish: async (conn, message) => {
        const [id] = await this.publishMany(table, [message as PayloadOf<D>], {
          ...settings.publish,
          tx: conn,
        } as never);
        return id;
      },
      wake: () => this.wake(table.table),
    });
    this.schedules.push(runner);
    let ready: Promise<void>;
    if (this.state === 'new') {
      const d = deferred();
      this.scheduleReady.set(runner, d);
      ready = d.promise;
    } else {
      const starting = this.starting;
      ready = (starting === undefined ? runner.start() : starting.then(() => runner.start())).finally(() =>
        this.startingOne.delete(ready),
      );
      this.startingOne.add(ready);
    }
    ready.catch(() => {});
    return { name, ready, next: () => runner.next() };
  }

  /**
   * Runs `fn` in a transaction of the service's own on a pool connection: BEGIN (at `opts`' level
   * or SQLite mode; default the table-less default of the dialect), COMMIT when `fn` resolves,
   * ROLLBACK when it throws. Write the service's rows through `tx.query(..)` and the outbox's
   * messages with `publish(outbox, message, { tx })`: they commit together or not at all.
   */
  async transaction<R>(
    fn: (tx: Queryable) => Promise<R>,
    opts: { isolation?: I; mode?: TableDescription['mode'] } = {},
  ): Promise<R> {
    if (this.state === 'closed') throw new ClosedError('transaction');
    return runTransaction(this.adapter.dialect, this.adapter.pool, fn, opts);
  }

  /**
   * Checks the server and every subscription's table, then starts claiming.
   * Rejects with the first problem, before any row is claimed; the `ready` of every subscription
   * mounted before it rejects with the same error. A database that cannot be reached is a
   * `ConnectionError` naming the server, at once unless `opts.waitForDatabase` asks to wait. Should
   * `shutdown()` begin meanwhile, it rejects with `ClosedError` and nothing is claimed.
   */
  async start(opts: StartOptions = {}): Promise<void> {
    if (this.state !== 'new') throw new ConfigError(`the broker is ${this.state}; start() runs once`);
    this.state = 'starting';
    const subs = [...this.subscriptions];
    const run = this.startAll(subs, opts);
    this.starting = run;
    try {
      await run;
      for (const s of subs) this.readyBeforeStart.get(s)?.resolve();
      for (const d of this.scheduleReady.values()) d.resolve();
      this.scheduleReady.clear();
    } catch (err) {
      if (this.state === 'starting') this.state = 'new';
      for (const s of subs) this.readyBeforeStart.get(s)?.reject(err);
      for (const d of this.scheduleReady.values()) d.reject(err);
      throw err;
    } finally {
      this.starting = undefined;
      for (const s of subs) this.readyBeforeStart.delete(s);
    }
  }

  private async startAll(subs: Subscription[], opts: StartOptions): Promise<void> {
    await this.checks.reach(opts.waitForDatabase, () => this.checkOpen());
    this.checkOpen();
    await Promise.all(subs.map((s) => this.checks.validate(s.settings)));
    this.checkOpen();
    for (const s of subs) await this.listeners.listenTo(s);
    this.checkOpen();
    await this.startThreads(subs.flatMap((s) => this.threadPools.get(s)?.pool ?? []));
    this.checkOpen();
    const runners = [...this.scheduleReady.keys()];
    await Promise.all(runners.map((r) => r.prepare()));
    this.checkOpen();
    await Promise.all(subs.map((s) => s.prime()));
    this.checkOpen();
    this.state = 'running';
    for (const s of subs) s.start();
    for (const s of subs) this.startPruner(s);
    await Promise.all(runners.map((r) => r.run()));
  }

  /** Throws `ClosedError` once shutdown has begun, so a start in flight claims nothing. */
  private checkOpen(): void {
    if (this.state === 'closing' || this.state === 'closed') throw new ClosedError('start');
  }

  private async startOne(sub: Subscription): Promise<void> {
    this.checkOpen();
    await this.checks.validate(sub.settings);
    this.checkOpen();
    await this.listeners.listenTo(sub);
    const threads = this.threadPools.get(sub);
    this.checkOpen();
    if (threads !== undefined) await this.startThreads([threads.pool]);
    this.checkOpen();
    await sub.prime();
    this.checkOpen();
    sub.start();
    this.startPruner(sub);
  }

  /** Starts the table's retention pruner where it has one and this broker runs none (the first subscription's dead letter). */
  private startPruner(sub: Subscription): void {
    const t = sub.settings.table;
    if (t.retention === undefined || this.pruners.has(t.table)) return;
    const ops = this.adapter.dialect.prepare(t, { deadLetter: sub.settings.deadLetter });
    if (ops.retention === undefined || ops.schedules === undefined) return;
    const pruner = new Pruner(t, {
      pool: this.adapter.pool,
      logger: this.logger,
      events: this.events,
      retention: ops.retention,
      ticks: ops.schedules,
      hasDeadLetter: sub.settings.deadLetter !== undefined,
      flows: FlowPruner.of(t, ops),
    });
    this.pruners.set(t.table, pruner);
    pruner.start();
  }

  /** Starts handler threads; if one cannot open its pool, closes them all and rethrows. */
  private async startThreads(pools: ThreadPool[]): Promise<void> {
    const started = await Promise.allSettled(pools.map((p) => p.start()));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(pools.map((p) => p.close()));
      throw failed.reason;
    }
  }

  private wake(table: string): void {
    for (const s of this.subscriptions) if (s.table === table) s.wake();
  }

  /**
   * Inserts one message, taking a pool connection for the insert, or `opts.tx`'s
   * transaction. Subscriptions on the table in this process wake at once; others by notification
   * where the adapter has one, else at their next poll. Answers the new row's id. A description
   * that states its message type (`typed<T>()`, `.payload<T>(..)`) takes a `T` only.
   */
  async publish<D extends TableDescription<F, I | undefined>>(
    table: D,
    message: PayloadOf<D>,
    opts: PublishOptionsFor<D> = {},
  ): Promise<unknown> {
    const [id] = await this.publishMany(table, [message], opts);
    return id;
  }

  /**
   * Inserts many messages in one statement and one notification, taking a pool connection, or
   * `opts.tx`'s transaction. Each element of `messages` is one message, encoded as by `publish`.
   * `opts` (default: none) apply to every message alike: one group, partition key, `notBefore`,
   * `columns`, schema and codec for the whole call; there are no per-message options, so publish
   * messages that need different options in separate calls. `opts.id` would give every row the same
   * id: where the database does not generate the id, publish one message per call. Answers the new
   * rows' ids, one per message; an empty array inserts nothing and answers `[]`.
   */
  async publishMany<D extends TableDescription<F, I | undefined>>(
    table: D,
    messages: readonly PayloadOf<D>[],
    opts: PublishOptionsFor<D> = {},
  ): Promise<unknown[]> {
    if (this.state === 'closed') throw new ClosedError('publish', { table: table.table });
    return this.publisher.publishMany(table, messages, opts);
  }

  /** Counts the table's rows: ready, delayed, in work, dead. */
  async stats<D extends TableDescription<F, I | undefined>>(
    table: D,
    opts: { deadLetter?: DeadLetterTarget } = {},
  ): Promise<QueueStats> {
    return brokerStats(this.adapter, table, opts);
  }

  /** Cancels rows by id as `Admin.cancel` does; the dead letter defaults to this broker's subscription's. */
  async cancel<D extends TableDescription<F, I | undefined>>(
    table: D,
    selection: { readonly ids: readonly unknown[] },
    opts: CancelOptions = {},
  ): Promise<CancelReport> {
    const sub = this.subscriptions.find((s) => s.table === table.table);
    const report = await brokerCancel(this.adapter, table, selection, opts, sub?.settings.deadLetter);
    await this.reread(table.table);
    return report;
  }

  /**
   * Pauses the queue, or one FIFO group of it (`scope.group`): a row of the table's control table
   * (`control` in its description), kept until {@link resume}. Every broker subscribed to the table
   * stops starting its handlers within a second (this one at once); handlers in work finish and
   * settle. Pausing twice is one pause.
   */
  async pause<D extends TableDescription<F, I | undefined>>(table: D, scope: PauseScope = {}): Promise<void> {
    await setPaused(this.adapter.dialect, this.adapter.pool, table, true, scope);
    await this.reread(table.table);
  }

  /** Ends a pause of {@link pause} (the queue's, or the group's): its rows are claimed again within a second. */
  async resume<D extends TableDescription<F, I | undefined>>(
    table: D,
    scope: PauseScope = {},
  ): Promise<void> {
    await setPaused(this.adapter.dialect, this.adapter.pool, table, false, scope);
    await this.reread(table.table);
  }

  /** What is paused of the queue, read from its control table. */
  paused<D extends TableDescription<F, I | undefined>>(table: D): Promise<PausedState> {
    return readPaused(this.adapter.dialect, this.adapter.pool, table);
  }

  /**
   * Waits until row `id` is processed and answers the value its handler acked with (undefined:
   * none); rejects with a `ResultTimeoutError` past `timeout` (default 30 s), a `ResultDeadError`
   * for a row in `deadLetter`. Holds no connection between reads of the row. A settlement of the
   * row by this broker's subscriptions makes it read at once; on PostgreSQL so does the
   * notification the settlement of a table that keeps results sends at its commit, from any
   * process, and the reads between are a fallback 2 s apart. Elsewhere it reads every 50 ms,
   * growing to 250 ms (`opts.pollInterval`: a flat pause of your choice). Typed as the table's
   * result type where it states one (`typedResult`).
   */
  result<D extends TableDescription<F, I | undefined>>(table: D, id: unknown, opts?: ResultWaitOptions) {
    return this.waits.wait(table, id, opts ?? {}) as Promise<ResultOf<D> | undefined>;
  }

  /** This broker's subscriptions of `table` read the control table now, not at their next read. */
  private async reread(table: string): Promise<void> {
    const reads = this.subscriptions
      .filter((s) => s.table === table && s.pump.open)
      .map((s) => s.control?.read());
    await Promise.all(reads.map((r) => r?.catch(() => undefined)));
  }

  /**
   * Stops claiming at once, fires every handler's `signal`, and waits up to `timeout` (default:
   * the broker's `shutdownTimeout`) for handlers in work to settle, keeping what holds their rows
   * meanwhile: leases are still extended, advisory locks and row lock transactions stay held. Then
   * it lets go of what is still in work: row lock transactions roll back, advisory locks are
   * released (the connection back in the pool, or closed where the release is not confirmed), and
   * leases are kept but no longer extended. Resolves once the broker holds no lock;
   * after that no row is claimed and no handler starts. It also closes what the adapter opened
   * (`adapter.close()`: the wake-up listener, and the pool where the adapter made it from
   * connection options), once the last lease delivery still in work has settled. A pool you
   * passed in stays open: end it yourself. A second call answers the first call's result.
   */
  shutdown(opts: { timeout?: Duration } = {}): Promise<ClosedBroker> {
    if (this.closing !== undefined) return this.closing;
    const timeout =
      opts.timeout === undefined ? this.shutdownMs : durationMs(opts.timeout, 'timeout', { zero: true });
    this.closing = this.close(timeout);
    return this.closing;
  }

  private async close(timeout: number): Promise<ClosedBroker> {
    this.state = 'closing';
    const deadline = Date.now() + timeout;
    const reason = new ClosedError('shutdown');
    for (const s of this.subscriptions) for (const d of s.inFlight()) d.abort(reason);
    // A start in flight stops at its next step and claims nothing.
    this.checks.wake();
    await this.starting?.catch(() => {});
    await Promise.allSettled([...this.startingOne]);
    for (const d of this.readyBeforeStart.values()) d.reject(new ClosedError('start'));
    this.readyBeforeStart.clear();
    // Stop claiming at once (before any other wait: a handler settling meanwhile must not see its
    // row claimed again); the deliveries in work keep their hold while shutdown waits.
    const stopping = Promise.all(this.subscriptions.map((s) => s.stop()));
    // No schedule publishes once shutdown resolves: a tick in flight commits (or not) first.
    for (const d of this.scheduleReady.values()) d.reject(new ClosedError('start'));
    this.scheduleReady.clear();
    await Promise.all(this.schedules.map((r) => r.stop()));
    await Promise.all([...this.pruners.values()].map((p) => p.stop()));
    await stopping;
    for (const s of this.subscriptions) for (const d of s.inFlight()) d.abort(reason);
    await this.waitForHandlers(deadline - Date.now());
    let locksReleased = 0;
    let connectionsClosed = 0;
    for (const s of this.subscriptions) {
      await s.stopExtending();
      for (const d of s.inFlight()) {
        const r = await s.form.closeHeld(d.held);
        if (r !== 'kept') {
          const { id, attempt } = d.held;
          this.events.emit('released', { table: s.table, id, attempt, reason: 'shutdown' });
        }
        if (r === 'closed') connectionsClosed++;
        else if (r === 'released' && s.form.form === 'advisory') locksReleased++;
      }
      await s.form.drained();
    }
    await Promise.all([this.listeners.close(), this.waits.close()]);
    this.state = 'closed';
    // A publish that returned owes its listeners a notification: sent before the pool closes.
    await this.publisher.drain();
    let threadConnectionsClosed: number | undefined;
    if (this.threadPools.size > 0) {
      threadConnectionsClosed = 0;
      for (const t of this.threadPools.values()) threadConnectionsClosed += await t.pool.close();
    }
    // Lease deliveries still in work keep the pool until they settle; then it closes.
    // The other forms' deliveries were let go above: their handlers need the pool no more.
    if (!this.leasesInWork()) await this.closeAdapter();
    else void this.closeAdapterWhenIdle();
    return threadConnectionsClosed === undefined
      ? { locksReleased, connectionsClosed }
      : { locksReleased, connectionsClosed, threadConnectionsClosed };
  }

  /** `adapter.close()`, logging (not throwing) a failure. */
  private async closeAdapter(): Promise<void> {
    try {
      await this.adapter.close?.();
    } catch (err) {
      this.logger.warn('closing the adapter failed', { server: this.checks.server, error: err });
    }
  }

  private async closeAdapterWhenIdle(): Promise<void> {
    while (this.leasesInWork()) await new Promise((r) => setTimeout(r, 50));
    await this.closeAdapter();
  }

  /** Whether a lease delivery, which keeps its lease and may still settle after shutdown, is in work. */
  private leasesInWork(): boolean {
    return this.subscriptions.some((s) => s.form.form === 'lease' && s.deliveries.size > 0);
  }

  private async waitForHandlers(timeout: number): Promise<void> {
    const deadline = Date.now() + Math.max(0, timeout);
    while (Date.now() < deadline && this.subscriptions.some((s) => s.deliveries.size > 0)) {
      await new Promise((r) => setTimeout(r, Math.min(20, Math.max(1, deadline - Date.now()))));
    }
  }

  /**
   * The adapter's dialect and pool with every statement bounded by `ms`; as they are where the
   * adapter runs its statements in this process (`Adapter.inProcess`: nothing to wait on but its
   * own bounded waits, and a timer could not interrupt a statement running on this thread).
   */
  private bounded(table: string | undefined, ms: number): { dialect: Dialect; pool: Pool } {
    if (this.adapter.inProcess === true) return { dialect: this.adapter.dialect, pool: this.adapter.pool };
    const bounds = this.boundsFor(table, ms);
    return { dialect: bounds.dialect(this.adapter.dialect), pool: bounds.pool };
  }

  private boundsFor(table: string | undefined, ms: number): Bounds {
    return new Bounds(this.adapter.pool, ms, table, (err) => {
      this.logger.warn('statement timed out', {
        ...(table === undefined ? {} : { table }),
        operation: err.operation,
        connection: err.connectionId,
        timeoutMs: err.timeoutMs,
        error: err,
      });
      this.events.emit('statementTimeout', {
        table,
        operation: err.operation,
        connectionId: err.connectionId,
        timeoutMs: err.timeoutMs,
        error: err,
      });
    });
  }
}

/** A mounted queue, as `subscribe` answers it. */
export interface MountedSubscription {
  /** The queue table. */
  readonly table: string;
  /**
   * Resolves once the subscription claims. Rejects with its start-up problem: for a subscription
   * mounted before `start()`, with the error `start()` rejects with; with `ClosedError` where
   * `shutdown()` came first.
   */
  readonly ready: Promise<void>;
  /** Deliveries whose handler runs now. */
  inWork(): number;
}
