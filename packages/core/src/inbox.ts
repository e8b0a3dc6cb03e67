/**
 * The declarative spelling of a table description, `inbox({ .. })`, and the types that check it
 * at compile time; the builder spelling is table-builder.ts. Both build the value of description.ts.
 */

import { closest } from 'fastest-levenshtein';
import { type ControlInput, controlOf } from './control-table.js';
import {
  type Clock,
  type ColumnRole,
  type Concurrency,
  type CustomLock,
  type CustomStatements,
  type CustomUnlock,
  type FlowColumns,
  finishDescription,
  type IsolationLevel,
  type PayloadType,
  type Placeholders,
  parseKeyTemplate,
  type SqliteMode,
  type TableDescription,
  validateConcurrency,
  validateIdentifier,
} from './description.js';
import { ConfigError } from './errors.js';
import { type FlowInput, flowsOf } from './flow-table.js';
import { type RateLimitInput, rateLimitOf } from './rate-limit.js';
import { type RetentionInput, retentionOf } from './retention.js';
import { type StepsInput, stepsOf } from './steps-table.js';

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
  /** The attempt column: the deliveries started (0 on insert, 1 during the first). Without it attempts are not counted. */
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
   * Deadline column (an instant, NULL for none): a row not started by its deadline is never
   * delivered; a subscription that claims it moves it to its dead letter, or settles it as a drop
   * where the queue has none. `publish(.., { expiresAt })` fills it. Default: none.
   */
  readonly expiresAt?: string;
  /**
   * The failure record: the last error's message (text, cut to 1,000 characters) a failed
   * delivery's settlement writes on retry and dead letter, and the dead letter keeps. Default: none.
   */
  readonly lastError?: string;
  /** The failure record: the last error's class (text), its `name`, or `expired`. Default: none. */
  readonly errorClass?: string;
  /** The failure record: the instant of the last failure, or of the death. Default: none. */
  readonly failedAt?: string;
  /** The instant the row was inserted; `ddl()` defaults it to the database's now. Default: none. */
  readonly createdAt?: string;
  /**
   * The result column (JSON or text; `ddl()` prints the payload's type): a handler's
   * `Outcome.ack(value)` keeps `value` there, read by id with `admin.result` and waited for with
   * `broker.result`. Needs `processedAt`. Default: none.
   */
  readonly result?: string;
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
  /**
   * How long settled rows are kept: processed rows (`processed`, by their `processedAt` stamp)
   * and dead letters (`dead`, by the `deadAt` column). The brokers that subscribe the table delete
   * older ones in bounded batches, one broker at a time. Default: kept.
   */
  readonly retention?: RetentionInput;
  /**
   * The control table that keeps this queue's pauses (`admin.pause(t)`, `broker.pause(t)`):
   * `true` for `sqlinbox_control`, or `{ table }`; `ddl()` prints it. Every broker subscribed to the
   * table reads it once a second. Default: none (the queue cannot be paused).
   */
  readonly control?: ControlInput;
  /**
   * The flow tables (`publishFlow`: a parent runs once its children settle): `true` for
   * `sqlinbox_flow` (and `sqlinbox_flow_parent`), or `{ table }`; `ddl()` prints them. Needs a
   * `retryAfter` column (a parent waits held behind it). Default: none.
   */
  readonly flows?: FlowInput;
  /**
   * The steps table that keeps each finished `ctx.step` of a row in work, so a retry runs only the
   * steps not finished: `true` for `sqlinbox_steps`, or `{ table }`; `ddl()` prints it. Default:
   * none (`ctx.step` is refused with a `ConfigError`).
   */
  readonly steps?: StepsInput;
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
  | ColName<Prop<D, 'expiresAt'>>
  | ColName<Prop<Prop<D, 'retention', undefined>, 'deadAt'>>
  | ColName<Prop<D, 'lastError'>>
  | ColName<Prop<D, 'errorClass'>>
  | ColName<Prop<D, 'failedAt'>>
  | ColName<Prop<D, 'createdAt'>>
  | ColName<Prop<D, 'result'>>
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
export type DescriptionProblem<D extends InboxInput> = [Exclude<keyof D, keyof InboxInput>] extends [never]
  ? FormRule<D>
  : `unknown key \`${Exclude<keyof D, keyof InboxInput> & string}\`: see InboxInput for the keys a description takes`;

type FormRule<D extends InboxInput> =
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
  unknownKeys(d, table);
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
  return finishDescription({
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
    ...(d.expiresAt === undefined ? {} : { expiresAt: name(d.expiresAt, 'expiresAt') }),
    ...(d.lastError === undefined ? {} : { lastError: name(d.lastError, 'lastError') }),
    ...(d.errorClass === undefined ? {} : { errorClass: name(d.errorClass, 'errorClass') }),
    ...(d.failedAt === undefined ? {} : { failedAt: name(d.failedAt, 'failedAt') }),
    ...(d.createdAt === undefined ? {} : { createdAt: name(d.createdAt, 'createdAt') }),
    ...(d.result === undefined ? {} : { result: name(d.result, 'result') }),
    concurrency: concurrencyOf(d.concurrency, table),
    columns: (d.columns ?? []).map((c) => validateIdentifier(c, 'column', table)),
    isolation: d.isolation,
    mode: d.mode,
    clock: d.clock ?? 'host',
    lock: d.lock,
    unlock: d.unlock,
    custom: d.custom ?? {},
    ...(d.rateLimit === undefined ? {} : { rateLimit: rateLimitOf(d.rateLimit, table, validateIdentifier) }),
    ...(d.retention === undefined ? {} : { retention: retentionOf(d.retention, table, validateIdentifier) }),
    ...(d.control === undefined ? {} : { control: controlOf(d.control, table, validateIdentifier) }),
    ...(d.flows === undefined ? {} : { flows: flowsOf(d.flows, table, validateIdentifier) }),
    ...(d.steps === undefined ? {} : { steps: stepsOf(d.steps, table, validateIdentifier) }),
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

/** Every key {@link InboxInput} takes: the compiler fails here where the interface gains one not listed. */
const INBOX_KEYS: Readonly<Record<keyof InboxInput, true>> = {
  table: true,
  id: true,
  payload: true,
  attempt: true,
  lease: true,
  advisory: true,
  retryAfter: true,
  processedAt: true,
  group: true,
  partitionKey: true,
  priority: true,
  uniqueKey: true,
  expiresAt: true,
  lastError: true,
  errorClass: true,
  failedAt: true,
  createdAt: true,
  result: true,
  concurrency: true,
  columns: true,
  isolation: true,
  mode: true,
  clock: true,
  lock: true,
  unlock: true,
  custom: true,
  rateLimit: true,
  retention: true,
  control: true,
  flows: true,
  steps: true,
};

/**
 * A key the description does not take (a typo, `proccessedAt`, or a key of another library) is a
 * `ConfigError` naming it and the known key it is closest to: left alone, it would leave its column
 * undeclared without a word. (TypeScript reports it too, for a literal passed to `inbox`.)
 */
function unknownKeys(d: InboxInput, table: string): void {
  const known = Object.keys(INBOX_KEYS);
  for (const key of Object.keys(d)) {
    if (Object.hasOwn(INBOX_KEYS, key)) continue;
    throw new ConfigError(
      `unknown key "${key}" in its description (did you mean "${closest(key, known)}"?)`,
      {
        table,
        fix: `rename "${key}" to one of the keys a description takes: ${known.join(', ')}`,
      },
    );
  }
}
