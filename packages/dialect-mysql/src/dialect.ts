/**
 * The MySQL and MariaDB dialect: the facts and the SQL sqlinbox needs, shared by the `mysql2` and
 * `mariadb` drivers. MySQL 8.0.1 and MariaDB 10.6 are the first releases that skip locked rows
 * (`FOR UPDATE SKIP LOCKED`), so they are the floors (R-DB-1).
 *
 * Time: lease, `retry_after` and `processed_at` are `DATETIME(3)` in UTC. Every instant is bound
 * as UTC text and "now" on the database clock is `UTC_TIMESTAMP(3)`; the driver wrappers also set
 * each session's `time_zone` to `'+00:00'` and read `DATETIME`/`TIMESTAMP` back as UTC instants,
 * so a lease token written by a claim compares equal, to the millisecond, in every settlement.
 */
import {
  type AnyTable,
  type BeginOptions,
  type Candidate,
  type ColumnInfo,
  type ColumnKind,
  type Connection,
  capabilities,
  type Dialect,
  type ErrorKind,
  type FinishSettlement,
  type Insert,
  type IsolationLevel,
  type ListQuery,
  type PickQuery,
  type PrepareOptions,
  type QueueStats,
  type Row,
  ServerTooOldError,
  type Settlement,
  type TableOps,
  validateIdentifier,
} from '@sqlinbox/core';
import { ticksDdl, withSchedules } from './schedules.js';
import { knownInTransaction, noteLocked, noteUnlocked } from './session.js';
import {
  type MysqlQueryResult,
  quoteIdent,
  quoteTable,
  type Stmt,
  schemaOf,
  tableOf,
  toCount,
} from './sql.js';
import { AdminStatements, TableStatements } from './statements.js';

/** The first MySQL release with `SKIP LOCKED`. */
export const MYSQL_FLOOR = '8.0.1';
/** The first MariaDB release sqlinbox supports (`SKIP LOCKED` arrived in 10.6). */
export const MARIADB_FLOOR = '10.6';

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

/** Throws `ServerTooOldError` naming the version found and the floor when `raw` is below it (R-DB-1). */
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
  // Node sockets
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * Maps a `mysql2` or `mariadb` error to the kind the engine acts on, by the server's `errno` or the
 * driver's `code`: 1213 deadlock; 1205 (and 3572 NOWAIT) lock timeout; MariaDB 1020 serialization;
 * duplicate keys, foreign keys, NOT NULL and CHECK violations constraint; 1053 and MariaDB 1927
 * (what MariaDB sends its sessions when it shuts down) shutdown; a lost socket, a session the
 * server ended, and any other error the driver marks `fatal` connection; the rest other. An error
 * without a code of its own is read through its `cause`.
 */
export function classifyError(err: unknown): ErrorKind {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 4; depth++) {
    const { errno, code, fatal } = e as { errno?: unknown; code?: unknown; fatal?: unknown };
    const has = (set: Set<unknown>) => set.has(errno) || set.has(code);
    if (has(DEADLOCK)) return 'deadlock';
    if (has(LOCK_TIMEOUT)) return 'lock_timeout';
    if (has(SERIALIZATION)) return 'serialization';
    if (has(CONSTRAINT)) return 'constraint';
    if (has(SHUTDOWN)) return 'shutdown';
    if (has(CONNECTION)) return 'connection';
    if (fatal === true) return 'connection';
    if (errno !== undefined || code !== undefined) return 'other';
    e = (e as { cause?: unknown }).cause;
  }
  return 'other';
}

// ---------------------------------------------------------------------------------------------
// Columns

/** A column's kind from `information_schema.COLUMNS.DATA_TYPE`. */
export function kindOf(dataType: string): ColumnKind {
  switch (dataType.toLowerCase()) {
    case 'tinyint':
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'bigint':
      return 'integer';
    case 'char':
    case 'varchar':
    case 'tinytext':
    case 'text':
    case 'mediumtext':
    case 'longtext':
    case 'enum':
      return 'text';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return 'bytes';
    case 'json':
      return 'json';
    case 'datetime':
    case 'timestamp':
      return 'timestamp';
    default:
      return 'other';
  }
}

const text = (v: unknown): string =>
  v === null || v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);

/**
 * The table's columns from `information_schema.COLUMNS`, or null when there is none. A DATETIME
 * or TIMESTAMP column's `precision` is its `DATETIME_PRECISION` (0 unless declared, e.g. 3 for
 * `DATETIME(3)`).
 */
async function describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null> {
  const schema = schemaOf(table) ?? null;
  const name = tableOf(table);
  const { rows } = await conn.query<Row>(
    'SELECT c.COLUMN_NAME AS `name`, c.DATA_TYPE AS `dataType`, c.COLUMN_TYPE AS `columnType`,' +
      ' c.DATETIME_PRECISION AS `precision`, c.IS_NULLABLE AS `nullable`, c.COLUMN_DEFAULT AS `def`, c.EXTRA AS `extra`, VERSION() AS `version`' +
      ' FROM information_schema.COLUMNS AS c WHERE c.TABLE_SCHEMA = COALESCE(?, DATABASE()) AND c.TABLE_NAME = ?' +
      ' ORDER BY c.ORDINAL_POSITION',
    [schema, name],
  );
  if (rows.length === 0) return null;
  // MariaDB's JSON is LONGTEXT with a CHECK (json_valid(col)); read that back as kind json.
  let jsonColumns = new Set<string>();
  if (
    /mariadb/i.test(text(rows[0]!.version)) &&
    rows.some((r) => text(r.dataType).toLowerCase() === 'longtext')
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
    const colName = text(r.name);
    const dataType = text(r.dataType);
    const def = r.def === null || r.def === undefined ? null : text(r.def);
    const kind =
      dataType.toLowerCase() === 'longtext' && jsonColumns.has(colName.toLowerCase())
        ? 'json'
        : kindOf(dataType);
    return {
      name: colName,
      type: text(r.columnType),
      kind,
      // DATETIME and TIMESTAMP keep whole seconds unless declared with digits: `DATETIME(3)`.
      ...(kind === 'timestamp' ? { precision: toCount(r.precision) } : {}),
      nullable: text(r.nullable).toUpperCase() === 'YES',
      // MariaDB shows "no default" of a nullable column as the text NULL.
      hasDefault:
        (def !== null && def.toUpperCase() !== 'NULL') || /auto_increment|generated/i.test(text(r.extra)),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Transactions

const LEVELS: Record<IsolationLevel, string> = {
  read_uncommitted: 'READ UNCOMMITTED',
  read_committed: 'READ COMMITTED',
  repeatable_read: 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
};

/**
 * Opens a transaction at the given level, READ COMMITTED when none is declared (R-ROW-5, R-TX-6):
 * the server's default, REPEATABLE READ, would lock the gaps a claim scans and block every insert
 * while a claim is held. `SET TRANSACTION` applies to the next transaction only.
 */
async function begin(conn: Connection, opts: BeginOptions = {}): Promise<void> {
  await conn.query(`SET TRANSACTION ISOLATION LEVEL ${LEVELS[opts.isolation ?? 'read_committed']}`);
  await conn.query('START TRANSACTION');
}

async function rollbackQuietly(conn: Connection): Promise<void> {
  try {
    await conn.query('ROLLBACK');
  } catch {
    // the caller rethrows the error that brought it here
  }
}

// ---------------------------------------------------------------------------------------------
// DDL

/**
 * The `CREATE TABLE` of a description (R-PLUS-2), InnoDB, utf8mb4: `BIGINT AUTO_INCREMENT` id
 * (plain `BIGINT` when the id is not generated), payload `JSON` / `LONGTEXT` / `LONGBLOB`,
 * `attempt INT NOT NULL DEFAULT 1`, time columns `DATETIME(3)` (UTC), group, partition key and the
 * other named columns `VARCHAR(255)`. Then the indexes a claim needs: MySQL has no partial index,
 * so a table with `processed_at` gets `(processed_at, id)` (the claim reads `processed_at IS NULL`
 * in id order), and a FIFO table `(group, [processed_at,] id)`, which the head check and the FIFO
 * guard read (without it the guard's locking read scans and waits on other groups' rows). Without
 * either column the primary key serves the claim. A priority column (`INT NOT NULL DEFAULT 0`)
 * gets `([processed_at,] priority DESC, id)`, the claim's order (descending index parts need
 * MySQL 8.0 or MariaDB 10.8; older MariaDB sorts). A unique key column (`VARCHAR(255)`) gets a
 * unique index: on the column itself where settled rows are deleted, else on the generated column
 * `sqlinbox_key_active` (the key while `processed_at IS NULL`, NULL after), since MySQL has no
 * partial index. With `deadLetterTable`, that table with the same columns in the same order (its
 * id not generated, `sqlinbox_key_active` a plain column), for `INSERT .. SELECT *`.
 */
/** The generated column that carries a stamping table's unique key while the row is unsettled. */
const KEY_ACTIVE = 'sqlinbox_key_active';

export function ddl(table: AnyTable, opts: { deadLetterTable?: string } = {}): string[] {
  const cols = (forDeadLetter: boolean): string[] => {
    const out: string[] = [];
    const seen = new Set<string>();
    const add = (name: string | undefined, type: string) => {
      if (name === undefined || seen.has(name.toLowerCase())) return;
      seen.add(name.toLowerCase());
      out.push(`  ${quoteIdent(name)} ${type}`);
    };
    add(
      table.id.column,
      table.id.generated && !forDeadLetter ? 'BIGINT NOT NULL AUTO_INCREMENT' : 'BIGINT NOT NULL',
    );
    if (table.payload) {
      const type =
        table.payload.type === 'bytes' ? 'LONGBLOB' : table.payload.type === 'text' ? 'LONGTEXT' : 'JSON';
      add(table.payload.column, `${type} NOT NULL`);
    }
    add(table.attempt?.column, 'INT NOT NULL DEFAULT 1');
    add(table.lease, 'DATETIME(3) NULL');
    add(table.retryAfter, 'DATETIME(3) NULL');
    add(table.processedAt, 'DATETIME(3) NULL');
    add(table.group, 'VARCHAR(255) NULL');
    add(table.partitionKey, 'VARCHAR(255) NULL');
    add(table.priority, 'INT NOT NULL DEFAULT 0');
    add(table.uniqueKey, 'VARCHAR(255) NULL');
    if (table.uniqueKey !== undefined && table.processedAt !== undefined) {
      // No partial index: the key while the row is unsettled, NULL after, carries the unique index.
      // The dead-letter twin takes it as a plain column, for `INSERT .. SELECT *`.
      add(
        KEY_ACTIVE,
        forDeadLetter
          ? 'VARCHAR(255) NULL'
          : `VARCHAR(255) GENERATED ALWAYS AS (IF(${quoteIdent(table.processedAt)} IS NULL, ${quoteIdent(table.uniqueKey)}, NULL)) STORED`,
      );
    }
    for (const p of table.key ?? []) if ('column' in p) add(p.column, 'VARCHAR(255) NULL');
    for (const c of table.columns) add(c, 'VARCHAR(255) NULL');
    out.push(`  PRIMARY KEY (${quoteIdent(table.id.column)})`);
    return out;
  };
  const create = (name: string, forDeadLetter: boolean) =>
    `CREATE TABLE ${quoteTable(name)} (\n${cols(forDeadLetter).join(',\n')}\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`;
  const T = quoteTable(table.table);
  const ID = quoteIdent(table.id.column);
  const out = [create(table.table, false)];
  if (table.processedAt !== undefined) {
    out.push(`CREATE INDEX \`sqlinbox_claim\` ON ${T} (${quoteIdent(table.processedAt)}, ${ID})`);
  }
  if (table.group !== undefined) {
    const pa = table.processedAt !== undefined ? `${quoteIdent(table.processedAt)}, ` : '';
    out.push(`CREATE INDEX \`sqlinbox_fifo\` ON ${T} (${quoteIdent(table.group)}, ${pa}${ID})`);
  }
  if (table.priority !== undefined) {
    const pa = table.processedAt !== undefined ? `${quoteIdent(table.processedAt)}, ` : '';
    out.push(`CREATE INDEX \`sqlinbox_priority\` ON ${T} (${pa}${quoteIdent(table.priority)} DESC, ${ID})`);
  }
  if (table.uniqueKey !== undefined) {
    const key = table.processedAt !== undefined ? KEY_ACTIVE : table.uniqueKey;
    out.push(`CREATE UNIQUE INDEX \`sqlinbox_unique_key\` ON ${T} (${quoteIdent(key)})`);
  }
  if (opts.deadLetterTable !== undefined) {
    out.push(create(validateIdentifier(opts.deadLetterTable, 'dead-letter table', table.table, true), true));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Table operations

async function run(conn: Connection, s: Stmt): Promise<MysqlQueryResult> {
  return (await conn.query<Row>(s.sql, s.params)) as MysqlQueryResult;
}

/** `innodb_autoinc_lock_mode` and `auto_increment_increment` of a session, read once. */
const autoIncBySession = new WeakMap<Connection, { mode: number; step: number }>();

async function autoInc(conn: Connection): Promise<{ mode: number; step: number }> {
  let v = autoIncBySession.get(conn);
  if (v === undefined) {
    const { rows } = await conn.query<Row>(
      'SELECT @@innodb_autoinc_lock_mode AS `mode`, @@auto_increment_increment AS `step`',
    );
    v = { mode: toCount(rows[0]?.mode), step: toCount(rows[0]?.step) || 1 };
    autoIncBySession.set(conn, v);
  }
  return v;
}

/** The first id an INSERT generated: the OK packet's `insertId`, else `LAST_INSERT_ID()`. */
async function firstInsertId(conn: Connection, res: MysqlQueryResult): Promise<unknown> {
  let id: unknown = res.insertId;
  if (id === undefined) id = (await conn.query<Row>('SELECT LAST_INSERT_ID() AS `id`')).rows[0]?.id;
  // 0: the table has no AUTO_INCREMENT column, the server generated the id some other way.
  if (id === undefined || id === null || id === 0 || id === 0n || id === '0') return null;
  return id;
}

/** `first + k`, in the type the driver gave `first` (number, bigint or decimal string). */
function addToId(first: unknown, k: number): unknown {
  if (k === 0) return first;
  if (typeof first === 'bigint') return first + BigInt(k);
  if (typeof first === 'number') return first + k;
  return (BigInt(String(first)) + BigInt(k)).toString();
}

const idKey = (v: unknown): string => String(v);

class MysqlTableOps implements TableOps {
  private readonly s: TableStatements;
  readonly advisory: TableOps['advisory'];

  constructor(
    private readonly t: AnyTable,
    opts: PrepareOptions,
  ) {
    this.s = new TableStatements(t, opts.deadLetter, opts.exclude);
    const s = this.s;
    const leaveOutUsed = t.lock === undefined;
    this.advisory = {
      candidates: async (conn, n, now, own): Promise<Candidate[]> => {
        if (n <= 0) return [];
        const { rows } = await run(conn, s.candidates(n, now, own, leaveOutUsed));
        return rows.map((r) => ({ id: r.id, key: text(r.key) }));
      },
      lock: async (conn, key) => {
        const { rows } = await run(conn, s.lock(key));
        const ok = toCount(rows[0]?.ok) === 1;
        if (ok) noteLocked(conn, key);
        return ok;
      },
      unlock: async (conn, key) => {
        const { rows } = await run(conn, s.unlock(key));
        // 1: released; 0: another session holds it; NULL: nobody does. Either way this one no longer does.
        noteUnlocked(conn, key);
        return toCount(rows[0]?.ok) === 1;
      },
      take: async (conn, id, now) => {
        const res = await run(conn, s.take(id, now));
        if (t.attempt === undefined) return res.rows[0] ?? null;
        if (res.rowCount === 0) return null;
        return (await run(conn, s.takeRow(id))).rows[0] ?? null;
      },
    };
  }

  /** The ids of claimed rows that the FIFO guard finds are not their group's head (R-FIFO-2). */
  private async guard(conn: Connection, heads: { id: unknown; group: unknown }[]): Promise<Set<string>> {
    const blocked = new Set<string>();
    for (const h of heads) {
      const g = this.s.fifoGuard(h);
      if (g === undefined) continue;
      const { rows } = await run(conn, g);
      if (rows.length > 0) blocked.add(idKey(h.id));
    }
    return blocked;
  }

  /**
   * Row lock form, in the engine's transaction: the locking select, then (FIFO) the guard. A row
   * the guard puts back stays locked until that transaction ends; it is only not delivered.
   */
  async claimLocked(conn: Connection, n: number, now: Date | null): Promise<Row[]> {
    if (n <= 0) return [];
    const rows = (await run(conn, this.s.claimLocked(n, now))).rows;
    if (this.t.group === undefined || rows.length === 0) return rows;
    const grp = this.t.group;
    const blocked = await this.guard(
      conn,
      rows.map((r) => ({ id: r[this.t.id.column], group: r[grp] })),
    );
    return rows.filter((r) => !blocked.has(idKey(r[this.t.id.column])));
  }

  /**
   * Locking select, guard (FIFO), one update of the locked ids, and the rows re-read, in one READ
   * COMMITTED transaction this call opens and commits on `conn` (SPEC section 2).
   */
  async claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    await begin(conn, { isolation: 'read_committed' });
    try {
      const picked = (await run(conn, this.s.claimLease(n, now))).rows;
      let ids = picked.map((r) => r.id);
      if (this.t.group !== undefined && picked.length > 0) {
        const blocked = await this.guard(
          conn,
          picked.map((r) => ({ id: r.id, group: r.grp })),
        );
        ids = ids.filter((id) => !blocked.has(idKey(id)));
      }
      if (ids.length === 0) {
        await conn.query('COMMIT');
        return [];
      }
      await run(conn, this.s.claimLeaseUpdate(ids, expiry));
      const rows = (await run(conn, this.s.claimLeaseRows(ids))).rows;
      await conn.query('COMMIT');
      return rows;
    } catch (err) {
      await rollbackQuietly(conn);
      throw err;
    }
  }

  /**
   * One UPDATE for every lease. When it changed fewer rows than asked, the ids that hold the new
   * expiry are the ones it moved (MySQL has no UPDATE .. RETURNING).
   */
  async extendLeases(
    conn: Connection,
    leases: readonly { id: unknown; token: Date }[],
    expiry: Date,
  ): Promise<unknown[]> {
    if (leases.length === 0) return [];
    const res = await run(conn, this.s.extendLeases(leases, expiry));
    if (res.rowCount === leases.length) return leases.map((l) => l.id);
    if (res.rowCount === 0) return [];
    // Some leases were lost: the moved ones hold the new expiry now.
    const { rows } = await run(
      conn,
      this.s.extendLeasesMoved(
        leases.map((l) => l.id),
        expiry,
      ),
    );
    const moved = new Set(rows.map((r) => idKey(r.id)));
    return leases.filter((l) => moved.has(idKey(l.id))).map((l) => l.id);
  }

  /**
   * Many lease-form acks: in one READ COMMITTED transaction, the rows that still hold their tokens
   * are read `FOR UPDATE`, then deleted (or stamped) by id. MySQL has no DELETE .. RETURNING, and
   * the lock makes the ids read the ids changed. Answers those ids.
   */
  async settleMany(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]> {
    if (settlements.length === 0) return [];
    await begin(conn, { isolation: 'read_committed' });
    try {
      const held = (await run(conn, this.s.settleManyHeld(settlements))).rows.map((r) => r.id);
      if (held.length > 0) await run(conn, this.s.settleManyFinish(held, settlements[0]!.now));
      await conn.query('COMMIT');
      return held;
    } catch (err) {
      await rollbackQuietly(conn);
      throw err;
    }
  }

  /** One settlement; answers the queue-table rows it deleted or updated (0: gone, or the token lost). */
  async settle(conn: Connection, st: Settlement): Promise<number> {
    switch (st.kind) {
      case 'finish':
        return (await run(conn, this.s.settleFinish(st.id, st.token, st.now))).rowCount;
      case 'return': {
        const stmt = this.s.settleReturn(st.id, st.token, st);
        const res = await run(conn, stmt);
        return stmt.countOnly ? toCount(res.rows[0]?.n) : res.rowCount;
      }
      case 'deadLetter': {
        if ('group' in st.target) {
          return (await run(conn, this.s.settleDeadLetterGroup(st.id, st.token, st.target.group))).rowCount;
        }
        return this.moveToDeadLetter(conn, st.id, st.token, st.target.table, st.inTransaction);
      }
    }
  }

  /**
   * Copy then delete (R-DLQ-2), in a READ COMMITTED transaction of its own unless one is open. The
   * copy reads without locks at READ COMMITTED, so a delete that finds fewer rows than were
   * copied (the token moved on between the two) rolls the move back and answers 0.
   */
  private async moveToDeadLetter(
    conn: Connection,
    id: unknown,
    token: Date | undefined,
    dlq: string,
    inTransaction: boolean,
  ): Promise<number> {
    const s = new TableStatements(this.t, { table: dlq });
    const m = s.moveToDeadLetter(id, token);
    if (inTransaction) {
      const copied = (await run(conn, m.copy)).rowCount;
      if (copied === 0) return 0;
      const removed = (await run(conn, m.remove)).rowCount;
      if (m.clearLease) await run(conn, m.clearLease);
      return removed;
    }
    await begin(conn, { isolation: 'read_committed' });
    try {
      const copied = (await run(conn, m.copy)).rowCount;
      const removed = copied === 0 ? 0 : (await run(conn, m.remove)).rowCount;
      if (removed === 0 || removed !== copied) {
        await conn.query('ROLLBACK');
        return 0;
      }
      if (m.clearLease) await run(conn, m.clearLease);
      await conn.query('COMMIT');
      return removed;
    } catch (err) {
      await rollbackQuietly(conn);
      throw err;
    }
  }

  /**
   * One multi-row INSERT where the ids can be known from it: ids the caller gives, or
   * AUTO_INCREMENT ids under `innodb_autoinc_lock_mode` 0 or 1, where a multi-row insert takes
   * consecutive values (`first + k * auto_increment_increment`). Under mode 2 (interleaved, the
   * MySQL 8 default) the ids of one statement may interleave with another's, so each message is
   * inserted on its own, inside a transaction when the connection is known to have none open.
   */
  async insert(conn: Connection, messages: readonly Insert[]): Promise<unknown[]> {
    if (messages.length === 0) return [];
    const t = this.t;
    if (t.uniqueKey !== undefined && messages.some((m) => m.key !== undefined)) {
      return this.insertKeyed(conn, messages);
    }
    if (!t.id.generated) {
      await run(conn, this.s.insert(messages));
      return messages.map((m) => m.columns?.[t.id.column]);
    }
    if (messages.length === 1) {
      const res = await run(conn, this.s.insert(messages));
      return [await firstInsertId(conn, res)];
    }
    const { mode, step } = await autoInc(conn);
    if (mode < 2) {
      const res = await run(conn, this.s.insert(messages));
      const first = await firstInsertId(conn, res);
      return messages.map((_, k) => (first === null ? null : addToId(first, k * step)));
    }
    const own = knownInTransaction(conn) === false;
    if (own) await conn.query('START TRANSACTION');
    try {
      const ids: unknown[] = [];
      for (const m of messages) ids.push(await firstInsertId(conn, await run(conn, this.s.insert([m]))));
      if (own) await conn.query('COMMIT');
      return ids;
    } catch (err) {
      if (own) await rollbackQuietly(conn);
      throw err;
    }
  }

  /**
   * Keyed messages (R-FLOW-2), one statement each so that a later message meets an earlier one's
   * key, inside a transaction when the connection is known to have none open: a keyed message
   * answers the insert id, which is the holder's id where the key was held.
   */
  private async insertKeyed(conn: Connection, messages: readonly Insert[]): Promise<unknown[]> {
    const t = this.t;
    const own = knownInTransaction(conn) === false;
    if (own) await conn.query('START TRANSACTION');
    try {
      const ids: unknown[] = [];
      for (const m of messages) {
        const res = await run(conn, m.key === undefined ? this.s.insert([m]) : this.s.insertKeyed(m));
        const id = t.id.generated ? await firstInsertId(conn, res) : (res.insertId ?? 0);
        // A given id: the insert id is 0 where the row went in, the holder's where the key was held.
        ids.push(t.id.generated || (id !== 0 && id !== 0n && id !== '0') ? id : m.columns?.[t.id.column]);
      }
      if (own) await conn.query('COMMIT');
      return ids;
    } catch (err) {
      if (own) await rollbackQuietly(conn);
      throw err;
    }
  }

  /** Counts in one statement; `ready` is what is left of the live rows after in work and delayed. */
  async stats(conn: Connection, now: Date, opts: { inWork?: boolean } = {}): Promise<QueueStats> {
    if (opts.inWork === true) return this.statsInWork(conn, now);
    const r = (await run(conn, this.s.stats(now))).rows[0] ?? {};
    const total = toCount(r.total);
    const inWork = toCount(r.in_work);
    const delayed = toCount(r.delayed);
    return { ready: total - inWork - delayed, delayed, inWork, dead: toCount(r.dead) };
  }

  // -------------------------------------------------------------------------------------------
  // Admin (R-ADM-1, R-ADM-2, R-ADM-3)

  private get admin(): AdminStatements {
    return new AdminStatements(this.s);
  }

  /**
   * {@link stats} with rows in work in every form: leases running at `now`; in the row lock form
   * the due rows a `FOR UPDATE SKIP LOCKED` read (in a READ COMMITTED transaction, rolled back)
   * passes over; in the advisory form the due rows whose `GET_LOCK` name another session holds
   * (`IS_USED_LOCK`; a table with its own lock functions: not seen). And the oldest ready row's
   * `retry_after`.
   */
  async statsInWork(conn: Connection, now: Date): Promise<QueueStats> {
    const base = await this.stats(conn, now);
    const t = this.t;
    const a = this.admin;
    let seen: QueueStats['inWorkSeen'] = t.form === 'lease' ? 'lease' : 'none';
    let inWork = base.inWork;
    if (t.form === 'rowlock') {
      seen = 'locks';
      await begin(conn, { isolation: 'read_committed' });
      try {
        const free = (await run(conn, a.freeDue(now))).rows.length;
        inWork = Math.max(0, base.ready - free);
      } finally {
        await rollbackQuietly(conn);
      }
    } else if (t.form === 'advisory' && t.lock === undefined) {
      seen = 'keys';
      inWork = toCount((await run(conn, a.heldKeys(now))).rows[0]?.n);
    }
    const oldest = (await run(conn, a.oldest(now))).rows[0]?.oldest;
    const at =
      oldest instanceof Date
        ? oldest
        : oldest == null
          ? null
          : new Date(`${String(oldest).replace(' ', 'T')}Z`);
    return {
      ...base,
      ready: t.form === 'lease' ? base.ready : Math.max(0, base.ready - inWork),
      inWork,
      inWorkSeen: seen,
      oldestReadyAgeMs: at === null ? null : Math.max(0, now.getTime() - at.getTime()),
    };
  }

  async list(conn: Connection, q: ListQuery): Promise<Row[]> {
    return (await run(conn, this.admin.list(q))).rows;
  }

  async pick(conn: Connection, q: PickQuery): Promise<Row[]> {
    if (q.ids !== undefined && q.ids.length === 0) return [];
    const st = this.admin.pick(q);
    return st === null ? [] : (await run(conn, st)).rows;
  }

  /**
   * Dead rows back in the queue with the attempt reset: a group's rows get `toGroup`; a dead-letter
   * table's rows are copied back, deleted from it and reset, in the caller's transaction.
   */
  async requeue(
    conn: Connection,
    ids: readonly unknown[],
    opts: { toGroup: string | null },
  ): Promise<unknown[]> {
    const a = this.admin;
    if (this.s.DLQ !== undefined) {
      await run(conn, a.copyBack(ids));
      await run(conn, a.remove(ids, true));
      const reset = a.fresh(ids, opts.toGroup === null ? undefined : { value: opts.toGroup });
      if (reset !== null) await run(conn, reset);
      return [...ids];
    }
    if (this.s.GRP === undefined) return [];
    const reset = a.fresh(ids, { value: opts.toGroup });
    if (reset !== null) await run(conn, reset);
    return [...ids];
  }

  async remove(conn: Connection, ids: readonly unknown[], opts: { dead: boolean }): Promise<unknown[]> {
    await run(conn, this.admin.remove(ids, opts.dead));
    return [...ids];
  }

  async reschedule(conn: Connection, ids: readonly unknown[], at: Date): Promise<unknown[]> {
    const st = this.admin.reschedule(ids, at);
    if (st === null) return [];
    await run(conn, st);
    return [...ids];
  }
}

// ---------------------------------------------------------------------------------------------
// The dialect

/**
 * The MySQL/MariaDB dialect. Capabilities: every claim form; all four isolation levels; no SQLite
 * modes; several connections at once; the FIFO guard; transactional mode; one lease claim at a
 * time per table (R-POOL-4: a lease claim's transaction holds its locked rows until it commits);
 * time columns of kind `timestamp`.
 */
export function createMysqlDialect(opts: MysqlDialectOptions = {}): Dialect {
  return {
    name: 'mysql',
    capabilities: capabilities({
      forms: ['rowlock', 'lease', 'advisory'],
      isolationLevels: ['read_uncommitted', 'read_committed', 'repeatable_read', 'serializable'],
      transactionModes: [],
      multipleConnections: true,
      fifoGuard: true,
      transactional: true,
      oneClaimAtATime: false,
      oneLeaseClaimAtATime: true,
      // One claim at a time already: a claim takes a row per worker and the extra rows wait,
      // leased, in the subscription, so the claim transaction runs per batch, not per row.
      claimAhead: true,
      timeKinds: ['timestamp'],
    }),
    async checkServer(conn) {
      let version = opts.serverVersion;
      if (version === undefined) {
        const { rows } = await conn.query<Row>('SELECT VERSION() AS `version`');
        version = text(rows[0]?.version);
      }
      checkVersion(version);
      return { version };
    },
    describeTable,
    prepare: (table, prepareOpts = {}) => withSchedules(new MysqlTableOps(table, prepareOpts), table),
    begin,
    async commit(conn) {
      await conn.query('COMMIT');
    },
    async rollback(conn) {
      await conn.query('ROLLBACK');
    },
    async savepoint(conn, name) {
      await conn.query(`SAVEPOINT ${quoteIdent(validateIdentifier(name, 'savepoint'))}`);
    },
    async rollbackToSavepoint(conn, name) {
      await conn.query(`ROLLBACK TO SAVEPOINT ${quoteIdent(validateIdentifier(name, 'savepoint'))}`);
    },
    classifyError,
    ddl: (table, ddlOpts = {}) => [
      ...ddl(table, ddlOpts),
      ...(ddlOpts.schedules === undefined ? [] : ticksDdl(table, ddlOpts.schedules)),
    ],
  };
}

/** The MySQL/MariaDB dialect that asks the server its version (no `serverVersion` override). */
export const mysqlDialect: Dialect = createMysqlDialect();
