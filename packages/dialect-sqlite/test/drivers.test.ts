import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { fileOf, type SqliteDatabaseLike, SqlitePool } from '../src/driver.js';
import { sqlite } from '../src/index.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sqlinbox-drivers-'));
  file = join(dir, 'app.db');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The SQLite library a pool's handles run: node:sqlite and better-sqlite3 bundle different ones. */
async function versionOf(pool: SqlitePool): Promise<string> {
  const conn = await pool.acquire();
  try {
    return String((await conn.query<{ v: string }>('SELECT sqlite_version() AS v')).rows[0]?.v);
  } finally {
    pool.release(conn);
  }
}

const betterVersion = (() => {
  const db = new Database(':memory:');
  const { v } = db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
  db.close();
  return v;
})();

test('the two drivers bundle different SQLite versions here, so a version tells which one ran', () => {
  expect(process.versions.sqlite).toMatch(/^3\./);
  expect(betterVersion).not.toBe(process.versions.sqlite);
});

test('R-RUN-2 a file name opens through node:sqlite, with better-sqlite3 installed or not', async () => {
  const adapter = sqlite(file);
  expect(await versionOf(adapter.pool)).toBe(process.versions.sqlite);
  await adapter.close();
});

test("R-RUN-2 { filename, driver } opens every handle through better-sqlite3's class", async () => {
  const adapter = sqlite({ filename: file, driver: Database, connections: 2 });
  expect(await versionOf(adapter.pool)).toBe(betterVersion);
  await adapter.close();
});

test('R-RUN-2 a driver may be a function of the file name', async () => {
  const opened: string[] = [];
  const adapter = sqlite({
    filename: file,
    driver: (f: string) => {
      opened.push(f);
      return new DatabaseSync(f);
    },
  });
  expect(await versionOf(adapter.pool)).toBe(process.versions.sqlite);
  expect(opened).toEqual([file]);
  await adapter.close();
});

describe.each([
  ['node:sqlite DatabaseSync', (f: string): SqliteDatabaseLike => new DatabaseSync(f)],
  ['better-sqlite3 Database', (f: string): SqliteDatabaseLike => new Database(f)],
] as const)('R-RUN-2 a %s the user opened', (_name, open) => {
  test('is the first connection, more open with its class on the same file, and it is never closed', async () => {
    const mine = open(file);
    mine.exec('CREATE TABLE shared (v TEXT)');
    mine.exec('CREATE TEMP TABLE only_mine (v TEXT)'); // a TEMP table is visible on its own handle only
    const adapter = sqlite(mine);
    expect(adapter.pool.size).toBe(4);
    const first = await adapter.pool.acquire();
    const second = await adapter.pool.acquire();
    expect((await first.query('SELECT COUNT(*) AS n FROM only_mine')).rows).toEqual([{ n: 0 }]);
    await expect(second.query('SELECT COUNT(*) AS n FROM only_mine')).rejects.toThrow(/no such table/);
    await second.query('INSERT INTO shared (v) VALUES (?)', ['from a handle the adapter opened']);
    expect((await first.query('SELECT v FROM shared')).rows).toEqual([
      { v: 'from a handle the adapter opened' },
    ]);
    expect((await first.query('PRAGMA journal_mode')).rows).toEqual([{ journal_mode: 'wal' }]);
    // The advisory keys and the write lock are the file's: a pool opened by name shares them.
    const byName = new SqlitePool(file);
    const third = await byName.acquire();
    expect(fileOf(third)).toBe(fileOf(first));
    expect(fileOf(second)).toBe(fileOf(first));
    fileOf(first).keys.lock(first.id, 'k');
    expect(fileOf(third).keys.lock(third.id, 'k')).toBe(false);
    byName.release(third);
    await byName.close();
    // An open transaction is rolled back when the adapter closes, and the handle stays open.
    await first.query('BEGIN IMMEDIATE');
    await first.query('INSERT INTO shared (v) VALUES (?)', ['rolled back']);
    adapter.pool.release(second);
    await adapter.close();
    expect(mine.prepare('SELECT COUNT(*) AS n FROM shared').all()).toEqual([{ n: 1 }]);
    mine.close();
  });
});

test('R-RUN-2 an in-memory handle the user opened is the pool, and is not replaced once destroyed', async () => {
  const mine = new DatabaseSync(':memory:');
  const adapter = sqlite(mine);
  expect(adapter.pool.size).toBe(1);
  const conn = await adapter.pool.acquire();
  await conn.query('CREATE TABLE t (v TEXT)');
  await adapter.pool.destroy(conn);
  await expect(adapter.pool.acquire()).rejects.toThrow(
    /in-memory SQLite handle given to sqlite\(..\) was closed/,
  );
  await adapter.close();
  expect(mine.prepare('SELECT COUNT(*) AS n FROM t').all()).toEqual([{ n: 0 }]);
  mine.close();
});

test('R-RUN-2 a handle that tells no transaction state is refused when the pool opens it', async () => {
  const opened: DatabaseSync[] = [];
  const adapter = sqlite({
    filename: file,
    driver: (f: string) => {
      const db = new DatabaseSync(f);
      opened.push(db);
      // Everything but isTransaction (node:sqlite before 22.16 had none).
      return {
        prepare: (sql: string) => db.prepare(sql),
        exec: (sql: string) => db.exec(sql),
        close: () => db.close(),
      };
    },
  });
  await expect(adapter.pool.acquire()).rejects.toThrow(/tells no transaction state/);
  expect(opened.map((db) => db.isOpen)).toEqual([false]);
  await adapter.close();
});
