import type { Queryable } from '../description.js';
import type { Row } from '../driver.js';
import type { Logger } from '../logger.js';
import { Outcome } from '../outcome.js';
import type { Context } from './handler.js';

/** What a handler's context asks of its delivery. */
export interface ContextHost {
  /** The row's id, attempt and row as the claim read it. */
  readonly held: {
    readonly id: unknown;
    readonly attempt: number;
    readonly row: Row;
  };
  /** The delivery's abort signal (made when first read). */
  readonly signal: AbortSignal;
  /** Settles the delivery now. */
  settle(outcome: Outcome): Promise<void>;
  /** Runs one durable step (see `steps.ts`). */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
}

/**
 * A handler's context: one object per delivery, its settling members made only when read (most
 * handlers return an outcome and read none), each a function of its own so that
 * `const { ack } = ctx` works.
 */
export class DeliveryContext implements Context {
  readonly id: unknown;
  readonly attempt: number;
  readonly row: Readonly<Row>;

  constructor(
    private readonly delivery: ContextHost,
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

  get ack(): (value?: unknown) => Promise<void> {
    return (value) => this.delivery.settle(Outcome.ack(value));
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

  get step(): <T>(name: string, fn: () => Promise<T> | T) => Promise<T> {
    return (name, fn) => this.delivery.step(name, fn);
  }
}
