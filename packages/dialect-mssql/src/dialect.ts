/**
 * The SQL Server dialect: the facts and the SQL sqlinbox needs on SQL Server 2017 or later, for any
 * driver giving it the core's `Connection` (this package ships tedious's, in `./tedious`).
 */
import {
  type AnyTable,
  type Capabilities,
  type ColumnInfo,
  type Connection,
  capabilities,
  type DdlOptions,
  type ErrorKind,
  type Row,
} from '@sqlinbox/core';
import {
  classifyWith,
  columnKinds,
  describeWith,
  informationSchemaColumn,
  informationSchemaSql,
  NODE_SOCKET_ERRORS,
  SqlDialect,
  type SqlDialectOptions,
} from '@sqlinbox/sql';
import { MSSQL_TRANSACTIONS, MssqlDdl, MssqlStatements } from './statements.js';

/**
 * The oldest SQL Server the dialect runs on: 14.0, SQL Server 2017, the first on Linux and in containers,
 * where its suite runs. (The statements need 2016: `DROP TABLE IF EXISTS`, `HASHBYTES` past 8000 bytes.)
 */
export const MSSQL_FLOOR = '14.0';

/** Every form and all four isolation levels; the rest as the core's defaults. */
export const mssqlCapabilities: Capabilities = capabilities({
  isolationLevels: ['read_uncommitted', 'read_committed', 'repeatable_read', 'serializable'],
});

/** A column's kind from `INFORMATION_SCHEMA.COLUMNS.DATA_TYPE`. */
export const kindOf = columnKinds({
  integer: 'tinyint smallint int bigint',
  text: 'char varchar nchar nvarchar text ntext',
  bytes: 'binary varbinary image',
  timestamp: 'datetime2 datetime smalldatetime datetimeoffset',
  json: 'json',
});

/** A column's property by `COLUMNPROPERTY` (`IsIdentity`, `IsComputed`). */
const property = (name: string) =>
  `COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, '${name}')`;

/** The columns of a table; an unqualified name resolves as the server does: default schema, then `dbo`. */
export const DESCRIBE_SQL = informationSchemaSql(
  'COALESCE(@p1, CASE WHEN EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.TABLES AS s WHERE s.TABLE_SCHEMA =' +
    " SCHEMA_NAME() AND s.TABLE_NAME = @p2) THEN SCHEMA_NAME() ELSE N'dbo' END)",
  '@p2',
  [`${property('IsIdentity')} AS is_identity`, `${property('IsComputed')} AS is_computed`],
);

/** Time types that keep fewer digits of a second than they report: `datetime` rounds to 1/300 s. */
const COARSE: Record<string, number> = { datetime: 2, smalldatetime: 0 };

/** One `INFORMATION_SCHEMA.COLUMNS` row as the core's `ColumnInfo`, its type with its length or digits. */
export function columnInfo(r: Row): ColumnInfo {
  const [type, max, digits] = [String(r.data_type), r.max_length, r.datetime_precision];
  const scaled = digits != null && ['datetime2', 'datetimeoffset', 'time'].includes(type.toLowerCase());
  return informationSchemaColumn(r, kindOf, {
    type: max != null ? `${type}(${Number(max) === -1 ? 'max' : max})` : scaled ? `${type}(${digits})` : type,
    precision: COARSE[type.toLowerCase()],
    generated: Number(r.is_identity) === 1 || Number(r.is_computed) === 1,
  });
}

/** The query `checkServer` runs: the version and the engine edition. */
export const VERSION_SQL =
  "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS [version]," +
  " CAST(SERVERPROPERTY('EngineEdition') AS INT) AS [edition]";

/** SQL Server error numbers with a kind of their own (tedious: `RequestError.number`). */
export const ERROR_NUMBERS: Readonly<Record<number, ErrorKind>> = {
  1205: 'deadlock', // chosen as deadlock victim; the server has rolled the transaction back
  3960: 'serialization', // snapshot isolation update conflict
  1222: 'lock_timeout', // lock request time out period exceeded (LOCK_TIMEOUT)
  2627: 'constraint', // violation of a PRIMARY KEY or UNIQUE constraint
  2601: 'constraint', // duplicate key row in a unique index
  547: 'constraint', // FOREIGN KEY or CHECK constraint conflict
  515: 'constraint', // cannot insert NULL into a NOT NULL column
  6005: 'shutdown', // SHUTDOWN is in progress
  6006: 'shutdown', // server shut down by request
  596: 'connection', // the session is in the kill state (KILL <spid>)
};

/** tedious's codes of a connection gone or unusable, this package's pool's `ECONNCLOSED`, and Node's socket codes. */
const CONNECTION_CODES = new Set([
  ...'ESOCKET ECLOSE EINVALIDSTATE ECONNCLOSED ELOGIN ENOTFOUND EAI_AGAIN'.split(' '),
  ...NODE_SOCKET_ERRORS,
]);

/**
 * A driver error's kind: by the server's error number, else `connection` for a `ConnectionError`
 * (by class name: the dialect never imports tedious) or a connection code; an `AggregateError`'s
 * errors (a deadlock beside "the statement has been terminated") and a `cause` are read in turn.
 */
export function classifyError(err: unknown): ErrorKind {
  return classifyWith(err, (e: { number?: unknown; code?: unknown }) => {
    const byNumber = typeof e.number === 'number' ? ERROR_NUMBERS[e.number] : undefined;
    const gone = e.constructor?.name === 'ConnectionError' || CONNECTION_CODES.has(String(e.code));
    return byNumber ?? (gone ? 'connection' : undefined);
  });
}

/** The SQL Server dialect: T-SQL statements ({@link MssqlStatements}) and SQL Server's facts. */
export class MssqlDialect extends SqlDialect {
  readonly name = 'mssql';
  readonly capabilities = mssqlCapabilities;
  readonly server = 'SQL Server';
  readonly floor = MSSQL_FLOOR;
  readonly versionSql = VERSION_SQL;
  readonly transactions = MSSQL_TRANSACTIONS;
  readonly Statements = MssqlStatements;
  classifyError = classifyError;
  /** Reads `INFORMATION_SCHEMA.COLUMNS` ({@link DESCRIBE_SQL}). */
  describeTable = (conn: Connection, table: string) => describeWith(conn, DESCRIBE_SQL, table, columnInfo);
  /** The table's `CREATE TABLE` and indexes ({@link MssqlDdl}). */
  tableDdl = (table: AnyTable, opts: DdlOptions) => new MssqlDdl(new MssqlStatements(table).q).ddl(opts);

  /**
   * `ServerTooOldError` below 14.0. Azure SQL Database and Managed Instance (`edition` 5 and 8)
   * report 12.0 whatever current engine they run, so they pass.
   */
  override checkVersion(raw: string, row?: Row): string {
    return [5, 8].includes(Number(row?.edition)) ? raw : super.checkVersion(raw);
  }
}

/** The SQL Server dialect; `serverVersion` overrides the version `checkServer` reads. */
export function createMssqlDialect(opts: SqlDialectOptions = {}): MssqlDialect {
  return new MssqlDialect(opts);
}

/** The SQL Server dialect that asks the server for its version. */
export const mssqlDialect: MssqlDialect = createMssqlDialect();
