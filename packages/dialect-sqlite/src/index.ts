import type { Adapter } from '@sqlinbox/core';
import { createSqliteDialect } from './dialect.js';
import { type SqliteDatabaseLike, type SqliteOptions, SqlitePool } from './driver.js';

export { compareVersions } from '@sqlinbox/sql';
export { classifyError } from './classify.js';
export {
  createSqliteDialect,
  SQLITE_FLOOR,
  type SqliteDialectOptions,
  sqliteCapabilities,
  sqliteDialect,
} from './dialect.js';
export {
  attachSqliteFile,
  detachSqliteFile,
  SqliteConnection,
  type SqliteDatabaseLike,
  type SqliteDriver,
  type SqliteFileConnection,
  type SqliteOptions,
  SqlitePool,
  type SqliteStatementKind,
  type SqliteStatementLike,
  sqliteStatementKind,
  toSqliteValue,
} from './driver.js';
export { type FileState as SqliteFileState, KeyRegistry, SqliteBusyError, WriteLock } from './file.js';

/** What {@link sqlite} returns: the adapter, which closes the handles it opened. */
export type SqliteAdapter = Adapter<'lease' | 'advisory', never> & {
  /** The adapter's pool of handles on the database file. */
  readonly pool: SqlitePool;
  /** The database file, as `sqlite:<path>`. */
  readonly server: string;
  /** Closes every handle the adapter's pool opened (`broker.shutdown()` calls it). */
  close(): Promise<void>;
};

/**
 * Opens a SQLite database for sqlinbox:
 * ```ts
 * const broker = new Broker(sqlite('./app.db'));                       // Node's built-in node:sqlite
 * const broker = new Broker(sqlite(new Database('./app.db')));         // a better-sqlite3 handle you have
 * const broker = new Broker(sqlite({ filename: './app.db', driver: Database })); // better-sqlite3 throughout
 * ```
 * `source` is the file's path (opened through node:sqlite), {@link SqliteOptions} (default
 * node:sqlite, 4 connections, a `busy_timeout` of 100 ms, writers of this process waiting up to
 * 30 s for each other), or an open handle (node:sqlite `DatabaseSync`, better-sqlite3 `Database`,
 * libsql): the adapter uses it and opens up to 3 more with its class on the same file, and never
 * closes it. Handles open lazily in WAL mode. One process per file: the advisory keys and the write
 * lock live in this process, by database file. `opts.serverVersion` makes `checkServer`
 * report that version (default: ask SQLite).
 */
export function sqlite(
  source: string | SqliteOptions | SqliteDatabaseLike,
  opts: { serverVersion?: string } = {},
): SqliteAdapter {
  const pool = new SqlitePool(source);
  return {
    dialect: createSqliteDialect({ serverVersion: opts.serverVersion }),
    pool,
    server: `sqlite:${pool.filename}`,
    inProcess: true,
    close: () => pool.close(),
  };
}
