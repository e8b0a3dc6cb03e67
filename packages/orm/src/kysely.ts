/**
 * Kysely and sqlinbox's transactions, both ways:
 * - `kyselyTx(trx)`: a Kysely transaction as the core's transaction handle, for
 *   `broker.publish(table, message, { tx: kyselyTx(trx) })` inside `db.transaction().execute(..)`:
 *   the message commits or rolls back with it.
 * - `kyselyOf(db, ctx.tx)`: in a transactional handler, the delivery's transaction as a Kysely
 *   `Transaction`: what it writes commits with the handler's ack, and rolls back otherwise.
 */
import type { Queryable } from '@sqlinbox/core';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  MysqlAdapter,
  type QueryResult,
  SingleConnectionProvider,
  SqliteAdapter,
  Transaction,
} from 'kysely';
import { type BridgeResult, binderOf, type Family } from './shared.js';

/** The family of the database a Kysely instance talks to, by its adapter. */
function familyOf(db: Kysely<any>): Family {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof MysqlAdapter) return 'mysql';
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  return 'postgres';
}

/**
 * A Kysely transaction (or instance) as the core's transaction handle: each statement runs as a
 * raw query on its connection, values bound as the database's sqlinbox adapter binds them. Use the
 * same database as the broker's adapter.
 */
export function kyselyTx(trx: Kysely<any>): Queryable {
  const family = familyOf(trx);
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<BridgeResult<R>> {
      const bind = await binderOf(family);
      const r = await trx.executeQuery<R>(CompiledQuery.raw(sql, params.map(bind)));
      return {
        rows: r.rows,
        rowCount: r.numAffectedRows === undefined ? r.rows.length : Number(r.numAffectedRows),
        ...(r.insertId === undefined ? {} : { insertId: r.insertId }),
      };
    },
  };
}

/** Refuses what a transaction of the delivery cannot do: open a connection or a transaction of its own. */
const refuse = (what: string) => () => {
  throw new Error(`sqlinbox: a Kysely transaction over a delivery's ctx.tx cannot ${what}`);
};

/**
 * The delivery's transaction (`ctx.tx` of a transactional handler) as a Kysely `Transaction` with
 * `db`'s dialect, plugins and types: its queries run on the delivery's connection, inside the
 * delivery's transaction, and commit with the handler's ack. It cannot open a transaction of its
 * own (as any Kysely `Transaction`) and never commits or rolls back: the outcome does.
 */
export function kyselyOf<DB>(db: Kysely<DB>, tx: Queryable): Transaction<DB> {
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      const r = (await tx.query<R>(query.sql, query.parameters)) as BridgeResult<R>;
      return {
        rows: r.rows,
        numAffectedRows: BigInt(r.rowCount),
        ...(r.insertId === undefined || r.insertId === null ? {} : { insertId: BigInt(String(r.insertId)) }),
      };
    },
    streamQuery: refuse('stream a query') as never,
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: refuse('acquire a connection') as never,
    beginTransaction: refuse('begin a transaction') as never,
    commitTransaction: refuse('commit') as never,
    rollbackTransaction: refuse('roll back') as never,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const executor = db.getExecutor().withConnectionProvider(new SingleConnectionProvider(connection));
  const dialect: Dialect = {
    createAdapter: () => executor.adapter,
    createDriver: () => driver,
    createIntrospector: refuse('introspect') as never,
    createQueryCompiler: refuse('compile on its own') as never,
  };
  return new Transaction<DB>({ config: { dialect }, executor, driver, dialect });
}
