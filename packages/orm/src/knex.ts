/**
 * Knex and sqlinbox's transactions, both ways:
 * - `knexTx(trx)`: a Knex transaction as the core's transaction handle, for
 *   `broker.publish(table, message, { tx: knexTx(trx) })` inside `knex.transaction(..)`: the
 *   message commits or rolls back with it.
 * - `knexOf(knex, ctx.tx)`: in a transactional handler, a Knex instance whose every query runs in
 *   the delivery's transaction: what it writes commits with the handler's ack.
 */
import type { Queryable, Row } from '@sqlinbox/core';
import knexModule, { type Knex } from 'knex';
import { answersRows, type BridgeResult, binderOf } from './shared.js';

/** The raw connection of each Knex client this bridge knows. */
interface PgClientLike {
  query(sql: string, params: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}
interface Mysql2ConnectionLike {
  promise(): unknown;
}
interface BetterSqliteLike {
  prepare(sql: string): {
    reader: boolean;
    all(...values: unknown[]): Row[];
    run(...values: unknown[]): { changes: number | bigint };
  };
}

/** The family of a Knex client, by its dialect's name. */
function familyOf(client: Knex.Client): 'postgres' | 'mysql' | 'sqlite' {
  const d = String((client as { dialect?: string }).dialect ?? client.config.client);
  if (/postgres|pg|cockroach|redshift/i.test(d)) return 'postgres';
  if (/mysql|maria/i.test(d)) return 'mysql';
  if (/sqlite/i.test(d)) return 'sqlite';
  throw new Error(
    `sqlinbox: the Knex client ${d} is not one of PostgreSQL, MySQL/MariaDB (mysql2) or SQLite (better-sqlite3)`,
  );
}

/**
 * A Knex transaction as the core's transaction handle: each statement runs on the transaction's
 * own connection (`trx.client.acquireConnection()`), values bound and results read as the
 * database's sqlinbox adapter does (PostgreSQL through `pg`, MySQL and MariaDB through `mysql2`,
 * SQLite through `better-sqlite3`).
 */
export function knexTx(trx: Knex.Transaction): Queryable {
  const family = familyOf(trx.client);
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<BridgeResult<R>> {
      const conn: unknown = await trx.client.acquireConnection();
      try {
        if (family === 'postgres') {
          const r = await (conn as PgClientLike).query(sql, [...params]);
          return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length };
        }
        if (family === 'mysql') {
          const { mysql2Tx } = await import('@sqlinbox/dialect-mysql/mysql2');
          return (await mysql2Tx((conn as Mysql2ConnectionLike).promise() as never).query<R>(
            sql,
            params,
          )) as BridgeResult<R>;
        }
        const bind = await binderOf('sqlite');
        const stmt = (conn as BetterSqliteLike).prepare(sql);
        const values = params.map(bind);
        if (stmt.reader) {
          const rows = stmt.all(...values) as R[];
          return { rows, rowCount: rows.length };
        }
        return { rows: [], rowCount: Number(stmt.run(...values).changes) };
      } finally {
        await trx.client.releaseConnection(conn);
      }
    },
  };
}

/** What `_query` of Knex's clients answers in `obj.response`, rebuilt from the core's result. */
function responseOf(family: 'postgres' | 'mysql' | 'sqlite', sql: string, r: BridgeResult): unknown {
  const rows = answersRows(sql);
  if (family === 'postgres') {
    const command = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
    return { rows: r.rows, rowCount: r.rowCount, command };
  }
  if (family === 'mysql') {
    return rows ? [r.rows, []] : [{ affectedRows: r.rowCount, insertId: r.insertId ?? 0 }, undefined];
  }
  return rows ? r.rows : { changes: r.rowCount };
}

/**
 * A Knex instance on `knex`'s client (its dialect and query compiler) whose every query runs on the
 * delivery's transaction (`ctx.tx` of a transactional handler): its writes commit with the ack and
 * roll back otherwise. It opens no connection and no transaction of its own: `transaction()`
 * throws, and nothing is committed or rolled back but by the outcome.
 */
export function knexOf(knex: Knex, tx: Queryable): Knex {
  const Base = knex.client.constructor as new (config: Knex.Config) => Knex.Client;
  const family = familyOf(knex.client);
  class DeliveryClient extends Base {
    override acquireConnection(): Promise<unknown> {
      return Promise.resolve(tx);
    }
    override releaseConnection(): Promise<void> {
      return Promise.resolve();
    }
    override transaction(): never {
      throw new Error(
        "sqlinbox: a Knex instance over a delivery's ctx.tx cannot open a transaction: it is inside one",
      );
    }
    async _query(
      _conn: unknown,
      obj: { sql: string; bindings?: unknown[]; response?: unknown; context?: unknown },
    ) {
      const r = (await tx.query(obj.sql, obj.bindings ?? [])) as BridgeResult;
      obj.response = responseOf(family, obj.sql, r);
      if (family === 'sqlite' && !answersRows(obj.sql)) {
        const last = /^\s*INSERT\b/i.test(obj.sql)
          ? (await tx.query<{ id: unknown }>('SELECT last_insert_rowid() AS id')).rows[0]?.id
          : undefined;
        obj.context = { lastID: last, changes: r.rowCount };
      }
      return obj;
    }
  }
  const { connection: _c, pool: _p, ...config } = knex.client.config as Knex.Config;
  return knexModule({ ...config, client: DeliveryClient as never });
}
