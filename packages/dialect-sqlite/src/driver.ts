import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Connection, Pool, QueryResult, Row } from '@sqlinbox/core';
import Database from 'better-sqlite3';
import { attachFile, detachFile, type FileState } from './file.js';

/** How `sqlite(..)` opens its database file. */
export interface SqliteOptions {
  /** Path of the database file, created when missing. `:memory:` (or '') opens a private database of one connection. */
  readonly filename: string;
  /** Most handles the pool opens on the file, lazily. Default 4 (1 for an in-memory database). */
  readonly connections?: number;
  /**
   * SQLite's `busy_timeout` in milliseconds: how long a statement waits on another process's lock.
   * It blocks the event loop while it waits, so keep it small. Default 100.
   */
  readonly busyTimeoutMs?: number;
  /**
   * How long a writer waits, without blocking, for another connection of this process to end its
   * write transaction before failing with `SQLITE_BUSY`. Default 30000.
   */
  readonly writeWaitMs?: number;
}

const DEFAULT_CONNECTIONS = 4;
const DEFAULT_BUSY_TIMEOUT_MS = 100;
const DEFAULT_WRITE_WAIT_MS = 30_000;
/** Distinct statements each handle keeps prepared; claims and settlements reuse a handful. */
const STATEMENT_CACHE_SIZE = 200;
/** BEGIN and SAVEPOINT count as read-only to SQLite, yet they open the transaction that will write. */
const STARTS_TRANSACTION = /^\s*(?:BEGIN|SAVEPOINT)\b/i;

let nextConnection = 0;
let nextMemory = 0;

/** Module-private: the pool closes a handle, the dialect reads its file state; users do neither. */
const closeHandle = Symbol('closeHandle');
const fileStates = new WeakMap<SqliteConnection, FileState>();

type Statement = Database.Statement<unknown[], Row>;

/**
 * One better-sqlite3 handle as a core `Connection`. Statements on one connection run one after
 * another, as on a network driver's connection.
 */
export class SqliteConnection implements Connection {
  /** Unique in this process: SQLite has no server session id. */
  readonly id = `sqlite:${process.pid}:${++nextConnection}`;
  private readonly statements = new Map<string, Statement>();
  private tail: Promise<unknown> = Promise.resolve();
  private holdsWriteLock = false;
  private closed = false;

  /** Opened by {@link SqlitePool}; not constructed by hand. */
  constructor(
    private readonly db: Database.Database,
    private readonly file: FileState,
    private readonly writeWaitMs: number,
  ) {
    fileStates.set(this, file);
  }

  /** Whether the handle is open (false once destroyed or its pool closed). */
  get open(): boolean {
    return !this.closed && this.db.open;
  }

  /** Whether a transaction is open on this handle. */
  get inTransaction(): boolean {
    return this.db.open && this.db.inTransaction;
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
    this.closed = true;
    try {
      if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // Closing rolls back anyway; the explicit rollback only makes it happen before the release below.
    }
    if (this.db.open) this.db.close();
    this.settleWriteLock();
    this.file.keys.releaseAll(this.id);
    detachFile(this.file);
  }

  private async execute(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
    // better-sqlite3 answers at once, so a loop of statements would run on resolved promises alone
    // and starve timers and I/O; a network driver yields on every statement, and so does this one.
    await yieldToEventLoop();
    const stmt = this.prepare(sql);
    const values = params.map(toSqliteValue);
    // In WAL mode a read never waits on the writer, so only writes queue for the file's lock.
    if (!this.holdsWriteLock && (!stmt.readonly || STARTS_TRANSACTION.test(sql))) {
      await this.file.writeLock.acquire(this.id, this.writeWaitMs);
      this.holdsWriteLock = true;
    }
    try {
      return step(stmt, values);
    } finally {
      this.settleWriteLock();
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
    const stmt = this.db.prepare<unknown[], Row>(sql);
    this.statements.set(sql, stmt);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.statements.keys().next().value;
      if (oldest !== undefined) this.statements.delete(oldest);
    }
    return stmt;
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function step(stmt: Statement, values: unknown[]): QueryResult<Row> {
  if (stmt.reader) {
    const rows = stmt.all(...values);
    return { rows, rowCount: rows.length };
  }
  return { rows: [], rowCount: stmt.run(...values).changes };
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
 * A core `Pool` of better-sqlite3 handles on one file. Handles open lazily, up to
 * `connections`, each in WAL mode with `synchronous = NORMAL` and a small `busy_timeout`.
 */
export class SqlitePool implements Pool {
  /** The most handles the pool opens. */
  readonly size: number;
  /** The path as given. */
  readonly filename: string;
  private readonly busyTimeoutMs: number;
  private readonly writeWaitMs: number;
  private readonly memory: boolean;
  private readonly idle: SqliteConnection[] = [];
  private readonly live = new Set<SqliteConnection>();
  private readonly waiting: Waiting[] = [];
  private path: string | undefined;
  private ended = false;

  /**
   * Opens nothing yet: handles open on first use. `filenameOrOptions` is a path or
   * {@link SqliteOptions} (default 4 connections, busy_timeout 100 ms, writers wait up to 30 s).
   */
  constructor(filenameOrOptions: string | SqliteOptions) {
    const opts = typeof filenameOrOptions === 'string' ? { filename: filenameOrOptions } : filenameOrOptions;
    this.filename = opts.filename;
    this.memory = opts.filename === '' || opts.filename === ':memory:';
    // Each handle on ':memory:' would be a database of its own.
    this.size = this.memory ? 1 : positiveInt(opts.connections ?? DEFAULT_CONNECTIONS, 'connections');
    this.busyTimeoutMs = nonNegativeInt(opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, 'busyTimeoutMs');
    this.writeWaitMs = opts.writeWaitMs ?? DEFAULT_WRITE_WAIT_MS;
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
    const db = new Database(this.filename, { timeout: this.busyTimeoutMs });
    try {
      // WAL lets reads run beside the one writer; NORMAL is durable across process crashes in WAL.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      this.path ??= this.memory ? `:memory:#${++nextMemory}` : realpathSync(resolve(this.filename));
    } catch (err) {
      db.close();
      throw err;
    }
    const conn = new SqliteConnection(db, attachFile(this.path), this.writeWaitMs);
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

/** The file state of a connection from `sqlite(..)`; anything else cannot hold SQLite advisory keys. */
export function fileOf(conn: Connection): FileState {
  const state = conn instanceof SqliteConnection ? fileStates.get(conn) : undefined;
  if (state !== undefined) return state;
  throw new TypeError(`sqlinbox: connection ${conn.id} is not a connection of sqlite(..)`);
}
