import { EventEmitter } from 'node:events';
import type { ErrorKind } from './errors.js';
import type { Outcome, Plan } from './outcome.js';

/** The typed events a broker emits. */
export interface EventMap {
  /** A row was claimed; `attempt` as it stood before the claim. */
  claimed: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The row's attempt as it stood before the claim. */
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
    /** The row's attempt as it stood before the claim. */
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
    /** The row's attempt as it stood before the claim. */
    attempt: number;
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
    /** The row's attempt as it stood before the claim. */
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
    /** The row's attempt as it stood before the claim. */
    attempt: number;
    /** The error the settlement threw. */
    error: unknown;
    /** The dialect's classification of the failure (`constraint`: the statement is refused as it is). */
    kind: ErrorKind;
  };
  /**
   * A claimed row went back to the queue unsettled: its handler timed out, its delivery
   * transaction did not open, the subscription stopped before a worker took it, or shutdown
   * released it (row lock and advisory forms; a lease delivery keeps its lease at shutdown).
   */
  released: {
    /** The queue table. */
    table: string;
    /** The row's id. */
    id: unknown;
    /** The row's attempt as it stood before the claim. */
    attempt: number;
    /** Why the row went back. */
    reason: ReleaseReason;
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

/** Why a claimed row went back unsettled (the `released` event). */
export type ReleaseReason = 'timeout' | 'beginFailed' | 'stopped' | 'shutdown';

/** A typed event emitter. Listener errors are the listener's own: they are caught and ignored. */
export class Events {
  private readonly emitter = new EventEmitter();

  constructor() {
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

  emit<E extends EventName>(event: E, payload: EventMap[E]): void {
    if (this.emitter.listenerCount(event) === 0) return;
    for (const l of this.emitter.listeners(event)) {
      try {
        (l as (p: EventMap[E]) => void)(payload);
      } catch {
        // a listener's failure is not the queue's
      }
    }
  }
}
