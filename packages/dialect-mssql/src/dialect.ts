/**
 * The SQL Server dialect: the facts and the SQL sqlinbox needs on SQL Server 2017 or later, for any
 * driver that gives it the core's `Connection` (this package ships one for tedious, in
 * `./tedious`). It imports no driver.
 */
import {
  type AnyTable,
  type BeginOptions,
  type Capabilities,
  type ColumnInfo,
  type ColumnKind,
  ConfigError,
  type Connection,
  capabilities,
  type Dialect,
  type Row,
  ServerTooOldError,
} from '@sqlinbox/core';
import { classifyError } from './classify.js';
import { ddl } from './ddl.js';
import { prepareTable } from './ops.js';
import { bareName, schemaOf } from './sql.js';
import { ISOLATION_SQL } from './statements.js';

/**
 * The oldest SQL Server the dialect runs on: 14.0, SQL Server 2017. Its statements need 2016
 * (`DROP TABLE IF EXISTS`, which the conformance suite's cleanup runs, and `HASHBYTES` without the
 * 8000-byte input limit, which the long-key lock names rely on); 2017 is the release it is written
 * and documented against: the first SQL Server on Linux and in containers, where its conformance
 * suite runs, and the one that brought `STRING_AGG`, `CONCAT_WS` and `TRIM`, which statements may
 * use without a second code path.
 */
export const MSSQL_FLOOR = '14.0';
const FLOOR: readonly [number, number] = [14, 0];

/** `SERVERPROPERTY('EngineEdition')` of Azure SQL Database and Azure SQL Managed Instance. */
const AZURE_EDITIONS = new Set([5, 8]);

/** Options of {@link createMssqlDialect}. */
export interface MssqlDialectOptions {
  /**
   * Makes `checkServer` report this version (e.g. `'13.0.5026.0'`) instead of asking the server;
   * the conformance suite uses it to prove `ServerTooOldError`. Default: undefined, ask the server.
   */
  readonly serverVersion?: string | undefined;
}

/**
 * What SQL Server does: all three claim forms; all four isolation levels (R-DESC-4, R-TX-6); several
 * connections at once; the FIFO guard; transactional mode; claims side by side for every form
 * (the lease claim is one statement); instants in `DATETIME2` (kind `timestamp`).
 */
export const mssqlCapabilities: Capabilities = capabilities({
  forms: ['rowlock', 'lease', 'advisory'],
  isolationLevels: ['read_uncommitted', 'read_committed', 'repeatable_read', 'serializable'],
  transactionModes: [],
  multipleConnections: true,
  fifoGuard: true,
  transactional: true,
  oneClaimAtATime: false,
  oneLeaseClaimAtATime: false,
  claimAhead: false,
  timeKinds: ['timestamp'],
});

/** A `ProductVersion`, read. */
export interface MssqlVersion {
  readonly major: number;
  readonly minor: number;
  /** The string as reported. */
  readonly raw: string;
}

/** Reads `14.0.3456.2` (or any text holding `major.minor`, e.g. `Microsoft SQL Server 2017 (RTM) - 14.0.1000.169`). */
export function parseVersion(raw: string): MssqlVersion {
  const m = /(\d+)\.(\d+)/.exec(raw);
  if (m === null) throw new Error(`sqlinbox: cannot read the SQL Server version ${JSON.stringify(raw)}`);
  return { major: Number(m[1]), minor: Number(m[2]), raw };
}

/**
 * Throws `ServerTooOldError('SQL Server', raw, '14.0')` below SQL Server 2017 (R-DB-1). Azure SQL
 * Database and Managed Instance (`engineEdition` 5 and 8) report `12.0.2000.8` whatever engine
 * they run, always a current one, so they pass.
 */
export function checkVersion(raw: string, engineEdition?: number): MssqlVersion {
  const v = parseVersion(raw);
  if (engineEdition !== undefined && AZURE_EDITIONS.has(engineEdition)) return v;
  if (v.major < FLOOR[0] || (v.major === FLOOR[0] && v.minor < FLOOR[1])) {
    throw new ServerTooOldError('SQL Server', raw, MSSQL_FLOOR);
  }
  return v;
}

/** A column's kind from `INFORMATION_SCHEMA.COLUMNS.DATA_TYPE`. */
export function kindOf(dataType: string): ColumnKind {
  switch (dataType.toLowerCase()) {
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
      return 'integer';
    case 'char':
    case 'varchar':
    case 'nchar':
    case 'nvarchar':
    case 'text':
    case 'ntext':
      return 'text';
    case 'binary':
    case 'varbinary':
    case 'image':
      return 'bytes';
    case 'json':
      return 'json';
    case 'datetime2':
    case 'datetime':
    case 'smalldatetime':
    case 'datetimeoffset':
      return 'timestamp';
    default:
      return 'other';
  }
}

/**
 * The columns of a table from `INFORMATION_SCHEMA.COLUMNS`, or null when there is none. An
 * unqualified name is looked up as SQL Server resolves it: the user's default schema, then `dbo`.
 */
export const DESCRIBE_SQL =
  'SELECT c.COLUMN_NAME AS [name], c.DATA_TYPE AS [data_type], c.CHARACTER_MAXIMUM_LENGTH AS [max_length],' +
  ' c.DATETIME_PRECISION AS [datetime_precision],' +
  ' c.IS_NULLABLE AS [nullable], c.COLUMN_DEFAULT AS [column_default],' +
  " COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, 'IsIdentity') AS [is_identity]," +
  " COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)), c.COLUMN_NAME, 'IsComputed') AS [is_computed]" +
  ' FROM INFORMATION_SCHEMA.COLUMNS AS c WHERE c.TABLE_NAME = @p2 AND c.TABLE_SCHEMA = COALESCE(@p1,' +
  ' CASE WHEN EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.TABLES AS s WHERE s.TABLE_SCHEMA = SCHEMA_NAME() AND s.TABLE_NAME = @p2)' +
  " THEN SCHEMA_NAME() ELSE N'dbo' END) ORDER BY c.ORDINAL_POSITION";

async function describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null> {
  const { rows } = await conn.query<Row>(DESCRIBE_SQL, [schemaOf(table) ?? null, bareName(table)]);
  return rows.length === 0 ? null : rows.map(columnInfo);
}

/** Types whose declaration carries its digits of a second: `datetime2(3)`. */
const SCALED_TIME = new Set(['datetime2', 'datetimeoffset', 'time']);

/**
 * The digits of a second a `timestamp` column keeps exactly (`ColumnInfo.precision`):
 * `datetime2(n)` and `datetimeoffset(n)` their `n`; `datetime` 2, since it rounds to steps of
 * 1/300 s and so keeps hundredths but not every millisecond (its `DATETIME_PRECISION` says 3);
 * `smalldatetime` 0 (whole minutes).
 */
function precisionOf(dataType: string, reported: number | undefined): number | undefined {
  switch (dataType) {
    case 'datetime':
      return 2;
    case 'smalldatetime':
      return 0;
    default:
      return reported;
  }
}

/** One `INFORMATION_SCHEMA.COLUMNS` row as the core's `ColumnInfo`. */
export function columnInfo(r: Row): ColumnInfo {
  const dataType = String(r.data_type);
  const lower = dataType.toLowerCase();
  const max = r.max_length === null || r.max_length === undefined ? undefined : Number(r.max_length);
  const digits =
    r.datetime_precision === null || r.datetime_precision === undefined
      ? undefined
      : Number(r.datetime_precision);
  const kind = kindOf(dataType);
  const precision = kind === 'timestamp' ? precisionOf(lower, digits) : undefined;
  return {
    name: String(r.name),
    type:
      max !== undefined
        ? `${dataType}(${max === -1 ? 'max' : max})`
        : digits !== undefined && SCALED_TIME.has(lower)
          ? `${dataType}(${digits})`
          : dataType,
    kind,
    ...(precision === undefined ? {} : { precision }),
    nullable: String(r.nullable).toUpperCase() === 'YES',
    hasDefault:
      (r.column_default !== null && r.column_default !== undefined) ||
      Number(r.is_identity) === 1 ||
      Number(r.is_computed) === 1,
  };
}

/** The query `checkServer` runs: the version and the engine edition. */
export const VERSION_SQL =
  "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS [version]," +
  " CAST(SERVERPROPERTY('EngineEdition') AS INT) AS [edition]";

/**
 * `SET TRANSACTION ISOLATION LEVEL <level>; BEGIN TRANSACTION`: the table's level, READ COMMITTED
 * (SQL Server's default) when none is declared. The level is always set, because a session keeps
 * the level of its last `SET` and a pooled connection may come from a transaction at another one.
 * A driver must run a statement without parameters as a plain batch (tedious: `execSqlBatch`), not
 * through `sp_executesql`, whose scope would undo the `SET` when it ends.
 */
export function beginSql(opts: BeginOptions): string {
  if (opts.mode !== undefined) {
    throw new ConfigError(`SQL Server takes an isolation level, not the SQLite mode ${opts.mode}`, {
      fix: 'declare isolation instead of mode',
    });
  }
  const level = ISOLATION_SQL[opts.isolation ?? 'read_committed'] as string | undefined;
  if (level === undefined) {
    throw new ConfigError(`unknown isolation level ${String(opts.isolation)}`, {
      fix: 'declare read_uncommitted, read_committed, repeatable_read or serializable',
    });
  }
  return `SET TRANSACTION ISOLATION LEVEL ${level}; BEGIN TRANSACTION`;
}

/** A savepoint name: at most 32 characters, written bare (`SAVE TRANSACTION` takes an identifier). */
export function savepointName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(name)) {
    throw new ConfigError(`invalid savepoint name ${JSON.stringify(name)}`, {
      fix: 'use letters, digits and underscores, at most 32 characters',
    });
  }
  return name;
}

/**
 * Rolls back the open transaction. `IF @@TRANCOUNT > 0` because SQL Server has already rolled back
 * a deadlock victim's transaction (and others an error aborted); a plain `ROLLBACK` would then fail
 * with 3903 and close a connection that is fine.
 */
export const ROLLBACK_SQL = 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION';

/** The SQL Server dialect; `serverVersion` overrides the version `checkServer` reads. */
export function createMssqlDialect(opts: MssqlDialectOptions = {}): Dialect {
  return {
    name: 'mssql',
    capabilities: mssqlCapabilities,
    async checkServer(conn) {
      let version = opts.serverVersion;
      let edition: number | undefined;
      if (version === undefined) {
        const row = (await conn.query<Row>(VERSION_SQL)).rows[0];
        version = String(row?.version ?? '');
        edition = row?.edition === null || row?.edition === undefined ? undefined : Number(row.edition);
      }
      checkVersion(version, edition);
      return { version };
    },
    describeTable,
    prepare: prepareTable,
    async begin(conn, beginOpts) {
      await conn.query(beginSql(beginOpts));
    },
    async commit(conn) {
      await conn.query('COMMIT TRANSACTION');
    },
    async rollback(conn) {
      await conn.query(ROLLBACK_SQL);
    },
    async savepoint(conn, name) {
      await conn.query(`SAVE TRANSACTION ${savepointName(name)}`);
    },
    async rollbackToSavepoint(conn, name) {
      await conn.query(`ROLLBACK TRANSACTION ${savepointName(name)}`);
    },
    classifyError,
    ddl: (table: AnyTable, ddlOpts?: { deadLetterTable?: string }) => ddl(table, ddlOpts),
  };
}

/** The SQL Server dialect that asks the server for its version. */
export const mssqlDialect: Dialect = createMssqlDialect();
