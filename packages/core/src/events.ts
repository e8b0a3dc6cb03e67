import { EventEmitter } from 'node:events';
import type { AnyTable } from './description.js';
import type { DeadLetterTarget } from './dialect.js';
import type { ErrorKind } from './errors.js';
import type { Logger } from './logger.js';
import type { Outcome, Plan } from './outcome.js';

/** The typed events a broker emits. */
export interface EventMap {
  /**
   * A queue was mounted (`broker.subscribe`), with what reading its table takes: its description
   * and its dead-letter target (for `broker.stats`).
   */
  subscribed: {
    /** The queue table. */
    table: string;
    /** The table's description. */
    description: AnyTable;
    /** The queue's dead letter, if it has one. */
    deadLetter: DeadLetterTarget | undefined;
  };
  /** A row was claimed; `attempt` the delivery's (1 on the first). */
  claimed: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
  };
  /** A row was settled by its handler's outcome. */
  settled: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The outcome the handler returned (or the one a failure stood for). */
    outcome: Outcome['kind'];
    /** What the engine did with the row: finished it, returned it to the queue, or dead-lettered it. */
    plan: Plan['kind'];
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
    /** From the row handed to a worker to its settlement committed, in milliseconds. */
    durationMs: number;
    /**
     * Where the outcome came from a failure: the handler's thrown error (a `HandlerError` where it
     * threw something that is not an Error), or the payload's decode error.
     */
    error?: unknown;
  };
  /** A row moved to its dead letter. */
  deadLettered: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
  };
  /**
   * A row's deadline (`expiresAt`) had passed when its delivery would have started: it left
   * without its handler, to the dead letter or dropped (and a `settled` event follows).
   */
  expired: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
    /** The row's deadline. */
    deadline: Date;
    /** Whether it moved to the queue's dead letter (else it was dropped). */
    deadLettered: boolean;
  };
  /**
   * A row cancelled while it was in work (or held by this broker before its handler started) was
   * settled as cancelled by this broker: to the dead letter, or dropped (a `settled` event precedes).
   */
  cancelled: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
    /** Whether it moved to the queue's dead letter (else it was dropped). */
    deadLettered: boolean;
    /** Whether its handler had started (false: it settled without running). */
    inWork: boolean;
    /** The reason the cancel gave. */
    reason: string;
  };
  /**
   * A retention turn deleted settled rows of a table (one event per kind that lost rows): processed
   * rows older than `retention.processed`, dead letters older than `retention.dead`, or the flow
   * rows (edges and parents-table rows) of jobs whose rows are gone.
   */
  pruned: {
    /** The queue table. */
    table: string;
    /** `processed` (stamped rows of the queue table), `dead` (its dead letters) or `flows` (its flow rows). */
    kind: 'processed' | 'dead' | 'flows';
    /** Rows deleted in this turn. */
    count: number;
    /**
     * Delete statements this turn ran for the kind (each removes at most `retention.batchSize`);
     * for `flows`, the pages of the flow tables it read (each of at most `retention.batchSize`).
     */
    batches: number;
  };
  /** Leases in work were extended. */
  leaseExtended: {
    /** The queue table. */
    table: string;
    /** How many leases the extension moved. */
    count: number;
  };
  /** A lease ran out under a running handler; another claim may hold the row now. */
  leaseLost: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
  };
  /**
   * A claim failed (the subscription backs off and tries again). `kind` is the dialect's
   * classification of the error; `retryInMs` the pause before the next claim.
   */
  claimError: {
    /** The queue table. */
    table: string;
    /** The error the claim threw. */
    error: unknown;
    /** The dialect's classification of the error. */
    kind: ErrorKind;
    /** The pause before the next claim, in milliseconds. */
    retryInMs: number;
  };
  /**
   * A settlement failed (a returned outcome's, or one the handler called through `ctx`); the row
   * stays as its form says.
   */
  settlementError: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
    /** The error the settlement threw. */
    error: unknown;
    /** The dialect's classification of the failure (`constraint`: the statement is refused as it is). */
    kind: ErrorKind;
  };
  /**
   * A claimed row went back to the queue unsettled: its handler timed out, its delivery
   * transaction did not open, the subscription stopped (or its queue or group was paused) before a
   * worker took it, or shutdown
   * released it (row lock and advisory forms; a lease delivery keeps its lease at shutdown).
   */
  released: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
    attempt: number;
    /** Why the row went back. */
    reason: ReleaseReason;
  };
  /**
   * A statement the engine ran was still running at the statement timeout: its connection is
   * closed, and the call that ran it fails with `error` (a `StatementTimeoutError`).
   */
  statementTimeout: {
    /** The queue table, where the statement was of one. */
    table: string | undefined;
    /** What hung: `claim`, `settle`, `extend`, `commit`, `publish`, ... */
    operation: string;
    /** The connection it ran on (PostgreSQL: the backend pid), closed since. */
    connectionId: string;
    /** The bound it passed, in milliseconds. */
    timeoutMs: number;
    /** The error the call fails with. */
    error: unknown;
  };
  /**
   * This broker noticed a pause in the control table (`admin.pause`, `broker.pause`): of the whole
   * queue (`scope: 'queue'`, `value` null) or of one FIFO group (`value` the group). Emitted once
   * per change by every broker subscribed to the table.
   */
  paused: {
    /** The queue table. */
    table: string;
    /** What was paused. */
    scope: 'queue' | 'group';
    /** The group, or null for the whole queue. */
    value: string | null;
  };
  /** This broker noticed a resume: the pause it had read is gone from the control table. */
  resumed: {
    /** The queue table. */
    table: string;
    /** What was resumed. */
    scope: 'queue' | 'group';
    /** The group, or null for the whole queue. */
    value: string | null;
  };
  /** This broker published a schedule's tick: its row `id` in `table` (another broker had not). */
  scheduled: {
    /** The schedule's name. */
    schedule: string;
    /** The queue table the tick was published to. */
    table: string;
    /** The tick's instant: when the schedule was due. */
    tick: Date;
    /** The id of the row published for the tick. */
    id: unknown;
  };
  /** A schedule's tick failed (nothing was published for it); the schedule goes on. */
  scheduleError: {
    /** The schedule's name. */
    schedule: string;
    /** The queue table the tick was to be published to. */
    table: string;
    /** The tick's instant: when the schedule was due. */
    tick: Date;
    /** The error that failed the tick. */
    error: unknown;
  };
}

/** The name of a broker event: a key of {@link EventMap}. */
export type EventName = keyof EventMap;

/**
 * Why a claimed row went back unsettled (the `released` event). `timeout` is no longer sent: a
 * handler past its timeout fails its delivery (a `settled` event with the `TIMEOUT` error).
 */
export type ReleaseReason = 'timeout' | 'beginFailed' | 'stopped' | 'shutdown' | 'paused';

/** The delivery a {@link HandlerHook} wraps: the handler's own context, read no further. */
export interface HandlerCall {
  /** The queue table. */
  readonly table: string;
  /** The row's id. */
  readonly id: unknown;
  /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
  readonly attempt: number;
}

/**
 * A hook around each handler call of a broker (`broker.aroundHandler`), the way to instrument
 * handlers: `run` calls the handler (or the hook added before this one) and answers what it
 * answers, a promise or a value; the hook calls it once and answers its answer, for instance
 * inside a tracing context. Batch handlers are called without hooks.
 */
export type HandlerHook = (call: HandlerCall, run: () => unknown) => unknown;

/**
 * A typed event emitter, and the hooks around handler calls. A listener's error is the listener's
 * own: whether it throws or answers a promise that rejects, the other listeners still get the
 * event and the queue goes on, and the error is written to the broker's logger (at `error`, with
 * the event's name and table), never swallowed.
 */
export class Events {
  private readonly emitter = new EventEmitter();
  private hooks: readonly HandlerHook[] = [];

  /** `logger`: where a listener's error is reported (default: nowhere, for a broker-less test). */
  constructor(private readonly logger?: Logger) {
    this.emitter.setMaxListeners(0);
  }

  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  /** Whether anything listens to `event`: a per-row event's payload is built only then. */
  wants(event: EventName): boolean {
    return this.emitter.listenerCount(event) > 0;
  }

  /** Adds a hook around every handler call; answers a function that removes it. */
  around(hook: HandlerHook): () => void {
    this.hooks = [...this.hooks, hook];
    return () => {
      this.hooks = this.hooks.filter((h) => h !== hook);
    };
  }

  /** Whether any hook wraps handler calls (most brokers have none: the call is then direct). */
  get hooked(): boolean {
    return this.hooks.length > 0;
  }

  /** Calls `run` inside every hook, the last one added outermost; answers what the outermost answers. */
  handle(call: HandlerCall, run: () => unknown): unknown {
    let next = run;
    for (const hook of this.hooks) {
      const inner = next;
      next = () => hook(call, inner);
    }
    return next();
  }

  emit<E extends EventName>(event: E, payload: EventMap[E]): void {
    if (this.emitter.listenerCount(event) === 0) return;
    for (const l of this.emitter.listeners(event)) {
      try {
        const r: unknown = (l as (p: EventMap[E]) => unknown)(payload);
        if (r instanceof Promise) r.catch((err: unknown) => this.listenerFailed(event, payload, err));
      } catch (err) {
        this.listenerFailed(event, payload, err);
      }
    }
  }

  private listenerFailed(event: EventName, payload: unknown, err: unknown): void {
    const table = (payload as { table?: unknown }).table;
    try {
      this.logger?.error(
        `a listener of the ${event} event threw; the other listeners and the queue went on`,
        {
          event,
          ...(typeof table === 'string' ? { table } : {}),
          error: err,
        },
      );
    } catch {
      // A logger that throws has nowhere left to report to.
    }
  }
}
