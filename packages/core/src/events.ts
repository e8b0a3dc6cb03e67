import { EventEmitter } from 'node:events';
import type { Outcome, Plan } from './outcome.js';

/** The typed events a broker emits (R-PLUS-3). */
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
    durationMs: number;
  };
  /** A row moved to its dead letter. */
  deadLettered: { table: string; id: unknown; attempt: number };
  /** Leases in work were extended. */
  leaseExtended: { table: string; count: number };
  /** A lease ran out under a running handler; another claim may hold the row now. */
  leaseLost: { table: string; id: unknown };
  /** A claim failed (the subscription backs off and tries again). */
  claimError: { table: string; error: unknown };
  /** A settlement failed; the row stays as its form says. */
  settlementError: { table: string; id: unknown; error: unknown };
}

export type EventName = keyof EventMap;

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
