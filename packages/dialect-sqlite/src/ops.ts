import type { AnyTable, Connection, PrepareOptions, Row, TableOps } from '@sqlinbox/core';
import { ConfigError } from '@sqlinbox/core';
import { SqlTable } from '@sqlinbox/sql';
import { fileOf, SqliteConnection } from './driver.js';
import { SqliteStatements } from './statements.js';

/** The statements of one SQLite queue table (lease and advisory forms). */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new SqliteTable(new SqliteStatements(t, opts));
}

/**
 * SQLite's runner. The advisory form's keys live in a registry of this process, by database file
 * and key, since SQLite has no lock a session holds (one process per file).
 */
export class SqliteTable extends SqlTable<SqliteStatements> {
  override async claimLocked(): Promise<Row[]> {
    throw new ConfigError('SQLite has no row locks, so the row lock form is unavailable', {
      table: this.sql.t.table,
      fix: 'describe a lease column or an advisory key',
    });
  }

  override async lock(conn: Connection, key: string): Promise<boolean> {
    // A closed handle's keys are already gone; a key taken on it would never be released.
    if (conn instanceof SqliteConnection && !conn.open) {
      throw new TypeError(`sqlinbox: connection ${conn.id}: The database connection is not open`);
    }
    return fileOf(conn).keys.lock(conn.id, key);
  }

  override async unlock(conn: Connection, key: string): Promise<boolean> {
    return fileOf(conn).keys.unlock(conn.id, key);
  }

  /** Keys live in this process: another process's are not seen. */
  override async heldKeys(conn: Connection, keys: readonly string[]): Promise<number> {
    const registry = fileOf(conn).keys;
    return keys.filter((k) => registry.held(k)).length;
  }
}
