/**
 * sqlinbox on the asynchronous `sqlite3` driver, reusing the SQLite dialect of
 * `@sqlinbox/dialect-sqlite` through its public API: `createSqliteDialect()` for every statement,
 * `attachSqliteFile()` for the file's write lock and advisory keys, `sqliteStatementKind()` to tell
 * a statement that answers rows from one that changes them (this driver answers one or the other,
 * never both), `toSqliteValue()` for what a value binds as. Nothing of the dialect is patched.
 */
import type { Adapter, Connection, Pool, QueryResult, Row } from '@sqlinbox/core';
import {
  attachSqliteFile,
  createSqliteDialect,
  detachSqliteFile,
  type SqliteFileConnection,
  type SqliteFileState,
  sqliteStatementKind,
  toSqliteValue,
} from '@sqlinbox/dialect-sqlite';
import sqlite3 from 'sqlite3';

/** Options of {@link sqlite3Adapter}. */
export interface Sqlite3Options {
  /** Handles the pool opens on the file (default 4). */
  readonly connections?: number;
  /** How long a writer of this process waits for another's transaction, in ms (default 30,000). */
  readonly writeWaitMs?: number;
  /** SQLite's busy_timeout for writers of other processes, in ms (default 5,000). */
  readonly busyTimeoutMs?: number;
  /** Reported by `checkServer` instead of asking SQLite (the conformance suite sets it). */
  readonly serverVersion?: string | undefined;
}

let nextId = 0;

/** One `sqlite3.Database` handle as a sqlinbox connection. */
class Sqlite3Connection implements SqliteFileConnection {
  readonly id = `sqlite3:${process.pid}:${++nextId}`;
  sqliteFile!: SqliteFileState;
  private tail: Promise<unknown> = Promise.resolve();
  // sqlite3 cannot say whether a transaction is open: the statements that open and end one tell.
  private inTransaction = false;
  private holdsWriteLock = false;
  private closed = false;
  private readonly db: sqlite3.Database;
  private readonly writeWaitMs: number;

  constructor(db: sqlite3.Database, writeWaitMs: number) {
    this.db = db;
    this.writeWaitMs = writeWaitMs;
  }

  /** Opens the handle in WAL mode, with a busy timeout, and joins the file's shared state. */
  static async open(filename: string, o: Required<Omit<Sqlite3Options, 'serverVersion'>>) {
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const d = new sqlite3.Database(filename, (err) => (err ? reject(err) : resolve(d)));
    });
    const conn = new Sqlite3Connection(db, o.writeWaitMs);
    await conn.raw('all', `PRAGMA busy_timeout = ${o.busyTimeoutMs}`, []);
    await conn.raw('all', 'PRAGMA journal_mode = WAL', []);
    conn.sqliteFile = attachSqliteFile(filename);
    return conn;
  }

  query<R = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const run = this.tail.then(() => this.execute(sql, params));
    this.tail = run.catch(() => undefined);
    return run as Promise<QueryResult<R>>;
  }

  private async execute(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
    if (this.closed) throw new Error(`sqlite3 connection ${this.id} is closed`);
    const kind = sqliteStatementKind(sql);
    // One writer per file in the process: queue here rather than meet SQLITE_BUSY.
    if (kind.needsWriteLock && !this.holdsWriteLock) {
      await this.sqliteFile.writeLock.acquire(this.id, this.writeWaitMs);
      this.holdsWriteLock = true;
    }
    try {
      const values = params.map(bindable);
      let result: QueryResult<Row>;
      if (kind.returnsRows) {
        const rows = (await this.raw('all', sql, values)) as Row[];
        result = { rows, rowCount: rows.length };
      } else {
        const changes = (await this.raw('run', sql, values)) as number;
        result = { rows: [], rowCount: changes };
      }
      this.track(sql, true);
      return result;
    } catch (err) {
      this.track(sql, false);
      throw err;
    } finally {
      if (this.holdsWriteLock && !this.inTransaction) {
        this.holdsWriteLock = false;
        this.sqliteFile.writeLock.release(this.id);
      }
    }
  }

  /** Follows BEGIN, COMMIT and ROLLBACK; a failed COMMIT leaves the transaction open, as SQLite does. */
  private track(sql: string, ok: boolean): void {
    if (/^\s*BEGIN\b/i.test(sql)) this.inTransaction = ok;
    else if (/^\s*(?:COMMIT|END)\b/i.test(sql)) this.inTransaction = !ok && this.inTransaction;
    else if (/^\s*ROLLBACK\s*$/i.test(sql)) this.inTransaction = false;
  }

  /** `all` answers the rows, `run` the rows changed (`this.changes` of its callback). */
  raw(method: 'all' | 'run', sql: string, values: unknown[]): Promise<Row[] | number> {
    return new Promise((resolve, reject) => {
      if (method === 'all')
        this.db.all(sql, values, (err, rows) => (err ? reject(err) : resolve(rows as Row[])));
      else
        this.db.run(sql, values, function (err) {
          if (err) reject(err);
          else resolve(this.changes);
        });
    });
  }

  /** Rolls back what is open and closes the handle; its keys and write lock go with it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    if (this.inTransaction) await this.raw('run', 'ROLLBACK', []).catch(() => undefined);
    await new Promise<void>((resolve) => this.db.close(() => resolve()));
    if (this.sqliteFile !== undefined) detachSqliteFile(this.sqliteFile, this.id);
  }
}

/** A value as sqlite3 binds it: the dialect's conversion, then bigints as numbers (sqlite3 binds a bigint as NULL). */
function bindable(value: unknown): unknown {
  const v = toSqliteValue(value);
  if (typeof v !== 'bigint') return v;
  return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
}

/** A pool of `sqlite3` handles on one file. */
class Sqlite3Pool implements Pool {
  readonly size: number;
  private readonly idle: Sqlite3Connection[] = [];
  private readonly waiters: ((c: Sqlite3Connection) => void)[] = [];
  private opened = 0;
  // By id: the engine may hand back a wrapper of a connection, which release and destroy look up.
  private readonly all = new Map<string, Sqlite3Connection>();
  private readonly filename: string;
  private readonly o: Required<Omit<Sqlite3Options, 'serverVersion'>>;

  constructor(filename: string, o: Required<Omit<Sqlite3Options, 'serverVersion'>>) {
    this.filename = filename;
    this.o = o;
    this.size = o.connections;
  }

  spare(): number {
    return this.idle.length + (this.size - this.opened) - this.waiters.length;
  }

  async acquire(): Promise<Connection> {
    return (await this.tryAcquire()) ?? new Promise<Connection>((resolve) => this.waiters.push(resolve));
  }

  async tryAcquire(): Promise<Connection | null> {
    const idle = this.idle.pop();
    if (idle !== undefined) return idle;
    if (this.opened >= this.size) return null;
    this.opened += 1;
    try {
      const conn = await Sqlite3Connection.open(this.filename, this.o);
      this.all.set(conn.id, conn);
      return conn;
    } catch (err) {
      this.opened -= 1;
      throw err;
    }
  }

  release(conn: Connection): void {
    const c = this.all.get(conn.id);
    if (c === undefined) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter(c);
    else this.idle.push(c);
  }

  async destroy(conn: Connection): Promise<void> {
    const c = this.all.get(conn.id);
    if (c === undefined) return;
    this.all.delete(c.id);
    this.opened -= 1;
    await c.close();
    // Room for a new handle: a waiter gets one.
    const waiter = this.waiters.shift();
    if (waiter !== undefined) void this.acquire().then((c) => waiter(c as Sqlite3Connection));
  }

  async close(): Promise<void> {
    for (const c of [...this.all.values()]) await c.close();
    this.all.clear();
    this.idle.length = 0;
  }
}

/**
 * A sqlinbox adapter on a SQLite file through `sqlite3`: the lease and advisory forms, as
 * `@sqlinbox/dialect-sqlite` runs them on node:sqlite or better-sqlite3.
 */
export function sqlite3Adapter(
  filename: string,
  opts: Sqlite3Options = {},
): Adapter & { readonly server: string; close(): Promise<void> } {
  const pool = new Sqlite3Pool(filename, {
    connections: opts.connections ?? 4,
    writeWaitMs: opts.writeWaitMs ?? 30_000,
    busyTimeoutMs: opts.busyTimeoutMs ?? 5_000,
  });
  return {
    dialect: createSqliteDialect({ serverVersion: opts.serverVersion }),
    pool,
    server: `sqlite3:${filename}`,
    close: () => pool.close(),
  };
}
