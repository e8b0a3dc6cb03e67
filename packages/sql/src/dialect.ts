import {
  type AnyTable,
  type BeginOptions,
  type Capabilities,
  type ColumnInfo,
  type ColumnKind,
  type Connection,
  type DdlOptions,
  type Dialect,
  type ErrorKind,
  type PrepareOptions,
  type Row,
  ServerTooOldError,
  type TableOps,
  validateIdentifier,
} from '@sqlinbox/core';
import { schemaOf, tableOf } from './columns.js';
import type { QueueStatements } from './statements.js';
import { SqlTable } from './table.js';
import type { TransactionSql } from './transactions.js';

/**
 * Walks an error for its kind: `read` answers the kind of one error, or undefined to read on; then
 * each of an `AggregateError`'s `errors` and the `cause`, `depth` levels deep at most. A driver
 * error under a wrapper, or several server errors of one request, are read so.
 */
export function classifyWith(err: unknown, read: (e: object) => ErrorKind | undefined, depth = 4): ErrorKind {
  if (err === null || typeof err !== 'object' || depth < 0) return 'other';
  const kind = read(err);
  if (kind !== undefined) return kind;
  const e = err as { errors?: unknown; cause?: unknown };
  for (const inner of Array.isArray(e.errors) ? e.errors : []) {
    const found = classifyWith(inner, read, depth - 1);
    if (found !== 'other') return found;
  }
  return classifyWith(e.cause, read, depth - 1);
}

/** The numbers of the first dotted version in a text (`14.0.3456.2` of a `@@VERSION` line). */
export function versionParts(raw: string): number[] {
  const m = /\d+(?:\.\d+)+/.exec(raw) ?? /\d+/.exec(raw);
  return m === null ? [] : m[0].split('.').map(Number);
}

/** Compares dotted versions numerically (`3.9.0` < `3.35.0`); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** A column kind by type name, from lists of the names of each kind (`{ integer: 'int bigint' }`). */
export function columnKinds(names: Partial<Record<ColumnKind, string>>): (type: string) => ColumnKind {
  const kinds = new Map<string, ColumnKind>();
  for (const [kind, list] of Object.entries(names)) {
    for (const type of list.split(' ')) kinds.set(type, kind as ColumnKind);
  }
  return (type) => kinds.get(type.toLowerCase()) ?? 'other';
}

/**
 * The columns a describe statement answers for a table, each row read by `column`; null where it
 * answers none. The statement binds the schema (NULL for an unqualified name), then the table.
 */
export async function describeWith(
  conn: Connection,
  sql: string,
  table: string,
  column: (row: Row) => ColumnInfo,
): Promise<ColumnInfo[] | null> {
  const { rows } = await conn.query<Row>(sql, [schemaOf(table) ?? null, tableOf(table)]);
  return rows.length === 0 ? null : rows.map(column);
}

/**
 * A table's columns from `INFORMATION_SCHEMA.COLUMNS` (MySQL, MariaDB, SQL Server), in column
 * order, for {@link informationSchemaColumn}: `name`, `data_type`, `max_length`,
 * `datetime_precision`, `nullable`, `column_default`, then the dialect's `extra` items. `schema` and
 * `table` are what the conditions compare with ({@link describeWith} binds the schema first).
 */
export function informationSchemaSql(schema: string, table: string, extra: readonly string[] = []): string {
  const items = [
    ...['COLUMN_NAME AS name', 'DATA_TYPE AS data_type', 'CHARACTER_MAXIMUM_LENGTH AS max_length'],
    ...[
      'DATETIME_PRECISION AS datetime_precision',
      'IS_NULLABLE AS nullable',
      'COLUMN_DEFAULT AS column_default',
    ],
  ].map((item) => `c.${item}`);
  return (
    `SELECT ${[...items, ...extra].join(', ')} FROM INFORMATION_SCHEMA.COLUMNS AS c` +
    ` WHERE c.TABLE_SCHEMA = ${schema} AND c.TABLE_NAME = ${table} ORDER BY c.ORDINAL_POSITION`
  );
}

/**
 * One row of {@link informationSchemaSql} as the core's `ColumnInfo`: the kind of `data_type` by
 * `kindOf`; a timestamp's `precision` its `datetime_precision`; nullable where `nullable` is `YES`;
 * a default where `column_default` holds one or the database fills the column (`generated`).
 * `read` gives what the dialect reads its own way: the type it reports, and any of the others.
 */
export function informationSchemaColumn(
  r: Row,
  kindOf: (type: string) => ColumnKind,
  read: {
    readonly type: string;
    readonly kind?: ColumnKind | undefined;
    readonly precision?: number | undefined;
    readonly hasDefault?: boolean | undefined;
    readonly generated?: boolean | undefined;
  },
): ColumnInfo {
  const kind = read.kind ?? kindOf(String(r.data_type));
  const digits = r.datetime_precision == null ? undefined : Number(r.datetime_precision);
  const precision = kind === 'timestamp' ? (read.precision ?? digits) : undefined;
  return {
    name: String(r.name),
    type: read.type,
    kind,
    ...(precision === undefined ? {} : { precision }),
    nullable: String(r.nullable).toUpperCase() === 'YES',
    hasDefault: read.hasDefault ?? (r.column_default != null || read.generated === true),
  };
}

/** The option every dialect takes: a version `checkServer` reports instead of asking the server. */
export interface SqlDialectOptions {
  /** Makes `checkServer` report this version instead of asking the server. Default: ask. */
  readonly serverVersion?: string | undefined;
}

/** Drops a statement's answer. */
const nothing = (): void => undefined;

/** Runs statements in turn, answers nothing; a statement that throws rejects. */
function run(conn: Connection, statements: readonly string[]): Promise<void> {
  try {
    if (statements.length === 1) return conn.query(statements[0]!).then(nothing);
    return statements
      .reduce<Promise<unknown>>((done, sql) => done.then(() => conn.query(sql)), Promise.resolve())
      .then(nothing);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The DDL of the tables a queue table's features keep beside it, in the order to run it: the
 * schedules' tick table where `opts.schedules` names one (or where the table's retention records
 * its turns), the rate limits' budget table, the control table, the flow tables and the steps
 * table, each where the table declares the feature. A dialect prints its queue table's DDL, then
 * this; a dialect written without {@link SqlDialect} calls it with its own statements, so a new
 * feature's table reaches it with no change of its own.
 */
export function featureDdl(s: QueueStatements, opts: DdlOptions = {}): string[] {
  const table = s.t;
  // An identifier, as a schedule's `ticksTable` is where it is built (a dialect only quotes it).
  const schedules =
    opts.schedules === undefined
      ? undefined
      : validateIdentifier(opts.schedules, 'schedules tick table', table.table, true);
  // Retention records its turns in a tick table too: printed where the schedules' is another.
  const turns = table.retention?.ticksTable;
  const tickTables = [schedules, turns === schedules ? undefined : turns];
  return [
    ...tickTables.flatMap((n) => (n === undefined ? [] : s.schedules.ddl(n))),
    ...(table.rateLimit === undefined ? [] : s.rates.ddl(table.rateLimit.table)),
    ...(table.control === undefined ? [] : s.control.ddl(table.control.table)),
    ...(table.flows === undefined ? [] : s.flows.ddl(table.flows)),
    ...(table.steps === undefined ? [] : s.steps.ddl(table.steps.table)),
  ];
}

/**
 * The core's `Dialect` for a SQL database, driver-free: the server version check, the transaction
 * members, the DDL with the schedules' tick table. A dialect says its facts (`name`,
 * `capabilities`, `server` and `floor`, `versionSql`, `transactions`, its `Statements` class) and
 * writes `describeTable`, `classifyError` and `tableDdl`; it overrides {@link checkVersion} where
 * its versions read otherwise, and `prepare` where its runner is its own.
 */
export abstract class SqlDialect implements Dialect {
  /** e.g. `postgres`, `mysql`, `sqlite`, `mssql`. */
  abstract readonly name: string;
  /** What the dialect can do. */
  abstract readonly capabilities: Capabilities;
  /** The database's name in `ServerTooOldError`, e.g. `SQL Server`. */
  abstract readonly server: string;
  /** The oldest version the dialect runs on. */
  abstract readonly floor: string;
  /** The query `checkServer` runs: one row with the version as `version`. */
  abstract readonly versionSql: string;
  /** The transaction statements. */
  abstract readonly transactions: TransactionSql;
  /** The version `checkServer` reports instead of asking, when given. */
  readonly serverVersion: string | undefined;

  constructor(opts: SqlDialectOptions = {}) {
    this.serverVersion = opts.serverVersion;
  }

  /** The table's columns, or null when there is no such table. */
  abstract describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null>;
  /** Maps a driver error to a kind the engine acts on. */
  abstract classifyError(err: unknown): ErrorKind;
  /** The statement builder's class, e.g. `MssqlStatements`. */
  abstract readonly Statements: new (
    table: AnyTable,
    opts?: PrepareOptions,
  ) => QueueStatements;
  /** The `CREATE TABLE` of a description and its indexes (and the dead-letter table). */
  abstract tableDdl(table: AnyTable, opts: DdlOptions): string[];

  /** The statements of a table: a {@link Statements}. */
  statements(table: AnyTable, opts?: PrepareOptions): QueueStatements {
    return new this.Statements(table, opts);
  }

  /** Prepares the statements of one table: the builder's runner over {@link statements}. */
  prepare(table: AnyTable, opts?: PrepareOptions): TableOps {
    return new SqlTable(this.statements(table, opts));
  }

  /**
   * The version to report, or `ServerTooOldError` below {@link floor}. `raw` is the version text
   * (its first word is reported), `row` the row of {@link versionSql} where the server was asked.
   */
  checkVersion(raw: string, row?: Row): string {
    void row;
    const found = raw.trim().split(/\s+/)[0] ?? raw;
    if (compareVersions(found, this.floor) < 0) throw new ServerTooOldError(this.server, found, this.floor);
    return found;
  }

  /** Reads the version (or takes `serverVersion`) and checks it. */
  async checkServer(conn: Connection): Promise<{
    /** The version as the server reports it. */
    version: string;
  }> {
    if (this.serverVersion !== undefined) return { version: this.checkVersion(this.serverVersion) };
    const row = (await conn.query<Row>(this.versionSql)).rows[0];
    return { version: this.checkVersion(String(row?.version ?? ''), row) };
  }

  /** Runs {@link TransactionSql.begin}. */
  begin(conn: Connection, opts: BeginOptions): Promise<void> {
    // Not async functions, these three: each runs once per claim in the row lock form.
    try {
      return run(conn, this.transactions.begin(opts));
    } catch (err) {
      return Promise.reject(err); // an isolation level the database refuses
    }
  }

  /** Runs {@link TransactionSql.commit}. */
  commit(conn: Connection): Promise<void> {
    return run(conn, [this.transactions.commit]);
  }

  /** Runs {@link TransactionSql.rollback}. */
  rollback(conn: Connection): Promise<void> {
    return run(conn, [this.transactions.rollback]);
  }

  /** Runs {@link TransactionSql.savepoint}. */
  async savepoint(conn: Connection, name: string): Promise<void> {
    await conn.query(this.transactions.savepoint(name));
  }

  /** Runs {@link TransactionSql.rollbackToSavepoint}. */
  async rollbackToSavepoint(conn: Connection, name: string): Promise<void> {
    await conn.query(this.transactions.rollbackToSavepoint(name));
  }

  /** {@link tableDdl}, then the tables of the features the table declares ({@link featureDdl}). */
  ddl(table: AnyTable, opts: DdlOptions = {}): string[] {
    return [...this.tableDdl(table, opts), ...featureDdl(this.statements(table), opts)];
  }
}
