import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Connection, Pool, QueryResult, Row } from '@sqlinbox/core';
import { classifyError } from './classify.js';
import { attachFile, detachFile, type FileState } from './file.js';

/**
 * A prepared statement of a synchronous SQLite driver: what node:sqlite's `StatementSync`,
 * better-sqlite3's `Statement` and libsql's better-sqlite3-compatible one share.
 */
export interface SqliteStatementLike {
  /** Runs the statement and answers its rows. */
  all(...params: unknown[]): unknown[];
  /** Runs the statement and answers how many rows it changed. */
  run(...params: unknown[]): {
    /** The rows the statement inserted, updated or deleted. */
    readonly changes: number | bigint;
  };
  /** better-sqlite3, libsql: whether the statement answers rows. */
  readonly reader?: boolean;
  /** better-sqlite3, libsql: whether the statement writes nothing. */
  readonly readonly?: boolean;
  /** node:sqlite: the columns the statement answers (none when it answers no rows). */
  columns?(): readonly unknown[];
}

/**
 * One open handle of a synchronous SQLite driver: node:sqlite's `DatabaseSync`, a better-sqlite3
 * `Database`, or an object with the same methods (libsql's better-sqlite3-compatible API).
 * Typed by shape: the package imports no driver.
 */
export interface SqliteDatabaseLike {
  /** Compiles one statement (placeholders `?`). */
  prepare(sql: string): SqliteStatementLike;
  /** Runs SQL without parameters (transaction statements, pragmas, DDL). */
  exec(sql: string): unknown;
  /** Closes the handle. */
  close(): unknown;
  /** better-sqlite3, libsql: whether a transaction is open. */
  readonly inTransaction?: boolean;
  /** node:sqlite (22.16 and later): whether a transaction is open. */
  readonly isTransaction?: boolean;
  /** better-sqlite3, libsql: the file name the handle was opened with. */
  readonly name?: string;
  /** better-sqlite3, libsql: whether the database is in memory. */
  readonly memory?: boolean;
  /** node:sqlite: the file's absolute path, or null in memory. */
  location?(): string | null;
}

/**
 * What opens one handle on a file: a driver's class, called with `new` and the file name
 * (node:sqlite's `DatabaseSync`, better-sqlite3's `Database`, libsql's `Database`), or a function
 * of the file name that answers an open handle.
 */
export type SqliteDriver =
  | (new (
      filename: string,
    ) => SqliteDatabaseLike)
  | ((filename: string) => SqliteDatabaseLike);

/** How `sqlite(..)` opens its database file. */
export interface SqliteOptions {
  /** Path of the database file, created when missing. `:memory:` (or '') opens a private database of one connection. */
  readonly filename: string;
  /**
   * What opens each handle: a driver's class (better-sqlite3's `Database`, libsql's) or a function
   * of the file name. Default: Node's built-in `node:sqlite` (`DatabaseSync`), nothing to install.
   */
  readonly driver?: SqliteDriver;
  /** Most handles the pool opens on the file, lazily. Default 4 (1 for an in-memory database). */
  readonly connections?: number;
  /**
   * SQLite's `busy_timeout` in milliseconds: how long a statement waits on another process's lock.
   * It blocks the event loop while it waits, so keep it small. Default 100.
   */
  readonly busyTimeoutMs?: number;
  /**
   * How long a writer waits, without blocking, for another connection of this process, or another
   * process past `busy_timeout`, to end its write transaction before failing with `SQLITE_BUSY`.
   * Default 30000.
   */
  readonly writeWaitMs?: number;
  /**
   * SQLite's `journal_size_limit` in bytes: what the WAL file keeps of its size when a checkpoint
   * lets it start over. A read transaction held open (a report, a backup) keeps checkpoints from
   * reaching the WAL's end, and the file grows with every write meanwhile (1.9 GB in two minutes
   * at 32,000 jobs/s); without a limit it keeps that size on disk until the last handle closes.
   * -1: no limit (SQLite's default). Default 64 MiB.
   */
  readonly journalSizeLimit?: number;
}

const DEFAULT_CONNECTIONS = 4;
/** The WAL file's size kept after a reset, in bytes (as Rails sets it for SQLite). */
const DEFAULT_JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;
const DEFAULT_BUSY_TIMEOUT_MS = 100;
const DEFAULT_WRITE_WAIT_MS = 30_000;
/** Distinct statements each handle keeps prepared; claims and settlements reuse a handful. */
const STATEMENT_CACHE_SIZE = 200;
/** The longest pause between two tries of a statement another process's write lock turned away. */
const MAX_BUSY_PAUSE_MS = 20;
/** BEGIN and SAVEPOINT count as read-only to SQLite, yet they open the transaction that will write. */
const STARTS_TRANSACTION = /^\s*(?:BEGIN|SAVEPOINT)\b/i;
/**
 * For a driver that does not tell whether a statement writes (node:sqlite): statements that cannot
 * write, as SQLite's `sqlite3_stmt_readonly` would say. Anything else counts as a write, which
 * only makes it wait for the process's write lock.
 */
const READS_ONLY = /^\s*(?:SELECT|VALUES|EXPLAIN|COMMIT|END|ROLLBACK|RELEASE)\b/i;
const WITH = /^\s*WITH\b/i;
const WRITES = /\b(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;
/** Statements that answer rows whatever they are: a RETURNING clause anywhere. */
const RETURNING = /\bRETURNING\b/i;
/** Statements that start by answering rows. */
const ROWS = /^\s*(?:SELECT|VALUES|PRAGMA|EXPLAIN)\b/i;

let nextConnection = 0;
let nextMemory = 0;

/** Module-private: the pool closes a handle, the dialect reads its file state; users do neither. */
const closeHandle = Symbol('closeHandle');
const fileStates = new WeakMap<SqliteConnection, FileState>();

/** A statement prepared once per handle, with what the driver tells about it. */
interface Statement {
  readonly stmt: SqliteStatementLike;
  /** Answers rows (SELECT, RETURNING). */
  readonly reader: boolean;
  /** Writes nothing. */
  readonly readonly: boolean;
  /**
   * node:sqlite reads text back only up to its first NUL (U+0000): such a value would be stored
   * and then handed to the handler cut short, so it is refused before it is bound.
   */
  readonly refusesNul: boolean;
}

/**
 * One SQLite driver handle as a core `Connection`. Statements on one connection run one after
 * another, as on a network driver's connection.
 */
export class SqliteConnection implements Connection {
  /** Unique in this process: SQLite has no server session id. */
  readonly id = `sqlite:${process.pid}:${++nextConnection}`;
  private readonly statements = new Map<string, Statement>();
  private tail: Promise<unknown> = Promise.resolve();
  private holdsWriteLock = false;
  private closed = false;

  /**
   * Opened by {@link SqlitePool}; not constructed by hand. `owned` is false for the handle the user
   * passed to `sqlite(..)`: the connection rolls it back but never closes it.
   */
  constructor(
    private readonly db: SqliteDatabaseLike,
    private readonly file: FileState,
    private readonly waits: { readonly writeWaitMs: number; readonly busyTimeoutMs: number },
    private readonly owned = true,
  ) {
    fileStates.set(this, file);
  }

  /** Whether the handle is open (false once destroyed or its pool closed). */
  get open(): boolean {
    return !this.closed;
  }

  /** Whether a transaction is open on this handle. */
  get inTransaction(): boolean {
    return !this.closed && inTransaction(this.db);
  }

  /** Runs one statement; readers (SELECT, RETURNING) answer their rows, others the rows changed. */
  query<R = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const run = this.tail.then(() => this.execute(sql, params));
    this.tail = run.catch(() => undefined);
    return run as Promise<QueryResult<R>>;
  }

  /** Rolls back what is open, closes the handle and drops its write lock and keys. */
  [closeHandle](): void {
    if (this.closed) return;
    try {
      if (inTransaction(this.db)) this.db.exec('ROLLBACK');
    } catch {
      // Closing rolls back anyway; the explicit rollback only makes it happen before the release below.
    }
    this.closed = true;
    if (this.owned) {
      try {
        this.db.close();
      } catch {
        // Already closed by its driver: nothing left to release there.
      }
    }
    this.settleWriteLock();
    this.file.keys.releaseAll(this.id);
    detachFile(this.file);
  }

  private async execute(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
    // better-sqlite3 answers at once, so a loop of statements would run on resolved promises alone
    // and starve timers and I/O; a network driver yields on every statement, and so does this one.
    await yieldToEventLoop();
    if (this.closed) throw new TypeError(`sqlinbox: the database connection is not open (${this.id})`);
    const stmt = this.prepare(sql);
    const values = params.map(toSqliteValue);
    const until = Date.now() + this.waits.writeWaitMs;
    // In WAL mode a read never waits on the writer, so only writes queue for the file's lock.
    if (!this.holdsWriteLock && (!stmt.readonly || STARTS_TRANSACTION.test(sql))) {
      await this.file.writeLock.acquire(this.id, this.waits.writeWaitMs);
      this.holdsWriteLock = true;
    }
    try {
      return await this.stepOutsideBusy(stmt, values, until);
    } finally {
      this.settleWriteLock();
    }
  }

  /**
   * Runs the statement; where another process holds the file's write lock past `busy_timeout`
   * and the statement began no transaction (a `BEGIN IMMEDIATE`, or a write in autocommit: it did
   * nothing), tries it again after pauses that leave the event loop free (`busy_timeout` 0 on the
   * handle meanwhile), until `until` (`writeWaitMs` after it was asked for). A process
   * descheduled inside its write transaction (a loaded machine) would otherwise fail this one's
   * ack after 100 ms, and the row would wait out its lease to run again. A statement inside a
   * transaction fails at once: SQLite may have rolled the transaction back, and only its owner
   * can begin it again.
   */
  private async stepOutsideBusy(
    stmt: Statement,
    values: unknown[],
    until: number,
  ): Promise<QueryResult<Row>> {
    const outside = !inTransaction(this.db);
    let polling = false;
    try {
      for (let pause = 1; ; pause = Math.min(pause * 2, MAX_BUSY_PAUSE_MS)) {
        try {
          return step(stmt, values);
        } catch (err) {
          if (!outside || inTransaction(this.db) || this.closed || !isBusy(err) || Date.now() + pause > until)
            throw err;
        }
        if (!polling) {
          this.db.exec('PRAGMA busy_timeout = 0');
          polling = true;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } finally {
      if (polling && !this.closed) this.db.exec(`PRAGMA busy_timeout = ${this.waits.busyTimeoutMs}`);
    }
  }

  /** Keeps the write lock exactly while a transaction is open on the handle. */
  private settleWriteLock(): void {
    if (!this.holdsWriteLock || this.inTransaction) return;
    this.holdsWriteLock = false;
    this.file.writeLock.release(this.id);
  }

  private prepare(sql: string): Statement {
    const cached = this.statements.get(sql);
    if (cached !== undefined) {
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const stmt = describeStatement(this.db.prepare(sql), sql);
    this.statements.set(sql, stmt);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    return stmt;
  }
}

/** SQLite's busy error (`SQLITE_BUSY*`, `SQLITE_LOCKED*`), as either driver reports it. */
function isBusy(err: unknown): boolean {
  return classifyError(err) === 'lock_timeout';
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether a transaction is open, by whichever property the driver has. */
function inTransaction(db: SqliteDatabaseLike): boolean {
  return (db.inTransaction ?? db.isTransaction) === true;
}

/** What the driver tells about a statement, or what its text says where the driver tells nothing. */
function describeStatement(stmt: SqliteStatementLike, sql: string): Statement {
  let reader: boolean;
  if (typeof stmt.reader === 'boolean') reader = stmt.reader;
  else if (typeof stmt.columns === 'function') reader = stmt.columns().length > 0;
  else
    throw new TypeError(
      'sqlinbox: the SQLite driver tells neither statement.reader (better-sqlite3) nor statement.columns() (node:sqlite)',
    );
  const readonly =
    typeof stmt.readonly === 'boolean'
      ? stmt.readonly
      : READS_ONLY.test(sql) || (WITH.test(sql) && !WRITES.test(sql));
  return { stmt, reader, readonly, refusesNul: typeof stmt.reader !== 'boolean' };
}

function step({ stmt, reader, refusesNul }: Statement, values: unknown[]): QueryResult<Row> {
  if (refusesNul && values.some((v) => typeof v === 'string' && v.includes('\u0000'))) {
    throw Object.assign(
      new Error(
        'sqlinbox: node:sqlite cannot hold a text value with a NUL character (U+0000): it reads the text back cut at the NUL. ' +
          'Nothing was written; use a bytes payload, or better-sqlite3 as the driver',
      ),
      { code: 'SQLINBOX_NUL' },
    );
  }
  if (reader) {
    const rows = stmt.all(...values).map(toRow);
    return { rows, rowCount: rows.length };
  }
  return { rows: [], rowCount: Number(stmt.run(...values).changes) };
}

/**
 * A row as better-sqlite3 answers it, whatever the driver: a plain object (node:sqlite's have no
 * prototype) with BLOBs as `Buffer` (node:sqlite's are `Uint8Array`).
 */
function toRow(raw: unknown): Row {
  const row = raw as Record<string, unknown>;
  if (Object.getPrototypeOf(row) !== null) return row;
  const plain: Record<string, unknown> = {};
  for (const key in row) {
    const v = row[key];
    plain[key] =
      v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
  }
  return plain;
}

/**
 * Converts a bound value to one SQLite stores: Date as epoch milliseconds, boolean as 0/1,
 * undefined as NULL. Whole numbers bind as integers: better-sqlite3 binds every number as REAL,
 * which a column without affinity would keep (and `CAST(.. AS TEXT)` would render as `7.0`).
 */
export function toSqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw new TypeError('cannot bind an invalid Date');
    return BigInt(ms);
  }
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return value;
}

interface Waiting {
  readonly resolve: (conn: SqliteConnection) => void;
  readonly reject: (err: Error) => void;
}

/**
 * A core `Pool` of SQLite handles on one file, opened through node:sqlite (default), better-sqlite3
 * or a compatible driver. Handles open lazily, up to `connections`, each in WAL mode with
 * `synchronous = NORMAL`, a small `busy_timeout` and a `journal_size_limit`.
 */
export class SqlitePool implements Pool {
  /** The most handles the pool opens. */
  readonly size: number;
  /** The path as given. */
  readonly filename: string;
  private readonly busyTimeoutMs: number;
  private readonly writeWaitMs: number;
  private readonly journalSizeLimit: number;
  private readonly memory: boolean;
  private readonly idle: SqliteConnection[] = [];
  private readonly live = new Set<SqliteConnection>();
  private readonly waiting: Waiting[] = [];
  /** Opens a further handle; null when only the handle the user passed may be used. */
  private readonly driver: SqliteDriver | null;
  /** The handle the user passed, until the pool first opens a connection on it. */
  private given: SqliteDatabaseLike | undefined;
  private path: string | undefined;
  private ended = false;

  /**
   * Opens nothing yet: handles open on first use. `source` is a path, {@link SqliteOptions}
   * (default node:sqlite, 4 connections, busy_timeout 100 ms, writers wait up to 30 s, the WAL
   * cut back to 64 MiB at its resets), or an open
   * handle (node:sqlite `DatabaseSync`, better-sqlite3 `Database`, libsql): the pool uses that handle
   * first and opens more with the handle's class on the same file (4 in all); a handle on an
   * in-memory database is the pool's only one. The pool never closes a handle it was given.
   */
  constructor(source: string | SqliteOptions | SqliteDatabaseLike) {
    let opts: SqliteOptions;
    if (typeof source === 'string') opts = { filename: source };
    else if (isHandle(source)) {
      this.given = source;
      const filename = fileOfHandle(source);
      opts = { filename: filename ?? ':memory:' };
    } else opts = source;
    this.filename = opts.filename;
    this.memory = opts.filename === '' || opts.filename === ':memory:';
    this.driver =
      this.given === undefined ? (opts.driver ?? nodeSqlite) : this.memory ? null : classOf(this.given);
    // Each handle on ':memory:' would be a database of its own.
    this.size = this.memory ? 1 : positiveInt(opts.connections ?? DEFAULT_CONNECTIONS, 'connections');
    this.busyTimeoutMs = nonNegativeInt(opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, 'busyTimeoutMs');
    this.writeWaitMs = opts.writeWaitMs ?? DEFAULT_WRITE_WAIT_MS;
    const limit = opts.journalSizeLimit ?? DEFAULT_JOURNAL_SIZE_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < -1)
      throw new RangeError(
        `journalSizeLimit must be a whole number of bytes, or -1 for no limit, got ${limit}`,
      );
    this.journalSizeLimit = limit;
  }

  /** Idle handles plus room to open new ones. */
  spare(): number {
    return this.idle.length + (this.size - this.live.size);
  }

  /** An idle handle, a new one while there is room, else the next one released. */
  async acquire(): Promise<SqliteConnection> {
    return (
      this.takeNow() ??
      new Promise<SqliteConnection>((resolve, reject) => this.waiting.push({ resolve, reject }))
    );
  }

  /** An idle handle or a new one while there is room; null when the pool is exhausted. */
  async tryAcquire(): Promise<SqliteConnection | null> {
    return this.takeNow();
  }

  /** Synchronous, so a waiter is queued in the same tick that found the pool exhausted. */
  private takeNow(): SqliteConnection | null {
    this.assertOpen();
    const idle = this.idle.pop();
    if (idle !== undefined) return idle;
    return this.live.size < this.size ? this.open() : null;
  }

  /**
   * Returns a handle. One still inside a transaction would hold the file's write lock for good, so
   * it is closed instead (its transaction rolls back) and a warning says so.
   */
  release(conn: Connection): void {
    const c = this.own(conn);
    if (c === undefined || this.idle.includes(c)) return;
    if (c.inTransaction) {
      process.emitWarning(
        `sqlinbox: connection ${c.id} was released inside a transaction; closed it instead`,
      );
      this.drop(c);
      return;
    }
    const next = this.waiting.shift();
    if (next !== undefined) next.resolve(c);
    else this.idle.push(c);
  }

  /** Closes a handle: its transaction rolls back, its write lock and advisory keys go. */
  async destroy(conn: Connection): Promise<void> {
    const c = this.own(conn);
    if (c !== undefined) this.drop(c);
  }

  /** Closes every handle the pool opened; waiters fail. */
  async close(): Promise<void> {
    this.ended = true;
    for (const w of this.waiting.splice(0))
      w.reject(new Error(`sqlinbox: the SQLite pool on ${this.filename} is closed`));
    for (const c of this.live) c[closeHandle]();
    this.live.clear();
    this.idle.length = 0;
  }

  private drop(c: SqliteConnection): void {
    c[closeHandle]();
    this.live.delete(c);
    const at = this.idle.indexOf(c);
    if (at >= 0) this.idle.splice(at, 1);
    this.serveWaiter();
  }

  /** A handle closed made room: open one for the longest waiter. */
  private serveWaiter(): void {
    if (this.ended || this.live.size >= this.size) return;
    const next = this.waiting.shift();
    if (next === undefined) return;
    try {
      next.resolve(this.open());
    } catch (err) {
      next.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private open(): SqliteConnection {
    const given = this.given;
    this.given = undefined;
    const db = given ?? openHandle(this.driver, this.filename);
    try {
      if (db.inTransaction === undefined && db.isTransaction === undefined)
        throw new TypeError(
          'sqlinbox: the SQLite handle tells no transaction state (inTransaction or isTransaction); ' +
            'node:sqlite has isTransaction from Node 22.16',
        );
      db.exec(`PRAGMA busy_timeout = ${this.busyTimeoutMs}`);
      // WAL lets reads run beside the one writer; NORMAL is durable across process crashes in WAL.
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      // A WAL grown past this while a reader held it back is cut back to it at its next reset.
      db.exec(`PRAGMA journal_size_limit = ${this.journalSizeLimit}`);
      this.path ??= this.memory ? `:memory:#${++nextMemory}` : realpathSync(resolve(this.filename));
    } catch (err) {
      if (given === undefined) db.close();
      throw err;
    }
    const waits = { writeWaitMs: this.writeWaitMs, busyTimeoutMs: this.busyTimeoutMs };
    const conn = new SqliteConnection(db, attachFile(this.path), waits, given === undefined);
    this.live.add(conn);
    return conn;
  }

  /** The open handle with `conn`'s id (a wrapper `{ id, query }` finds the handle it wraps). */
  private own(conn: Connection): SqliteConnection | undefined {
    for (const c of this.live) if (c.id === conn.id) return c;
    return undefined;
  }

  private assertOpen(): void {
    if (this.ended) throw new Error(`sqlinbox: the SQLite pool on ${this.filename} is closed`);
  }
}

/** Whether `x` is an open driver handle rather than {@link SqliteOptions}. */
function isHandle(x: SqliteOptions | SqliteDatabaseLike): x is SqliteDatabaseLike {
  return typeof (x as { prepare?: unknown }).prepare === 'function';
}

/** The file a handle has open, or undefined in memory. */
function fileOfHandle(db: SqliteDatabaseLike): string | undefined {
  if (typeof db.location === 'function') return db.location() ?? undefined; // node:sqlite
  if (db.memory === true || db.name === undefined || db.name === '' || db.name === ':memory:')
    return undefined;
  return db.name;
}

/** The class a handle was made by, which opens further handles on its file. */
function classOf(db: SqliteDatabaseLike): SqliteDriver | null {
  const ctor = (Object.getPrototypeOf(db) as { constructor?: unknown } | null)?.constructor;
  return typeof ctor === 'function' && ctor !== Object ? (ctor as SqliteDriver) : null;
}

/** node:sqlite's class, loaded on first use so better-sqlite3 users never load it. */
function nodeSqlite(filename: string): SqliteDatabaseLike {
  const mod = loadNodeSqlite() as { DatabaseSync?: new (filename: string) => SqliteDatabaseLike } | undefined;
  if (mod?.DatabaseSync === undefined)
    throw new Error(
      `sqlinbox: Node ${process.version} has no node:sqlite; use Node 22.16 or later, ` +
        "or pass a driver: sqlite({ filename, driver: Database }) with better-sqlite3's Database",
    );
  return new mod.DatabaseSync(filename);
}

/**
 * `node:sqlite`, without the one `ExperimentalWarning` Node prints when a process first loads it
 * (Node 22 and 24): the adapter chose that driver, not the service, and every process that opened a
 * file printed it. Only that warning, and only while this load runs, is held back: every other
 * warning, the service's own included, goes through `process.emitWarning` as before. A service that
 * loads `node:sqlite` itself before the adapter does still gets Node's warning.
 */
export function loadNodeSqlite(): unknown {
  if (process.getBuiltinModule === undefined) return undefined;
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && text.startsWith('SQLite is an experimental feature')) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}

/** Opens a handle through a driver's class or function. */
function openHandle(driver: SqliteDriver | null, filename: string): SqliteDatabaseLike {
  if (driver === null)
    throw new Error(
      `sqlinbox: the in-memory SQLite handle given to sqlite(..) was closed; a new one would be another database`,
    );
  const isClass = typeof driver.prototype === 'object' && typeof driver.prototype?.prepare === 'function';
  return isClass
    ? new (driver as new (filename: string) => SqliteDatabaseLike)(filename)
    : (driver as (filename: string) => SqliteDatabaseLike)(filename);
}

function positiveInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`${what} must be a whole number of at least 1, got ${n}`);
  return n;
}

function nonNegativeInt(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${what} must be a whole number of at least 0, got ${n}`);
  return n;
}

/**
 * A connection of a SQLite adapter of your own (another driver, e.g. the asynchronous `sqlite3`)
 * that reuses this dialect's statements: it names the shared state of its database file, from
 * {@link attachSqliteFile}, where the advisory form keeps its keys and writers queue for the file.
 */
export interface SqliteFileConnection extends Connection {
  /** The file's shared state in this process ({@link attachSqliteFile}). */
  readonly sqliteFile: FileState;
}

/**
 * The process-wide state of one database file (its write lock and its advisory keys), for an
 * adapter of your own on another SQLite driver: every connection the adapter opens on the file
 * names it as `sqliteFile` (see {@link SqliteFileConnection}), and gives it back with
 * {@link detachSqliteFile} when it closes. Adapters on the same file in one process, this package's
 * `sqlite(..)` included, share it, so their writers queue for each other and their keys exclude
 * each other. `filename` as the driver opened it (the file must exist: open a handle first);
 * `':memory:'` gets a state of its own on every call.
 */
export function attachSqliteFile(filename: string): FileState {
  const path =
    filename === '' || filename === ':memory:' ? `:memory:#${++nextMemory}` : realpathSync(resolve(filename));
  return attachFile(path);
}

/** A connection on the file closed: drops its keys, and the state once no connection uses the file. */
export function detachSqliteFile(state: FileState, connectionId: string): void {
  state.keys.releaseAll(connectionId);
  if (state.writeLock.owner === connectionId) state.writeLock.release(connectionId);
  detachFile(state);
}

/**
 * The file state of a connection: one of `sqlite(..)`, or one of an adapter of your own that names
 * its file state as `sqliteFile` ({@link SqliteFileConnection}).
 */
export function fileOf(conn: Connection): FileState {
  const state =
    conn instanceof SqliteConnection
      ? fileStates.get(conn)
      : (conn as Partial<SqliteFileConnection>).sqliteFile;
  if (state !== undefined && typeof state.keys?.lock === 'function') return state;
  throw new TypeError(
    `sqlinbox: connection ${conn.id} is not a connection of sqlite(..) and names no sqliteFile: ` +
      'a connection of an adapter of your own names its file state, sqliteFile = attachSqliteFile(filename) ' +
      '(from @sqlinbox/dialect-sqlite), so the advisory form can keep its keys',
  );
}

/** What one statement does, by its text: what an adapter on another driver needs to know to run it. */
export interface SqliteStatementKind {
  /**
   * It answers rows (a `SELECT`, a `WITH` that only reads, `VALUES`, `PRAGMA`, or any statement with
   * `RETURNING`): run it with the driver's "all rows" call; its row count is the number of rows.
   * Otherwise run it with the driver's "run" call and read the rows it changed.
   */
  readonly returnsRows: boolean;
  /**
   * It writes, or begins a transaction: take the file's write lock before it
   * (`sqliteFile.writeLock.acquire(connectionId, waitMs)`), and release it once no transaction is
   * open on the connection.
   */
  readonly needsWriteLock: boolean;
}

/**
 * Tells what a statement of this dialect does from its text, for a driver that does not say (the
 * asynchronous `sqlite3` answers rows from `all` and the change count from `run`, never both).
 * Every statement the SQLite dialect sends is told right: the conformance suite passes on an adapter
 * that decides by it alone.
 */
export function sqliteStatementKind(sql: string): SqliteStatementKind {
  const readonly = READS_ONLY.test(sql) || (WITH.test(sql) && !WRITES.test(sql));
  return {
    returnsRows: RETURNING.test(sql) || ROWS.test(sql) || (WITH.test(sql) && !WRITES.test(sql)),
    needsWriteLock: !readonly || STARTS_TRANSACTION.test(sql),
  };
}
