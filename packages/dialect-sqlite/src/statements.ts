import { type AnyTable, ConfigError, type Form, type PrepareOptions } from '@sqlinbox/core';
import {
  ConcurrencyStatements,
  ansiIdent as ident,
  jsonList,
  type Params,
  QueueSql,
  QueueStatements,
  SqlSyntax,
  standardTransactions,
  type TransactionSql,
} from '@sqlinbox/sql';

/**
 * The database clock in epoch milliseconds. `unixepoch('subsec')` arrived only in 3.42; this
 * spelling works from the 3.35 floor. 'now' is fixed for the whole statement, so both halves agree.
 */
export const DB_NOW_MS =
  "(CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER))";

/**
 * `BEGIN DEFERRED` unless the table declares a mode. SQLite runs every transaction serializable;
 * a declared isolation level means the description was written for another database.
 */
export const SQLITE_TRANSACTIONS: TransactionSql = {
  ...standardTransactions,
  begin({ isolation, mode = 'deferred' }) {
    if (isolation !== undefined) {
      throw new ConfigError(`SQLite takes a transaction mode, not the isolation level ${isolation}`, {
        fix: "declare mode: 'deferred', 'immediate' or 'exclusive'",
      });
    }
    if (!['deferred', 'immediate', 'exclusive'].includes(mode)) {
      throw new ConfigError(`unknown SQLite transaction mode ${String(mode)}`, {
        fix: "declare mode: 'deferred', 'immediate' or 'exclusive'",
      });
    }
    return [`BEGIN ${mode.toUpperCase()}`];
  },
  savepoint: (name) => `SAVEPOINT ${ident(name)}`,
  rollbackToSavepoint: (name) => `ROLLBACK TO SAVEPOINT ${ident(name)}`,
};

/**
 * SQLite's syntax. Every time column holds INTEGER epoch milliseconds (the driver binds a Date as
 * such); there are no row locks (one writer at a time), `IS NOT` compares with NULL as a value, a
 * multi-row `VALUES` takes no `DEFAULT` (messages giving other columns go in statements of their
 * own), and a REAL that holds a whole number renders as JavaScript's `String()` renders it in an
 * advisory key.
 */
export class SqliteSyntax extends SqlSyntax {
  override readonly clock = DB_NOW_MS;
  override readonly always = '1';
  override readonly missingValue = undefined;
  override readonly tickNameType = 'TEXT';
  /** Epoch milliseconds, as every SQLite time column. */
  override readonly tickTimeType = 'INTEGER';
  /** Rate limits: the clock and the budget's instants, as every SQLite time column holds them. */
  override readonly nowMs = DB_NOW_MS;
  override readonly rateMsType = 'INTEGER';
  override readonly transactions = SQLITE_TRANSACTIONS;

  /** SQLite names the index in the table's schema and the table bare: `CREATE INDEX s.i ON t (..)`. */
  override createSideIndex(table: string, suffix: string, columns: readonly string[]): string[] {
    const dot = table.lastIndexOf('.');
    const schema = dot < 0 ? '' : `${this.ident(table.slice(0, dot))}.`;
    const cols = columns.map((c) => this.ident(c)).join(', ');
    const name = this.ident(this.sideIndexName(table, suffix));
    return [`CREATE INDEX IF NOT EXISTS ${schema}${name} ON ${this.ident(table.slice(dot + 1))} (${cols})`];
  }

  /** Differs: the values as one JSON array (`json_each`), however many (a value each would meet SQLite's variable limit). */
  override notAmong(p: Params, expr: string, values: readonly unknown[]): string {
    return `${expr} NOT IN (SELECT value FROM json_each(${p.bind(jsonList(values))}))`;
  }

  override distinct(a: string, b: string): string {
    return `${a} IS NOT ${b}`;
  }

  override keyColumn(c: string): string {
    return (
      `(CASE WHEN typeof(${c}) = 'real' AND ${c} = CAST(${c} AS INTEGER)` +
      ` THEN CAST(CAST(${c} AS INTEGER) AS TEXT) ELSE COALESCE(CAST(${c} AS TEXT), '') END)`
    );
  }

  /** No row locks: one writer at a time takes the place of `FOR UPDATE SKIP LOCKED`. */
  override lockClause(): string {
    return '';
  }

  /** A bound number may arrive as a REAL: the quotient is cut to an integer. */
  override intDiv(a: string, b: string): string {
    return `CAST(${a} / ${b} AS INTEGER)`;
  }

  /** IMMEDIATE takes the write lock at BEGIN, so a copy never has to upgrade a read lock. */
  override get begin(): readonly string[] {
    return ['BEGIN IMMEDIATE'];
  }
}

/** SQLite's syntax, shared by every table. */
export const sqliteSyntax: SqliteSyntax = new SqliteSyntax();

/**
 * Per-key concurrency: the builder's claim, whose `BEGIN IMMEDIATE` takes the one write lock first
 * (no turn), with its bounded pick: a full key's rows behind the front are never read (one key of
 * 50,000 ready rows at its limit: 17-19 ms a claim with the plain pick, 2-6 ms with this one).
 */
export class SqliteConcurrency extends ConcurrencyStatements {
  override readonly forms: readonly Form[] = ['lease'];
  override readonly bounded = true;
}

/**
 * A queue table on SQLite. A FIFO table's claim (without priorities) looks for its heads among a
 * window of its oldest unsettled rows ({@link QueueSql.fifoWindowSelect}), probed as the builder
 * probes them; only where those leave the claim short does it walk the `(group, id)` index from group to group (a recursive CTE:
 * one descent per group) and read the rows without a group after the window. The builder's claim
 * probes row after row in id order until it has `n` heads: with few groups and their heads in
 * work, every row of the table on every claim.
 */
export class SqliteQueue extends QueueSql<SqliteSyntax> {
  override claimSelect(p: Params, n: number, now: Date | null, columns: string): string {
    const t = this.t;
    if (t.group === undefined || t.priority !== undefined) return super.claimSelect(p, n, now, columns);
    const id = this.ident(t.id.column);
    const group = this.ident(t.group);
    const and = this.unsettled('x');
    // Each fragment binds its values where it is written: SQLite numbers `?` by position.
    const window = () => this.fifoWindowSelect(p, n);
    const qid = this.col('q', t.id.column);
    // sqlinbox_w: the window's first n heads (a CTE read more than once is computed once);
    // short: whether they leave the claim short, as the `LIMIT` of what lies beyond the window (0
    // rows unless short: a limit is evaluated before its scan, a condition on every row of it).
    // The rows without a group after the window are read from the group index (`IS NULL`, in
    // `(group, id)` order; `+x.id` is no index term), their due condition left to the claim's own
    // (with it, SQLite's planner walked every id after the window instead).
    const short = () => `(SELECT count(*) FROM sqlinbox_w) < ${p.bind(n)}`;
    return (
      `SELECT ${columns} FROM ${this.table} q WHERE ${qid} IN (WITH RECURSIVE` +
      ` sqlinbox_w(i) AS (SELECT w.${id} FROM (${window()}) w WHERE ${this.due(p, now, 'w')}${this.head('w')}` +
      ` ORDER BY w.${id} LIMIT ${p.bind(n)}),` +
      ` sqlinbox_g(g) AS (SELECT * FROM (SELECT x.${group} FROM ${this.table} x WHERE x.${group} IS NOT NULL${and}` +
      ` ORDER BY x.${group} LIMIT (${short()}))` +
      ` UNION ALL SELECT (SELECT x.${group} FROM ${this.table} x WHERE x.${group} > r.g${and} ORDER BY x.${group} LIMIT 1)` +
      ` FROM sqlinbox_g r WHERE r.g IS NOT NULL)` +
      ` SELECT i FROM sqlinbox_w` +
      ` UNION ALL SELECT (SELECT x.${id} FROM ${this.table} x WHERE x.${group} = r.g${and} ORDER BY x.${id} LIMIT 1)` +
      ` FROM sqlinbox_g r WHERE r.g IS NOT NULL` +
      ` UNION ALL SELECT * FROM (SELECT x.${id} FROM ${this.table} x WHERE x.${group} IS NULL${and}` +
      ` AND +x.${id} > (SELECT max(y.${id}) FROM (${window()}) y) ORDER BY x.${group}, x.${id}` +
      ` LIMIT (CASE WHEN ${short()} THEN ${p.bind(n)} ELSE 0 END)))` +
      ` AND ${this.due(p, now, 'q')}${this.head('q')} ORDER BY ${this.order('q')} LIMIT ${p.bind(n)}`
    );
  }
}

/** SQLite's statements: the builder's over {@link SqliteSyntax}. */
export class SqliteStatements extends QueueStatements {
  constructor(t: AnyTable, opts?: PrepareOptions) {
    super(new SqliteQueue(sqliteSyntax, t, opts), { concurrency: SqliteConcurrency });
  }
}
