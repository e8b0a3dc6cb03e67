/**
 * The builder spelling of a table description, `table(..).lease(..).build()`: its methods appear
 * and disappear with what the description already says. The declarative spelling is inbox.ts.
 */

import { type ControlInput, controlOf } from './control-table.js';
import {
  type AnyTable,
  type Clock,
  type CustomLock,
  type CustomStatements,
  type CustomUnlock,
  type FlowColumns,
  type Form,
  finishDescription,
  type IsolationLevel,
  type KeyPart,
  type PayloadType,
  type SqliteMode,
  type TableDescription,
  type TypedResult,
  validateConcurrency,
  validateIdentifier,
} from './description.js';
import type { Duration } from './duration.js';
import { ConfigError } from './errors.js';
import { type FlowInput, flowsOf } from './flow-table.js';
import { type RateLimitInput, rateLimitOf } from './rate-limit.js';
import { type RetentionInput, retentionOf } from './retention.js';
import { type StepsInput, stepsOf } from './steps-table.js';

interface BuilderState {
  form: Form;
  clock: Clock;
  iso: IsolationLevel | undefined;
  own: boolean;
  prio: string | undefined;
  ukey: string | undefined;
  pay: unknown;
  res: unknown;
}

type Set<S extends BuilderState, K extends keyof BuilderState, V> = Omit<S, K> & {
  [P in K]: V;
} extends infer R extends BuilderState
  ? R
  : never;

/** Methods always available on the builder. */
interface BuilderBase<S extends BuilderState> {
  /** The payload column; `P` types the handler's message and `publish`'s (default: untyped). */
  payload<P = unknown>(column: string, type?: PayloadType): TableBuilder<Set<S, 'pay', P>>;
  attempt(column: string, opts?: { generated?: boolean }): TableBuilder<S>;
  retryAfter(column: string): TableBuilder<S>;
  processedAt(column: string): TableBuilder<S>;
  group(column: string): TableBuilder<S>;
  partitionKey(column: string): TableBuilder<S>;
  /** The priority column (integer): highest first, then claim order. */
  priority(column: string): TableBuilder<Set<S, 'prio', string>>;
  /** The unique key column (text): one unsettled row per key. */
  uniqueKey(column: string): TableBuilder<Set<S, 'ukey', string>>;
  /** The deadline column (an instant): a row not started by then leaves as expired. */
  expiresAt(column: string): TableBuilder<S>;
  /** The failure record's message column (text): the last error, cut to 1,000 characters. */
  lastError(column: string): TableBuilder<S>;
  /** The failure record's class column (text): the last error's `name`, or `expired`. */
  errorClass(column: string): TableBuilder<S>;
  /** The failure record's time column (an instant): the last failure, or the death. */
  failedAt(column: string): TableBuilder<S>;
  /** The insert time column (an instant; `ddl()` defaults it to the database's now). */
  createdAt(column: string): TableBuilder<S>;
  /** The result column (JSON or text): the value a handler acks with, of type `R`; needs `processedAt`. */
  result<R = unknown>(column: string): TableBuilder<Set<S, 'res', R>>;
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
  /**
   * How long settled rows are kept before the subscribing brokers delete them (see
   * {@link InboxInput.retention}): `.retention({ processed: '7d', dead: '30d', deadAt: 'dead_at' })`.
   */
  retention(retention: RetentionInput): TableBuilder<S>;
  /**
   * The control table that keeps this queue's pauses (see {@link InboxInput.control});
   * `opts.table` names it (default `sqlinbox_control`).
   */
  control(opts?: { table?: string }): TableBuilder<S>;
  /** The flow tables (see {@link InboxInput.flows}); `opts.table` names the edge table (default `sqlinbox_flow`). */
  flows(opts?: { table?: string }): TableBuilder<S>;
  /**
   * The steps table that keeps each finished `ctx.step` of a row in work (see
   * {@link InboxInput.steps}); `opts.table` names it (default `sqlinbox_steps`).
   */
  steps(opts?: { table?: string }): TableBuilder<S>;
  /** The finished description. */
  build(): TableDescription<S['form'], S['iso'], S['pay']> &
    FlowColumns<S['prio'], S['ukey']> &
    (unknown extends S['res'] ? unknown : TypedResult<S['res']>);
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
  expiresAt(column: string) {
    return this.with({ expiresAt: this.col(column, 'expiresAt') });
  }
  lastError(column: string) {
    return this.with({ lastError: this.col(column, 'lastError') });
  }
  errorClass(column: string) {
    return this.with({ errorClass: this.col(column, 'errorClass') });
  }
  failedAt(column: string) {
    return this.with({ failedAt: this.col(column, 'failedAt') });
  }
  createdAt(column: string) {
    return this.with({ createdAt: this.col(column, 'createdAt') });
  }
  result(column: string) {
    return this.with({ result: this.col(column, 'result') });
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
  retention(retention: RetentionInput) {
    return this.with({ retention: retentionOf(retention, this.d.table, validateIdentifier) });
  }
  control(opts: { table?: string } = {}) {
    const input: ControlInput = opts.table === undefined ? true : { table: opts.table };
    return this.with({ control: controlOf(input, this.d.table, validateIdentifier) });
  }
  flows(opts: { table?: string } = {}) {
    const input: FlowInput = opts.table === undefined ? true : { table: opts.table };
    return this.with({ flows: flowsOf(input, this.d.table, validateIdentifier) });
  }
  steps(opts: { table?: string } = {}) {
    const input: StepsInput = opts.table === undefined ? true : { table: opts.table };
    return this.with({ steps: stepsOf(input, this.d.table, validateIdentifier) });
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
    return finishDescription({ ...this.d });
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
  /** No message type stated yet. */
  pay: unknown;
  /** No result type stated yet. */
  res: unknown;
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
    pay: unknown;
    res: unknown;
  }>;
}
