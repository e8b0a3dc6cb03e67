import type { Queryable } from '../description.js';
import type { Row } from '../driver.js';
import type { Logger } from '../logger.js';
import type { Outcome } from '../outcome.js';

/**
 * What a handler is given beside its message. `R` is the result type the table states (see
 * `typedResult`), which `ack(value)` and `settle(Outcome.ack(value))` take; unknown by default.
 */
export interface Context<Tx extends Queryable | undefined = Queryable | undefined, R = unknown> {
  /** The queue table. */
  readonly table: string;
  /** The row's id. */
  readonly id: unknown;
  /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first), as the attempt column holds it. */
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
  settle(outcome: Outcome<R>): Promise<void>;
  /**
   * Settles now as `Outcome.ack(value)`: the row is deleted, or stamped `processed_at`; `value`,
   * where given, is kept in the table's result column. A value JSON cannot carry rejects with an
   * `EncodeError` and settles nothing.
   */
  ack(value?: R): Promise<void>;
  /** Settles now as `Outcome.drop()`: a poisoned message, settled exactly like an ack. */
  drop(): Promise<void>;
  /** Settles now as `Outcome.retry()`: delivered again, or dead-lettered at `maxAttempts`. */
  retry(): Promise<void>;
  /** Settles now as `Outcome.retryAfter(delay)`: delivered again no earlier than `delay` (ms, or an instant). */
  retryAfter(delay: number | Date): Promise<void>;
  /**
   * A durable step (R-FLOW-7): answers the value an earlier delivery of this row kept for `name`
   * without running `fn`, or runs `fn` and keeps its value (JSON) in the table's steps table, so a
   * retry runs only the steps not finished. In transactional mode the record commits with the
   * row; otherwise it commits once `fn` has finished. One name once per delivery (`StepError`);
   * a table without `steps` in its description refuses it (`ConfigError`).
   */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
}

/**
 * A handler: answers an outcome, or nothing for ack; a throw is a retry. An ack's value is an `R`,
 * the table's result type (unknown unless the table states one).
 */
export type Handler<T, Tx extends Queryable | undefined = Queryable | undefined, R = unknown> = (
  message: T,
  ctx: Context<Tx, R>,
) => Promise<Outcome<R> | undefined | void> | Outcome<R> | undefined | void;

/** One row of a batch: its decoded message and its own context, through which it settles. */
export interface BatchItem<T, R = unknown> {
  /** The row's payload, decoded (and validated where the queue has a schema). */
  readonly message: T;
  /**
   * The row's context: `id`, `attempt`, `row`, `signal`, and its own settlement (`ack()`,
   * `drop()`, `retry()`, `retryAfter(d)`, `settle(o)`), which takes effect on this row alone.
   * A batch is never transactional: `tx` is always `undefined`.
   */
  readonly ctx: Context<undefined, R>;
}

/**
 * A batch handler: gets the rows of one claim, at most the queue's `batch(n)`, never
 * none. Each row settles on its own through `item.ctx`; the rows it did not settle settle by its
 * outcome: returning nothing acks them, returning an `Outcome` applies it to each, a throw
 * retries each.
 */
export type BatchHandler<T, R = unknown> = (
  items: BatchItem<T, R>[],
) => Promise<Outcome<R> | undefined | void> | Outcome<R> | undefined | void;
