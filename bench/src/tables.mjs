/**
 * The queue table of each claim form and database, as sqlinbox describes it, and the adapters the
 * benchmark opens. The raw loops use the same tables (the DDL comes from `dialect.ddl`).
 */
import { inbox } from '@sqlinbox/core';
import { MYSQL_TABLE, MYSQL_URL, PG_SCHEMA, PG_URL, sqliteFile, TABLE } from './config.mjs';

/** The table's name as the description gives it, per database. */
export function tableName(db) {
  if (db === 'pg') return `${PG_SCHEMA}.${TABLE}`;
  if (db === 'mysql') return MYSQL_TABLE;
  return TABLE;
}

/** The description of the benchmark's table in one form. */
export function describe(db, form) {
  const base = {
    table: tableName(db),
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    payload: 'payload',
  };
  if (form === 'lease') return inbox({ ...base, lease: 'locked_until' });
  if (form === 'advisory') return inbox({ ...base, advisory: 'bench-{id}' });
  return inbox(base);
}

/**
 * An adapter (and what closes it) for `db`, sized for `connections`. Only that database's driver
 * and dialect are loaded, so a child's RSS carries no other.
 */
export async function openAdapter(db, connections, file) {
  if (db === 'pg') {
    const { default: pgLib } = await import('pg');
    const { pg } = await import('@sqlinbox/dialect-postgres/pg');
    const pool = new pgLib.Pool({ connectionString: PG_URL, max: connections });
    const adapter = pg(pool);
    const close = async () => {
      await adapter.close();
      await pool.end();
    };
    return { adapter, close };
  }
  if (db === 'mysql') {
    const { default: mysql } = await import('mysql2/promise');
    const { mysql2 } = await import('@sqlinbox/dialect-mysql/mysql2');
    const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: connections, maxIdle: connections });
    return { adapter: mysql2(pool), close: () => pool.end() };
  }
  const { sqlite } = await import('@sqlinbox/dialect-sqlite');
  // better-sqlite3, as the setup and the raw loop: one copy of SQLite per file in the process.
  const { default: Database } = await import('better-sqlite3');
  const adapter = sqlite({ filename: sqliteFile(file), connections, driver: Database });
  return { adapter, close: () => adapter.close() };
}
