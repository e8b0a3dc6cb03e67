import type { Dialect } from '@sqlinbox/core';
import { capabilities } from '@sqlinbox/core';
import { SqlDialect, type SqlDialectOptions } from '@sqlinbox/sql';
import { classifyError } from './classify.js';
import { ddl } from './ddl.js';
import { describeTable } from './describe.js';
import { prepareTable } from './ops.js';
import { SQLITE_TRANSACTIONS, SqliteStatements } from './statements.js';

/** The first SQLite with `UPDATE .. RETURNING`, which the lease claim and the take are. */
export const SQLITE_FLOOR = '3.35.0';

/** Options of {@link createSqliteDialect}: `serverVersion`, reported instead of asking SQLite. */
export type SqliteDialectOptions = SqlDialectOptions;

/**
 * What SQLite can do: lease and advisory forms only (no row locks); transaction modes
 * instead of isolation levels; one writer at a time, so one claim at a time and no FIFO
 * guard beyond that; lease claims take ahead; instants in INTEGER epoch milliseconds.
 */
export const sqliteCapabilities = capabilities({
  forms: ['lease', 'advisory'],
  isolationLevels: [],
  transactionModes: ['deferred', 'immediate', 'exclusive'],
  multipleConnections: false,
  fifoGuard: false,
  oneClaimAtATime: true,
  claimAhead: true,
  timeKinds: ['integer'],
});

/** SQLite: `sqlite_version()` against {@link SQLITE_FLOOR}, transaction modes, its DDL. */
class SqliteDialect extends SqlDialect {
  readonly name = 'sqlite';
  readonly capabilities = sqliteCapabilities;
  readonly server = 'SQLite';
  readonly floor = SQLITE_FLOOR;
  readonly versionSql = 'SELECT sqlite_version() AS version';
  readonly transactions = SQLITE_TRANSACTIONS;
  readonly Statements = SqliteStatements;
  describeTable = describeTable;
  override prepare = prepareTable;
  classifyError = classifyError;
  tableDdl = ddl;
}

/** The SQLite dialect; `serverVersion` overrides the version `checkServer` reads. */
export function createSqliteDialect(opts: SqliteDialectOptions = {}): Dialect {
  return new SqliteDialect(opts);
}

/** The SQLite dialect, asking SQLite for its version. */
export const sqliteDialect: Dialect = createSqliteDialect();
