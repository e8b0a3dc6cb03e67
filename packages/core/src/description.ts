import type { ControlTable } from './control-table.js';
import type { Connection } from './driver.js';
import { ConfigError } from './errors.js';
import type { FlowTable } from './flow-table.js';
import type { RateLimit } from './rate-limit.js';
import type { Retention } from './retention.js';
import type { StepsTable } from './steps-table.js';

/**
 * A table description says which table holds a queue and what each column means. It comes in two
 * spellings that build the same value: the declarative object of {@link inbox} and the builder of
 * {@link table}. The description selects the claim form: none set is the row lock form, a lease
 * column is the lease form, an advisory key is the advisory lock form.
 */

/** The three ways a row is held while its handler runs. */
export type Form = 'rowlock' | 'lease' | 'advisory';

/** Transaction isolation levels a table may declare (SQLite declares a {@link SqliteMode} instead). */
export type IsolationLevel = 'read_uncommitted' | 'read_committed' | 'repeatable_read' | 'serializable';

/** SQLite transaction modes: when a transaction takes the database's write lock. */
export type SqliteMode = 'deferred' | 'immediate' | 'exclusive';

/** Whose clock decides "now" for due rows: the host's (default) or the database's. */
export type Clock = 'host' | 'database';

/** How the payload column stores a message. `json` (default) encodes with JSON. */
export type PayloadType = 'json' | 'text' | 'bytes';

/** One part of an advisory key: literal text, or the text of a column of the row. */
export type KeyPart =
  | {
      /** Text taken as it is. */
      readonly literal: string;
    }
  | {
      /** A column (validated identifier) whose value, as text, fills this part. */
      readonly column: string;
    };

/** Builders of {@link KeyPart}s, for the builder spelling. */
export const KeyPart = {
  /** A part of literal text. */
  literal: (text: string): KeyPart => ({ literal: text }),
  /** A part filled from column `name` of the row. */
  column: (name: string): KeyPart => ({ column: name }),
} as const;

/** A queryable handle given to custom statements: the delivery's connection or transaction. */
export interface Queryable {
  /** Runs one statement with bound parameters (in the dialect's placeholder style). */
  query<R = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{
    /** The rows the statement returned; empty for a statement without a result set. */
    rows: R[];
    /** The rows the statement changed (or returned, for a select). */
    rowCount: number;
  }>;
}

/** The service's own lock for the advisory form: try without waiting, answer whether it took the key. */
export type CustomLock = (conn: Queryable, key: string) => Promise<boolean>;
/** The service's own release: answer whether the session held the key. */
export type CustomUnlock = (conn: Queryable, key: string) => Promise<boolean>;

/** What a custom settlement statement is told about the row it settles. */
export interface CustomStatementContext {
  /** The queue table, as the description names it (optionally schema-qualified). */
  readonly table: string;
  /** The row's id. */
  readonly id: unknown;
  /** The row as the claim read it, column name to value as the driver returned it. */
  readonly row: Readonly<Record<string, unknown>>;
  /** Lease form: the delivery's token; a custom statement must keep `locked_until = token` in its WHERE. */
  readonly token: Date | undefined;
  /** Outcomes with a delay: the instant the row is due again. */
  readonly retryAfter: Date | undefined;
  /**
   * An ack with a value, on a table that keeps results: the value as the result column keeps it,
   * JSON text `{"value": <the value>}` (bind it to the result column, as the dialect's ack does, so
   * `broker.result` and `admin.result` read it back). Undefined for an ack without a value and for
   * the other outcomes.
   */
  readonly result: string | undefined;
}

/**
 * The service's own SQL for an outcome, run in place of the dialect's statement in the same
 * transaction or on the same connection. It answers how many rows it changed (0 in the lease form
 * means the lease was lost).
 */
export type CustomStatement = (conn: Queryable, ctx: CustomStatementContext) => Promise<number>;

/** Outcomes that take a custom statement. */
export interface CustomStatements {
  /**
   * Runs in place of the ack statement (delete the row, or stamp `processed_at`). On a table that
   * keeps results it stamps `processed_at` and writes `ctx.result` into the result column; the
   * engine then sends the table's result notification itself, where the dialect has one.
   */
  readonly ack?: CustomStatement;
  /** Runs in place of the drop statement (settle the row without processing it). */
  readonly drop?: CustomStatement;
  /** Runs in place of the retry statement (put the row back, due at once). */
  readonly retry?: CustomStatement;
  /** Runs in place of the retry-after statement (put the row back, due at `ctx.retryAfter`). */
  readonly retryAfter?: CustomStatement;
}

/** A column with a role; `generated` means the database fills it on insert. */
export interface ColumnRole {
  /** The column's name (validated identifier). */
  readonly column: string;
  /** Whether the database fills the column on insert (an identity or a default). */
  readonly generated: boolean;
}

/**
 * The resolved table description: the one value both spellings build, and what a dialect reads to
 * write its statements. Every identifier in it has been validated.
 */
export interface TableDescription<
  F extends Form = Form,
  I extends IsolationLevel | undefined = IsolationLevel | undefined,
  P = unknown,
> {
  /** Marks the value as a table description. */
  readonly kind: 'sqlinbox.table';
  /** The claim form the description selects. */
  readonly form: F;
  /** Table name, optionally schema-qualified (`app.jobs`). */
  readonly table: string;
  /** The id column. */
  readonly id: ColumnRole;
  /** The payload column and how it stores a message; undefined for a table without one. */
  readonly payload:
    | {
        /** The payload column's name. */
        readonly column: string;
        /** How the column stores a message. */
        readonly type: PayloadType;
      }
    | undefined;
  /** The attempt column; undefined: attempts are not counted. */
  readonly attempt: ColumnRole | undefined;
  /** Lease form: the `locked_until` column. */
  readonly lease: string | undefined;
  /** Advisory form: the key's parts. */
  readonly key: readonly KeyPart[] | undefined;
  /** The `retry_after` column: a row is not due before it. Undefined: every row is due at once. */
  readonly retryAfter: string | undefined;
  /** The `processed_at` column settled rows are stamped in; undefined: settled rows are deleted. */
  readonly processedAt: string | undefined;
  /** The FIFO group column; undefined: no FIFO groups. */
  readonly group: string | undefined;
  /** The partition key column `workersByKey(n)` reads; undefined: none. */
  readonly partitionKey: string | undefined;
  /** Priority column (an integer): a claim takes the highest priority first, then claim order. */
  readonly priority: string | undefined;
  /** Unique key column (text): one unsettled row per key; `publish(.., { key })` fills it. */
  readonly uniqueKey: string | undefined;
  /**
   * The deadline column (an instant): a row whose deadline has passed is never handed to a
   * handler, and leaves as expired; `publish(.., { expiresAt })` fills it. Undefined: no deadline.
   */
  readonly expiresAt?: string | undefined;
  /**
   * The last error's message column (text, cut to 1,000 characters): written by the settlement
   * of a failed delivery (retry or dead letter), kept by the dead letter. Undefined: not kept.
   */
  readonly lastError?: string | undefined;
  /**
   * The last error's class column (text): the thrown error's `name`, or `expired` for a row that
   * left past its deadline. Written with {@link lastError}. Undefined: not kept.
   */
  readonly errorClass?: string | undefined;
  /** The instant of the last failure, or of the death (an instant). Undefined: not kept. */
  readonly failedAt?: string | undefined;
  /** The instant the row was inserted (an instant; `ddl()` gives it the database's now as default). */
  readonly createdAt?: string | undefined;
  /**
   * The result column (JSON or text): the value a handler acks with (`Outcome.ack(value)`),
   * written by the ack's settlement; needs {@link processedAt}. Undefined: results are not kept.
   */
  readonly result?: string | undefined;
  /**
   * Per-key concurrency: at most `limit` rows of one value of `column` in work at once, across
   * every broker on the table; undefined: no limit.
   */
  readonly concurrency: Concurrency | undefined;
  /** Other columns the description names (placeholders of the key may name them). */
  readonly columns: readonly string[];
  /** The isolation level of row-lock claims and transactional-mode transactions; undefined: the database's default. */
  readonly isolation: I;
  /** SQLite transaction mode; undefined: the dialect's default. */
  readonly mode: SqliteMode | undefined;
  /** Whose clock decides "now" for due rows. */
  readonly clock: Clock;
  /** Advisory form: the service's own lock; undefined: the dialect's. */
  readonly lock: CustomLock | undefined;
  /** Advisory form: the service's own release, given with `lock`; undefined: the dialect's. */
  readonly unlock: CustomUnlock | undefined;
  /** Custom settlement statements per outcome; empty: the dialect's statements. */
  readonly custom: CustomStatements;
  /**
   * At most `max` deliveries started per window of `perMs` across every broker, the budget held
   * in the database (see `RateLimit`). Undefined: no rate limit.
   */
  readonly rateLimit?: RateLimit | undefined;
  /**
   * How long settled rows are kept before the brokers that subscribe the table delete them (see
   * `Retention`). Undefined: kept until something else deletes them.
   */
  readonly retention?: Retention | undefined;
  /**
   * The control table where pauses of this queue are kept (see `ControlTable`); every broker
   * subscribed to the table reads it once a second. Undefined: the queue cannot be paused.
   */
  readonly control?: ControlTable | undefined;
  /**
   * The flow tables (see `FlowTable`): the edges between parents and children published with
   * `publishFlow`, and each parent's count of children not yet settled. Undefined: no flows.
   */
  readonly flows?: FlowTable | undefined;
  /**
   * The steps table where the finished steps of its rows in work are kept (`ctx.step`, see
   * `StepsTable`); a row's final settlement deletes its records. Undefined: `ctx.step` is refused.
   */
  readonly steps?: StepsTable | undefined;
  /**
   * Type-level only, never present at runtime: the message type `P` the payload column carries,
   * stated by `table(..).payload<P>(..)` or {@link typed}. `queue(d)` hands the handler a `P` and
   * `publish(d, ..)` takes one; unknown (the default) leaves both untyped.
   */
  readonly '~payload'?: P;
}

/** What {@link typed} adds to a description's type: its message type, at the type level only. */
export interface Typed<P> {
  /** Type-level only, never present at runtime: the message type `P` of the payload column. */
  readonly '~payload'?: P;
}

/** The message type a description states (see {@link typed}); unknown where it states none. */
export type PayloadOf<D> = D extends Typed<infer P> ? P : unknown;

/** What {@link typedResult} adds to a description's type: its result type, at the type level only. */
export interface TypedResult<R> {
  /** Type-level only, never present at runtime: the type of the value a handler acks with. */
  readonly '~result'?: R;
}

/**
 * States the type of the value a description's handlers ack with, once: type-level only, the
 * description is answered as it is. The handler's `Outcome.ack(value)` and `ctx.ack(value)` then
 * take that type, and `broker.result`, `admin.waitResult` and `admin.result` answer it (or
 * undefined, for an ack that kept no value).
 * ```ts
 * const reports = typedResult<{ url: string }>()(inbox({ table: 'reports', id: 'id', result: 'result', processedAt: 'done_at' }));
 * ```
 * The builder spelling says it in `.result<{ url: string }>('result')`. Like {@link typed}, it is a
 * promise about the rows, not a check of them: a value written by other code is answered as it is.
 */
export function typedResult<R>(): <D extends AnyTable>(description: D) => D & TypedResult<R> {
  return asTyped as never;
}

/**
 * States the message type of a description, once, for the handler and `publish`: type-level only,
 * the description is answered as it is.
 * ```ts
 * const emails = typed<{ to: string }>()(inbox({ table: 'emails', id: 'id', payload: 'payload' }));
 * ```
 * The builder spelling says it in `.payload<{ to: string }>('payload')`.
 */
export function typed<P>(): <D extends AnyTable>(description: D) => D & Typed<P> {
  return asTyped as never;
}

const asTyped = <D>(description: D): D => description;

/**
 * Per-key concurrency of a table: at most `limit` rows with one value of `column` are in work at
 * once, across every broker and process on the table (the database enforces it at each claim).
 * A row whose `column` is NULL has no key and no limit.
 */
export interface Concurrency {
  /** The key column (validated identifier). */
  readonly column: string;
  /** Most rows of one key in work at once: a positive integer. */
  readonly limit: number;
}

/**
 * Validates a per-key concurrency declaration: the column an identifier, the limit a positive
 * integer. Throws a {@link ConfigError} naming the table and the column.
 */
export function validateConcurrency(column: string, limit: number, table: string): Concurrency {
  const c = validateIdentifier(column, 'concurrency key', table);
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1) {
    throw new ConfigError(`concurrency limit ${String(limit)} is not a positive integer`, {
      table,
      column: c,
      fix: 'give the most rows of one key in work at once, 1 or more',
    });
  }
  return { column: c, limit };
}

/** A table description of any form and isolation level: what the engine and dialects take. */
export type AnyTable = TableDescription<Form, IsolationLevel | undefined>;

// ---------------------------------------------------------------------------------------------
// Identifiers

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Why `name` is not an identifier (a table may be `schema.table`), or undefined when it is one. */
function identifierProblem(name: unknown, qualified: boolean): string | undefined {
  if (typeof name !== 'string') return `it is a ${name === null ? 'null' : typeof name}, not a string`;
  if (name.length === 0) return 'it is empty';
  if (name.includes('\u0000')) return 'it contains a NUL character';
  const parts = qualified ? name.split('.') : [name];
  if (parts.length > 2) return 'it has more than one dot: at most schema.table';
  if (!qualified && name.includes('.')) return 'it contains a dot: only a table may be schema.table';
  for (const p of parts) {
    if (p.length === 0) return qualified ? 'the schema or the table part is empty' : 'it is empty';
    if (p.length > 63) return `"${p.slice(0, 20)}..." is longer than 63 characters`;
    if (!IDENT.test(p)) {
      const bad = [...p].find((c, i) => !/[A-Za-z0-9_]/.test(c) || (i === 0 && /[0-9]/.test(c)));
      return bad === undefined
        ? `${JSON.stringify(p)} is not an identifier`
        : `${JSON.stringify(p)} has ${JSON.stringify(bad)}${/[0-9]/.test(bad) ? ' first' : ''}`;
    }
  }
  return undefined;
}

/**
 * Validates an identifier: letters, digits and underscores, starting with a letter or underscore,
 * at most 63 characters; with `qualified` (a table), `schema.table` too. The one rule for every
 * identifier sqlinbox puts in SQL (tables, columns, dead-letter and outbox tables), applied where
 * a description or queue is built, so dialects only quote. Throws a {@link ConfigError} naming
 * the identifier and why.
 */
export function validateIdentifier(name: string, what: string, table?: string, qualified = false): string {
  const problem = identifierProblem(name, qualified);
  if (problem !== undefined) {
    throw new ConfigError(`invalid ${what} identifier ${JSON.stringify(name)}: ${problem}`, {
      ...(table === undefined ? {} : { table }),
      ...(qualified ? {} : { column: String(name) }),
      fix: `use letters, digits and underscores, starting with a letter or underscore, at most 63 characters${qualified ? ', optionally schema.table' : ''}`,
    });
  }
  return name;
}

/**
 * Validates a dead-letter target where a queue or a stats call is built: a `table` is an
 * identifier like the queue's own (`schema.table` allowed), a `group` a non-empty string (a value,
 * bound as a parameter). Throws a {@link ConfigError} naming the queue table.
 */
export function validateDeadLetter<
  T extends
    | {
        /** The dead-letter group. */
        readonly group: string;
      }
    | {
        /** The dead-letter table. */
        readonly table: string;
      },
>(target: T, table: string): T {
  const t = target as { group?: unknown; table?: unknown } | null | undefined;
  if (t !== null && typeof t === 'object' && 'table' in t && !('group' in t)) {
    validateIdentifier(t.table as string, 'dead-letter table', table, true);
    return target;
  }
  if (t !== null && typeof t === 'object' && 'group' in t && !('table' in t)) {
    if (typeof t.group === 'string' && t.group.length > 0) return target;
    throw new ConfigError(
      `invalid dead-letter group ${JSON.stringify(t.group)}: it must be a non-empty string`,
      {
        table,
      },
    );
  }
  throw new ConfigError('a dead-letter target is { group } or { table }, one of the two', { table });
}

// ---------------------------------------------------------------------------------------------
// Advisory key templates: "accounts-{account}"

/** The placeholders of a key template, as a union of column names. */
export type Placeholders<S extends string> = S extends `${string}{${infer C}}${infer Rest}`
  ? C | Placeholders<Rest>
  : never;

/** Parses a key template into parts; `{` and `}` only delimit placeholders. */
export function parseKeyTemplate(template: string, table: string): KeyPart[] {
  const parts: KeyPart[] = [];
  const re = /\{([^{}]*)\}/g;
  let last = 0;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    if (m.index > last) parts.push({ literal: template.slice(last, m.index) });
    parts.push({ column: validateIdentifier(m[1] ?? '', 'advisory key column', table) });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ literal: template.slice(last) });
  if (parts.some((p) => 'literal' in p && /[{}]/.test(p.literal))) {
    throw new ConfigError(`advisory key ${JSON.stringify(template)} has an unmatched brace`, {
      table,
      fix: 'write placeholders as {column}',
    });
  }
  if (!parts.some((p) => 'column' in p)) {
    throw new ConfigError(
      `advisory key ${JSON.stringify(template)} names no column: every row would share one lock`,
      {
        table,
        fix: 'name a column, e.g. "jobs-{id}"',
      },
    );
  }
  return parts;
}

/**
 * What a description's type shows of its flow-control columns: `undefined` where it has none, so
 * a `priority` or `key` publish option on such a table is a type error.
 */
export interface FlowColumns<P extends string | undefined, K extends string | undefined> {
  /** The priority column's name, or `undefined` where the table has none. */
  readonly priority: P;
  /** The unique key column's name, or `undefined` where the table has none. */
  readonly uniqueKey: K;
}

/** Rules both spellings share, checked at run time too (for plain JavaScript callers). */
export function finishDescription(t: AnyTable): AnyTable {
  if (t.form === 'lease' && t.clock === 'database') {
    throw new ConfigError('a lease table reads the host clock', {
      table: t.table,
      column: t.lease,
      fix: 'drop clock',
    });
  }
  if ((t.lock === undefined) !== (t.unlock === undefined)) {
    throw new ConfigError('custom lock and unlock come together', {
      table: t.table,
      fix: 'give both or neither',
    });
  }
  if (t.lock !== undefined && t.form !== 'advisory') {
    throw new ConfigError('custom lock and unlock belong to the advisory lock form', { table: t.table });
  }
  if (t.retention?.processedMs !== undefined && t.processedAt === undefined) {
    throw new ConfigError(
      'retention.processed needs a processedAt column: this table deletes its rows at the ack, so it keeps no processed rows',
      { table: t.table, fix: "declare processedAt: 'processed_at', or drop retention.processed" },
    );
  }
  if (t.result !== undefined && t.processedAt === undefined) {
    throw new ConfigError(
      'a result column needs a processedAt column: this table deletes its rows at the ack, so no result could be kept',
      { table: t.table, column: t.result, fix: "declare processedAt: 'processed_at', or drop result" },
    );
  }
  if (t.flows !== undefined && t.retryAfter === undefined) {
    throw new ConfigError('flows need a retryAfter column: a parent waits for its children held behind it', {
      table: t.table,
      fix: "declare retryAfter: 'retry_after', or drop flows",
    });
  }
  if (t.isolation !== undefined && t.mode !== undefined) {
    throw new ConfigError('declare an isolation level or a SQLite mode, not both', { table: t.table });
  }
  return Object.freeze(t);
}

/** Every column the description names, with the role it plays (for startup validation). */
export function namedColumns(t: AnyTable): {
  /** The column's name. */
  column: string;
  /** Its role: `id`, `payload`, `attempt`, `lease`, `retryAfter`, `processedAt`, `group`, ... */
  role: string;
}[] {
  const out: { column: string; role: string }[] = [{ column: t.id.column, role: 'id' }];
  const add = (column: string | undefined, role: string) =>
    column !== undefined && out.push({ column, role });
  add(t.payload?.column, 'payload');
  add(t.attempt?.column, 'attempt');
  add(t.lease, 'lease');
  add(t.retryAfter, 'retryAfter');
  add(t.processedAt, 'processedAt');
  add(t.group, 'group');
  add(t.partitionKey, 'partitionKey');
  add(t.priority, 'priority');
  add(t.uniqueKey, 'uniqueKey');
  add(t.expiresAt, 'expiresAt');
  add(t.lastError, 'lastError');
  add(t.errorClass, 'errorClass');
  add(t.failedAt, 'failedAt');
  add(t.createdAt, 'createdAt');
  add(t.result, 'result');
  add(t.concurrency?.column, 'concurrencyKey');
  add(t.retention?.deadAt, 'deadAt');
  for (const p of t.key ?? []) if ('column' in p) add(p.column, 'advisory key');
  for (const c of t.columns) add(c, 'column');
  return out;
}

/** The advisory key of a row, from its parts (the dialect renders the same text in SQL). */
export function keyOf(t: AnyTable, row: Readonly<Record<string, unknown>>): string {
  return (t.key ?? []).map((p) => ('literal' in p ? p.literal : String(row[p.column] ?? ''))).join('');
}

/** Used by the broker: run a custom statement through a connection. */
export type { Connection };
