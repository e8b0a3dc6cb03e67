import type { Connection } from './driver.js';
import { ConfigError } from './errors.js';
import type { Duration } from './queue.js';
import { type RateLimit, type RateLimitInput, rateLimitOf } from './rate.js';

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
}

/**
 * The service's own SQL for an outcome, run in place of the dialect's statement in the same
 * transaction or on the same connection. It answers how many rows it changed (0 in the lease form
 * means the lease was lost).
 */
export type CustomStatement = (conn: Queryable, ctx: CustomStatementContext) => Promise<number>;

/** Outcomes that take a custom statement. */
export interface CustomStatements {
  /** Runs in place of the ack statement (delete the row, or stamp `processed_at`). */
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
}

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

// ---------------------------------------------------------------------------------------------
// The declarative spelling

type ColumnSpec = string | { readonly column: string; readonly generated?: boolean };
type PayloadSpec = string | { readonly column: string; readonly type?: PayloadType };

/** The declarative spelling of a table description. */
export interface InboxInput {
  /** Table name, optionally schema-qualified. */
  readonly table: string;
  /** The id column; `{ column, generated: true }` when the database fills it. */
  readonly id: ColumnSpec;
  /** The payload column; JSON unless `type` says `text` or `bytes`. */
  readonly payload?: PayloadSpec;
  /** The attempt column (default 1 on insert). Without it attempts are not counted. */
  readonly attempt?: ColumnSpec;
  /** Selects the lease form: the `locked_until` column. */
  readonly lease?: string;
  /** Selects the advisory lock form: a key template such as `"accounts-{account}"`. */
  readonly advisory?: string;
  /** Rows are not due before this instant; enables `retryAfter(d)`. */
  readonly retryAfter?: string;
  /** Settled rows are stamped here instead of deleted. */
  readonly processedAt?: string;
  /** FIFO group column. */
  readonly group?: string;
  /** Partition key column for `workersByKey(n)`. */
  readonly partitionKey?: string;
  /**
   * Priority column (an integer, `NOT NULL DEFAULT 0` in the printed DDL): a claim takes the
   * highest priority first, then claim order. Default: none, claim order only.
   */
  readonly priority?: string;
  /**
   * Unique key column (text): while a row with a key is unsettled, a publish with the same key
   * inserts nothing and answers the existing row's id. Default: none.
   */
  readonly uniqueKey?: string;
  /**
   * Per-key concurrency: at most `limit` rows with one value of column `key` in work at once,
   * across every broker on the table (lease form). Default: no limit.
   */
  readonly concurrency?: {
    /** The key column; a row whose value is NULL has no limit. */
    readonly key: string;
    /** Most rows of one key in work at once: a positive integer. */
    readonly limit: number;
  };
  /** Other columns of the table the description names (e.g. for key placeholders). */
  readonly columns?: readonly string[];
  /** Isolation level of row-lock claims and transactional-mode transactions. */
  readonly isolation?: IsolationLevel;
  /** SQLite transaction mode (default `deferred`). */
  readonly mode?: SqliteMode;
  /** Whose clock decides "now" (default `host`). A lease table takes the host's. */
  readonly clock?: Clock;
  /** Custom lock and unlock: together, and only in the advisory form. */
  readonly lock?: CustomLock;
  /** Custom unlock, given with `lock`. */
  readonly unlock?: CustomUnlock;
  /** Custom settlement statements per outcome. */
  readonly custom?: CustomStatements;
  /**
   * At most `max` deliveries started per `per` (fixed windows on the database clock) across every
   * broker on the table, the budget held in the table `sqlinbox_rates` (or `table`), which `ddl()`
   * prints. Default: no rate limit.
   */
  readonly rateLimit?: RateLimitInput;
}

type ColName<S> = S extends string ? S : S extends { readonly column: infer C extends string } ? C : never;
type Prop<D, K extends string, Else = never> = D extends { readonly [P in K]: infer V } ? V : Else;

/** Every column name a declarative description declares. */
type DeclaredColumns<D extends InboxInput> =
  | ColName<Prop<D, 'id'>>
  | ColName<Prop<D, 'payload'>>
  | ColName<Prop<D, 'attempt'>>
  | ColName<Prop<D, 'lease'>>
  | ColName<Prop<D, 'retryAfter'>>
  | ColName<Prop<D, 'processedAt'>>
  | ColName<Prop<D, 'group'>>
  | ColName<Prop<D, 'partitionKey'>>
  | ColName<Prop<D, 'priority'>>
  | ColName<Prop<D, 'uniqueKey'>>
  | (Prop<D, 'concurrency', undefined> extends { readonly key: infer C extends string } ? C : never)
  | (Prop<D, 'columns', readonly []> extends readonly (infer C)[] ? C & string : never);

type FormOf<D> = D extends { lease: string }
  ? 'lease'
  : D extends { advisory: string }
    ? 'advisory'
    : 'rowlock';

type Has<D, K extends string> = D extends { readonly [P in K]: infer V }
  ? undefined extends V
    ? false
    : true
  : false;

/** The first rule a declarative description breaks, as a message; `never` when it keeps them all. */
export type DescriptionProblem<D extends InboxInput> =
  Has<D, 'lease'> extends true
    ? Has<D, 'advisory'> extends true
      ? 'a table takes one claim form: set `lease` or `advisory`, not both'
      : D extends {
            /** A description that reads the database clock. */
            clock: 'database';
          }
        ? 'a lease table reads the host clock: every settlement names the expiry its claim computed on the host'
        : LockRule<D>
    : LockRule<D>;

type LockRule<D extends InboxInput> =
  Has<D, 'lock'> extends Has<D, 'unlock'>
    ? Has<D, 'lock'> extends true
      ? Has<D, 'advisory'> extends true
        ? PlaceholderRule<D>
        : 'custom `lock` and `unlock` belong to the advisory lock form only'
      : PlaceholderRule<D>
    : 'custom `lock` and `unlock` come together: give both or neither';

type PlaceholderRule<D extends InboxInput> = D extends { advisory: infer K extends string }
  ? [Exclude<Placeholders<K>, DeclaredColumns<D>>] extends [never]
    ? never
    : `advisory key placeholder {${Exclude<Placeholders<K>, DeclaredColumns<D>> & string}} names no declared column`
  : never;

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

/** A description value's type, from its declarative input. */
export type DescriptionOf<D extends InboxInput> = TableDescription<
  FormOf<D>,
  D extends {
    /** The isolation level the input declares. */
    isolation: infer I extends IsolationLevel;
  }
    ? I
    : undefined
> &
  FlowColumns<
    Has<D, 'priority'> extends true ? string : undefined,
    Has<D, 'uniqueKey'> extends true ? string : undefined
  >;

type Checked<D extends InboxInput> = [DescriptionProblem<D>] extends [never]
  ? D
  : D & { readonly 'type error': DescriptionProblem<D> };

/**
 * Describes a queue table, declaratively.
 *
 * ```ts
 * const jobs = inbox({ table: 'report_jobs', id: { column: 'id', generated: true },
 *   attempt: 'attempt', lease: 'locked_until', payload: 'payload' });
 * ```
 * Type errors: `lease` beside `advisory`; `lease` with `clock: 'database'`; `lock` without
 * `unlock` (or either outside the advisory form); a key placeholder that names no declared column.
 */
export function inbox<const D extends InboxInput>(input: Checked<D>): DescriptionOf<D> {
  const d = input as InboxInput;
  const table = validateIdentifier(d.table, 'table', undefined, true);
  const col = (spec: ColumnSpec | undefined, what: string): ColumnRole | undefined =>
    spec === undefined
      ? undefined
      : typeof spec === 'string'
        ? { column: validateIdentifier(spec, what, table), generated: false }
        : { column: validateIdentifier(spec.column, what, table), generated: spec.generated ?? false };
  const name = (s: string | undefined, what: string) =>
    s === undefined ? undefined : validateIdentifier(s, what, table);
  if (d.lease !== undefined && d.advisory !== undefined) {
    throw new ConfigError('a table takes one claim form: set lease or advisory, not both', { table });
  }
  const payload =
    d.payload === undefined
      ? undefined
      : typeof d.payload === 'string'
        ? { column: validateIdentifier(d.payload, 'payload', table), type: 'json' as const }
        : { column: validateIdentifier(d.payload.column, 'payload', table), type: d.payload.type ?? 'json' };
  return finish({
    kind: 'sqlinbox.table',
    form: d.lease !== undefined ? 'lease' : d.advisory !== undefined ? 'advisory' : 'rowlock',
    table,
    id: col(d.id, 'id')!,
    payload,
    attempt: col(d.attempt, 'attempt'),
    lease: name(d.lease, 'lease'),
    key: d.advisory === undefined ? undefined : parseKeyTemplate(d.advisory, table),
    retryAfter: name(d.retryAfter, 'retryAfter'),
    processedAt: name(d.processedAt, 'processedAt'),
    group: name(d.group, 'group'),
    partitionKey: name(d.partitionKey, 'partitionKey'),
    priority: name(d.priority, 'priority'),
    uniqueKey: name(d.uniqueKey, 'uniqueKey'),
    concurrency: concurrencyOf(d.concurrency, table),
    columns: (d.columns ?? []).map((c) => validateIdentifier(c, 'column', table)),
    isolation: d.isolation,
    mode: d.mode,
    clock: d.clock ?? 'host',
    lock: d.lock,
    unlock: d.unlock,
    custom: d.custom ?? {},
    ...(d.rateLimit === undefined ? {} : { rateLimit: rateLimitOf(d.rateLimit, table, validateIdentifier) }),
  }) as DescriptionOf<D>;
}

/** The declarative `concurrency` input, validated; undefined where the input has none. */
function concurrencyOf(c: InboxInput['concurrency'], table: string): Concurrency | undefined {
  if (c === undefined) return undefined;
  if (c === null || typeof c !== 'object') {
    throw new ConfigError('concurrency is { key, limit }', {
      table,
      fix: "e.g. { key: 'account', limit: 2 }",
    });
  }
  return validateConcurrency(c.key, c.limit, table);
}

/** Rules both spellings share, checked at run time too (for plain JavaScript callers). */
function finish(t: AnyTable): AnyTable {
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
  if (t.isolation !== undefined && t.mode !== undefined) {
    throw new ConfigError('declare an isolation level or a SQLite mode, not both', { table: t.table });
  }
  return Object.freeze(t);
}

// ---------------------------------------------------------------------------------------------
// The builder spelling

interface BuilderState {
  form: Form;
  clock: Clock;
  iso: IsolationLevel | undefined;
  own: boolean;
  prio: string | undefined;
  ukey: string | undefined;
}

type Set<S extends BuilderState, K extends keyof BuilderState, V> = Omit<S, K> & {
  [P in K]: V;
} extends infer R extends BuilderState
  ? R
  : never;

/** Methods always available on the builder. */
interface BuilderBase<S extends BuilderState> {
  payload(column: string, type?: PayloadType): TableBuilder<S>;
  attempt(column: string, opts?: { generated?: boolean }): TableBuilder<S>;
  retryAfter(column: string): TableBuilder<S>;
  processedAt(column: string): TableBuilder<S>;
  group(column: string): TableBuilder<S>;
  partitionKey(column: string): TableBuilder<S>;
  /** The priority column (integer): highest first, then claim order. */
  priority(column: string): TableBuilder<Set<S, 'prio', string>>;
  /** The unique key column (text): one unsettled row per key. */
  uniqueKey(column: string): TableBuilder<Set<S, 'ukey', string>>;
  /** Per-key concurrency: at most `limit` rows of one value of `column` in work at once. */
  concurrency(column: string, limit: number): TableBuilder<S>;
  columns(...names: string[]): TableBuilder<S>;
  isolation<I extends IsolationLevel>(level: I): TableBuilder<Set<S, 'iso', I>>;
  mode(mode: SqliteMode): TableBuilder<S>;
  custom(statements: CustomStatements): TableBuilder<S>;
  /**
   * At most `max` deliveries started per `per` across every broker (see {@link InboxInput.rateLimit});
   * `opts.table` names the budget table (default `sqlinbox_rates`).
   */
  rateLimit(max: number, per: Duration, opts?: { table?: string }): TableBuilder<S>;
  /** The finished description. */
  build(): TableDescription<S['form'], S['iso']> & FlowColumns<S['prio'], S['ukey']>;
}

/** `.lease(..)` while no form is chosen and the clock is the host's. */
interface LeaseMethod<S extends BuilderState> {
  lease(column: string): TableBuilder<Set<S, 'form', 'lease'>>;
}
/** `.advisory(..)` while no form is chosen. */
interface AdvisoryMethod<S extends BuilderState> {
  advisory(parts: readonly KeyPart[]): TableBuilder<Set<S, 'form', 'advisory'>>;
}
/** `.clock(..)` outside the lease form. */
interface ClockMethod<S extends BuilderState> {
  clock<C extends Clock>(clock: C): TableBuilder<Set<S, 'clock', C>>;
}
/** `.own({ lock, unlock })`: both together, advisory form only, once. */
interface OwnMethod<S extends BuilderState> {
  own(fns: { lock: CustomLock; unlock: CustomUnlock }): TableBuilder<Set<S, 'own', true>>;
}

/** The builder; its methods appear and disappear with what the description already says. */
export type TableBuilder<S extends BuilderState> = BuilderBase<S> &
  (S['form'] extends 'rowlock' ? AdvisoryMethod<S> & (S['clock'] extends 'host' ? LeaseMethod<S> : {}) : {}) &
  (S['form'] extends 'lease' ? {} : ClockMethod<S>) &
  (S['form'] extends 'advisory' ? (S['own'] extends false ? OwnMethod<S> : {}) : {});

type Draft = { -readonly [K in keyof AnyTable]: AnyTable[K] };

class Builder {
  constructor(private readonly d: Draft) {}
  private with(patch: Partial<Draft>): Builder {
    return new Builder({ ...this.d, ...patch });
  }
  private col(name: string, what: string) {
    return validateIdentifier(name, what, this.d.table);
  }
  payload(column: string, type: PayloadType = 'json') {
    return this.with({ payload: { column: this.col(column, 'payload'), type } });
  }
  attempt(column: string, opts: { generated?: boolean } = {}) {
    return this.with({
      attempt: { column: this.col(column, 'attempt'), generated: opts.generated ?? false },
    });
  }
  retryAfter(column: string) {
    return this.with({ retryAfter: this.col(column, 'retryAfter') });
  }
  processedAt(column: string) {
    return this.with({ processedAt: this.col(column, 'processedAt') });
  }
  group(column: string) {
    return this.with({ group: this.col(column, 'group') });
  }
  partitionKey(column: string) {
    return this.with({ partitionKey: this.col(column, 'partitionKey') });
  }
  priority(column: string) {
    return this.with({ priority: this.col(column, 'priority') });
  }
  uniqueKey(column: string) {
    return this.with({ uniqueKey: this.col(column, 'uniqueKey') });
  }
  concurrency(column: string, limit: number) {
    return this.with({ concurrency: validateConcurrency(column, limit, this.d.table) });
  }
  columns(...names: string[]) {
    return this.with({ columns: [...this.d.columns, ...names.map((n) => this.col(n, 'column'))] });
  }
  isolation(level: IsolationLevel) {
    return this.with({ isolation: level });
  }
  mode(mode: SqliteMode) {
    return this.with({ mode });
  }
  custom(statements: CustomStatements) {
    return this.with({ custom: { ...this.d.custom, ...statements } });
  }
  rateLimit(max: number, per: Duration, opts: { table?: string } = {}) {
    const input: RateLimitInput = opts.table === undefined ? { max, per } : { max, per, table: opts.table };
    return this.with({ rateLimit: rateLimitOf(input, this.d.table, validateIdentifier) });
  }
  lease(column: string) {
    if (this.d.form !== 'rowlock')
      throw new ConfigError('a table takes one claim form', { table: this.d.table });
    return this.with({ form: 'lease', lease: this.col(column, 'lease') });
  }
  advisory(parts: readonly KeyPart[]) {
    if (this.d.form !== 'rowlock')
      throw new ConfigError('a table takes one claim form', { table: this.d.table });
    const key = parts.map((p) =>
      'column' in p ? { column: this.col(p.column, 'advisory key column') } : { literal: String(p.literal) },
    );
    if (!key.some((p) => 'column' in p)) {
      throw new ConfigError('an advisory key names no column', {
        table: this.d.table,
        fix: 'add KeyPart.column(..)',
      });
    }
    return this.with({ form: 'advisory', key });
  }
  clock(clock: Clock) {
    return this.with({ clock });
  }
  own(fns: { lock: CustomLock; unlock: CustomUnlock }) {
    return this.with({ lock: fns.lock, unlock: fns.unlock });
  }
  build(): AnyTable {
    return finish({ ...this.d });
  }
}

/**
 * Describes a queue table with a builder (the seed's "by hand" spelling):
 * ```ts
 * const jobs = table('jobs', 'job_id', { generated: true })
 *   .advisory([KeyPart.literal('jobs-'), KeyPart.column('job_id')])
 *   .attempt('attempt').payload('payload').build();
 * ```
 */
export function table(
  name: string,
  id: string,
  opts: { generated?: boolean } = {},
): TableBuilder<{
  /** The claim form so far: row lock until `.lease(..)` or `.advisory(..)`. */
  form: 'rowlock';
  /** The clock so far: the host's. */
  clock: 'host';
  /** No isolation level declared yet. */
  iso: undefined;
  /** No custom lock and unlock yet. */
  own: false;
  /** No priority column yet. */
  prio: undefined;
  /** No unique key column yet. */
  ukey: undefined;
}> {
  const t = validateIdentifier(name, 'table', undefined, true);
  return new Builder({
    kind: 'sqlinbox.table',
    form: 'rowlock',
    table: t,
    id: { column: validateIdentifier(id, 'id', t), generated: opts.generated ?? false },
    payload: undefined,
    attempt: undefined,
    lease: undefined,
    key: undefined,
    retryAfter: undefined,
    processedAt: undefined,
    group: undefined,
    partitionKey: undefined,
    priority: undefined,
    uniqueKey: undefined,
    concurrency: undefined,
    columns: [],
    isolation: undefined,
    mode: undefined,
    clock: 'host',
    lock: undefined,
    unlock: undefined,
    custom: {},
  }) as unknown as TableBuilder<{
    form: 'rowlock';
    clock: 'host';
    iso: undefined;
    own: false;
    prio: undefined;
    ukey: undefined;
  }>;
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
  add(t.concurrency?.column, 'concurrencyKey');
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
