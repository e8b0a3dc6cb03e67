/**
 * The part of a driver wrapper both drivers share: one core `Connection` per physical connection
 * (so its session id, its UTC setup and what it holds survive between checkouts), and the core
 * `Pool` around the user's pool. Each driver file supplies a {@link Backend}: how to check a
 * connection out, run a statement, and read the pool's counts.
 */
import type { Connection, Pool, Row } from '@sqlinbox/core';
import { classifyError } from './dialect.js';
import { dirtyReason, type TransactionAware, warnDirtyRelease } from './session.js';
import { type MysqlQueryResult, toDriverValue } from './sql.js';

/** One statement's answer from a driver, with the session's transaction state where it is known. */
export interface BackendResult extends MysqlQueryResult {
  /** Whether the session is inside a transaction after the statement; undefined when the reply did not say. */
  readonly inTransaction: boolean | undefined;
}

/** What a driver wrapper provides; `H` is the driver's checked-out connection. */
export interface Backend<H> {
  /** Checks a connection out of the user's pool, waiting as the pool waits. */
  getConnection(): Promise<H>;
  /** An object that stays the same for one physical connection across checkouts. */
  physical(h: H): object;
  /**
   * Called once per new physical connection: keeps an `error` listener on it for its whole life, so
   * a session the server ends (KILL, a failover, an idle timeout) fails its statements and never
   * reaches Node as an unhandled `error` event. Optional where the driver always listens itself.
   */
  watch?(h: H): void;
  /** The server's session id of a new physical connection (`CONNECTION_ID()`). */
  sessionId(h: H): Promise<string>;
  /** Runs one statement with values already converted for the driver. */
  run(h: H, sql: string, params: readonly unknown[]): Promise<BackendResult>;
  /** Returns the connection to the user's pool. */
  release(h: H): void | Promise<void>;
  /** Closes the physical connection and drops it from the user's pool. */
  destroy(h: H): void | Promise<void>;
  /** The most connections the pool opens. */
  readonly size: number;
  /** Idle connections plus room to open new ones, less requests already waiting; undefined when unknown. */
  spare(): number | undefined;
}

/**
 * A physical MySQL/MariaDB connection as the engine sees it. `id` is the server's
 * `CONNECTION_ID()`, so `KILL <id>` ends exactly this session. Values are bound with Dates as UTC
 * `DATETIME(3)` text; `DATETIME`/`TIMESTAMP` come back as UTC Dates and `JSON` as its text.
 */
export class MysqlConnection<H> implements Connection, TransactionAware {
  /** The current checkout; undefined while the connection sits in the pool. */
  handle: H | undefined;
  /**
   * Set by a statement that failed as a lost connection does (a read-only server, a Galera node
   * out of the cluster among them, see `classifyError`): the connection is closed at its release
   * instead of returned to the pool, so a failover's next statement opens a fresh one.
   */
  retire = false;
  private inTx = false;

  constructor(
    /** The server's session id (`CONNECTION_ID()`), as text. */
    readonly id: string,
    private readonly backend: Backend<H>,
  ) {}

  async query<R = Row>(sql: string, params: readonly unknown[] = []): Promise<MysqlQueryResult<R>> {
    const h = this.handle;
    if (h === undefined) {
      throw new Error(
        `sqlinbox: connection ${this.id} was given back to the pool; it runs no more statements`,
      );
    }
    let res: BackendResult;
    try {
      res = await this.backend.run(h, sql, params.map(toDriverValue));
    } catch (err) {
      if (retiresConnection(err)) this.retire = true;
      throw err;
    }
    if (res.inTransaction !== undefined) this.inTx = res.inTransaction;
    return res as unknown as MysqlQueryResult<R>;
  }

  /** Whether the session is inside a transaction, from the last reply that said. */
  inTransaction(): boolean {
    return this.inTx;
  }
}

/** Whether a connection whose statement failed with `err` is closed rather than returned to the pool. */
function retiresConnection(err: unknown): boolean {
  const kind = classifyError(err);
  return kind === 'connection' || kind === 'shutdown';
}

/**
 * The core `Pool` over a driver's pool. Every physical connection is set up once, when first
 * seen: `SET time_zone = '+00:00'` and its session id read. `release` returns a connection only
 * when it holds no transaction and no advisory lock this package took; otherwise it warns
 * (`SQLINBOX_DIRTY_RELEASE`) and closes the connection, so the server rolls back and unlocks.
 */
export class MysqlPool<H> implements Pool {
  readonly size: number;
  private readonly sessions = new WeakMap<object, MysqlConnection<H>>();
  /** Connections checked out through this adapter (the count `spare` falls back on). */
  private out = 0;
  /** The connections checked out, by id (`CONNECTION_ID()`): release and destroy find them by id alone. */
  private readonly checkedOut = new Map<string, MysqlConnection<H>>();

  constructor(private readonly backend: Backend<H>) {
    this.size = backend.size;
  }

  spare(): number {
    const known = this.backend.spare();
    return Math.max(0, known ?? this.size - this.out);
  }

  async acquire(): Promise<Connection> {
    const h = await this.backend.getConnection();
    this.out++;
    try {
      return await this.adopt(h);
    } catch (err) {
      this.out--;
      await Promise.resolve(this.backend.destroy(h)).catch(() => {});
      throw err;
    }
  }

  async tryAcquire(): Promise<Connection | null> {
    // Both drivers take an idle connection, or reserve room for a new one, before their
    // getConnection() returns its promise, so the check and the checkout cannot be split.
    if (this.spare() <= 0) return null;
    return this.acquire();
  }

  /**
   * Returns the connection to the driver's pool. A connection is found by its `id`, so a wrapper of
   * one (`{ id, query }`) releases the connection it wraps; one no longer checked out is ignored.
   */
  release(conn: Connection): void {
    const c = this.own(conn);
    if (c === undefined) return;
    // The dialect records an advisory lock on the object it was given, the wrapper's included.
    const reason = dirtyReason(c) ?? (conn === c ? undefined : dirtyReason(conn));
    if (reason !== undefined) {
      warnDirtyRelease(c, reason);
      void this.destroy(c).catch(() => {});
      return;
    }
    if (c.retire) {
      void this.destroy(c).catch(() => {});
      return;
    }
    const h = c.handle;
    if (h === undefined) return;
    c.handle = undefined;
    this.checkedOut.delete(c.id);
    this.out--;
    void Promise.resolve(this.backend.release(h)).catch(() => {});
  }

  /** Closes the connection (found by its `id`, as in `release`); one no longer checked out is ignored. */
  async destroy(conn: Connection): Promise<void> {
    const c = this.own(conn);
    const h = c?.handle;
    if (c === undefined || h === undefined) return;
    c.handle = undefined;
    this.checkedOut.delete(c.id);
    this.out--;
    this.sessions.delete(this.backend.physical(h));
    await this.backend.destroy(h);
  }

  /** The connection object of a checkout: the same one for a physical connection, set up once. */
  private async adopt(h: H): Promise<MysqlConnection<H>> {
    const key = this.backend.physical(h);
    let c = this.sessions.get(key);
    if (c === undefined) {
      this.backend.watch?.(h);
      await this.backend.run(h, "SET time_zone = '+00:00'", []);
      c = new MysqlConnection(await this.backend.sessionId(h), this.backend);
      this.sessions.set(key, c);
    }
    c.handle = h;
    this.checkedOut.set(c.id, c);
    return c;
  }

  /** The checked-out connection with `conn`'s id: never a field of `conn` itself. */
  private own(conn: Connection): MysqlConnection<H> | undefined {
    return this.checkedOut.get(conn.id);
  }
}
