/**
 * TypeORM and sqlinbox's transactions, both ways:
 * - `typeormTx(manager)`: the entity manager of a TypeORM transaction as the core's transaction
 *   handle, for `broker.publish(table, message, { tx: typeormTx(manager) })` inside
 *   `dataSource.transaction(async (manager) => ..)`: the message commits or rolls back with it.
 * - `typeormOf(dataSource, ctx.tx)`: in a transactional handler, an entity manager whose every
 *   query runs in the delivery's transaction: what it saves commits with the handler's ack.
 */
import type { Queryable } from '@sqlinbox/core';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { QueryResult } from 'typeorm';
import { answersRows, type BridgeResult, binderOf, type Family } from './shared.js';

/** The family of a TypeORM data source, by its driver type. */
function familyOf(ds: DataSource): Family {
  const type = String(ds.options.type);
  if (type === 'postgres' || type === 'cockroachdb') return 'postgres';
  if (type === 'mysql' || type === 'mariadb') return 'mysql';
  if (type === 'better-sqlite3' || type === 'sqlite') return 'sqlite';
  throw new Error(
    `sqlinbox: the TypeORM driver ${type} is not one of postgres, mysql, mariadb, better-sqlite3`,
  );
}

/**
 * The entity manager of a TypeORM transaction (`dataSource.transaction(async (manager) => ..)`, or
 * a query runner's `manager` after `startTransaction()`) as the core's transaction handle: each
 * statement runs on that transaction's query runner, values bound as the database's sqlinbox
 * adapter binds them.
 */
export function typeormTx(manager: EntityManager): Queryable {
  const runner = manager.queryRunner;
  if (runner === undefined || !runner.isTransactionActive)
    throw new Error(
      'sqlinbox: typeormTx(manager) takes the manager of a transaction: dataSource.transaction(async (manager) => ..)',
    );
  const family = familyOf(manager.connection);
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<BridgeResult<R>> {
      const bind = await binderOf(family);
      const r = (await runner.query(sql, params.map(bind), true)) as QueryResult<R>;
      const rows = answersRows(sql) ? (r.records ?? []) : [];
      const raw = r.raw as { insertId?: unknown } | undefined;
      return {
        rows,
        rowCount: answersRows(sql) ? rows.length : (r.affected ?? 0),
        ...(family === 'mysql' && raw?.insertId !== undefined ? { insertId: raw.insertId } : {}),
      };
    },
  };
}

/** `raw` as each TypeORM query runner answers it, rebuilt from the core's result. */
function rawOf(family: Family, sql: string, r: BridgeResult): unknown {
  if (answersRows(sql)) return r.rows;
  if (family === 'postgres') return /^\s*(?:UPDATE|DELETE)\b/i.test(sql) ? [r.rows, r.rowCount] : r.rows;
  if (family === 'mysql') return { insertId: Number(r.insertId ?? 0), affectedRows: r.rowCount };
  return undefined;
}

/**
 * An entity manager of `dataSource` whose every query runs on the delivery's transaction (`ctx.tx`
 * of a transactional handler): what it saves commits with the ack and rolls back otherwise. It opens
 * no transaction of its own (`manager.transaction()` throws); TypeORM's own save, which wraps its
 * statements in a transaction where none is open, sees the delivery's.
 */
export function typeormOf(dataSource: DataSource, tx: Queryable): EntityManager {
  const family = familyOf(dataSource);
  const runner: QueryRunner = dataSource.createQueryRunner();
  const refuse = (what: string) => async () => {
    throw new Error(`sqlinbox: an entity manager over a delivery's ctx.tx cannot ${what}: the outcome does`);
  };
  Object.assign(runner, {
    isTransactionActive: true,
    connect: async () => tx,
    release: async () => {},
    startTransaction: refuse('start a transaction'),
    commitTransaction: refuse('commit'),
    rollbackTransaction: refuse('roll back'),
    async query(sql: string, params: unknown[] = [], structured = false) {
      const r = (await tx.query(sql, params)) as BridgeResult;
      const result = new QueryResult();
      result.records = r.rows;
      result.affected = r.rowCount;
      result.raw = rawOf(family, sql, r);
      if (family === 'sqlite' && /^\s*INSERT\b/i.test(sql) && !answersRows(sql)) {
        result.raw = (await tx.query<{ id: unknown }>('SELECT last_insert_rowid() AS id')).rows[0]?.id;
      }
      return structured ? result : result.raw;
    },
  });
  return runner.manager;
}
