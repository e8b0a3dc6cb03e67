import type {
  AnyTable,
  Capabilities,
  Connection,
  Dialect,
  Form,
  Insert,
  PrepareOptions,
  Row,
  TableOps,
} from '@sqlinbox/core';
import { inbox } from '@sqlinbox/core';
import { test } from 'vitest';
import { type Harness, ms, payloadOf, type Table, type TableExtras } from '../harness.js';
import type { ConformanceTarget, OpenAdapter } from '../target.js';

/**
 * The optional calls of `TableOps` the contract tests where a dialect has them, by the names of
 * their tests: `settleMany` (the `batch` feature), `list` .. `reschedule` (`admin`),
 * `claimLeaseByKey` (`concurrency`'s `claimLease`).
 */
export const OPTIONAL_METHODS = [
  'settleMany',
  'list',
  'pick',
  'requeue',
  'remove',
  'reschedule',
  'claimLeaseByKey',
] as const;
export type OptionalMethod = (typeof OPTIONAL_METHODS)[number];

/** A table of one test with its statements, prepared by the dialect under test. */
export interface OpsTable extends Table {
  readonly ops: TableOps;
}

/** One hour, in milliseconds: far enough that no clock skew between host and database matters. */
export const HOUR = 3_600_000;
/** The dead-letter group of the tests that prepare one. */
export const DEAD = 'dead';

/** A message of payload `{ n }`, with the optional columns given. */
export function msg(n: number, extra: Omit<Insert, 'payload'> = {}): Insert {
  return { payload: JSON.stringify({ n }), ...extra };
}

/** Ids as text: drivers answer numbers, bigints or decimal strings. */
export const idsOf = (values: readonly unknown[]): string[] => values.map(String);
export const rowIds = (rows: readonly Row[]): string[] => rows.map((r) => String(r.id));

/**
 * What one contract test works with: tables made with the dialect's own DDL (dropped after, by the
 * harness), their statements from `adapter.dialect.prepare(table)`, and connections from the
 * adapter's pool. A connection the test still holds at its end is destroyed, never pooled: it may
 * hold a transaction or a lock.
 */
export class Bench {
  /** The test's "now", to the millisecond. */
  readonly now = new Date();
  private readonly held = new Set<Connection>();

  /** `adapter` is the run's own, shared by its tests (each test's connections end with it). */
  constructor(
    readonly h: Harness,
    private readonly adapter: OpenAdapter,
  ) {
    h.dialect = adapter.dialect;
  }

  /** The instant `offsetMs` after {@link now}. */
  at(offsetMs: number): Date {
    return new Date(this.now.getTime() + offsetMs);
  }

  get dialect(): Dialect {
    return this.adapter.dialect;
  }

  /** A new table in `form` with the extra columns asked, and its statements. */
  async table(form: Form, extras: TableExtras = {}, opts?: PrepareOptions): Promise<OpsTable> {
    const t = await this.h.create(form, extras);
    return { ...t, ops: this.dialect.prepare(t.desc, opts) };
  }

  /** The table's statements prepared anew with other options. */
  prepare(t: Table, opts: PrepareOptions): TableOps {
    return this.dialect.prepare(t.desc, opts);
  }

  /** A connection of the adapter's pool, held until {@link release} (or destroyed at the end). */
  async conn(): Promise<Connection> {
    const conn = await this.adapter.pool.acquire();
    this.held.add(conn);
    return conn;
  }

  release(conn: Connection): void {
    this.held.delete(conn);
    this.adapter.pool.release(conn);
  }

  /** Closes a connection instead of pooling it: the server ends its session and what it held. */
  async destroy(conn: Connection): Promise<void> {
    this.held.delete(conn);
    await this.adapter.pool.destroy(conn);
  }

  /** Runs `fn` on a connection of its own, released after (destroyed if `fn` throws). */
  async use<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    const conn = await this.conn();
    let out: T;
    try {
      out = await fn(conn);
    } catch (err) {
      await this.destroy(conn);
      throw err;
    }
    this.release(conn);
    return out;
  }

  /** Inserts through the table's own `insert`; answers the ids as the driver gave them. */
  insert(t: OpsTable, messages: readonly Insert[]): Promise<unknown[]> {
    return this.use((conn) => t.ops.insert(conn, messages));
  }

  /** Every row of a table, read on the target's admin connection, by id. */
  rows(table: string): Promise<Row[]> {
    return this.h.rows(table);
  }

  /** One row by id (read on the admin connection), or undefined. */
  async row(table: string, id: unknown): Promise<Row | undefined> {
    return (await this.rows(table)).find((r) => String(r.id) === String(id));
  }

  /** Destroys every connection the test still holds. */
  async end(): Promise<void> {
    for (const conn of [...this.held]) await this.destroy(conn).catch(() => {});
  }
}

/** What the row's columns hold, in comparable form: times as epoch milliseconds, ids as text. */
export function view(row: Row | undefined): Record<string, unknown> | undefined {
  if (row === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === 'payload') out[k] = payloadOf(v);
    else if (['locked_until', 'retry_after', 'processed_at'].includes(k)) out[k] = ms(v);
    else if (k === 'attempt' || k === 'priority') out[k] = v === null ? null : Number(v);
    else if (k === 'id') out[k] = String(v);
    else out[k] = v;
  }
  return out;
}

/** What a test of the contract needs besides its bench. */
export interface ContractContext {
  readonly b: () => Bench;
  readonly target: ConformanceTarget;
  readonly caps: Capabilities;
  /** The forms the run covers: the dialect's, limited by `options.forms`. */
  readonly forms: readonly Form[];
  /** The optional methods the dialect's statements have, per form. */
  readonly optional: Readonly<Record<Form, ReadonlySet<OptionalMethod>>>;
  /** Tests the run leaves out as known drifts, and which of them matched a test. */
  readonly drifts: readonly ContractSkip[];
  readonly matched: Set<ContractSkip>;
}

/**
 * A test a run leaves out on purpose: a known drift of the dialect from the contract, listed in the
 * wiring file until it is fixed.
 */
export interface ContractSkip {
  /** Part of the test's title, e.g. `fifoGuard R-FIFO-1`; it must match at least one test. */
  readonly test: string;
  /** What the dialect does instead, shown as the skip's note. */
  readonly reason: string;
}

/** What a test needs; each need the dialect lacks skips the test, saying which capability. */
export interface Needs {
  readonly form?: Form;
  /** Two connections holding transactions or locks at once. */
  readonly connections?: boolean;
  readonly fifoGuard?: boolean;
  /** Row locks that a second transaction skips (the database takes the row lock form). */
  readonly rowLocks?: boolean;
  /** Optional methods of `TableOps` the test calls. */
  readonly method?: OptionalMethod | readonly OptionalMethod[];
}

/** Why a test cannot run on this dialect, or undefined. */
export function skipReason(c: ContractContext, needs: Needs): string | undefined {
  const { form, method } = needs;
  if (form !== undefined && !c.forms.includes(form)) {
    return c.caps.forms.includes(form)
      ? `the ${form} form is left out by options.forms`
      : `capabilities.forms has no '${form}'`;
  }
  if (needs.rowLocks && !c.caps.forms.includes('rowlock'))
    return "capabilities.forms has no 'rowlock': the database has no row locks for another transaction to skip";
  if (needs.fifoGuard && !c.caps.fifoGuard) return 'capabilities.fifoGuard is false';
  if (needs.connections && !c.caps.multipleConnections)
    return 'capabilities.multipleConnections is false: the test holds two connections in work at once';
  const on = form ?? c.forms[0];
  for (const m of method === undefined ? [] : typeof method === 'string' ? [method] : method) {
    if (on === undefined || !c.optional[on].has(m))
      return `the dialect's statements have no ${m} (an optional method)`;
  }
  return undefined;
}

/** Registers one contract test; it skips, saying why, where the dialect lacks what it needs. */
export function check(c: ContractContext, title: string, needs: Needs, body: () => Promise<void>): void {
  const drift = c.drifts.find((d) => title.includes(d.test));
  if (drift !== undefined) c.matched.add(drift);
  const reason = drift === undefined ? skipReason(c, needs) : `known drift: ${drift.reason}`;
  test(title, { timeout: 20_000 }, async (ctx) => {
    if (reason !== undefined) ctx.skip(reason);
    await body();
  });
}

/** The form the form-independent statements (insert, list, ...) are tested in: lease where taken. */
export function mainForm(c: ContractContext): Form {
  return c.forms.includes('lease') ? 'lease' : (c.forms[0] ?? 'lease');
}

/** Whether the statements have an optional method: its feature's object (`batch`, `admin`, `concurrency`). */
export function hasOptional(ops: TableOps, m: OptionalMethod): boolean {
  if (m === 'settleMany') return ops.batch !== undefined;
  if (m === 'claimLeaseByKey') return ops.concurrency !== undefined;
  return ops.admin !== undefined;
}

/** A FIFO table of `form` for preparing statements only (no database): its optional features show. */
export function probeTable(form: Form): AnyTable {
  return inbox({
    table: 'sqlinbox_contract_probe',
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: { column: 'attempt', generated: true },
    retryAfter: 'retry_after',
    group: 'grp',
    ...(form === 'lease' ? { lease: 'locked_until' } : form === 'advisory' ? { advisory: 'probe-{id}' } : {}),
  } as never) as never;
}

/** Which optional methods the dialect's statements have, per form (preparing touches no database). */
export function optionalMethods(dialect: Dialect): Record<Form, Set<OptionalMethod>> {
  const out = {} as Record<Form, Set<OptionalMethod>>;
  for (const form of ['rowlock', 'lease', 'advisory'] as const) {
    out[form] = new Set();
    if (!dialect.capabilities.forms.includes(form)) continue;
    const ops = dialect.prepare(probeTable(form));
    for (const m of OPTIONAL_METHODS) if (hasOptional(ops, m)) out[form].add(m);
  }
  return out;
}
