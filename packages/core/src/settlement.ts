/**
 * What a settlement statement does to one row, as the forms hand it to a dialect ({@link Settlement}),
 * and the lease form's batched settlements ({@link FinishSettlement}, {@link ReturnSettlement}).
 * Re-exported by `dialect.ts`.
 */
/**
 * A failed delivery, as its settlement writes it into the failure record's columns (where the
 * table has them): the error's message and class. Made by `failureOf`.
 */
export interface FailureRecord {
  /** The error's message, cut to 1,000 characters. */
  readonly message: string;
  /** The error's class: its `name` (cut to 255 characters), or `expired`. */
  readonly name: string;
}

/** What a settlement statement does to one row. `now` is the instant the settlement started. */
export type Settlement =
  /** ack and drop: delete the row, or stamp `processed_at` where the table has one; clears the lease. */
  | {
      /** Discriminant: ack and drop. */
      readonly kind: 'finish';
      /** The row's id. */
      readonly id: unknown;
      /** Lease form: the lease the claim wrote; the row changes only while it still holds it. */
      readonly token?: Date;
      /** The instant the settlement started (stamped into `processed_at`). */
      readonly now: Date;
      /**
       * An ack's result, JSON text (see `encodeResult`), written into the table's result column
       * by the same statement. Absent: the column is left as it is (a batched ack never has one).
       */
      readonly result?: string;
      /**
       * Row lock form: add one to the attempt column (where the table has one and stamps
       * `processed_at`): that form counts a delivery at its settlement, its row locked until then.
       */
      readonly countAttempt?: boolean;
    }
  /**
   * Put the row back: optionally count an attempt (`attempt = attempt + 1`), set `retry_after`,
   * and clear the lease (`locked_until = NULL`).
   */
  | {
      /** Discriminant: put the row back in the queue. */
      readonly kind: 'return';
      /** The row's id. */
      readonly id: unknown;
      /** Lease form: the lease the claim wrote; the row changes only while it still holds it. */
      readonly token?: Date;
      /** The instant the settlement started. */
      readonly now: Date;
      /** Whether to add one to the attempt column (where the table has one). */
      readonly countAttempt: boolean;
      /**
       * Lease form: take back the attempt the claim counted (`attempt = attempt - 1`), for a row
       * released before any handler saw it.
       */
      readonly uncountAttempt?: boolean;
      /** The row's new `retry_after`; absent: due at once. */
      readonly retryAfter?: Date;
      /** Whether to clear the lease column (`locked_until = NULL`). */
      readonly clearLease: boolean;
      /**
       * Lease form, with `clearLease` false: the lease column is set to this instant instead, so no
       * claim takes the row before it (a thrown error's backoff on a table with no `retry_after`
       * column). Absent: the lease is cleared or left as `clearLease` says.
       */
      readonly holdUntil?: Date;
      /**
       * The delivery's failure: written into the failure record's columns with `now` as the
       * failure time, where the table has them. Absent: the record is left as it is.
       */
      readonly failure?: FailureRecord;
    }
  /** Move to the dead letter: set the row's group, or move it to a table of the same columns. */
  | {
      /** Discriminant: move the row to the dead letter. */
      readonly kind: 'deadLetter';
      /** The row's id. */
      readonly id: unknown;
      /** Lease form: the lease the claim wrote; the row changes only while it still holds it. */
      readonly token?: Date;
      /** The instant the settlement started. */
      readonly now: Date;
      /** The dead-letter group or table the row goes to. */
      readonly target: DeadLetterTarget;
      /** Whether the connection is already inside a transaction (row lock form, transactional mode). */
      readonly inTransaction: boolean;
      /**
       * Row lock form: add one to the attempt column (where the table has one) before the move, so
       * the dead row counts its last delivery as the other forms' claims do.
       */
      readonly countAttempt?: boolean;
      /**
       * The delivery's failure, written into the failure record's columns where the table has
       * them; `now` is written as the failure time whether or not there is one.
       */
      readonly failure?: FailureRecord;
    };

/** A `finish` settlement that carries its lease token (see `BatchSettleOps.settleMany`). */
export type FinishSettlement = Extract<
  Settlement,
  {
    /** The `finish` variant. */
    kind: 'finish';
  }
> & {
  /** The lease the claim wrote; the row is finished only while it still holds it. */
  readonly token: Date;
};

/**
 * A `return` settlement that carries its lease token (see `BatchSettleOps.returnMany`): a retry of
 * the lease form, each with its own values (failure record, `retry_after`, lease end).
 */
export type ReturnSettlement = Extract<
  Settlement,
  {
    /** The `return` variant. */
    kind: 'return';
  }
> & {
  /** The lease the claim wrote; the row returns only while it still holds it. */
  readonly token: Date;
};

/** Where dead rows go: a group of the queue table, or a table of the same columns. */
export type DeadLetterTarget =
  | {
      /** The dead-letter group: the row's group column is set to it. */
      readonly group: string;
    }
  | {
      /** The dead-letter table (validated identifier): the row moves there. */
      readonly table: string;
    };
