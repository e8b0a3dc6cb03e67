import type { AnyTable, BeginOptions, Connection, DdlOptions, Dialect, SqliteMode } from '@sqlinbox/core';
import { ConfigError, capabilities, ServerTooOldError } from '@sqlinbox/core';
import { ansiIdent as ident } from '@sqlinbox/sql';
import { classifyError } from './classify.js';
import { ddl } from './ddl.js';
import { describeTable } from './describe.js';
import { prepareTable } from './ops.js';
import { SqliteStatements } from './statements.js';

/** The first SQLite with `UPDATE .. RETURNING`, which the lease claim and the take are. */
export const SQLITE_FLOOR = '3.35.0';

/** Options of {@link createSqliteDialect}. */
export interface SqliteDialectOptions {
  /** Report this version from `checkServer` instead of asking SQLite (tests of `ServerTooOldError`). Default: ask. */
  readonly serverVersion?: string | undefined;
}

const BEGIN: Readonly<Record<SqliteMode, string>> = {
  deferred: 'BEGIN DEFERRED',
  immediate: 'BEGIN IMMEDIATE',
  exclusive: 'BEGIN EXCLUSIVE',
};

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

/** The SQLite dialect; `serverVersion` overrides the version `checkServer` reads. */
export function createSqliteDialect(opts: SqliteDialectOptions = {}): Dialect {
  return {
    name: 'sqlite',
    capabilities: sqliteCapabilities,
    checkServer: (conn) => checkServer(conn, opts.serverVersion),
    describeTable,
    prepare: prepareTable,
    begin,
    commit: async (conn) => void (await conn.query('COMMIT')),
    rollback: async (conn) => void (await conn.query('ROLLBACK')),
    savepoint: async (conn, name) => void (await conn.query(`SAVEPOINT ${ident(name)}`)),
    rollbackToSavepoint: async (conn, name) =>
      void (await conn.query(`ROLLBACK TO SAVEPOINT ${ident(name)}`)),
    classifyError,
    ddl: (table: AnyTable, ddlOpts: DdlOptions = {}) => [
      ...ddl(table, ddlOpts),
      ...(ddlOpts.schedules === undefined ? [] : new SqliteStatements(table).ticksDdl(ddlOpts.schedules)),
      ...(table.rateLimit === undefined ? [] : new SqliteStatements(table).ratesDdl(table.rateLimit.table)),
    ],
  };
}

/** The SQLite dialect, asking SQLite for its version. */
export const sqliteDialect: Dialect = createSqliteDialect();

/** Reads `sqlite_version()` (or takes `reported`) and throws `ServerTooOldError` below 3.35.0. */
async function checkServer(conn: Connection, reported: string | undefined): Promise<{ version: string }> {
  const version =
    reported ?? String((await conn.query<{ v: unknown }>('SELECT sqlite_version() AS v')).rows[0]?.v);
  if (compareVersions(version, SQLITE_FLOOR) < 0)
    throw new ServerTooOldError('SQLite', version, SQLITE_FLOOR);
  return { version };
}

/** Compares dotted versions numerically (`3.9.0` < `3.35.0`); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * `BEGIN DEFERRED` unless the table declares a mode. SQLite runs every transaction serializable;
 * a declared isolation level means the description was written for another database.
 */
async function begin(conn: Connection, opts: BeginOptions): Promise<void> {
  if (opts.isolation !== undefined) {
    throw new ConfigError(`SQLite takes a transaction mode, not the isolation level ${opts.isolation}`, {
      fix: "declare mode: 'deferred', 'immediate' or 'exclusive'",
    });
  }
  const sql = BEGIN[opts.mode ?? 'deferred'];
  if (sql === undefined) {
    throw new ConfigError(`unknown SQLite transaction mode ${String(opts.mode)}`, {
      fix: "declare mode: 'deferred', 'immediate' or 'exclusive'",
    });
  }
  await conn.query(sql);
}
