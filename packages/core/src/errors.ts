/**
 * Every error sqlinbox raises is a `SqlInboxError` with a stable `code`, and carries the table and,
 * where one applies, the row id, so a log line says which message it was about.
 */
export class SqlInboxError extends Error {
  /** Stable machine-readable code, e.g. `LEASE_LOST`. */
  readonly code: string;
  /** The queue table the error concerns, when there is one. */
  readonly table: string | undefined;
  /** The row id the error concerns, when there is one. */
  readonly rowId: unknown;

  constructor(
    code: string,
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
  readonly found: string;
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
  readonly column: string | undefined;
  readonly fix: string | undefined;
  constructor(message: string, opts: { table?: string; column?: string; fix?: string } = {}) {
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

/** A settlement statement failed; the row stays as its form says (see SPEC R-SET-5). */
export class SettlementError extends SqlInboxError {
  constructor(table: string, rowId: unknown, cause: unknown) {
    super('SETTLEMENT', `settlement of ${table} row ${String(rowId)} failed: ${messageOf(cause)}`, {
      table,
      rowId,
      cause,
    });
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

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
