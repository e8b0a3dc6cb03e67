import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceTarget, OpenAdapter, OpenOptions } from '@sqlinbox/conformance';
import type { Row } from '@sqlinbox/core';
import Database from 'better-sqlite3';
import { type SqliteDriver, SqlitePool } from '../src/driver.js';
import { sqlite } from '../src/index.js';

/** The environment variable that hands the target's database file to the crash scenarios' child. */
export const SQLITE_FILE_ENV = 'SQLINBOX_SQLITE_FILE';
/** The environment variable that names the target's driver to the crash scenarios' child. */
export const SQLITE_DRIVER_ENV = 'SQLINBOX_SQLITE_DRIVER';

/** The drivers the SQLite dialect is tested on: Node's built-in node:sqlite (the default) and better-sqlite3. */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

const DRIVERS: Readonly<Record<SqliteDriverName, SqliteDriver | undefined>> = {
  'node:sqlite': undefined,
  'better-sqlite3': Database,
};

/**
 * The conformance target for SQLite on `driver` (default better-sqlite3). Each call makes a fresh
 * database file in the OS temp dir. `exec` runs on a pool of one handle of its own, which shares the in-process
 * write lock with the adapters, so an admin statement waits for an open delivery transaction
 * instead of failing busy. SQLite has no sessions to kill and no advisory locks to count.
 */
export function sqliteTarget(driverName: SqliteDriverName = 'better-sqlite3'): ConformanceTarget {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-conformance-'));
  const file = join(dir, 'conformance.db');
  const driver = DRIVERS[driverName];
  // One driver for every handle of the process: two copies of SQLite do not see each other's locks.
  // Its reads wait up to a second on another process's lock (a checkpoint of a child broker's
  // writes): at the default 100 ms, a scenario's sampling read failed with "database is locked"
  // on a loaded CI machine.
  const admin = new SqlitePool({ filename: file, connections: 1, driver, busyTimeoutMs: 1_000 });
  const opened = new Set<OpenAdapter>();

  const target = {
    name: `sqlite (${driverName})`,
    childModule: fileURLToPath(new URL('./child-adapter.mjs', import.meta.url)),
    tooOldVersion: '3.30.0',

    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      // A child forked after this inherits the file through its environment.
      process.env[SQLITE_FILE_ENV] = file;
      process.env[SQLITE_DRIVER_ENV] = driverName;
      const adapter = sqlite(
        { filename: file, connections: opts.poolSize ?? 10, driver },
        { serverVersion: opts.serverVersion },
      );
      const tracked: OpenAdapter = {
        ...adapter,
        close: async () => {
          opened.delete(tracked);
          await adapter.close();
        },
      };
      opened.add(tracked);
      return tracked;
    },

    async exec(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
      const conn = await admin.acquire();
      try {
        return (await conn.query(sql, params)).rows;
      } finally {
        admin.release(conn);
      }
    },

    async close(): Promise<void> {
      for (const adapter of [...opened]) await adapter.close();
      await admin.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return target;
}
