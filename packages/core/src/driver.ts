/**
 * The slice of a database driver the engine needs, typed structurally so the core imports no
 * driver. Each dialect package implements it once per driver it supports, around the pool the
 * user passes in.
 */

/** A row as the driver returns it: column name to value. */
export type Row = Record<string, unknown>;

/** The result of one statement. */
export interface QueryResult<R = Row> {
  /** The rows the statement returned; empty for a statement without a result set. */
  readonly rows: R[];
  /** Rows the statement changed (or returned, for a select). */
  readonly rowCount: number;
}

/** One physical connection, checked out of the pool. */
export interface Connection {
  /** Unique among the pool's connections while it lives; used in logs and for lock ownership. */
  readonly id: string;
  /** Runs one statement; every value is a bound parameter. */
  query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

/** The user's connection pool, as the engine sees it. */
export interface Pool {
  /** The most connections the pool opens. */
  readonly size: number;
  /** Connections the pool can give right now without waiting: idle ones plus room to open new ones. */
  spare(): number;
  /** Waits for a connection. */
  acquire(): Promise<Connection>;
  /** A connection the pool can give at once (idle, or newly opened while it has room), else `null`. */
  tryAcquire(): Promise<Connection | null>;
  /** Returns a connection to the pool. It must hold no open transaction and no session lock. */
  release(conn: Connection): void;
  /** Closes a connection instead of returning it; the server ends its session, locks and transaction. */
  destroy(conn: Connection): Promise<void>;
}
