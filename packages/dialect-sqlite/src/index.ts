import type { Adapter } from '@sqlinbox/core';
import { createSqliteDialect } from './dialect.js';
import { type SqliteOptions, SqlitePool } from './driver.js';

export { classifyError } from './classify.js';
export {
  compareVersions,
  createSqliteDialect,
  SQLITE_FLOOR,
  type SqliteDialectOptions,
  sqliteCapabilities,
  sqliteDialect,
} from './dialect.js';
export { SqliteConnection, type SqliteOptions, SqlitePool } from './driver.js';

/** What {@link sqlite} returns: the adapter, which closes the handles it opened. */
export type SqliteAdapter = Adapter<'lease' | 'advisory', never> & {
  readonly pool: SqlitePool;
  /** The database file, as `sqlite:<path>`. */
  readonly server: string;
  /** Closes every handle the adapter's pool opened (`broker.shutdown()` calls it). */
  close(): Promise<void>;
};

/**
 * Opens a SQLite database file for sqlinbox, through better-sqlite3:
 * ```ts
 * const broker = new Broker(sqlite('./app.db'));
 * ```
 * `filenameOrOptions` is the file's path or {@link SqliteOptions} (default 4 connections, a
 * `busy_timeout` of 100 ms, writers of this process waiting up to 30 s for each other). Handles
 * open lazily in WAL mode. One process per file: the advisory keys and the write lock live in this
 * process (R-DB-3). `opts.serverVersion` makes `checkServer` report that version (default: ask SQLite).
 */
export function sqlite(
  filenameOrOptions: string | SqliteOptions,
  opts: { serverVersion?: string } = {},
): SqliteAdapter {
  const pool = new SqlitePool(filenameOrOptions);
  return {
    dialect: createSqliteDialect({ serverVersion: opts.serverVersion }),
    pool,
    server: `sqlite:${typeof filenameOrOptions === 'string' ? filenameOrOptions : filenameOrOptions.filename}`,
    close: () => pool.close(),
  };
}
