import type { Dialect } from '@sqlinbox/core';
import { ConfigError, capabilities } from '@sqlinbox/core';
import {
  ansiIdent as ident,
  SqlDialect,
  type SqlDialectOptions,
  standardTransactions,
  type TransactionSql,
} from '@sqlinbox/sql';
import { classifyError } from './classify.js';
import { ddl } from './ddl.js';
import { describeTable } from './describe.js';
import { prepareTable } from './ops.js';
import { SqliteStatements } from './statements.js';

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
  // Per-key concurrency: a claim's `BEGIN IMMEDIATE` takes the one write lock first.
  concurrencyForms: ['lease'],
});

/**
 * `BEGIN DEFERRED` unless the table declares a mode. SQLite runs every transaction serializable;
 * a declared isolation level means the description was written for another database.
 */
const TRANSACTIONS: TransactionSql = {
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

/** SQLite: `sqlite_version()` against {@link SQLITE_FLOOR}, transaction modes, its DDL. */
class SqliteDialect extends SqlDialect {
  readonly name = 'sqlite';
  readonly capabilities = sqliteCapabilities;
  readonly server = 'SQLite';
  readonly floor = SQLITE_FLOOR;
  readonly versionSql = 'SELECT sqlite_version() AS version';
  readonly transactions = TRANSACTIONS;
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
