import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyTable, Connection, Row } from '@sqlinbox/core';
import { sqliteDialect } from '../src/dialect.js';
import { type SqliteOptions, SqlitePool } from '../src/driver.js';

/** A fresh database file in the OS temp dir, with a pool on it; `cleanup` closes and removes both. */
export interface TestDb {
  readonly file: string;
  readonly pool: SqlitePool;
  /** Runs one statement on a pooled connection. */
  exec(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Creates the description's table (and dead-letter table) from the dialect's ddl. */
  create(t: AnyTable, deadLetterTable?: string): Promise<void>;
  /** Holds a connection for the duration of `fn`. */
  withConn<T>(fn: (conn: Connection) => Promise<T>): Promise<T>;
  cleanup(): Promise<void>;
}

export function tempDb(opts: Omit<SqliteOptions, 'filename'> = {}): TestDb {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-sqlite-'));
  const file = join(dir, 'test.db');
  const pool = new SqlitePool({ filename: file, ...opts });
  const withConn = async <T>(fn: (conn: Connection) => Promise<T>): Promise<T> => {
    const conn = await pool.acquire();
    try {
      return await fn(conn);
    } finally {
      pool.release(conn);
    }
  };
  return {
    file,
    pool,
    exec: (sql, params) => withConn(async (c) => (await c.query(sql, params)).rows),
    async create(t, deadLetterTable) {
      const ddl = sqliteDialect.ddl(t, deadLetterTable === undefined ? {} : { deadLetterTable });
      for (const statement of ddl) await withConn((c) => c.query(statement));
    },
    withConn,
    async cleanup() {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a promise has settled within `ms` milliseconds. */
export async function settledWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((r) => setTimeout(r, ms));
  return done;
}

/** An instant `ms` milliseconds after a fixed origin, so tests read exact epoch values. */
export const at = (ms: number): Date => new Date(1_700_000_000_000 + ms);
