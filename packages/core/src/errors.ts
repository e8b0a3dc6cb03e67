/**
 * Every code a {@link SqlInboxError} carries. The list is closed: `code` is typed as one of these
 * literals, so a `switch` over it can be checked for exhaustiveness, and a new code is a change here.
 * - `CONFIG`: a description, queue or option problem ({@link ConfigError}); nothing ran.
 * - `CONNECTION`: the database cannot be reached at start ({@link ConnectionError}).
 * - `SERVER_TOO_OLD`: the server is older than the dialect needs ({@link ServerTooOldError}).
 * - `LEASE_LOST`: a lease-form settlement found another claim's lease ({@link LeaseLostError}).
 * - `CLOSED`: the broker, or the handler threads, are closed ({@link ClosedError}).
 * - `DECODE`: a payload could not be decoded or failed its schema ({@link DecodeError}).
 * - `ENCODE`: a published message could not be encoded or failed its schema ({@link EncodeError}).
 * - `SETTLEMENT`: a settlement statement failed ({@link SettlementError}).
 * - `HANDLER`: a handler threw something that is not an `Error` ({@link HandlerError}).
 * - `TIMEOUT`: a handler ran past its queue's `timeout`: the reason its signal aborts with.
 * - `ALREADY_SETTLED`: a delivery settled, or ended, already was asked to settle again.
 * - `TX_CLOSED`: a transactional handler used `ctx.tx` after its transaction ended.
 * - `THREAD_OPEN`: a handler thread could not open its own pool.
 * - `THREAD_EXITED`: a handler thread ended while rows of it were in work (`ThreadExitedError`).
 * - `MIGRATE_LOCK`: `migrate` waited past its timeout for another migration's lock.
 * - `EXPIRED`: a row's deadline passed before its delivery started (`ExpiredError`).
 * - `STATEMENT_TIMEOUT`: a statement of the engine ran past `statementTimeout`
 *   ({@link StatementTimeoutError}); its connection is closed.
 * - `RESULT_TIMEOUT`: a wait for a row's result ran past its timeout (`ResultTimeoutError`).
 * - `RESULT_DEAD`: a row waited for died instead of being processed (`ResultDeadError`).
 * - `CANCELLED`: a row was cancelled while its handler ran ({@link CancelledError}).
 * - `PUBLISH`: a publish's insert failed, and the table as described was not why ({@link PublishError}).
 * - `FLOW_CHILD_DEAD`: a flow parent whose policy is `'fail'` read a dead child (`FlowChildDeadError`).
 * - `STEP`: a handler misused `ctx.step`: a name that is not one, or one run twice (`StepError`).
 */
export const ERROR_CODES = [
  'CONFIG',
  'CONNECTION',
  'SERVER_TOO_OLD',
  'LEASE_LOST',
  'CLOSED',
  'DECODE',
  'ENCODE',
  'SETTLEMENT',
  'HANDLER',
  'TIMEOUT',
  'ALREADY_SETTLED',
  'TX_CLOSED',
  'THREAD_OPEN',
  'THREAD_EXITED',
  'MIGRATE_LOCK',
  'STATEMENT_TIMEOUT',
  'EXPIRED',
  'RESULT_TIMEOUT',
  'RESULT_DEAD',
  'FLOW_CHILD_DEAD',
  'CANCELLED',
  'PUBLISH',
  'STEP',
] as const;

/** The code of a {@link SqlInboxError}: one of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

const CODES: ReadonlySet<unknown> = new Set(ERROR_CODES);

/** Whether `code` is one of sqlinbox's own {@link ERROR_CODES} (a driver's code is not). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return CODES.has(code);
}

/**
 * Every error sqlinbox raises is a `SqlInboxError` with a stable `code`, and carries the table and,
 * where one applies, the row id, so a log line says which message it was about.
 */
export class SqlInboxError extends Error {
  /** Stable machine-readable code, one of {@link ERROR_CODES}, e.g. `LEASE_LOST`. */
  readonly code: ErrorCode;
  /** The queue table the error concerns, when there is one. */
  readonly table: string | undefined;
  /** The row id the error concerns, when there is one. */
  readonly rowId: unknown;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { table?: string; rowId?: unknown; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.table = opts.table;
    this.rowId = opts.rowId;
  }
}

/**
 * A row was cancelled (`admin.cancel`, `broker.cancel`): the reason a delivery's `ctx.signal`
 * aborts with when its row is cancelled while it runs. Whatever the handler then answers, the row
 * settles as cancelled (its dead letter with `errorClass` `cancelled`, else dropped), never retried.
 */
export class CancelledError extends SqlInboxError {
  /** The reason the cancel gave (default `cancelled`), kept as the row's `lastError`. */
  readonly reason: string;
  constructor(table: string, rowId: unknown, reason: string) {
    super('CANCELLED', `${table} row ${String(rowId)} cancelled: ${reason}`, { table, rowId });
    this.reason = reason;
  }
}

/** A lease-form settlement found another claim's token in the row: the row belongs to that claim now. */
export class LeaseLostError extends SqlInboxError {
  constructor(table: string, rowId: unknown, cause?: unknown) {
    super('LEASE_LOST', `lease lost on ${table} row ${String(rowId)}: the row holds another claim's lease`, {
      table,
      rowId,
      cause,
    });
  }
}

/** The broker (or its subscription) is closed; a delivery whose hold was released settles no more. */
export class ClosedError extends SqlInboxError {
  constructor(what: string, opts: { table?: string; rowId?: unknown } = {}) {
    super('CLOSED', `${what}: the broker is closed`, opts);
  }
}

/** The database server is older than the first release that has what the dialect needs. */
export class ServerTooOldError extends SqlInboxError {
  /** The server's version, as it reported it. */
  readonly found: string;
  /** The oldest version the dialect supports. */
  readonly floor: string;
  constructor(server: string, found: string, floor: string, table?: string) {
    super(
      'SERVER_TOO_OLD',
      `${server} ${found} is too old: sqlinbox needs ${server} ${floor} or later` +
        (table ? ` (table ${table})` : ''),
      table === undefined ? {} : { table },
    );
    this.found = found;
    this.floor = floor;
  }
}

/**
 * The database cannot be reached: `start()` could not open a connection. Names the server it
 * tried (`server`, as the adapter describes it) and carries the driver's error as `cause`.
 */
export class ConnectionError extends SqlInboxError {
  /** The server tried, as the adapter describes it (e.g. `postgres://127.0.0.1:5432/app`). */
  readonly server: string;
  constructor(server: string, cause: unknown) {
    super('CONNECTION', `cannot reach the database at ${server}: ${causeText(cause)}`, { cause });
    this.server = server;
  }
}

/** A driver error's message, or its code where it has no message (Node's AggregateError of a refused connect). */
function causeText(err: unknown): string {
  if (err instanceof Error) {
    if (err.message !== '') return err.message;
    const code = (err as { code?: unknown }).code;
    const inner = err instanceof AggregateError ? err.errors.map(causeText).join('; ') : '';
    return inner !== '' ? inner : code !== undefined ? String(code) : err.name;
  }
  return String(err);
}

/** A description or subscription problem found at start, before any row is claimed. */
export class ConfigError extends SqlInboxError {
  /** The column the problem concerns, or undefined where it concerns no one column. */
  readonly column: string | undefined;
  /** What to change to mend it (also at the end of the message), or undefined. */
  readonly fix: string | undefined;
  constructor(
    message: string,
    opts: { table?: string; column?: string; fix?: string; cause?: unknown } = {},
  ) {
    const where = [opts.table && `table ${opts.table}`, opts.column && `column ${opts.column}`]
      .filter(Boolean)
      .join(', ');
    super('CONFIG', `${where ? `${where}: ` : ''}${message}${opts.fix ? `. Fix: ${opts.fix}` : ''}`, opts);
    this.column = opts.column;
    this.fix = opts.fix;
  }
}

/** A payload that cannot be decoded or fails its schema. It never reaches the handler. */
export class DecodeError extends SqlInboxError {
  /** The schema's issues (Standard Schema `issues`) when validation failed; empty when decoding did. */
  readonly issues: readonly unknown[];
  constructor(
    table: string,
    rowId: unknown,
    detail: string,
    issues: readonly unknown[] = [],
    cause?: unknown,
  ) {
    super('DECODE', `cannot decode payload of ${table} row ${String(rowId)}: ${detail}`, {
      table,
      rowId,
      cause,
    });
    this.issues = issues;
  }
}

/** A message given to `publish` that cannot be encoded or fails its schema; nothing is inserted. */
export class EncodeError extends SqlInboxError {
  constructor(table: string, detail: string, cause?: unknown) {
    super('ENCODE', `cannot encode message for ${table}: ${detail}`, { table, cause });
  }
}

/**
 * A publish's insert failed for a reason other than the table as described (a missing table,
 * column or a column of the wrong type is a `ConfigError` naming it): a constraint of the table the
 * description does not know, a trigger, a lost connection. Nothing of the call was stored. The
 * driver's error is the `cause`; `kind` is the dialect's reading of it.
 */
export class PublishError extends SqlInboxError {
  /** What the dialect's `classifyError` made of the driver's error (`constraint`, `connection`, ...). */
  readonly kind: ErrorKind;
  constructor(table: string, cause: unknown, kind: ErrorKind) {
    super('PUBLISH', `cannot publish to ${table} (${kind}): ${messageOf(cause)}`, { table, cause });
    this.kind = kind;
  }
}

/** A settlement statement failed; the row stays as its form says. */
export class SettlementError extends SqlInboxError {
  /**
   * What the dialect's `classifyError` made of the driver's error: `constraint` for a statement
   * the database refuses (it fails the same way again), `connection`, `deadlock` and the others
   * for a transient failure. Default `other`.
   */
  readonly kind: ErrorKind;
  constructor(table: string, rowId: unknown, cause: unknown, kind: ErrorKind = 'other') {
    super('SETTLEMENT', `settlement of ${table} row ${String(rowId)} failed (${kind}): ${messageOf(cause)}`, {
      table,
      rowId,
      cause,
    });
    this.kind = kind;
  }
}

/**
 * A handler threw something that is not an `Error` (`throw 'text'`, `throw undefined`): the
 * delivery is retried as for any thrown error, and this error, which says what was thrown, is
 * what the log and the `settled` event carry. An `Error` a handler throws is passed on as it is.
 */
export class HandlerError extends SqlInboxError {
  /** The value the handler threw, as it was. */
  readonly thrown: unknown;
  constructor(table: string, rowId: unknown, thrown: unknown) {
    super(
      'HANDLER',
      `handler of ${table} row ${String(rowId)} threw a non-Error: ${describeThrown(thrown)}`,
      {
        table,
        rowId,
      },
    );
    this.thrown = thrown;
  }
}

/** Words for a thrown value that is not an Error, for {@link HandlerError}. */
function describeThrown(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
    return `the ${typeof v} ${String(v)}`;
  if (typeof v === 'symbol' || typeof v === 'function') return `a ${typeof v} ${String(v)}`;
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return `an object ${text.length > 200 ? `${text.slice(0, 200)}...` : text}`;
}

/**
 * A statement the engine ran (a claim, a settlement, an extension, a commit, a publish) was still
 * running at the statement timeout (`statementTimeout`, default 30 s). Its connection was closed,
 * not returned to the pool; the rows it held come back as their form says. Classified as a lost
 * connection.
 */
export class StatementTimeoutError extends SqlInboxError {
  /** What hung, in the engine's words: `claim`, `settle`, `extend`, `commit`, `publish`, ... */
  readonly operation: string;
  /** The dialect or table method that ran it (e.g. `claimLease`, `settleMany`). */
  readonly method: string;
  /** The bound it passed, in milliseconds. */
  readonly timeoutMs: number;
  /** The connection it ran on (PostgreSQL: the backend pid), closed since. */
  readonly connectionId: string;
  constructor(operation: string, method: string, timeoutMs: number, connectionId: string, table?: string) {
    super(
      'STATEMENT_TIMEOUT',
      `${operation} (${method})${table === undefined ? '' : ` on ${table}`} still ran after ${timeoutMs} ms ` +
        `(statementTimeout) on connection ${connectionId}: the connection is closed and not lent again`,
      table === undefined ? {} : { table },
    );
    this.operation = operation;
    this.method = method;
    this.timeoutMs = timeoutMs;
    this.connectionId = connectionId;
  }
}

/** What a dialect's `classifyError` maps a driver error to. */
export type ErrorKind =
  | 'serialization'
  | 'deadlock'
  | 'lock_timeout'
  | 'connection'
  | 'shutdown'
  | 'constraint'
  | 'other';

/** Whether an error of this kind is worth retrying the same statement for. */
export function isRetryable(kind: ErrorKind): boolean {
  return kind === 'serialization' || kind === 'deadlock' || kind === 'lock_timeout';
}

/**
 * What the engine does after a failed claim, from the dialect's classification of the
 * error and how many claims failed in a row (`failures`, 1 for the first):
 * - `connection`, `shutdown`: the connection is retired (closed, not returned to the pool) and the
 *   next claim comes at once (10 to 50 ms) on a fresh one, then 100 ms, doubling, at most 500 ms:
 *   a lost session is a database that failed over, restarted or dropped it, never a busy one, so
 *   the claims find the new primary within half a second of its promotion, however long the
 *   outage before it. Logged as a warning for the
 *   first three in a row and every tenth after (an outage of minutes is not a log line a second),
 *   as debug otherwise;
 * - `serialization`, `deadlock`, `lock_timeout`: another claim soon (10 to 50 ms), the connection
 *   kept; after three in a row, the backoff above;
 * - `constraint`, `other`: the backoff above, logged as an error (it will not mend by itself).
 */
export function claimErrorPolicy(
  kind: ErrorKind,
  failures: number,
  pollMs: number,
): {
  /** The pause before the next claim, in milliseconds. */
  delayMs: number;
  /** Whether to close the claim's connection instead of returning it to the pool. */
  retire: boolean;
  /** The level the failure is logged at. */
  level: 'debug' | 'warn' | 'error';
} {
  const n = Math.max(1, failures);
  const backoff = Math.min(30_000, Math.max(1, pollMs) * 2 ** Math.min(n - 1, 10));
  if (isRetryable(kind)) {
    return { delayMs: n <= 3 ? 10 + Math.floor(Math.random() * 41) : backoff, retire: false, level: 'warn' };
  }
  if (kind === 'connection' || kind === 'shutdown') {
    const delayMs =
      n === 1 ? 10 + Math.floor(Math.random() * 41) : Math.min(500, 100 * 2 ** Math.min(n - 2, 3));
    return { delayMs, retire: true, level: n <= 3 || n % 10 === 0 ? 'warn' : 'debug' };
  }
  return { delayMs: backoff, retire: false, level: 'error' };
}

/** A dialect's classification of an error; `other` where the dialect's own classifier throws. */
export function classify(dialect: { classifyError(err: unknown): ErrorKind }, err: unknown): ErrorKind {
  if (err instanceof StatementTimeoutError) return 'connection';
  try {
    return dialect.classifyError(err);
  } catch {
    return 'other';
  }
}

/** An error's message, or the thrown value as a string where it is not an Error. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
