import type { FailureRecord } from './dialect.js';
import { ConfigError } from './errors.js';

/**
 * What a handler answers about its message. Returning nothing (or `undefined`) is an ack; a thrown
 * error is a `retry()`. `R` is the type of an ack's value (the table's result type, where it
 * states one).
 */
export type Outcome<R = unknown> =
  | {
      /** Done: deleted, or stamped `processed_at`. */
      readonly kind: 'ack';
      /** The handler's result, kept in the table's result column (see `Outcome.ack(value)`). */
      readonly result?: R;
    }
  | {
      /** A poisoned message, settled like `ack`. */
      readonly kind: 'drop';
    }
  | {
      /** Deliver again; dead-lettered at `maxAttempts`. */
      readonly kind: 'retry';
    }
  | {
      /** Deliver again after a delay. */
      readonly kind: 'retryAfter';
      /** The delay from the settlement, in milliseconds (0 or more). */
      readonly delayMs: number;
    };

/** The outcomes a handler answers, built: `return Outcome.retryAfter(5_000)`. */
export const Outcome = {
  /**
   * Done: the row is deleted, or stamped `processed_at` where the table has one. `value` (any
   * JSON value, `null` included) is the handler's result, written by the same settlement into the
   * table's `result` column and read by id with `admin.result`/`broker.result`; undefined: none.
   */
  ack: <R = never>(value?: R): Outcome<R> => (value === undefined ? ACK : { kind: 'ack', result: value }),
  /** A poisoned message: settled exactly like `ack`, so it leaves the queue. */
  drop: (): Outcome<never> => DROP,
  /** Deliver again (the attempt is counted); at `maxAttempts` the row is dead-lettered instead. */
  retry: (): Outcome<never> => RETRY,
  /**
   * Deliver again no earlier than `delay` from now (milliseconds, or an instant). A table without a
   * `retry_after` column takes it as `retry()` and logs a warning. `0` and an instant in the past
   * are due at once; a negative or NaN delay throws a `ConfigError`.
   */
  retryAfter: (delay: number | Date): Outcome<never> => {
    if (delay instanceof Date)
      return { kind: 'retryAfter', delayMs: Math.max(0, delay.getTime() - Date.now()) };
    // 0 is legal (due now, counted as a retryAfter); a negative or NaN delay is a mistake.
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)
      throw new ConfigError(`retryAfter takes a delay of 0 ms or more, or an instant, got ${String(delay)}`);
    return { kind: 'retryAfter', delayMs: delay };
  },
} as const;

const ACK: Outcome<never> = Object.freeze({ kind: 'ack' });
const DROP: Outcome<never> = Object.freeze({ kind: 'drop' });
const RETRY: Outcome<never> = Object.freeze({ kind: 'retry' });

/** Reads a handler's return value as an outcome. */
export function outcomeOf(value: unknown): Outcome {
  if (value === undefined || value === null) return ACK;
  if (typeof value === 'object' && value !== null && 'kind' in value) {
    const k = (value as { kind: unknown }).kind;
    if (k === 'ack' || k === 'drop' || k === 'retry' || k === 'retryAfter') return value as Outcome;
  }
  throw new TypeError(
    `a handler must return an Outcome (Outcome.ack(), ...) or nothing, got ${String(value)}; to keep a result, return Outcome.ack(value)`,
  );
}

/**
 * What the engine does with a row once the outcome, the attempt and the limit are known:
 * finish it, return it to the queue (optionally not before an instant), or dead-letter it.
 */
export type Plan =
  | {
      /** Finish the row: delete it, or stamp `processed_at`. */
      readonly kind: 'finish';
      /** The outcome that led here. */
      readonly outcome: 'ack' | 'drop';
      /** An ack's result, encoded for the result column (see `encodeResult`); absent: none. */
      readonly result?: string;
    }
  | {
      /** Return the row to the queue. */
      readonly kind: 'return';
      /** The outcome that led here. */
      readonly outcome: 'retry' | 'retryAfter';
      /** When the row is due again; undefined: at once (or after `backoffMs`). */
      readonly retryAfter: Date | undefined;
      /**
       * A delay the engine chose (a thrown error's backoff, a failure's pause), in ms. With a
       * `retry_after` column it is in `retryAfter`; without one the lease form keeps the lease that
       * long and the other forms pass the row over that long in this process.
       */
      readonly backoffMs?: number;
      /** The delivery's failure, for the failure record (see {@link failureOf}). */
      readonly failure?: FailureRecord;
    }
  | {
      /** Move the row to its dead letter: the attempt reached `maxAttempts`. */
      readonly kind: 'deadLetter';
      /** The outcome that led here. */
      readonly outcome: 'retry' | 'retryAfter';
      /** The delivery's failure, for the failure record (see {@link failureOf}). */
      readonly failure?: FailureRecord;
    };

/** The longest message the failure record keeps, in characters. */
export const MAX_ERROR_LENGTH = 1_000;

/**
 * A delivery's failure as the failure record keeps it: the message cut to 1,000 characters, and
 * the class, the error's `name` (cut to 255), or `expired` for a row that left past its deadline
 * (`code: 'EXPIRED'`), `timeout` for a handler that ran past its timeout (`code: 'TIMEOUT'`), or
 * `cancelled` with the cancel's reason as the message (`code: 'CANCELLED'`). A thrown non-Error is read as text, of class `Error`.
 */
export function failureOf(err: unknown): FailureRecord {
  const e = err as { message?: unknown; name?: unknown; code?: unknown; reason?: unknown } | null | undefined;
  const isError = err instanceof Error;
  // A cancelled row keeps the reason its cancel gave, of class `cancelled`.
  const cancelled = isError && e!.code === 'CANCELLED' && typeof e!.reason === 'string';
  const message = cancelled
    ? String(e!.reason)
    : isError
      ? String(e!.message)
      : typeof err === 'string'
        ? err
        : String(err);
  const name =
    e?.code === 'EXPIRED'
      ? 'expired'
      : e?.code === 'TIMEOUT' && isError
        ? 'timeout'
        : cancelled
          ? 'cancelled'
          : isError && typeof e!.name === 'string' && e!.name !== ''
            ? e!.name
            : 'Error';
  return { message: message.slice(0, MAX_ERROR_LENGTH), name: name.slice(0, 255) };
}

/** Whether a retry at the delivery's `attempt` (1 on the first) dead-letters the row instead. */
export function reachesLimit(attempt: number, maxAttempts: number | undefined): boolean {
  return maxAttempts !== undefined && attempt >= maxAttempts;
}

/**
 * Turns an outcome into a plan; `attempt` is the delivery's attempt (1 on the first): at `maxAttempts` a retry
 * dead-letters, so a row is delivered at most `maxAttempts` times.
 * `limits.backoffMs` (a thrown error's backoff; default none) delays a `retry()`: a returned
 * `retry()` has none and returns the row at once.
 */
export function planOf(
  outcome: Outcome,
  attempt: number,
  limits: { maxAttempts: number | undefined; hasRetryAfter: boolean; now: number; backoffMs?: number },
  warn: (msg: string) => void,
): Plan {
  if (outcome.kind === 'ack' || outcome.kind === 'drop') return { kind: 'finish', outcome: outcome.kind };
  if (reachesLimit(attempt, limits.maxAttempts)) {
    warn(`attempt ${attempt} reached the limit of ${limits.maxAttempts}: dead-lettering`);
    return { kind: 'deadLetter', outcome: outcome.kind };
  }
  if (outcome.kind === 'retryAfter') {
    if (!limits.hasRetryAfter) {
      warn('retryAfter on a table without a retry_after column: taken as retry()');
      return { kind: 'return', outcome: 'retry', retryAfter: undefined };
    }
    return { kind: 'return', outcome: 'retryAfter', retryAfter: new Date(limits.now + outcome.delayMs) };
  }
  const backoffMs = limits.backoffMs ?? 0;
  if (backoffMs > 0) {
    const retryAfter = limits.hasRetryAfter ? new Date(limits.now + backoffMs) : undefined;
    return { kind: 'return', outcome: 'retry', retryAfter, backoffMs };
  }
  return { kind: 'return', outcome: 'retry', retryAfter: undefined };
}
