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

/** The priority column and the unique key column of the flow-control tables. */
export const PRIORITY = 'priority';
export const KEY = 'job_key';
/** The FIFO tables' group column: row n is in group `g<n % groups>`. */
export const GROUP = 'job_group';

/** The fan-in table's edge table (its parents table is this name with `_parent` after it). */
export function flowTableName(db) {
  return `${tableName(db)}_flow`;
}

/**
 * The description of the benchmark's table in one form; `flow` adds a priority column
 * (`'priority'`) or a unique key column (`'keyed'`) to it, as docs/flow-control.md describes;
 * `'failonce'` adds the failure record's columns (last error, class, failed at);
 * `'fanin'` declares the flow tables (docs/flows.md) and what a parent needs to wait and to read
 * its children: `retry_after`, `processed_at` and `result` (so the table keeps its settled rows).
 */
export function describe(db, form, flow) {
  const base = {
    table: tableName(db),
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    payload: 'payload',
    ...(flow === 'priority'
      ? { priority: PRIORITY }
      : flow === 'keyed'
        ? { uniqueKey: KEY }
        : flow === 'fifo'
          ? { group: GROUP }
          : flow === 'failonce'
            ? { lastError: 'last_error', errorClass: 'error_class', failedAt: 'failed_at' }
            : flow === 'fanin'
              ? {
                  retryAfter: 'retry_after',
                  processedAt: 'processed_at',
                  result: 'result',
                  flows: { table: flowTableName(db) },
                }
              : {}),
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

/** W6's hot-key case: the key column and the rows of one key in work at once (lease form). */
export const HOT_KEY_COLUMN = 'job_key';
export const HOT_KEY_LIMIT = 1;

/**
 * W6's table: the form's description; for the hot-key case (`spec.keys`) with per-key concurrency
 * on a key column, at most {@link HOT_KEY_LIMIT} row of a key in work at once.
 */
export function describeSustained(spec) {
  const d = describe(spec.db, spec.form);
  if (!spec.keys) return d;
  return inbox({
    table: d.table,
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    payload: 'payload',
    lease: 'locked_until',
    concurrency: { key: HOT_KEY_COLUMN, limit: HOT_KEY_LIMIT },
  });
}
