import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceTarget, OpenAdapter, OpenOptions } from '@sqlinbox/conformance';
import type { Row } from '@sqlinbox/core';
import { SqlitePool } from '../src/driver.js';
import { sqlite } from '../src/index.js';

/** The environment variable that hands the target's database file to the crash scenarios' child. */
export const SQLITE_FILE_ENV = 'SQLINBOX_SQLITE_FILE';

/**
 * The conformance target for SQLite on better-sqlite3. Each call makes a fresh database file in
 * the OS temp dir. `exec` runs on a pool of one handle of its own, which shares the in-process
 * write lock with the adapters, so an admin statement waits for an open delivery transaction
 * instead of failing busy. SQLite has no sessions to kill and no advisory locks to count.
 */
export function sqliteTarget(): ConformanceTarget {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-conformance-'));
  const file = join(dir, 'conformance.db');
  const admin = new SqlitePool({ filename: file, connections: 1 });
  const opened = new Set<OpenAdapter>();

  const target = {
    name: 'sqlite (better-sqlite3)',
    childModule: fileURLToPath(new URL('./child-adapter.mjs', import.meta.url)),
    tooOldVersion: '3.30.0',

    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      // A child forked after this inherits the file through its environment.
      process.env[SQLITE_FILE_ENV] = file;
      const adapter = sqlite(
        { filename: file, connections: opts.poolSize ?? 10 },
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
