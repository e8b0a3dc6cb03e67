import type {
  AnyTable,
  FinishSettlement,
  Insert,
  ListQuery,
  PickQuery,
  PrepareOptions,
  Settlement,
} from '@sqlinbox/core';
import { ConfigError, validateIdentifier } from '@sqlinbox/core';
import { standardTransactions, type TransactionSql } from './dialect.js';
import { Params, type Placeholder, positional, type Statement } from './params.js';

/** The parts of a select the dialect assembles in its own syntax ({@link QueueStatements.select}). */
export interface SelectParts {
  /** The select list, e.g. `q.*` or `q."id"`. */
  readonly columns: string;
  /** The table with its alias, e.g. `"jobs" AS q`. */
  readonly table: string;
  /** The alias the other parts name (for `FOR UPDATE OF q`, `WITH (..)` hints). */
  readonly alias: string;
  /** The condition, without `WHERE`; none: every row. */
  readonly where?: string | undefined;
  /** The order, without `ORDER BY`; none: unordered. */
  readonly order?: string | undefined;
  /** Most rows: bound by {@link QueueStatements.limit}. */
  readonly limit?: number | undefined;
  /** Lock the rows read, skipping rows another transaction holds (`FOR UPDATE SKIP LOCKED`). */
  readonly lock?: boolean | undefined;
}

/** An update the dialect assembles ({@link QueueStatements.update}). */
export interface UpdateParts {
  /** The quoted (optionally qualified) table name, without alias. */
  readonly table: string;
  /** The alias the other parts name. */
  readonly alias: string;
  /** The assignments of the `SET` list, each `column = value`. */
  readonly set: readonly string[];
  /** The condition, without `WHERE`, on the alias. */
  readonly where: string;
  /** Columns to answer with (unqualified), or `*`; none for a plain update. */
  readonly returning?: string | undefined;
}

/** A delete the dialect assembles ({@link QueueStatements.delete}). */
export interface DeleteParts {
  /** The quoted table name. */
  readonly table: string;
  /** The condition, without `WHERE`. */
  readonly where: string;
  /** Columns to answer with (unqualified), or `*`; none for a plain delete. */
  readonly returning?: string | undefined;
}

/** One column an insert writes, and its value for a message. */
export interface InsertColumn {
  /** The column's name (unquoted). */
  readonly name: string;
  /** Reads the column's value from one message. */
  readonly value: (m: Insert) => unknown;
  /** The column's role, for a dialect that binds it in its own way (`payload` of a JSON column). */
  readonly role?: 'payload' | 'time' | undefined;
}

/** An insert the dialect assembles ({@link QueueStatements.insertSql}). */
export interface InsertParts {
  /** The quoted table name. */
  readonly table: string;
  /** Quoted column names; empty for a row of defaults. */
  readonly columns: readonly string[];
  /** One `(..)` of values per row. */
  readonly rows: readonly string[];
  /** Answer the new rows' ids. */
  readonly returning?: string | undefined;
  /** A unique key column: insert nothing where an unsettled row holds the key ({@link QueueStatements.onConflict}). */
  readonly conflictKey?: string | undefined;
}

/** Quotes an identifier in standard SQL: `"name"`, a `"` in it doubled. */
export function ansiIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes a possibly qualified name (`schema.table`), each part with `ident`. */
export function qualified(name: string, ident: (part: string) => string = ansiIdent): string {
  return name.split('.').map(ident).join('.');
}

/** Private aliases in derived tables and answers, chosen so they never meet a user's column name. */
export const ID = 'sqlinbox_id';
/** The alias of a row's advisory key in a derived table or answer. */
export const KEY = 'sqlinbox_key';
/** The alias of a row's rank within its concurrency key in a claim's derived table. */
export const RANK = 'sqlinbox_rank';
/** The alias of a concurrency key's rows in work in a claim's derived table. */
export const IN_WORK = 'sqlinbox_in_work';
/** Most candidates one claim under per-key concurrency ranks. */
const CANDIDATES_MAX = 10_000;
/** The alias of a row's state in the admin list's answer (see `TableOps.list`). */
export const STATE = 'sqlinbox_state';

/**
 * The statement builder every sqlinbox dialect extends: the SQL of one queue table, one method per
 * statement kind, named as the `TableOps` method that runs it (`claimLocked`, `claimLease`,
 * `extendLeases`, `settleMany`, `candidates`, `lock`, `unlock`, `take`, `settle`,
 * `moveToDeadLetter`, `insert`, `insertKeyed`, `keyHolder`, `stats`, and the admin API's `list`,
 * `pick`, `fresh`, `copyBack`, `remove`, `reschedule`, `dueRows`). It holds no driver and runs
 * nothing: {@link SqlTable} runs its statements.
 *
 * The statements are written once, in standard SQL, from fragments (the due condition, the FIFO
 * group head, the claim order, the advisory key, the settlement's `SET` list); a dialect overrides
 * the hooks where its database differs: quoting ({@link ident}), placeholders ({@link placeholder}),
 * the clock ({@link clock}), how an instant is bound ({@link time}), `IS DISTINCT FROM`
 * ({@link distinct}), lists ({@link inList}), text ({@link text}, {@link keyColumn},
 * {@link concat}), counting ({@link countIf}), other sessions' advisory locks ({@link freeKey}),
 * and the shape of a statement ({@link select} with its limit and lock, {@link scan} for a plain
 * read, {@link update}, {@link delete}, {@link insertSql} and {@link insertRow} with their
 * `RETURNING` or `OUTPUT`, {@link onConflict}). A statement that differs as a whole (PostgreSQL's claim in one
 * `WITH .. UPDATE`, SQL Server's `UPDATE TOP`) is overridden as a whole.
 *
 * Placeholders are written in text order: a dialect with positional `?` gets its values in the
 * order they appear.
 *
 * Aliases: `q` the row being judged, `s` a sibling of the same group, `r` a row an admin statement
 * reads, `x` a derived table.
 */
export class QueueStatements {
  /** The quoted table. */
  readonly table: string;
  /** The quoted id column. */
  readonly id: string;
  /** The dead-letter group claims leave out, when the subscription has one. */
  readonly deadGroup: string | undefined;
  /** The dead-letter table's name (validated, unquoted), when the subscription has one. */
  readonly deadTable: string | undefined;
  /** Ids claims pass over (a relay's held-back records), read at each statement. */
  readonly exclude: ReadonlySet<unknown> | undefined;

  constructor(
    /** The table the statements are written for. */
    readonly t: AnyTable,
    opts: PrepareOptions = {},
  ) {
    const dead = opts.deadLetter;
    this.deadGroup = dead !== undefined && 'group' in dead ? dead.group : undefined;
    this.deadTable =
      dead !== undefined && 'table' in dead
        ? validateIdentifier(dead.table, 'dead-letter table', t.table, true)
        : undefined;
    this.exclude = opts.exclude;
    this.table = this.tableName(t.table);
    this.id = this.ident(t.id.column);
  }

  // ===========================================================================================
  // Hooks: what differs between databases. Defaults are standard SQL as PostgreSQL and SQLite
  // read it.

  /** Most values one statement binds; long lists are split across statements. */
  readonly maxParams: number = 10_000;

  /** The placeholder of the value at `index` (from 1). Default `?`. */
  placeholder(index: number, value: unknown): string {
    return positional(index, value);
  }

  /** Quotes one identifier (validated by the core already). Default `"name"`. */
  ident(name: string): string {
    return ansiIdent(name);
  }

  /** Quotes a table name; `schema.table` is two identifiers. */
  tableName(name: string): string {
    return qualified(name, (part) => this.ident(part));
  }

  /** The database's clock, for a table that reads it (`now` null). */
  readonly clock: string = 'CURRENT_TIMESTAMP';

  /** A condition that always holds. */
  readonly always: string = 'TRUE';

  /** Binds an instant. Default: the Date as it is. */
  time(p: Params, at: Date): string {
    return p.bind(at);
  }

  /** `a` differs from `b`, NULL being a value. */
  distinct(a: string, b: string): string {
    return `${a} IS DISTINCT FROM ${b}`;
  }

  /** `expr IN (..)`, or `NOT IN` with `not`. Never called with no values. */
  inList(p: Params, expr: string, values: readonly unknown[], not = false): string {
    return `${expr} ${not ? 'NOT IN' : 'IN'} (${p.list(values)})`;
  }

  /** The type a value is cast to as text ({@link text}, {@link keyColumn}). */
  readonly textType: string = 'TEXT';

  /** The empty text. */
  readonly emptyText: string = "''";

  /** A bound text value. */
  text(p: Params, value: string): string {
    return `CAST(${p.bind(value)} AS ${this.textType})`;
  }

  /** A column's value as text for an advisory key, NULL as the empty text. */
  keyColumn(expr: string): string {
    return `COALESCE(CAST(${expr} AS ${this.textType}), ${this.emptyText})`;
  }

  /** Text concatenation. */
  concat(parts: readonly string[]): string {
    return parts.join(' || ');
  }

  /** Counts the rows for which `cond` holds (an aggregate over the select's rows). */
  countIf(cond: string): string {
    return `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`;
  }

  /** The limit clause, appended after `ORDER BY` (with the lock clause after it). */
  limit(p: Params, n: number): string {
    return ` LIMIT ${p.bind(n)}`;
  }

  /**
   * `column` is one of the values a subquery selects: the claims' update of the rows their locking
   * select picked. PostgreSQL answers `= ANY(ARRAY(..))`, whose index lookup a planner cannot turn
   * into a scan of the whole table.
   */
  inSelect(column: string, subquery: string): string {
    return `${column} IN (${subquery})`;
  }

  /** The clause that locks the rows a select reads and skips rows others hold ('' where none). */
  lockClause(alias: string): string {
    void alias;
    return ' FOR UPDATE SKIP LOCKED';
  }

  /** Table hints after a table a plain read scans ({@link scan}). Default: none. */
  readonly scanHints: string = '';

  /**
   * A table a read scans without locking rows (candidates, stats, the admin list), with its alias
   * when it has one, then {@link scanHints} (SQL Server's pass over rows being written).
   */
  scan(table: string, alias?: string): string {
    return (alias === undefined ? table : `${table} ${alias}`) + this.scanHints;
  }

  /** A select, in the dialect's syntax for its limit and lock. */
  select(p: Params, s: SelectParts): string {
    const where = s.where === undefined ? '' : ` WHERE ${s.where}`;
    const order = s.order === undefined ? '' : ` ORDER BY ${s.order}`;
    const limit = s.limit === undefined ? '' : this.limit(p, s.limit);
    const lock = s.lock === true ? this.lockClause(s.alias) : '';
    return `SELECT ${s.columns} FROM ${s.table}${where}${order}${limit}${lock}`;
  }

  /** `RETURNING ..` after an update, delete or insert; undefined where the database has none. */
  returning(columns: string): string | undefined {
    return ` RETURNING ${columns}`;
  }

  /** An update of the rows `where` selects; `returning` answers them after the update. */
  update(u: UpdateParts): string {
    const ret = u.returning === undefined ? '' : (this.returning(u.returning) ?? '');
    return `UPDATE ${u.table} AS ${u.alias} SET ${u.set.join(', ')} WHERE ${u.where}${ret}`;
  }

  /** A delete of the rows `where` selects. */
  delete(d: DeleteParts): string {
    const ret = d.returning === undefined ? '' : (this.returning(d.returning) ?? '');
    return `DELETE FROM ${d.table} WHERE ${d.where}${ret}`;
  }

  /** A multi-row insert. */
  insertSql(i: InsertParts): string {
    const conflict = i.conflictKey === undefined ? '' : this.onConflict(i.conflictKey);
    const ret = i.returning === undefined ? '' : (this.returning(i.returning) ?? '');
    if (i.columns.length === 0) return `INSERT INTO ${i.table} DEFAULT VALUES${conflict}${ret}`;
    return `INSERT INTO ${i.table} (${i.columns.join(', ')}) VALUES ${i.rows.join(', ')}${conflict}${ret}`;
  }

  /**
   * The clause that makes an insert write nothing where an unsettled row holds the unique key
   * (the table's partial unique index decides).
   */
  onConflict(keyColumn: string): string {
    const where = this.t.processedAt === undefined ? '' : ` WHERE ${this.ident(this.t.processedAt)} IS NULL`;
    return ` ON CONFLICT (${this.ident(keyColumn)})${where} DO NOTHING`;
  }

  /** The database's transaction statements, which the members below read. Default: standard SQL. */
  readonly transactions: TransactionSql = standardTransactions;
  /** Opens the runner's own transactions (the dead-letter move), at the database's default. */
  get begin(): string {
    return this.transactions.begin({}).join('; ');
  }
  /** Commits the transaction. */
  get commit(): string {
    return this.transactions.commit;
  }
  /** Rolls the transaction back. */
  get rollback(): string {
    return this.transactions.rollback;
  }
  /** Sets savepoint `name` (an identifier the engine chose). */
  savepoint(name: string): string {
    return this.transactions.savepoint(name);
  }
  /** Undefined where the database has no release (it ends with the transaction). */
  releaseSavepoint(name: string): string | undefined {
    return this.transactions.releaseSavepoint?.(name);
  }
  /** Rolls back to savepoint `name`, keeping the transaction open. */
  rollbackToSavepoint(name: string): string {
    return this.transactions.rollbackToSavepoint(name);
  }

  /**
   * A query answering `n`, the transactions open on the session, where the database has one: the
   * runner then opens a savepoint only inside a transaction. Default: undefined (always a savepoint).
   */
  readonly inTransactionSql: string | undefined = undefined;

  /** A statement {@link plainRead} puts before each plain read. Default: none. */
  readonly plainReadPrefix: string | undefined = undefined;

  /**
   * A statement that reads outside a claim's select (candidates, counts, the admin list), as the
   * database must run it: after {@link plainReadPrefix} (SQL Server sets READ COMMITTED).
   */
  plainRead(st: Statement): Statement {
    const prefix = this.plainReadPrefix;
    return prefix === undefined ? st : { sql: `${prefix}\n${st.sql}`, params: st.params };
  }

  // ===========================================================================================
  // Fragments

  /** New parameters for one statement, with this dialect's placeholders. */
  params(): Params {
    const placeholder: Placeholder = (i, v) => this.placeholder(i, v);
    return new Params(placeholder);
  }

  /** `alias.column`, quoted; the bare column without an alias. */
  col(alias: string | undefined, column: string): string {
    return alias === undefined ? this.ident(column) : `${alias}.${this.ident(column)}`;
  }

  /** "Now": the bound host instant, or the database clock. */
  now(p: Params, now: Date | null): string {
    return now === null ? this.clock : this.time(p, now);
  }

  /** Claim order on alias `a`: the highest priority first, then id; id alone without one. */
  order(a: string): string {
    const id = this.col(a, this.t.id.column);
    return this.t.priority === undefined ? id : `${this.col(a, this.t.priority)} DESC, ${id}`;
  }

  /** A role's column, or a ConfigError saying the description lacks it. */
  role(column: string | undefined, role: string): string {
    if (column !== undefined) return column;
    throw new ConfigError(`the description names no ${role} column`, {
      table: this.t.table,
      fix: `describe the ${role} column`,
    });
  }

  /** ` AND a.processed_at IS NULL` (the bare column without `a`) where the table stamps settled rows. */
  unsettled(a?: string): string {
    const pa = this.t.processedAt;
    return pa === undefined ? '' : ` AND ${this.col(a, pa)} IS NULL`;
  }

  /** Unsettled and out of the dead-letter group. */
  live(p: Params, a: string): string[] {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.col(a, t.processedAt)} IS NULL`);
    if (t.group !== undefined && this.deadGroup !== undefined) {
      parts.push(this.distinct(this.col(a, t.group), p.bind(this.deadGroup)));
    }
    return parts;
  }

  /**
   * A row is due: not processed, its `retry_after` reached, its lease absent or ended, not in the
   * dead-letter group (each where the table has the column), and not an excluded id.
   */
  due(p: Params, now: Date | null, a: string): string {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.col(a, t.processedAt)} IS NULL`);
    if (t.retryAfter !== undefined) {
      const c = this.col(a, t.retryAfter);
      parts.push(`(${c} IS NULL OR ${c} <= ${this.now(p, now)})`);
    }
    if (t.lease !== undefined) {
      const c = this.col(a, t.lease);
      parts.push(`(${c} IS NULL OR ${c} <= ${this.now(p, now)})`);
    }
    if (t.group !== undefined && this.deadGroup !== undefined) {
      parts.push(this.distinct(this.col(a, t.group), p.bind(this.deadGroup)));
    }
    if (this.exclude !== undefined && this.exclude.size > 0) {
      parts.push(this.inList(p, this.col(a, t.id.column), [...this.exclude], true));
    }
    return parts.length === 0 ? this.always : parts.join(' AND ');
  }

  /**
   * FIFO: row `a` is its group's head when no unsettled row of its group has a smaller id. A NULL
   * group is no group (`=` never matches it). Rows of the dead-letter group have left their group.
   * Answers `` when the table has no group column, else ` AND ..`.
   */
  head(a: string): string {
    const t = this.t;
    if (t.group === undefined) return '';
    return (
      ` AND NOT EXISTS (SELECT 1 FROM ${this.table} s WHERE ${this.col('s', t.group)} = ${this.col(a, t.group)}` +
      ` AND ${this.col('s', t.id.column)} < ${this.col(a, t.id.column)}${this.unsettled('s')})`
    );
  }

  /** The advisory key of row `a` as SQL text, as core's `keyOf()` renders it. */
  keyExpr(p: Params, a: string): string {
    const parts = (this.t.key ?? []).map((part) =>
      'literal' in part ? this.text(p, part.literal) : this.keyColumn(this.col(a, part.column)),
    );
    return parts.length === 0 ? this.emptyText : this.concat(parts);
  }

  /** `id = ?` and, with a lease token, `lease = token`. */
  owned(p: Params, id: unknown, token: Date | undefined, a?: string): string {
    const byId = `${this.col(a, this.t.id.column)} = ${p.bind(id)}`;
    if (token === undefined || this.t.lease === undefined) return byId;
    return `${byId} AND ${this.col(a, this.t.lease)} = ${this.time(p, token)}`;
  }

  /** The `SET` list of a settlement (empty: nothing to write). */
  settlementSets(p: Params, s: Settlement): string[] {
    const t = this.t;
    const sets: string[] = [];
    const clearLease = () => {
      if (t.lease !== undefined) sets.push(`${this.ident(t.lease)} = NULL`);
    };
    if (s.kind === 'finish') {
      sets.push(`${this.ident(this.role(t.processedAt, 'processedAt'))} = ${this.time(p, s.now)}`);
      clearLease();
    } else if (s.kind === 'return') {
      if (s.countAttempt && t.attempt !== undefined) sets.push(this.countAttempt());
      else if (s.uncountAttempt && t.attempt !== undefined) sets.push(this.countAttempt(-1));
      if (s.retryAfter !== undefined && t.retryAfter !== undefined) {
        sets.push(`${this.ident(t.retryAfter)} = ${this.time(p, s.retryAfter)}`);
      }
      if (s.clearLease) clearLease();
    } else {
      if (!('group' in s.target)) throw new Error('a dead-letter table move takes moveToDeadLetter');
      sets.push(`${this.ident(this.role(t.group, 'group'))} = ${p.bind(s.target.group)}`);
      clearLease();
    }
    return sets;
  }

  /** A claim's `SET` list: the lease written as `expiry`, and the attempt counted. */
  leaseSets(p: Params, expiry: Date): string[] {
    const set = [`${this.ident(this.role(this.t.lease, 'lease'))} = ${this.time(p, expiry)}`];
    return this.t.attempt === undefined ? set : [...set, this.countAttempt()];
  }

  /** `attempt = attempt + 1` (`- 1` with `by` -1: a claim taken back). */
  countAttempt(by: 1 | -1 = 1): string {
    const a = this.ident(this.role(this.t.attempt?.column, 'attempt'));
    return `${a} = ${a} ${by === 1 ? '+' : '-'} 1`;
  }

  /** The `SET` list that puts a row back as new: attempt 1, no `retry_after`, no lease. */
  freshSets(): string[] {
    const t = this.t;
    const set: string[] = [];
    if (t.attempt !== undefined) set.push(`${this.ident(t.attempt.column)} = 1`);
    if (t.retryAfter !== undefined) set.push(`${this.ident(t.retryAfter)} = NULL`);
    if (t.lease !== undefined) set.push(`${this.ident(t.lease)} = NULL`);
    return set;
  }

  /** Splits `items` into runs of at most `per`. */
  chunks<T>(items: readonly T[], per: number): T[][] {
    const out: T[][] = [];
    const size = Math.max(1, per);
    for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
    return out;
  }

  // ===========================================================================================
  // Claims

  /**
   * Row lock form, inside the engine's transaction: up to `n` due rows (FIFO: group heads) in claim
   * order, locked, rows other transactions hold skipped. A FIFO table's dialect adds its group
   * guard (see the dialect).
   */
  claimLocked(n: number, now: Date | null): Statement {
    const p = this.params();
    return p.statement(this.claimSelect(p, n, now, 'q.*'));
  }

  /**
   * The FIFO guard of a claimed head `id` of `group` (never NULL), run after the claim's select in
   * its transaction: the runner keeps the head where {@link SqlTable.isHead} reads the answer so.
   * Default: undefined, no guard (the select's own `head()` alone).
   */
  headGuard(id: unknown, group: unknown): Statement | undefined {
    void id;
    void group;
    return undefined;
  }

  /** The claims' locking select on alias `q`: up to `n` due rows (FIFO: heads) in claim order. */
  claimSelect(p: Params, n: number, now: Date | null, columns: string): string {
    const where = this.due(p, now, 'q') + this.head('q');
    const table = `${this.table} q`;
    return this.select(p, {
      columns,
      table,
      alias: 'q',
      where,
      order: this.order('q'),
      limit: n,
      lock: true,
    });
  }

  /**
   * Lease form, one statement: an update of up to `n` due rows (lease absent or ended at `now`;
   * FIFO: heads), writing `expiry` into the lease and counting the attempt, answering the rows
   * after the update (in no promised order: the runner sorts).
   */
  claimLease(n: number, now: Date, expiry: Date): Statement {
    const t = this.t;
    const p = this.params();
    const set = this.leaseSets(p, expiry);
    const pick = this.claimSelect(p, n, now, this.col('q', t.id.column));
    return p.statement(
      this.update({
        table: this.table,
        alias: 't',
        set,
        where: this.inSelect(this.col('t', t.id.column), pick),
        returning: '*',
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Per-key concurrency (a table that declares `concurrency`)

  /**
   * The statement that waits for this table's turn to claim, run first in the claim's own
   * transaction and held until it ends, so claims of one table under per-key concurrency never
   * overlap (two brokers would both see a key's last free slot); it answers `ok` 1 when the turn
   * is taken. Default: undefined, where opening the transaction already serializes writers
   * (SQLite's `BEGIN IMMEDIATE`). PostgreSQL, SQL Server override it.
   */
  claimTurn(): Statement | undefined {
    return undefined;
  }

  /** The text that names this table's claim turn (`sqlinbox.concurrency:<table>`), bound as a value. */
  get turnName(): string {
    return `sqlinbox.concurrency:${this.t.table}`;
  }

  /**
   * Per-key concurrency, the pick on alias `x`, in claim order, at most `n` rows:
   *
   * 1. `c`, the candidates: the first `n * limit` due rows (FIFO: heads) in claim order whose key
   *    is NULL or has a free slot (fewer rows in work, a lease running at `now`, than the limit),
   *    read in claim order so the scan stops there instead of reading the whole backlog;
   * 2. each candidate ranked within its key in claim order, beside its key's rows in work;
   * 3. kept where the key is NULL or the rank is within the limit less the key's rows in work.
   *
   * The candidates are the first rows of their keys, so a rank among them is the rank among the
   * key's due rows. A claim whose candidates are mostly one key's takes fewer than `n` rows (at
   * least one, where any row may be taken); the next claim passes over that key once it is full.
   * `columns` is the select list over `x` (the id, and any column the caller needs, as
   * `x.<column>`).
   */
  pickByKey(p: Params, n: number, now: Date, columns: string): string {
    const t = this.t;
    const c = this.role(t.concurrency?.column, 'concurrency key');
    const limit = t.concurrency!.limit;
    const names = [t.id.column, c, t.priority, t.group].filter(
      (x, i, all): x is string => x !== undefined && all.indexOf(x) === i,
    );
    // Each part is written in text order: positional placeholders take their values in that order.
    const inWork = (a: string) =>
      `(SELECT COUNT(*) FROM ${this.table} w WHERE ${this.col('w', c)} = ${this.col(a, c)}` +
      ` AND ${this.col('w', this.role(t.lease, 'lease'))} > ${this.time(p, now)}` +
      `${this.live(p, 'w')
        .map((x) => ` AND ${x}`)
        .join('')})`;
    let ranked =
      `SELECT ${names.map((x) => this.col('c', x)).join(', ')},` +
      ` ROW_NUMBER() OVER (PARTITION BY ${this.col('c', c)} ORDER BY ${this.order('c')}) AS ${this.ident(RANK)},` +
      ` ${inWork('c')} AS ${this.ident(IN_WORK)} FROM (`;
    let free = `${this.due(p, now, 'q')}${this.head('q')} AND (${this.col('q', c)} IS NULL OR `;
    free += `${inWork('q')} < ${p.bind(limit)})`;
    ranked += `${this.select(p, {
      columns: names.map((x) => this.col('q', x)).join(', '),
      table: `${this.table} q`,
      alias: 'q',
      where: free,
      order: this.order('q'),
      limit: Math.min(n * limit, CANDIDATES_MAX),
    })}) c`;
    const where = `(${this.col('x', c)} IS NULL OR x.${this.ident(RANK)} <= ${p.bind(limit)} - x.${this.ident(IN_WORK)})`;
    return this.select(p, {
      columns,
      table: `(${ranked}) x`,
      alias: 'x',
      where,
      order: this.order('x'),
      limit: n,
    });
  }

  /**
   * Lease form under per-key concurrency, one statement in the claim's transaction (after
   * {@link claimTurn}): {@link claimLease} over the rows of {@link pickByKey}, each still due when
   * the update reaches it. The pick reads without locks: a {@link plainRead}.
   */
  claimLeaseByKey(n: number, now: Date, expiry: Date): Statement {
    const t = this.t;
    const p = this.params();
    const set = this.leaseSets(p, expiry);
    const pick = this.pickByKey(p, n, now, this.col('x', t.id.column));
    const due = this.due(p, now, 't');
    return this.plainRead(
      p.statement(
        this.update({
          table: this.table,
          alias: 't',
          set,
          where: `${this.inSelect(this.col('t', t.id.column), pick)} AND ${due}`,
          returning: '*',
        }),
      ),
    );
  }

  /**
   * The rows that still hold their tokens, on alias `a` (the bare columns without: a delete's).
   * The leases of one claim share its token, so the ids are grouped by token:
   * `lease = ? AND id IN (..)`, one group per token (`OR`ed, inside `id IN (every id)` where there
   * are several), so each token is bound once and the condition reads the primary key.
   */
  heldTokens(p: Params, leases: readonly { id: unknown; token: Date }[], a?: string): string {
    const id = this.col(a, this.t.id.column);
    const lease = this.col(a, this.role(this.t.lease, 'lease'));
    const groups = new Map<number, { token: Date; ids: unknown[] }>();
    for (const l of leases) {
      const g = groups.get(l.token.getTime());
      if (g === undefined) groups.set(l.token.getTime(), { token: l.token, ids: [l.id] });
      else g.ids.push(l.id);
    }
    const [only, ...more] = groups.values();
    if (more.length === 0)
      return `${lease} = ${this.time(p, only!.token)} AND ${this.inList(p, id, only!.ids)}`;
    const all = this.inList(
      p,
      id,
      leases.map((l) => l.id),
    );
    const each = [...groups.values()].map(
      (g) => `${lease} = ${this.time(p, g.token)} AND ${this.inList(p, id, g.ids)}`,
    );
    return `${all} AND ((${each.join(') OR (')}))`;
  }

  /** Moves each lease that still holds its token to `expiry`, answering the ids it moved. */
  extendLeases(leases: readonly { id: unknown; token: Date }[], expiry: Date): Statement[] {
    const lease = this.role(this.t.lease, 'lease');
    return this.chunks(leases, Math.floor((this.maxParams - 1) / 2)).map((part) => {
      const p = this.params();
      const set = [`${this.ident(lease)} = ${this.time(p, expiry)}`];
      return p.statement(
        this.update({
          table: this.table,
          alias: 't',
          set,
          where: this.heldTokens(p, part, 't'),
          returning: this.id,
        }),
      );
    });
  }

  /** Many lease-form acks: deletes (or stamps) the rows that still hold their tokens. */
  settleMany(settlements: readonly FinishSettlement[]): Statement[] {
    const t = this.t;
    return this.chunks(settlements, Math.floor((this.maxParams - 1) / 2)).map((part) => {
      const p = this.params();
      if (t.processedAt === undefined) {
        // DELETE takes no alias everywhere: the pairs compare the bare columns.
        const where = this.heldTokens(p, part);
        return p.statement(this.delete({ table: this.table, where, returning: this.id }));
      }
      const set = [
        `${this.ident(t.processedAt)} = ${this.time(p, part[0]!.now)}`,
        `${this.ident(this.role(t.lease, 'lease'))} = NULL`,
      ];
      return p.statement(
        this.update({
          table: this.table,
          alias: 't',
          set,
          where: this.heldTokens(p, part, 't'),
          returning: this.id,
        }),
      );
    });
  }

  // ===========================================================================================
  // Advisory form

  /**
   * Up to `n` due rows (FIFO: heads) in claim order with their keys as `id` and `key`, leaving
   * out the keys in `own`.
   */
  candidates(n: number, now: Date | null, own: ReadonlySet<string>): Statement {
    const p = this.params();
    const key = this.keyExpr(p, 'q');
    const where = this.due(p, now, 'q') + this.head('q');
    const notOwn = own.size === 0 ? '' : ` AND ${this.inList(p, this.keyExpr(p, 'q'), [...own], true)}`;
    // A table with its own lock: only its own keys are left out (the database's locks are not its).
    // (`freeKey` asked of a constant first: the key's values are bound only where it is used.)
    const sees = this.t.lock === undefined && this.freeKey(this.emptyText) !== undefined;
    const free = sees ? this.freeKey(this.keyExpr(p, 'q')) : undefined;
    return this.plainRead(
      p.statement(
        this.select(p, {
          columns: `${this.col('q', this.t.id.column)} AS ${this.ident('id')}, ${key} AS ${this.ident('key')}`,
          table: this.scan(this.table, 'q'),
          alias: 'q',
          where: where + notOwn + (free === undefined ? '' : ` AND ${free}`),
          order: this.order('q'),
          limit: n,
        }),
      ),
    );
  }

  /**
   * How many of these keys another session holds, as `n` (the admin counts of rows in work): the
   * keys as a `VALUES` table, counted where {@link freeKey} fails; undefined without `freeKey`.
   */
  heldKeys(keys: readonly string[]): Statement | undefined {
    if (this.freeKey(this.emptyText) === undefined) return undefined;
    const p = this.params();
    const k = this.ident('k');
    const rows = keys.map((key) => `(${this.text(p, key)})`).join(', ');
    return p.statement(
      `SELECT COUNT(*) AS ${this.ident('n')} FROM (VALUES ${rows}) AS v (${k}) WHERE NOT (${this.freeKey(`v.${k}`)})`,
    );
  }

  /**
   * A condition that holds while no other session holds the advisory key `key` (a text
   * expression), where the database can see other sessions' locks: the candidates leave the other
   * rows out, and {@link heldKeys} counts them. Default: undefined.
   */
  freeKey(key: string): string | undefined {
    void key;
    return undefined;
  }

  /** Tries the key's lock without waiting, answering `ok`. A dialect with session locks overrides it. */
  lock(key: string): Statement {
    void key;
    throw new ConfigError('this dialect has no advisory lock statement', {
      table: this.t.table,
      fix: 'override lock() and unlock() in the dialect',
    });
  }

  /** Releases the key's lock, answering `ok`. */
  unlock(key: string): Statement {
    return this.lock(key);
  }

  /**
   * Whether {@link lockAndTake} has a statement for this table: a dialect that can try the lock
   * and take the row in one statement, the take re-reading a row changed after the statement began.
   */
  get locksAndTakes(): boolean {
    return false;
  }

  /**
   * The lock and then the take in one statement: one row, its `sqlinbox_locked` column whether the
   * key was taken, the other columns the taken row's (all null when nothing was taken).
   */
  lockAndTake(key: string, id: unknown, now: Date | null): Statement {
    void key;
    void id;
    void now;
    throw new ConfigError('this dialect has no lock-and-take statement', {
      table: this.t.table,
      fix: 'override lockAndTake() and locksAndTakes in the dialect',
    });
  }

  /**
   * Takes the row while it is still due and (FIFO) its group's head: counts the attempt and
   * answers the row after the count; without an attempt column, a select under the same condition.
   */
  take(id: unknown, now: Date | null): Statement {
    const p = this.params();
    return p.statement(this.takeSql(p, id, now));
  }

  /** {@link take}'s SQL, its values bound on `p`; `also` adds a condition (`' AND ..'`). */
  takeSql(p: Params, id: unknown, now: Date | null, also = ''): string {
    const t = this.t;
    const set = t.attempt === undefined ? [] : [this.countAttempt()];
    const where = `${this.col('q', t.id.column)} = ${p.bind(id)} AND ${this.due(p, now, 'q')}${this.head('q')}${also}`;
    if (set.length === 0) return `SELECT q.* FROM ${this.table} q WHERE ${where}`;
    return this.update({ table: this.table, alias: 'q', set, where, returning: '*' });
  }

  // ===========================================================================================
  // Settlement

  /**
   * One settlement, with `AND lease = token` where it carries a token: finish (delete, or stamp
   * `processed_at`), return, or the move to the dead-letter group. A return with nothing to write
   * selects the row, so its count still says whether the row (and its lease) was there. The move
   * to a dead-letter table is {@link moveToDeadLetter}.
   */
  settle(s: Settlement): Statement {
    const p = this.params();
    if (s.kind === 'finish' && this.t.processedAt === undefined) {
      return p.statement(this.delete({ table: this.table, where: this.owned(p, s.id, s.token) }));
    }
    const set = this.settlementSets(p, s);
    const where = this.owned(p, s.id, s.token, 'q');
    if (set.length === 0)
      return p.statement(`SELECT 1 AS ${this.ident('one')} FROM ${this.table} q WHERE ${where}`);
    return p.statement(this.update({ table: this.table, alias: 'q', set, where }));
  }

  /**
   * The move to a dead-letter table of the same columns: one statement where {@link deleteInto}
   * writes one, else a copy, then a delete under the same condition, which the runner runs in one
   * transaction. The last statement's count is the answer.
   */
  moveToDeadLetter(id: unknown, token: Date | undefined, table: string): Statement[] {
    const dead = this.tableName(validateIdentifier(table, 'dead-letter table', this.t.table, true));
    const one = this.params();
    const moved = this.deleteInto(this.owned(one, id, token), dead);
    if (moved !== undefined) return [one.statement(moved)];
    const copy = this.params();
    const remove = this.params();
    return [
      copy.statement(`INSERT INTO ${dead} SELECT * FROM ${this.table} WHERE ${this.owned(copy, id, token)}`),
      remove.statement(this.delete({ table: this.table, where: this.owned(remove, id, token) })),
    ];
  }

  /**
   * The rows of the queue table `where` selects, deleted and written into `dead` (quoted) in one
   * statement, where the database can (`WITH .. DELETE .. RETURNING *`, `OUTPUT deleted.* INTO`).
   * Default: undefined.
   */
  deleteInto(where: string, dead: string): string | undefined {
    void where;
    void dead;
    return undefined;
  }

  // ===========================================================================================
  // Insert

  /** The columns an insert of `messages` writes: the union over them. */
  insertColumns(messages: readonly Insert[]): InsertColumn[] {
    const t = this.t;
    const out: InsertColumn[] = [];
    const add = (name: string, value: (m: Insert) => unknown, role?: InsertColumn['role']) => {
      if (!out.some((c) => c.name === name)) out.push({ name, value, role });
    };
    const any = (f: (m: Insert) => unknown) => messages.some((m) => f(m) !== undefined);
    if (!t.id.generated && messages.some((m) => m.columns?.[t.id.column] !== undefined)) {
      add(t.id.column, (m) => m.columns?.[t.id.column]);
    }
    if (t.payload !== undefined) add(t.payload.column, (m) => m.payload, 'payload');
    if (t.attempt !== undefined && !t.attempt.generated) add(t.attempt.column, () => 1);
    if (any((m) => m.group)) add(this.role(t.group, 'group'), (m) => m.group);
    if (any((m) => m.partitionKey)) add(this.role(t.partitionKey, 'partitionKey'), (m) => m.partitionKey);
    if (any((m) => m.notBefore)) add(this.role(t.retryAfter, 'retryAfter'), (m) => m.notBefore, 'time');
    if (any((m) => m.priority)) add(this.role(t.priority, 'priority'), (m) => m.priority);
    if (any((m) => m.key)) add(this.role(t.uniqueKey, 'uniqueKey'), (m) => m.key);
    for (const m of messages) {
      for (const name of Object.keys(m.columns ?? {})) {
        if (name === t.id.column && t.id.generated) continue;
        add(name, (x) => x.columns?.[name]);
      }
    }
    return out;
  }

  /** Binds one value of an insert. A dialect binds a JSON payload or an instant in its own way. */
  insertValue(p: Params, column: InsertColumn, value: unknown): string {
    void column;
    if (value instanceof Date) return this.time(p, value);
    return p.bind(value);
  }

  /**
   * Multi-row inserts, as few statements as the parameter limit allows, each answering the new
   * ids (where the database can). A message without a value for a column writes NULL there (the
   * column's default where the dialect writes `DEFAULT`).
   */
  insert(messages: readonly Insert[], conflict = false): Statement[] {
    // Where VALUES takes no DEFAULT, a run of messages giving the same columns is one statement
    // (consecutive runs, so generated ids still ascend in message order).
    if (this.missingValue === undefined) {
      const runs: Insert[][] = [];
      let last: string | undefined;
      for (const m of messages) {
        const given = this.insertColumns([m])
          .map((c) => c.name)
          .join('\0');
        if (given === last) runs[runs.length - 1]!.push(m);
        else runs.push([m]);
        last = given;
      }
      if (runs.length > 1) return runs.flatMap((run) => this.insertRun(run, conflict));
    }
    return this.insertRun(messages, conflict);
  }

  /** {@link insert} of messages written with one column list. */
  insertRun(messages: readonly Insert[], conflict: boolean): Statement[] {
    const columns = this.insertColumns(messages);
    const names = columns.map((c) => this.ident(c.name));
    const conflictKey = conflict ? this.role(this.t.uniqueKey, 'uniqueKey') : undefined;
    if (columns.length === 0) {
      return messages.map(() => {
        const p = this.params();
        return p.statement(
          this.insertSql({ table: this.table, columns: [], rows: [], returning: this.id, conflictKey }),
        );
      });
    }
    return this.chunks(messages, Math.floor(this.maxParams / columns.length)).map((part) => {
      const p = this.params();
      const rows = part.map((m, k) =>
        this.insertRow(
          columns.map((c) => this.insertMissing(p, c, m)),
          k,
        ),
      );
      return p.statement(
        this.insertSql({ table: this.table, columns: names, rows, returning: this.id, conflictKey }),
      );
    });
  }

  /** One row of an insert's `VALUES`, the `index`th of its statement. */
  insertRow(values: readonly string[], index: number): string {
    void index;
    return `(${values.join(', ')})`;
  }

  /** One value of a row, or what the database writes for a column the message leaves out. */
  insertMissing(p: Params, c: InsertColumn, m: Insert): string {
    const v = c.value(m);
    return v === undefined ? (this.missingValue ?? 'NULL') : this.insertValue(p, c, v);
  }

  /**
   * What an insert writes for a column a message leaves out: default `DEFAULT`; undefined where
   * `VALUES` takes no `DEFAULT` (SQLite), and then messages giving different columns go in
   * statements of their own.
   */
  readonly missingValue: string | undefined = 'DEFAULT';

  /** A keyed insert of one message: nothing where an unsettled row holds the key ({@link onConflict}). */
  insertKeyed(m: Insert): Statement {
    return this.insert([m], true)[0]!;
  }

  /** The id of the unsettled row that holds a unique key. */
  keyHolder(key: string): Statement {
    const p = this.params();
    return p.statement(
      `SELECT ${this.id} FROM ${this.table}` +
        ` WHERE ${this.ident(this.role(this.t.uniqueKey, 'uniqueKey'))} = ${p.bind(key)}${this.unsettled()}`,
    );
  }

  // ===========================================================================================
  // Stats

  /**
   * Counts in one select: `in_work` (a lease running at `now`), `delayed` (a future `retry_after`,
   * not in work), `ready` (due now), `dead` (the dead-letter group's or table's rows).
   */
  stats(now: Date): Statement {
    const t = this.t;
    const p = this.params();
    const later = (column: string | undefined) =>
      column === undefined ? undefined : `${this.col('q', column)} > ${this.time(p, now)}`;
    const and = (parts: (string | undefined)[]) => {
      const ok = parts.filter((x): x is string => x !== undefined);
      return ok.length === 0 ? this.always : ok.join(' AND ');
    };
    const leaseLater = () => later(t.lease);
    const inWork = t.lease === undefined ? '0' : this.countIf(and([...this.live(p, 'q'), leaseLater()]));
    const delayed =
      t.retryAfter === undefined
        ? '0'
        : this.countIf(
            and([
              ...this.live(p, 'q'),
              t.lease === undefined
                ? undefined
                : `NOT (${this.col('q', t.lease)} IS NOT NULL AND ${leaseLater()})`,
              later(t.retryAfter),
            ]),
          );
    const ready = this.countIf(this.due(p, now, 'q'));
    let dead = '0';
    if (this.deadTable !== undefined)
      dead = `(SELECT COUNT(*) FROM ${this.scan(this.tableName(this.deadTable))})`;
    else if (this.deadGroup !== undefined && t.group !== undefined) {
      dead = this.countIf(`${this.col('q', t.group)} = ${p.bind(this.deadGroup)}${this.unsettled('q')}`);
    }
    // Quoted: DELAYED is a reserved word in MySQL.
    const as = (name: string) => `AS ${this.ident(name)}`;
    return this.plainRead(
      p.statement(
        `SELECT ${inWork} ${as('in_work')}, ${delayed} ${as('delayed')}, ${ready} ${as('ready')}, ${dead} ${as('dead')} FROM ${this.scan(this.table, 'q')}`,
      ),
    );
  }

  /**
   * How many due rows a locking read can lock now, as `n`: the runner runs it in a transaction it
   * rolls back at once, and the due rows it could not lock are those other transactions hold (the
   * row lock form's rows in work). Undefined where the database cannot tell.
   */
  lockable(now: Date): Statement | undefined {
    const p = this.params();
    const where = this.due(p, now, 'q');
    const pick = this.select(p, {
      columns: `1 AS ${this.ident('one')}`,
      table: `${this.table} q`,
      alias: 'q',
      where,
      lock: true,
    });
    return this.plainRead(p.statement(`SELECT COUNT(*) AS ${this.ident('n')} FROM (${pick}) x`));
  }

  /** The due rows' keys (advisory form; NULL otherwise) and `retry_after` (as `due_at`). */
  dueRows(now: Date): Statement {
    const t = this.t;
    const p = this.params();
    const key = t.key === undefined ? 'NULL' : this.keyExpr(p, 'q');
    const at = t.retryAfter === undefined ? 'NULL' : this.col('q', t.retryAfter);
    return this.plainRead(
      p.statement(
        `SELECT ${key} AS ${this.ident('key')}, ${at} AS ${this.ident('due_at')} FROM ${this.scan(this.table, 'q')} WHERE ${this.due(p, now, 'q')}`,
      ),
    );
  }

  // ===========================================================================================
  // Admin

  /** The state of row `a` as SQL sees it (see core's `RowState`), as a CASE expression. */
  state(p: Params, now: Date, a: string): string {
    const t = this.t;
    const when: string[] = [];
    if (t.group !== undefined && this.deadGroup !== undefined)
      when.push(`WHEN ${this.col(a, t.group)} = ${p.bind(this.deadGroup)} THEN 'dead'`);
    if (t.processedAt !== undefined) when.push(`WHEN ${this.col(a, t.processedAt)} IS NOT NULL THEN 'done'`);
    if (t.lease !== undefined) when.push(`WHEN ${this.col(a, t.lease)} > ${this.time(p, now)} THEN 'inWork'`);
    if (t.retryAfter !== undefined)
      when.push(`WHEN ${this.col(a, t.retryAfter)} > ${this.time(p, now)} THEN 'delayed'`);
    return when.length === 0 ? this.stateText('ready') : `CASE ${when.join(' ')} ELSE 'ready' END`;
  }

  /** A state's name as a text literal (a constant of this package, never user input). */
  stateText(state: string): string {
    return `'${state}'`;
  }

  /** Admin list: rows of one state in id order after `after`, each with `sqlinbox_state`. */
  list(q: ListQuery): Statement {
    const p = this.params();
    const source =
      q.state === 'dead' && this.deadTable !== undefined
        ? `SELECT r.*, ${this.stateText('dead')} AS ${STATE} FROM ${this.scan(this.tableName(this.deadTable), 'r')}`
        : `SELECT r.*, ${this.state(p, q.now, 'r')} AS ${STATE} FROM ${this.scan(this.table, 'r')}`;
    const where: string[] = [];
    if (q.state !== 'all') where.push(`x.${STATE} = ${p.bind(q.state)}`);
    if (q.after !== undefined) where.push(`${this.col('x', this.t.id.column)} > ${p.bind(q.after)}`);
    if (q.ids !== undefined) where.push(this.inList(p, this.col('x', this.t.id.column), q.ids));
    return this.plainRead(
      p.statement(
        this.select(p, {
          columns: 'x.*',
          table: `(${source}) x`,
          alias: 'x',
          where: where.length === 0 ? undefined : where.join(' AND '),
          order: this.col('x', this.t.id.column),
          limit: q.limit,
        }),
      ),
    );
  }

  /**
   * Admin pick, inside the caller's transaction: dead rows or live ones (unsettled, not dead, lease
   * absent or ended), optionally by ids and group, locked where the database locks rows; null when
   * the table cannot hold such rows.
   */
  pick(q: PickQuery): Statement | null {
    const t = this.t;
    const p = this.params();
    const where: string[] = [];
    let from = this.table;
    if (q.dead && this.deadTable !== undefined) from = this.tableName(this.deadTable);
    else if (q.dead) {
      if (t.group === undefined || this.deadGroup === undefined) return null;
      where.push(`${this.col('r', t.group)} = ${p.bind(q.group ?? this.deadGroup)}`);
      if (t.processedAt !== undefined) where.push(`${this.col('r', t.processedAt)} IS NULL`);
    } else {
      where.push(...this.live(p, 'r'));
      if (t.lease !== undefined) {
        const c = this.col('r', t.lease);
        where.push(`(${c} IS NULL OR ${c} <= ${this.time(p, q.now)})`);
      }
    }
    if (q.group !== undefined && !(q.dead && this.deadTable === undefined)) {
      if (t.group === undefined) return null;
      where.push(`${this.col('r', t.group)} = ${p.bind(q.group)}`);
    }
    if (q.ids !== undefined) where.push(this.inList(p, this.col('r', t.id.column), q.ids));
    return p.statement(
      this.select(p, {
        columns: 'r.*',
        table: `${from} r`,
        alias: 'r',
        where: where.length === 0 ? undefined : where.join(' AND '),
        order: this.col('r', t.id.column),
        lock: true,
      }),
    );
  }

  /** Puts rows back as new (attempt 1, no `retry_after`, no lease), with the group when given. */
  fresh(ids: readonly unknown[], group: { value: string | null } | undefined): Statement | null {
    const p = this.params();
    const set = this.freshSets();
    if (group !== undefined && this.t.group !== undefined)
      set.push(`${this.ident(this.t.group)} = ${p.bind(group.value)}`);
    if (set.length === 0) return null;
    return p.statement(
      this.update({
        table: this.table,
        alias: 'q',
        set,
        where: this.inList(p, this.col('q', this.t.id.column), ids),
      }),
    );
  }

  /** Copies dead-letter table rows back into the queue table (deleted from it after). */
  copyBack(ids: readonly unknown[]): Statement {
    const p = this.params();
    const dead = this.tableName(this.role(this.deadTable, 'dead-letter table'));
    return p.statement(
      `INSERT INTO ${this.table} SELECT * FROM ${dead} WHERE ${this.inList(p, this.id, ids)}`,
    );
  }

  /** Deletes rows by id, from the dead-letter table with `dead`. */
  remove(ids: readonly unknown[], dead: boolean): Statement {
    const p = this.params();
    const table = dead && this.deadTable !== undefined ? this.tableName(this.deadTable) : this.table;
    return p.statement(this.delete({ table, where: this.inList(p, this.id, ids) }));
  }

  /** `retry_after = at` by id; null without a `retry_after` column. */
  reschedule(ids: readonly unknown[], at: Date): Statement | null {
    const ra = this.t.retryAfter;
    if (ra === undefined) return null;
    const p = this.params();
    const set = [`${this.ident(ra)} = ${this.time(p, at)}`];
    return p.statement(
      this.update({
        table: this.table,
        alias: 'q',
        set,
        where: this.inList(p, this.col('q', this.t.id.column), ids),
      }),
    );
  }

  // ===========================================================================================
  // Schedules: the tick table, one row per schedule and tick, its primary key (name, tick)

  /** The tick table's name column type. Default `VARCHAR(255)`. */
  readonly tickNameType: string = 'VARCHAR(255)';

  /** The tick table's instant column type. Default `TIMESTAMP`. */
  readonly tickTimeType: string = 'TIMESTAMP';

  /** How a `CREATE TABLE` opens. Default `CREATE TABLE IF NOT EXISTS`. */
  readonly createTableSql: string = 'CREATE TABLE IF NOT EXISTS';

  /** The tick table's `CREATE TABLE`, where it does not exist. */
  ticksDdl(ticks: string): string[] {
    return [
      `${this.createTableSql} ${this.tableName(ticks)} (\n` +
        `  ${this.ident('name')} ${this.tickNameType} NOT NULL,\n` +
        `  ${this.ident('tick')} ${this.tickTimeType} NOT NULL,\n` +
        `  PRIMARY KEY (${this.ident('name')}, ${this.ident('tick')})\n)`,
    ];
  }

  /**
   * An insert of one row that writes nothing where the primary key holds it already, and fails on
   * any other error. Default `INSERT .. ON CONFLICT DO NOTHING`.
   */
  insertNew(table: string, columns: readonly string[], values: readonly string[]): string {
    return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT DO NOTHING`;
  }

  /** Records a schedule's tick; its row count is 1 where it wrote the record, 0 where it was there. */
  recordTick(ticks: string, name: string, at: Date): Statement {
    const p = this.params();
    return p.statement(
      this.insertNew(
        this.tableName(ticks),
        [this.ident('name'), this.ident('tick')],
        [p.bind(name), this.time(p, at)],
      ),
    );
  }

  /** The newest tick recorded for a schedule, as `tick` (NULL where none). */
  lastTick(ticks: string, name: string): Statement {
    const p = this.params();
    return p.statement(
      `SELECT MAX(${this.ident('tick')}) AS ${this.ident('tick')} FROM ${this.tableName(ticks)}` +
        ` WHERE ${this.ident('name')} = ${p.bind(name)}`,
    );
  }

  /** Deletes a schedule's tick records before `before`. */
  pruneTicks(ticks: string, name: string, before: Date): Statement {
    const p = this.params();
    return p.statement(
      this.delete({
        table: this.tableName(ticks),
        where: `${this.ident('name')} = ${p.bind(name)} AND ${this.ident('tick')} < ${this.time(p, before)}`,
      }),
    );
  }

  // ===========================================================================================
  // Rate limits: the budget table, one row per limited queue, its window and what it used

  /** The database clock as epoch milliseconds (an integer). Default: PostgreSQL's spelling. */
  readonly nowMs: string = 'CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)';

  /** Integer division of two non-negative integers, rounding down. Default `(a / b)`. */
  intDiv(a: string, b: string): string {
    return `(${a} / ${b})`;
  }

  /** The budget table's epoch-milliseconds column type. Default `BIGINT`. */
  readonly rateMsType: string = 'BIGINT';

  /** The budget table's count column type. Default `INTEGER`. */
  readonly rateCountType: string = 'INTEGER';

  /** The budget table's `CREATE TABLE`, where it does not exist. */
  ratesDdl(rates: string): string[] {
    const col = (name: string, type: string) => `  ${this.ident(name)} ${type} NOT NULL DEFAULT 0,\n`;
    return [
      `${this.createTableSql} ${this.tableName(rates)} (\n` +
        `  ${this.ident('name')} ${this.tickNameType} NOT NULL,\n` +
        col('window_start', this.rateMsType) +
        col('used', this.rateCountType) +
        col('granted', this.rateCountType) +
        col('at_ms', this.rateMsType) +
        `  PRIMARY KEY (${this.ident('name')})\n)`,
    ];
  }

  /** Creates a budget's row (the other columns' defaults: window 0, nothing used) unless it is there. */
  rateRow(rates: string, name: string): Statement {
    const p = this.params();
    return p.statement(this.insertNew(this.tableName(rates), [this.ident('name')], [p.bind(name)]));
  }

  /**
   * Takes up to `want` of `max` from the budget's current window in one UPDATE on the database
   * clock: the window is the multiple of `perMs` (since the epoch) that holds now; a row still on
   * an older window starts the new one at 0 used. `granted` is what this reservation took, `at_ms`
   * the instant it was taken (the window ends at `window_start + perMs`); the dialect answers the
   * row as updated (`RETURNING`, `OUTPUT`, or a read in the same transaction).
   */
  reserveRate(rates: string, name: string, want: number, max: number, perMs: number): Statement {
    const p = this.params();
    const now = this.nowMs;
    const start = () => `${this.intDiv(now, p.bind(perMs))} * ${p.bind(perMs)}`;
    const ws = this.ident('window_start');
    const used = this.ident('used');
    const granted = this.ident('granted');
    const base = () => `(CASE WHEN ${ws} = ${start()} THEN ${used} ELSE 0 END)`;
    // Each use binds its values anew: placeholders are written in text order.
    const room = () => `(${p.bind(max)} - ${base()})`;
    const grant = () =>
      `(CASE WHEN ${room()} <= 0 THEN 0 WHEN ${room()} < ${p.bind(want)} THEN ${room()} ELSE ${p.bind(want)} END)`;
    // Every assignment reads the old values whether the database assigns all at once (standard
    // SQL) or left to right (MySQL, MariaDB): `used` reads only itself and the window, which is
    // assigned after it.
    const set = [
      `${granted} = ${grant()}`,
      `${used} = ${base()} + ${grant()}`,
      `${ws} = ${start()}`,
      `${this.ident('at_ms')} = ${now}`,
    ];
    return p.statement(
      this.update({
        table: this.tableName(rates),
        alias: 'b',
        set,
        where: `${this.col('b', 'name')} = ${p.bind(name)}`,
        returning: '*',
      }),
    );
  }

  /** Gives `count` unused back to a budget, while its window is still the one at `windowStart`. */
  returnRate(rates: string, name: string, windowStart: number, count: number): Statement {
    const p = this.params();
    const used = this.ident('used');
    const c = p.bind(count);
    return p.statement(
      this.update({
        table: this.tableName(rates),
        alias: 'b',
        set: [`${used} = CASE WHEN ${used} > ${c} THEN ${used} - ${p.bind(count)} ELSE 0 END`],
        where: `${this.col('b', 'name')} = ${p.bind(name)} AND ${this.col('b', 'window_start')} = ${p.bind(windowStart)}`,
      }),
    );
  }

  /** Reads a budget's row (where the database cannot answer an UPDATE's rows). */
  rateState(rates: string, name: string): Statement {
    const p = this.params();
    return p.statement(
      `SELECT * FROM ${this.tableName(rates)} WHERE ${this.ident('name')} = ${p.bind(name)}`,
    );
  }
}
