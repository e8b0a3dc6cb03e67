/**
 * The MySQL and MariaDB dialect: the facts and the SQL sqlinbox needs, shared by the `mysql2` and
 * `mariadb` drivers. MySQL 8.0.1 and MariaDB 10.6 are the first releases that skip locked rows
 * (`FOR UPDATE SKIP LOCKED`), so they are the floors.
 *
 * Time: lease, `retry_after` and `processed_at` are `DATETIME(3)` in UTC. Every instant is bound
 * as UTC text and "now" on the database clock is `UTC_TIMESTAMP(3)`; the driver wrappers also set
 * each session's `time_zone` to `'+00:00'` and read `DATETIME`/`TIMESTAMP` back as UTC instants,
 * so a lease token written by a claim compares equal, to the millisecond, in every settlement.
 */
import {
  type AnyTable,
  type Capabilities,
  type ColumnInfo,
  type Connection,
  capabilities,
  type Dialect,
  type ErrorKind,
  type PrepareOptions,
  type Row,
  ServerTooOldError,
  type TableOps,
} from '@sqlinbox/core';
import {
  classifyWith,
  columnKinds,
  informationSchemaColumn,
  informationSchemaSql,
  NODE_SOCKET_ERRORS,
  SqlDialect,
  schemaOf,
  tableOf,
} from '@sqlinbox/sql';
import { ddl } from './ddl.js';
import { prepareTable } from './ops.js';
import { toCount } from './sql.js';
import { MYSQL_TRANSACTIONS, MysqlStatements } from './statements.js';

/** The first MySQL release with `SKIP LOCKED`. */
export const MYSQL_FLOOR = '8.0.1';
/** The first MariaDB release sqlinbox supports (`SKIP LOCKED` arrived in 10.6). */
export const MARIADB_FLOOR = '10.6';

/**
 * Why a Galera node refuses the advisory form (and per-key concurrency, whose claims take turns
 * through the same locks).
 */
export const ADVISORY_ON_GALERA =
  'this server is a Galera cluster node, and GET_LOCK locks only on the node that takes it (Galera ' +
  'does not replicate it): a session on another node takes the same key at once, so two nodes would ' +
  'run rows of one key side by side';

/** Options of {@link createMysqlDialect}. */
export interface MysqlDialectOptions {
  /**
   * Makes `checkServer` report this version instead of asking the server (`SELECT VERSION()`).
   * Default: undefined, ask the server. The conformance suite uses it to prove `ServerTooOldError`.
   */
  readonly serverVersion?: string | undefined;
}

/** A server version string, read. */
export interface ServerVersion {
  /** `MariaDB` when the string says so, else `MySQL`. */
  readonly server: 'MySQL' | 'MariaDB';
  /** The first number of the version (`10` of `10.11.19`). */
  readonly major: number;
  /** The second number (`11` of `10.11.19`). */
  readonly minor: number;
  /** The third number, 0 when the string has none. */
  readonly patch: number;
  /** The string as the server reported it. */
  readonly raw: string;
}

/**
 * Reads a `VERSION()` string: `8.0.36`, `8.0.36-log`, `10.11.19-MariaDB-0+deb12u1`, and the
 * `5.5.5-10.x.y-MariaDB` form old MariaDB handshakes sent. MariaDB is told from MySQL by the
 * string's `MariaDB`.
 */
export function parseServerVersion(raw: string): ServerVersion {
  const isMaria = /mariadb/i.test(raw);
  const text = isMaria ? raw.replace(/^5\.5\.5-/, '') : raw;
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (m === null) throw new Error(`sqlinbox: cannot read the server version ${JSON.stringify(raw)}`);
  return {
    server: isMaria ? 'MariaDB' : 'MySQL',
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3] ?? 0),
    raw,
  };
}

/** Throws `ServerTooOldError` naming the version found and the floor when `raw` is below it. */
export function checkVersion(raw: string): ServerVersion {
  const v = parseServerVersion(raw);
  const floor = v.server === 'MariaDB' ? [10, 6, 0] : [8, 0, 1];
  const found = [v.major, v.minor, v.patch];
  for (let i = 0; i < 3; i++) {
    if (found[i]! > floor[i]!) break;
    if (found[i]! < floor[i]!) {
      throw new ServerTooOldError(v.server, raw, v.server === 'MariaDB' ? MARIADB_FLOOR : MYSQL_FLOOR);
    }
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Errors

const DEADLOCK = new Set<unknown>([1213, 'ER_LOCK_DEADLOCK']);
const LOCK_TIMEOUT = new Set<unknown>([1205, 'ER_LOCK_WAIT_TIMEOUT', 3572, 'ER_LOCK_NOWAIT']);
/** MariaDB's `innodb_snapshot_isolation` conflict at REPEATABLE READ ("Record has changed since last read"). */
const SERIALIZATION = new Set<unknown>([1020, 'ER_CHECKREAD']);
const CONSTRAINT = new Set<unknown>([
  1062,
  'ER_DUP_ENTRY',
  1586,
  'ER_DUP_ENTRY_WITH_KEY_NAME',
  1022,
  'ER_DUP_KEY',
  1169,
  'ER_DUP_UNIQUE',
  1557,
  'ER_FOREIGN_DUPLICATE_KEY',
  1451,
  'ER_ROW_IS_REFERENCED_2',
  1452,
  'ER_NO_REFERENCED_ROW_2',
  1216,
  'ER_NO_REFERENCED_ROW',
  1217,
  'ER_ROW_IS_REFERENCED',
  1048,
  'ER_BAD_NULL_ERROR',
  1364,
  'ER_NO_DEFAULT_FOR_FIELD',
  3819,
  'ER_CHECK_CONSTRAINT_VIOLATED',
  4025,
  'ER_CONSTRAINT_FAILED',
]);
const SHUTDOWN = new Set<unknown>([1053, 'ER_SERVER_SHUTDOWN', 1927, 'ER_CONNECTION_KILLED']);
const CONNECTION = new Set<unknown>([
  // A server that cannot take this work: the connection is given up and the next one opened
  // afresh (after a failover, on the new primary). The engine never opens a read-only transaction
  // of its own, so these mean the server, not the statement.
  1290, // ER_OPTION_PREVENTS_STATEMENT: --read-only / --super-read-only (a replica, a demoted primary)
  'ER_OPTION_PREVENTS_STATEMENT',
  1836, // ER_READ_ONLY_MODE
  'ER_READ_ONLY_MODE',
  1792, // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: transaction_read_only set for the server
  'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION',
  // Galera: a node outside the primary component ("WSREP has not yet prepared node for
  // application use"); another node of the cluster takes the work.
  1047,
  'ER_UNKNOWN_COM_ERROR',
  // client library codes
  2006,
  'CR_SERVER_GONE_ERROR',
  2013,
  'CR_SERVER_LOST',
  2055,
  'CR_SERVER_LOST_EXTENDED',
  // server codes that end the session
  1040,
  'ER_CON_COUNT_ERROR',
  1152,
  'ER_ABORTING_CONNECTION',
  1158,
  'ER_NET_READ_ERROR',
  1159,
  'ER_NET_READ_INTERRUPTED',
  1160,
  'ER_NET_ERROR_ON_WRITE',
  1161,
  'ER_NET_WRITE_INTERRUPTED',
  3169,
  'ER_SESSION_WAS_KILLED',
  4031,
  'ER_CLIENT_INTERACTION_TIMEOUT',
  // mysql2
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  // mariadb connector
  'ER_SOCKET_UNEXPECTED_CLOSE',
  'ER_CONNECTION_ALREADY_CLOSED',
  'ER_CMD_CONNECTION_CLOSED',
  'ER_CMD_NOT_EXECUTED_DESTROYED',
  'ER_SOCKET',
  'ER_SOCKET_TIMEOUT',
  'ER_CONNECTION_TIMEOUT',
  ...NODE_SOCKET_ERRORS,
]);

/**
 * Maps a `mysql2` or `mariadb` error to the kind the engine acts on, by the server's `errno` or the
 * driver's `code`: 1213 deadlock; 1205 (and 3572 NOWAIT) lock timeout; MariaDB 1020 serialization;
 * duplicate keys, foreign keys, NOT NULL and CHECK violations constraint; 1053 and MariaDB 1927
 * (what MariaDB sends its sessions when it shuts down) shutdown; a lost socket, a session the
 * server ended, a read-only server (1290, 1836, 1792), a Galera node outside the primary
 * component (1047), and any other error the driver marks `fatal` connection; the rest other. An error
 * without a code of its own is read through its `cause`.
 */
export function classifyError(err: unknown): ErrorKind {
  const read = ({ errno, code, fatal }: { errno?: unknown; code?: unknown; fatal?: unknown }) => {
    const has = (set: Set<unknown>) => set.has(errno) || set.has(code);
    if (has(DEADLOCK)) return 'deadlock';
    if (has(LOCK_TIMEOUT)) return 'lock_timeout';
    if (has(SERIALIZATION)) return 'serialization';
    if (has(CONSTRAINT)) return 'constraint';
    if (has(SHUTDOWN)) return 'shutdown';
    if (has(CONNECTION) || fatal === true) return 'connection';
    return errno !== undefined || code !== undefined ? 'other' : undefined;
  };
  return classifyWith(err, read, 3);
}

// ---------------------------------------------------------------------------------------------
// Columns

/** A column's kind from `information_schema.COLUMNS.DATA_TYPE`. */
export const kindOf = columnKinds({
  integer: 'tinyint smallint mediumint int integer bigint',
  text: 'char varchar tinytext text mediumtext longtext enum',
  bytes: 'binary varbinary tinyblob blob mediumblob longblob',
  json: 'json',
  timestamp: 'datetime timestamp',
});

const text = (v: unknown): string =>
  v === null || v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);

// ---------------------------------------------------------------------------------------------
// The dialect

/**
 * The MySQL/MariaDB dialect. Capabilities: every claim form; all four isolation levels; no SQLite
 * modes; several connections at once; the FIFO guard; transactional mode; one lease claim at a
 * time per table (a lease claim's transaction holds its locked rows until it commits);
 * time columns of kind `timestamp`.
 */
class MysqlDialect extends SqlDialect {
  readonly name = 'mysql';
  private readonly single = capabilities({
    isolationLevels: ['read_uncommitted', 'read_committed', 'repeatable_read', 'serializable'],
    oneLeaseClaimAtATime: true,
    // One claim at a time already: a claim takes a row per worker and the extra rows wait,
    // leased, in the subscription, so the claim transaction runs per batch, not per row.
    claimAhead: true,
  });
  private readonly cluster: Capabilities = {
    ...this.single,
    forms: this.single.forms.filter((f) => f !== 'advisory'),
    formsRefused: { advisory: ADVISORY_ON_GALERA },
  };
  /** Whether `checkServer` found a Galera node (`wsrep_on`). */
  private galera = false;

  /** Every form on a single server; on a Galera node, the advisory form refused with its reason. */
  get capabilities(): Capabilities {
    return this.galera ? this.cluster : this.single;
  }

  /**
   * The version check, then whether the server is a Galera node (`wsrep_on = ON`): there the
   * advisory form and per-key concurrency, both held by `GET_LOCK`, are refused at start.
   */
  override async checkServer(conn: Connection): Promise<{ version: string }> {
    const checked = await super.checkServer(conn);
    const { rows } = await conn.query<Row>("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'");
    const value = rows[0] === undefined ? '' : text(rows[0].Value ?? rows[0].value);
    this.galera = value.toUpperCase() === 'ON';
    return checked;
  }

  /** The table's statements; on a Galera node without per-key concurrency (see {@link checkServer}). */
  override prepare = (t: AnyTable, opts?: PrepareOptions): TableOps => {
    const ops = prepareTable(t, opts);
    if (this.galera && ops.concurrency !== undefined)
      Object.defineProperty(ops, 'concurrency', { value: undefined, enumerable: true });
    return ops;
  };
  readonly server = 'MySQL';
  readonly floor = MYSQL_FLOOR;
  readonly versionSql = 'SELECT VERSION() AS `version`';

  /** MySQL's floor or MariaDB's, by the version's `MariaDB` ({@link checkVersion}); the whole text is reported. */
  override checkVersion(raw: string): string {
    return checkVersion(raw).raw;
  }

  readonly transactions = MYSQL_TRANSACTIONS;
  readonly Statements = MysqlStatements;
  classifyError = classifyError;
  tableDdl = ddl;

  /**
   * The table's columns from `information_schema.COLUMNS`, or null when there is none. A DATETIME
   * or TIMESTAMP column's `precision` is its `DATETIME_PRECISION` (0 unless declared, e.g. 3 for
   * `DATETIME(3)`).
   */
  async describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null> {
    const [schema, name] = [schemaOf(table) ?? null, tableOf(table)];
    const extra = ['c.COLUMN_TYPE AS column_type', 'c.EXTRA AS extra', 'VERSION() AS `version`'];
    const sql = informationSchemaSql('COALESCE(?, DATABASE())', '?', extra);
    const { rows } = await conn.query<Row>(sql, [schema, name]);
    if (rows.length === 0) return null;
    // MariaDB's JSON is LONGTEXT with a CHECK (json_valid(col)); read that back as kind json.
    let jsonColumns = new Set<string>();
    if (
      /mariadb/i.test(text(rows[0]!.version)) &&
      rows.some((r) => text(r.data_type).toLowerCase() === 'longtext')
    ) {
      const checks = await conn.query<Row>(
        'SELECT CHECK_CLAUSE AS `clause` FROM information_schema.CHECK_CONSTRAINTS' +
          ' WHERE CONSTRAINT_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?',
        [schema, name],
      );
      jsonColumns = new Set(
        checks.rows.flatMap((r) =>
          [...text(r.clause).matchAll(/json_valid\(`?([^`)]+)`?\)/gi)].map((m) => m[1]!.toLowerCase()),
        ),
      );
    }
    return rows.map((r) => {
      const def = r.column_default == null ? null : text(r.column_default);
      const json =
        text(r.data_type).toLowerCase() === 'longtext' && jsonColumns.has(text(r.name).toLowerCase());
      return informationSchemaColumn(r, kindOf, {
        type: text(r.column_type),
        kind: json ? 'json' : undefined,
        // DATETIME and TIMESTAMP keep whole seconds unless declared with digits: `DATETIME(3)`.
        precision: toCount(r.datetime_precision),
        // MariaDB shows "no default" of a nullable column as the text NULL.
        hasDefault:
          (def !== null && def.toUpperCase() !== 'NULL') || /auto_increment|generated/i.test(text(r.extra)),
      });
    });
  }
}

/** The MySQL/MariaDB dialect; `serverVersion` overrides the version `checkServer` reads. */
export function createMysqlDialect(opts: MysqlDialectOptions = {}): Dialect {
  return new MysqlDialect(opts);
}

/** The MySQL/MariaDB dialect that asks the server its version (no `serverVersion` override). */
export const mysqlDialect: Dialect = createMysqlDialect();
