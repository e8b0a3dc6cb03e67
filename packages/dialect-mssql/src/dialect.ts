/**
 * The SQL Server dialect: the facts and the SQL sqlinbox needs on SQL Server 2017 or later, for any
 * driver that gives it the core's `Connection` (this package ships one for tedious, in
 * `./tedious`). It imports no driver.
 */
import {
  type BeginOptions,
  type Capabilities,
  type ColumnInfo,
  type ColumnKind,
  ConfigError,
  capabilities,
  type Dialect,
  type Row,
  ServerTooOldError,
} from '@sqlinbox/core';
import { classifyError } from './classify.js';
import { ddl } from './ddl.js';
import { prepareTable } from './ops.js';
import { ISOLATION_SQL } from './statements.js';

/**
 * The oldest SQL Server the dialect runs on: 14.0, SQL Server 2017, the first on Linux and in
 * containers, where its conformance suite runs. (The statements need 2016: `DROP TABLE IF EXISTS`,
 * `HASHBYTES` past 8000 bytes.)
 */
export const MSSQL_FLOOR = '14.0';

/** Options of {@link createMssqlDialect}. */
export interface MssqlDialectOptions {
  /** Makes `checkServer` report this version instead of asking the server. Default: ask. */
  readonly serverVersion?: string | undefined;
}

/** Every form and all four isolation levels; the rest as the core's defaults. */
export const mssqlCapabilities: Capabilities = capabilities({
  isolationLevels: ['read_uncommitted', 'read_committed', 'repeatable_read', 'serializable'],
  concurrencyForms: ['lease'],
});

/** Reads `major.minor` from `14.0.3456.2` or a `@@VERSION` line. */
export function parseVersion(raw: string) {
  const m = /(\d+)\.(\d+)/.exec(raw);
  if (m === null) throw new Error(`sqlinbox: cannot read the SQL Server version ${JSON.stringify(raw)}`);
  return {
    /** The major version, e.g. 16 for SQL Server 2022. */
    major: Number(m[1]),
    /** The minor version. */
    minor: Number(m[2]),
    /** The version text as the server reported it. */
    raw,
  };
}

/** A `ProductVersion`, read. */
export type MssqlVersion = ReturnType<typeof parseVersion>;

/**
 * `ServerTooOldError` below 14.0. Azure SQL Database and Managed Instance (`engineEdition` 5 and 8)
 * report 12.0 whatever current engine they run, so they pass.
 */
export function checkVersion(raw: string, engineEdition?: number): MssqlVersion {
  const v = parseVersion(raw);
  if (engineEdition === 5 || engineEdition === 8 || v.major >= 14) return v;
  throw new ServerTooOldError('SQL Server', raw, MSSQL_FLOOR);
}

const KINDS = new Map<string, ColumnKind>(
  Object.entries({
    integer: 'tinyint smallint int bigint',
    text: 'char varchar nchar nvarchar text ntext',
    bytes: 'binary varbinary image',
    timestamp: 'datetime2 datetime smalldatetime datetimeoffset',
    json: 'json',
  }).flatMap(([kind, types]) => types.split(' ').map((type) => [type, kind as ColumnKind])),
);

/** A column's kind from `INFORMATION_SCHEMA.COLUMNS.DATA_TYPE`. */
export function kindOf(dataType: string): ColumnKind {
  return KINDS.get(dataType.toLowerCase()) ?? 'other';
}

/** The columns of a table; an unqualified name resolves as the server does: default schema, then `dbo`. */
export const DESCRIBE_SQL =
  'SELECT c.COLUMN_NAME AS [name], c.DATA_TYPE AS [data_type], c.CHARACTER_MAXIMUM_LENGTH AS [max_length],' +
  ' c.DATETIME_PRECISION AS [datetime_precision], c.IS_NULLABLE AS [nullable], c.COLUMN_DEFAULT AS [column_default],' +
  " COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, 'IsIdentity') AS [is_identity]," +
  " COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, 'IsComputed') AS [is_computed]" +
  ' FROM INFORMATION_SCHEMA.COLUMNS AS c WHERE c.TABLE_NAME = @p2 AND c.TABLE_SCHEMA = COALESCE(@p1,' +
  ' CASE WHEN EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.TABLES AS s WHERE s.TABLE_SCHEMA = SCHEMA_NAME() AND s.TABLE_NAME = @p2)' +
  " THEN SCHEMA_NAME() ELSE N'dbo' END) ORDER BY c.ORDINAL_POSITION";

/** Time types that keep fewer digits than they report: `datetime` rounds to 1/300 s. */
const COARSE: Record<string, number> = { datetime: 2, smalldatetime: 0 };

/**
 * One `INFORMATION_SCHEMA.COLUMNS` row as the core's `ColumnInfo`. A time column's `precision` is
 * its digits of a second, but `datetime` keeps 2 (it rounds to 1/300 s) and `smalldatetime` 0.
 */
export function columnInfo(r: Row): ColumnInfo {
  const type = String(r.data_type);
  const lower = type.toLowerCase();
  const num = (v: unknown) => (v === null || v === undefined ? undefined : Number(v));
  const [max, digits] = [num(r.max_length), num(r.datetime_precision)];
  const kind = kindOf(type);
  const precision = kind !== 'timestamp' ? undefined : (COARSE[lower] ?? digits);
  const scaled = digits !== undefined && ['datetime2', 'datetimeoffset', 'time'].includes(lower);
  return {
    name: String(r.name),
    type: max !== undefined ? `${type}(${max === -1 ? 'max' : max})` : scaled ? `${type}(${digits})` : type,
    kind,
    ...(precision === undefined ? {} : { precision }),
    nullable: String(r.nullable).toUpperCase() === 'YES',
    hasDefault: r.column_default != null || Number(r.is_identity) === 1 || Number(r.is_computed) === 1,
  };
}

/** The query `checkServer` runs: the version and the engine edition. */
export const VERSION_SQL =
  "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS [version]," +
  " CAST(SERVERPROPERTY('EngineEdition') AS INT) AS [edition]";

/**
 * Sets the level (READ COMMITTED when none is declared: a pooled session keeps its last one), then
 * begins. A driver runs it as a plain batch: `sp_executesql` would undo the `SET` when it ends. (The
 * core has checked the level against the capabilities.)
 */
export function beginSql(opts: BeginOptions): string {
  return `SET TRANSACTION ISOLATION LEVEL ${ISOLATION_SQL[opts.isolation ?? 'read_committed']}; BEGIN TRANSACTION`;
}

/** A savepoint name: at most 32 characters, written bare (`SAVE TRANSACTION` takes an identifier). */
export function savepointName(name: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(name)) return name;
  throw new ConfigError(`invalid savepoint name ${JSON.stringify(name)}`, {
    fix: 'use letters, digits and underscores, at most 32 characters',
  });
}

/** Rolls back what is left: a deadlock victim's transaction is gone already. */
export const ROLLBACK_SQL = 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION';

/** The SQL Server dialect; `serverVersion` overrides the version `checkServer` reads. */
export function createMssqlDialect(opts: MssqlDialectOptions = {}): Dialect {
  return {
    name: 'mssql',
    capabilities: mssqlCapabilities,
    async checkServer(conn) {
      if (opts.serverVersion !== undefined) return { version: checkVersion(opts.serverVersion).raw };
      const row = (await conn.query<Row>(VERSION_SQL)).rows[0];
      const edition = row?.edition == null ? undefined : Number(row.edition);
      return { version: checkVersion(String(row?.version ?? ''), edition).raw };
    },
    async describeTable(conn, table) {
      const dot = table.indexOf('.');
      const names = dot < 0 ? [null, table] : [table.slice(0, dot), table.slice(dot + 1)];
      const { rows } = await conn.query<Row>(DESCRIBE_SQL, names);
      return rows.length === 0 ? null : rows.map(columnInfo);
    },
    prepare: prepareTable,
    begin: async (conn, o) => void (await conn.query(beginSql(o))),
    commit: async (conn) => void (await conn.query('COMMIT TRANSACTION')),
    rollback: async (conn) => void (await conn.query(ROLLBACK_SQL)),
    savepoint: async (conn, name) => void (await conn.query(`SAVE TRANSACTION ${savepointName(name)}`)),
    rollbackToSavepoint: async (conn, name) =>
      void (await conn.query(`ROLLBACK TRANSACTION ${savepointName(name)}`)),
    classifyError,
    ddl,
  };
}

/** The SQL Server dialect that asks the server for its version. */
export const mssqlDialect: Dialect = createMssqlDialect();
