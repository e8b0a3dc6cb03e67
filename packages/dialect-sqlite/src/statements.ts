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

/** Per-key concurrency: the builder's claim, whose `BEGIN IMMEDIATE` takes the one write lock first (no turn). */
export class SqliteConcurrency extends ConcurrencyStatements {
  override readonly forms: readonly Form[] = ['lease'];
}

/** SQLite's statements: the builder's over {@link SqliteSyntax}. */
export class SqliteStatements extends QueueStatements {
  constructor(t: AnyTable, opts?: PrepareOptions) {
    super(new QueueSql(sqliteSyntax, t, opts), { concurrency: SqliteConcurrency });
  }
}
