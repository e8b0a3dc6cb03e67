import { createHash } from 'node:crypto';
import { Params, type Placeholder, positional, type Statement } from './params.js';
import { ansiIdent, qualified } from './quote.js';
import { standardTransactions, type TransactionSql } from './transactions.js';

/** The parts of a select the dialect assembles in its own syntax ({@link SqlSyntax.select}). */
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
  /** Most rows: bound by {@link SqlSyntax.limit}. */
  readonly limit?: number | undefined;
  /** Lock the rows read, skipping rows another transaction holds (`FOR UPDATE SKIP LOCKED`). */
  readonly lock?: boolean | undefined;
}

/** An update the dialect assembles ({@link SqlSyntax.update}). */
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

/** A delete the dialect assembles ({@link SqlSyntax.delete}). */
export interface DeleteParts {
  /** The quoted table name. */
  readonly table: string;
  /** The condition, without `WHERE`. */
  readonly where: string;
  /** Columns to answer with (unqualified), or `*`; none for a plain delete. */
  readonly returning?: string | undefined;
}

/**
 * The syntax of one database, and nothing queue-shaped: quoting ({@link ident}), placeholders
 * ({@link placeholder}), transactions ({@link transactions}), the clock ({@link clock},
 * {@link nowMs}), how an instant is bound ({@link time}), `IS DISTINCT FROM` ({@link distinct}),
 * lists ({@link inList}), text ({@link text}, {@link keyColumn}, {@link concat}), counting
 * ({@link countIf}), column types, and the shape of a statement ({@link select} with its limit and
 * lock, {@link scan} for a plain read, {@link update}, {@link delete} with their `RETURNING` or
 * `OUTPUT`, {@link insertNew}). The statement builders of every feature read it; a dialect
 * extends it where its database differs. Defaults are standard SQL as PostgreSQL and SQLite read it.
 */
export class SqlSyntax {
  /** Most values one statement binds; long lists are split across statements. */
  readonly maxParams: number = 10_000;

  /** The placeholder of the value at `index` (from 1). Default `?`. */
  placeholder(index: number, value: unknown): string {
    return positional(index, value);
  }

  /** New parameters for one statement, with this database's placeholders. */
  params(): Params {
    const placeholder: Placeholder = (i, v) => this.placeholder(i, v);
    return new Params(placeholder);
  }

  /** Quotes one identifier (validated by the core already). Default `"name"`. */
  ident(name: string): string {
    return ansiIdent(name);
  }

  /** Quotes a table name; `schema.table` is two identifiers. */
  tableName(name: string): string {
    return qualified(name, (part) => this.ident(part));
  }

  /** `alias.column`, quoted; the bare column without an alias. */
  col(alias: string | undefined, column: string): string {
    return alias === undefined ? this.ident(column) : `${alias}.${this.ident(column)}`;
  }

  // -------------------------------------------------------------------------------------------
  // The clock and values

  /** The database's clock, for a table that reads it (`now` null). */
  readonly clock: string = 'CURRENT_TIMESTAMP';

  /** The database clock as epoch milliseconds (an integer). Default: PostgreSQL's spelling. */
  readonly nowMs: string = 'CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)';

  /** Integer division of two non-negative integers, rounding down. Default `(a / b)`. */
  intDiv(a: string, b: string): string {
    return `(${a} / ${b})`;
  }

  /** A condition that always holds. */
  readonly always: string = 'TRUE';

  /** Binds an instant. Default: the Date as it is. */
  time(p: Params, at: Date): string {
    return p.bind(at);
  }

  /** Binds JSON text for a JSON (or text) column. Default: the text as it is. */
  json(p: Params, text: string): string {
    return p.bind(text);
  }

  /** "Now": the bound host instant, or the database clock. */
  now(p: Params, now: Date | null): string {
    return now === null ? this.clock : this.time(p, now);
  }

  /** `a` differs from `b`, NULL being a value. */
  distinct(a: string, b: string): string {
    return `${a} IS DISTINCT FROM ${b}`;
  }

  /** `expr IN (..)`, or `NOT IN` with `not`. Never called with no values. */
  inList(p: Params, expr: string, values: readonly unknown[], not = false): string {
    return `${expr} ${not ? 'NOT IN' : 'IN'} (${p.list(values)})`;
  }

  /**
   * `expr` is none of `values`, which may be many (a relay's held-back ids): however many, the
   * statement must stay within {@link maxParams}. Default: {@link inList}, a value each; a database
   * that takes a list as one value (an array, a JSON text) overrides it.
   */
  notAmong(p: Params, expr: string, values: readonly unknown[]): string {
    return this.inList(p, expr, values, true);
  }

  /** A 64-bit integer value (an id), bound as text: every driver passes it whole. */
  bigint(p: Params, value: bigint): string {
    return `CAST(${p.bind(value.toString())} AS BIGINT)`;
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

  // -------------------------------------------------------------------------------------------
  // The shape of a statement

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

  /**
   * What an insert writes for a column a message leaves out: default `DEFAULT`; undefined where
   * `VALUES` takes no `DEFAULT` (SQLite), and then messages giving different columns go in
   * statements of their own.
   */
  readonly missingValue: string | undefined = 'DEFAULT';

  /**
   * An insert of one row that writes nothing where the primary key holds it already, and fails on
   * any other error. Default `INSERT .. ON CONFLICT DO NOTHING`. `keyColumns`: how many of the
   * leading columns are the primary key (default: all), for a database that looks for the key itself.
   */
  insertNew(
    table: string,
    columns: readonly string[],
    values: readonly string[],
    keyColumns?: number,
  ): string {
    void keyColumns;
    return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')}) ON CONFLICT DO NOTHING`;
  }

  // -------------------------------------------------------------------------------------------
  // Transactions and plain reads

  /** The database's transaction statements. Default: standard SQL. */
  readonly transactions: TransactionSql = standardTransactions;

  /**
   * Opens the runner's own transactions (a dead-letter move, a publish of several statements, the
   * count of locked rows): the statements run in turn. Default: the transactions' `begin` with no
   * level declared (MySQL: READ COMMITTED, the form's).
   */
  get begin(): readonly string[] {
    return this.transactions.begin({});
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

  // -------------------------------------------------------------------------------------------
  // Column types of the tables sqlinbox creates for itself (ticks, rate budgets)

  /** What adds a column in `ALTER TABLE <t> .. <column> <type>`. Default `ADD COLUMN`. */
  readonly addColumnSql: string = 'ADD COLUMN';

  /**
   * How a `CREATE TABLE` of `table` (a queue's, or one of sqlinbox's own) opens, up to its column
   * list, so it runs again to no effect. Default `CREATE TABLE IF NOT EXISTS <table>`.
   */
  createTableOpen(table: string): string {
    return `CREATE TABLE IF NOT EXISTS ${this.tableName(table)}`;
  }

  /**
   * How a `CREATE INDEX` named `name` (unquoted) on `on` (a table name as {@link tableName} writes
   * it) opens, up to its column list, so it runs again to no effect. Default
   * `CREATE [UNIQUE] INDEX IF NOT EXISTS <name> ON <on>`.
   */
  createIndexOpen(name: string, on: string, unique = false): string {
    return `CREATE ${unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${this.ident(name)} ON ${on}`;
  }

  /**
   * The name of an index on one of sqlinbox's own tables, unquoted: `<table>_<suffix>` (the table
   * without its schema), or, where that passes 63 characters, the table's name cut short with a
   * hash of the whole. Default: a name unique in the schema (PostgreSQL and SQLite name an index
   * beside the tables).
   */
  sideIndexName(table: string, suffix: string): string {
    const bare = table.split('.').pop() ?? table;
    const name = `${bare}_${suffix}`;
    if (name.length <= 63) return name;
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
    return `${bare.slice(0, 63 - suffix.length - 18)}_${hash}_${suffix}`;
  }

  /**
   * The statements that create an index on one of sqlinbox's own tables where it is missing
   * ({@link createIndexOpen}), so they run again, and on a table made before the index was, to the
   * same end: `migrate` runs them on tables that exist.
   */
  createSideIndex(table: string, suffix: string, columns: readonly string[]): string[] {
    const cols = columns.map((c) => this.ident(c)).join(', ');
    return [`${this.createIndexOpen(this.sideIndexName(table, suffix), this.tableName(table))} (${cols})`];
  }

  /** A name column's type (a schedule's, a budget's). Default `VARCHAR(255)`. */
  readonly tickNameType: string = 'VARCHAR(255)';

  /** An instant column's type (a tick). Default `TIMESTAMP`. */
  readonly tickTimeType: string = 'TIMESTAMP';

  /** An epoch-milliseconds column's type. Default `BIGINT`. */
  readonly rateMsType: string = 'BIGINT';

  /** A count column's type. Default `INTEGER`. */
  readonly rateCountType: string = 'INTEGER';

  /** Whether `DELETE TOP (n) FROM .. WHERE ..` bounds a delete (T-SQL); default false: a delete by ids picked with `LIMIT`. */
  readonly deleteTop: boolean = false;

  /** The control table's queue name column. Default (undefined): {@link tickNameType}. */
  readonly controlQueueType: string | undefined = undefined;

  /** The control table's kind column (`pause_queue`, `pause_group`). Default `VARCHAR(16)`. */
  readonly controlKindType: string = 'VARCHAR(16)';

  /** The control table's reason column. Default `VARCHAR(2000)`. */
  readonly controlReasonType: string = 'VARCHAR(2000)';

  /** The steps table's result column (JSON text of any length). Default (undefined): {@link textType}. */
  readonly stepResultType: string | undefined = undefined;
}
