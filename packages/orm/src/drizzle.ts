/**
 * Drizzle and sqlinbox's transactions, both ways:
 * - `drizzleTx(tx)`: a Drizzle transaction (PostgreSQL, MySQL/MariaDB or SQLite) as the core's
 *   transaction handle, for `broker.publish(table, message, { tx: drizzleTx(tx) })` inside
 *   `db.transaction(async (tx) => ..)`: the message commits or rolls back with it.
 * - `drizzlePgOf`, `drizzleMysqlOf`, `drizzleSqliteOf`(ctx.tx, config): in a transactional handler,
 *   a Drizzle database (Drizzle's proxy driver) whose every query runs in the delivery's transaction.
 */
import type { Queryable, Row } from '@sqlinbox/core';
import { is, type SQL, sql } from 'drizzle-orm';
import { MySqlDatabase } from 'drizzle-orm/mysql-core';
import { type MySqlRemoteDatabase, drizzle as mysqlProxy } from 'drizzle-orm/mysql-proxy';
import { PgDatabase } from 'drizzle-orm/pg-core';
import { type PgRemoteDatabase, drizzle as pgProxy } from 'drizzle-orm/pg-proxy';
import { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { type SqliteRemoteDatabase, drizzle as sqliteProxy } from 'drizzle-orm/sqlite-proxy';
import type { DrizzleConfig } from 'drizzle-orm/utils';
import { answersRows, type BridgeResult, binderOf, type Family } from './shared.js';

/** The family of a Drizzle database or transaction. */
function familyOf(tx: unknown): Family {
  if (is(tx, PgDatabase)) return 'postgres';
  if (is(tx, MySqlDatabase)) return 'mysql';
  if (is(tx, BaseSQLiteDatabase)) return 'sqlite';
  throw new Error('sqlinbox: not a Drizzle database or transaction of PostgreSQL, MySQL/MariaDB or SQLite');
}

/**
 * The statement as Drizzle's `SQL`: its text cut at each placeholder (`$n` on PostgreSQL, `?`
 * elsewhere), each value a parameter Drizzle numbers again in its own placeholder style.
 */
function toSql(family: Family, text: string, params: readonly unknown[], bind: (v: unknown) => unknown): SQL {
  const chunks: SQL[] = [];
  const placeholder = family === 'postgres' ? /\$(\d+)/g : /\?/g;
  let at = 0;
  let next = 0;
  for (const m of text.matchAll(placeholder)) {
    chunks.push(sql.raw(text.slice(at, m.index)));
    const index = family === 'postgres' ? Number(m[1]) - 1 : next++;
    chunks.push(sql`${bind(params[index])}`);
    at = m.index + m[0].length;
  }
  chunks.push(sql.raw(text.slice(at)));
  return sql.join(chunks);
}

interface Executes {
  execute(q: SQL): Promise<unknown>;
}
interface SqliteRuns {
  all(q: SQL): unknown;
  run(q: SQL): unknown;
}

/**
 * A Drizzle transaction as the core's transaction handle: each statement runs through the
 * transaction (`execute`, or `all`/`run` on SQLite), values bound as the database's sqlinbox
 * adapter binds them. Drivers: node-postgres or postgres.js, mysql2, better-sqlite3 or libsql.
 */
export function drizzleTx(tx: object): Queryable {
  const family = familyOf(tx);
  return {
    async query<R>(text: string, params: readonly unknown[] = []): Promise<BridgeResult<R>> {
      const q = toSql(family, text, params, await binderOf(family));
      if (family === 'sqlite') {
        const t = tx as SqliteRuns;
        if (answersRows(text)) {
          const rows = (await t.all(q)) as R[];
          return { rows, rowCount: rows.length };
        }
        const r = (await t.run(q)) as { changes?: number | bigint; rowsAffected?: number };
        return { rows: [], rowCount: Number(r.changes ?? r.rowsAffected ?? 0) };
      }
      const r = await (tx as Executes).execute(q);
      if (family === 'mysql') {
        const [first] = r as [unknown];
        if (Array.isArray(first)) return { rows: first as R[], rowCount: first.length };
        const ok = first as { affectedRows: number; insertId: unknown };
        return { rows: [], rowCount: ok.affectedRows, insertId: ok.insertId };
      }
      if (Array.isArray(r)) return { rows: r as R[], rowCount: (r as { count?: number }).count ?? r.length };
      const pg = r as { rows: R[]; rowCount: number | null };
      return { rows: pg.rows, rowCount: pg.rowCount ?? pg.rows.length };
    },
  };
}

/**
 * The rows as the proxy drivers read them: arrays of the selected columns in order for a typed
 * select (`all`, `values`, `get`), objects for raw SQL (`execute`). A select whose columns share a
 * name (two tables' `id` in a join) needs an alias for each: a row is read by column name.
 */
function asProxyRows(rows: Row[], method: string): unknown[] {
  return method === 'execute' || method === 'run' ? rows : rows.map((row) => Object.values(row));
}

/** PostgreSQL: the delivery's transaction as a Drizzle database, with `config`'s schema and options. */
export function drizzlePgOf<TSchema extends Record<string, unknown> = Record<string, never>>(
  tx: Queryable,
  config?: DrizzleConfig<TSchema>,
): PgRemoteDatabase<TSchema> {
  return pgProxy<TSchema>(async (text, params, method) => {
    const r = await tx.query<Row>(text, params);
    return { rows: asProxyRows(r.rows, method) };
  }, config);
}

/** MySQL and MariaDB: the delivery's transaction as a Drizzle database. */
export function drizzleMysqlOf<TSchema extends Record<string, unknown> = Record<string, never>>(
  tx: Queryable,
  config?: DrizzleConfig<TSchema>,
): MySqlRemoteDatabase<TSchema> {
  return mysqlProxy<TSchema>(async (text, params, method) => {
    const r = (await tx.query<Row>(text, params)) as BridgeResult<Row>;
    // A statement without rows answers its OK packet, as mysql2 does: Drizzle reads the ids from it.
    if (method === 'execute' && !answersRows(text))
      return { rows: [{ insertId: Number(r.insertId ?? 0), affectedRows: r.rowCount }] };
    return { rows: asProxyRows(r.rows, method) };
  }, config);
}

/** SQLite: the delivery's transaction as a Drizzle database. */
export function drizzleSqliteOf<TSchema extends Record<string, unknown> = Record<string, never>>(
  tx: Queryable,
  config?: DrizzleConfig<TSchema>,
): SqliteRemoteDatabase<TSchema> {
  return sqliteProxy<TSchema>(async (text, params, method) => {
    const r = await tx.query<Row>(text, params);
    const rows = asProxyRows(r.rows, method);
    return { rows: method === 'get' ? (rows[0] as unknown[]) : rows };
  }, config);
}
