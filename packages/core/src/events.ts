import { EventEmitter } from 'node:events';
import type { ErrorKind } from './errors.js';
import type { Outcome, Plan } from './outcome.js';

/** The typed events a broker emits. */
export interface EventMap {
  /** A row was claimed; `attempt` as it stood before the claim. */
  claimed: { table: string; id: unknown; attempt: number };
  /** A row was settled by its handler's outcome. */
  settled: {
    table: string;
    id: unknown;
    outcome: Outcome['kind'];
    plan: Plan['kind'];
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
  deadLettered: { table: string; id: unknown; attempt: number };
  /** Leases in work were extended. */
  leaseExtended: { table: string; count: number };
  /** A lease ran out under a running handler; another claim may hold the row now. */
  leaseLost: { table: string; id: unknown; attempt: number };
  /**
   * A claim failed (the subscription backs off and tries again). `kind` is the dialect's
   * classification of the error; `retryInMs` the pause before the next claim.
   */
  claimError: { table: string; error: unknown; kind: ErrorKind; retryInMs: number };
  /**
   * A settlement failed (a returned outcome's, or one the handler called through `ctx`); the row
   * stays as its form says.
   */
  settlementError: {
    table: string;
    id: unknown;
    attempt: number;
    error: unknown;
    /** The dialect's classification of the failure (`constraint`: the statement is refused as it is). */
    kind: ErrorKind;
  };
  /**
   * A claimed row went back to the queue unsettled: its handler timed out, its delivery
   * transaction did not open, the subscription stopped before a worker took it, or shutdown
   * released it (row lock and advisory forms; a lease delivery keeps its lease at shutdown).
   */
  released: { table: string; id: unknown; attempt: number; reason: ReleaseReason };
  /** This broker published a schedule's tick: its row `id` in `table` (another broker had not). */
  scheduled: { schedule: string; table: string; tick: Date; id: unknown };
  /** A schedule's tick failed (nothing was published for it); the schedule goes on. */
  scheduleError: { schedule: string; table: string; tick: Date; error: unknown };
}

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
