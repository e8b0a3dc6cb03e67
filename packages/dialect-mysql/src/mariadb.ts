/**
 * sqlinbox over the `mariadb` connector (its promise API): `mariadb(pool)` wraps the user's pool as
 * the core's `Pool` and pairs it with the MySQL/MariaDB dialect.
 *
 * ```ts
 * import * as connector from 'mariadb';
 * import { mariadb } from '@sqlinbox/dialect-mysql/mariadb';
 * const broker = new Broker(mariadb(connector.createPool({ host, user, database, connectionLimit: 10 }),
 *   { connectionLimit: 10 }));
 * ```
 */
import { createRequire } from 'node:module';
import type { Adapter, Form, IsolationLevel, Queryable } from '@sqlinbox/core';
import type {
  Pool as MariaPool,
  PoolConnection as MariaPoolConnection,
  PoolConfig,
  QueryOptions,
  TypeCastFunction,
} from 'mariadb';
import { createMysqlDialect, mysqlDialect } from './dialect.js';
import { type Backend, type BackendResult, MysqlPool } from './pool.js';
import { SERVER_STATUS_IN_TRANS } from './session.js';
import { parseUtc, toDriverValue } from './sql.js';

/** Options of {@link mariadb}. */
export interface MariadbAdapterOptions {
  /**
   * Makes `checkServer` report this version instead of asking the server. Default: undefined,
   * ask the server (`SELECT VERSION()`).
   */
  readonly serverVersion?: string | undefined;
  /**
   * The `connectionLimit` the pool was created with: the connector does not expose it. Default
   * 10, the connector's own default.
   */
  readonly connectionLimit?: number | undefined;
}

/** What a mariadb column offers a `typeCast`. */
interface CastColumn {
  readonly type: string;
  string(): string | null;
}

/**
 * Reads `DATETIME`/`TIMESTAMP` as UTC instants whatever the pool's `timezone` and `dateStrings`
 * say, and MySQL's `JSON` as its text (MariaDB's JSON, LONGTEXT, arrives as text with
 * `autoJsonMap` off); the rest as the connector reads it.
 */
const typeCast = ((column: CastColumn, next: () => unknown): unknown => {
  switch (column.type) {
    case 'DATETIME':
    case 'TIMESTAMP':
      return parseUtc(column.string());
    case 'JSON':
      return column.string();
    default:
      return next();
  }
}) as unknown as TypeCastFunction;

interface OkPacket {
  readonly affectedRows: number | bigint;
  readonly insertId: number | bigint;
}

/**
 * Runs one statement on a checked-out connection, values already converted for the driver.
 *
 * A statement with values runs as a server-side prepared statement (`execute`: the binary
 * protocol), so every value reaches the server as a bound parameter. The connector's `query`
 * would escape values into the text on the client (correctly under `NO_BACKSLASH_ESCAPES`, which
 * it reads from the server status, but still a splice); `execute` leaves nothing to escape. The
 * connector keeps each connection's prepared statements in an LRU cache (pool option
 * `prepareCacheLength`, default 256). A statement without values runs as text (`query`), which
 * also serves those the prepared protocol does not take.
 */
async function run(
  h: Pick<MariaPoolConnection, 'query' | 'execute' | 'info'>,
  sql: string,
  params: readonly unknown[],
): Promise<BackendResult> {
  const options = {
    sql,
    typeCast,
    rowsAsArray: false,
    nestTables: false,
    namedPlaceholders: false,
    autoJsonMap: false,
  } as QueryOptions;
  const res = (params.length === 0 ? await h.query(options) : await h.execute(options, params)) as unknown;
  const status = h.info?.status;
  const inTransaction = typeof status === 'number' ? (status & SERVER_STATUS_IN_TRANS) !== 0 : undefined;
  if (Array.isArray(res))
    return { rows: res as Record<string, unknown>[], rowCount: res.length, inTransaction };
  const ok = res as OkPacket;
  return { rows: [], rowCount: Number(ok.affectedRows), insertId: ok.insertId, inTransaction };
}

class MariadbBackend implements Backend<MariaPoolConnection> {
  readonly size: number;

  constructor(
    private readonly pool: MariaPool,
    connectionLimit: number | undefined,
  ) {
    this.size = connectionLimit ?? 10;
    // The connector's pool emits `error` when it fails to open a connection (a session killed
    // while it opens, the server away) and retries by itself; with no listener Node would end the
    // process. The application's own listener still hears it.
    (pool as unknown as { on?(event: 'error', listener: () => void): unknown }).on?.('error', () => {});
  }

  getConnection(): Promise<MariaPoolConnection> {
    return this.pool.getConnection();
  }

  physical(h: MariaPoolConnection): object {
    // A new wrapper comes with every checkout; its `info` belongs to the physical connection.
    return h.info ?? h;
  }

  async sessionId(h: MariaPoolConnection): Promise<string> {
    if (h.threadId !== null && h.threadId !== undefined) return String(h.threadId);
    const { rows } = await this.run(h, 'SELECT CONNECTION_ID() AS `id`', []);
    return String(rows[0]?.id);
  }

  run(h: MariaPoolConnection, sql: string, params: readonly unknown[]): Promise<BackendResult> {
    return run(h, sql, params);
  }

  release(h: MariaPoolConnection): Promise<void> {
    return h.release();
  }

  destroy(h: MariaPoolConnection): void {
    h.destroy();
  }

  spare(): number {
    const room = this.size - this.pool.totalConnections();
    return this.pool.idleConnections() + Math.max(0, room) - this.pool.taskQueueSize();
  }
}

/**
 * A `mariadb` connection of the service's own, inside a transaction it opened itself
 * (`beginTransaction()` .. `commit()`), as a `Queryable`, for `broker.publish(outbox, message, { tx:
 * mariadbTx(conn) })`: the message commits or rolls back with that transaction. Values
 * are bound and read as the adapter binds and reads them (instants as UTC `DATETIME(3)` text).
 */
export function mariadbTx(conn: Pick<MariaPoolConnection, 'query' | 'execute' | 'info'>): Queryable {
  return {
    query: (sql, params = []) => run(conn, sql, params.map(toDriverValue)) as never,
  };
}

/**
 * Wraps a `mariadb` connector pool for sqlinbox.
 *
 * - `Connection.id` is the session's thread id (`conn.threadId`, which is `CONNECTION_ID()`).
 * - Every session runs `SET time_zone = '+00:00'` once, when first seen; Dates are bound as UTC
 *   text and `DATETIME`/`TIMESTAMP` read back as UTC Dates, whatever the pool's `timezone`.
 * - `size` is `opts.connectionLimit` (default 10, the connector's default: the connector does not
 *   expose the limit); `spare()` is `idleConnections()` plus the room to open more
 *   (`connectionLimit - totalConnections()`), less `taskQueueSize()`.
 * - `release` returns a clean connection; one inside a transaction or holding an advisory lock is
 *   closed instead, with a `SQLINBOX_DIRTY_RELEASE` warning (so the connector's own rollback on
 *   release never hides an open transaction). `destroy` is `conn.destroy()`.
 * - Ids come back as the connector gives them: BIGINT and `insertId` as bigint unless the pool
 *   sets `bigIntAsNumber` / `insertIdAsNumber`.
 * - The pool option `resetAfterUse` resets each session on release and undoes its `time_zone`; the
 *   dialect's statements do not depend on it (they bind UTC text and read `UTC_TIMESTAMP(3)`).
 *
 * Given pool options (those of `createPool(..)`) instead of a pool, the adapter makes the pool
 * itself (`mariadb` must be installed), reads its `connectionLimit` from them, and owns it:
 * `close()`, which `broker.shutdown()` calls, ends it. A pool passed in stays yours to `end()`.
 *
 * ```ts
 * const adapter = mariadb({ host, user, database, connectionLimit: 10 });   // the adapter's pool
 * ```
 *
 * @param poolOrOptions a pool from `createPool(..)` of `mariadb` (promise API; it stays the
 *   caller's to end), or the options to make one (the adapter's, ended at shutdown).
 * @param opts `serverVersion` (default: ask the server), `connectionLimit` (default 10, or the
 *   options' `connectionLimit`).
 */
export function mariadb(
  poolOrOptions: MariaPool | PoolConfig,
  opts: MariadbAdapterOptions = {},
): Adapter<Form, IsolationLevel> & {
  /** Where the pool connects, `mysql://host:port/database` (never a password), for messages. */
  readonly server: string;
} {
  const owned = typeof (poolOrOptions as { getConnection?: unknown }).getConnection !== 'function';
  const config = owned ? (poolOrOptions as PoolConfig) : undefined;
  const pool = owned
    ? (createRequire(import.meta.url)('mariadb') as { createPool(o: PoolConfig): MariaPool }).createPool(
        config!,
      )
    : (poolOrOptions as MariaPool);
  let ended: Promise<void> | undefined;
  return {
    dialect:
      opts.serverVersion === undefined
        ? mysqlDialect
        : createMysqlDialect({ serverVersion: opts.serverVersion }),
    pool: new MysqlPool(new MariadbBackend(pool, opts.connectionLimit ?? config?.connectionLimit)),
    server:
      config === undefined
        ? 'the MariaDB/MySQL server'
        : config.socketPath !== undefined
          ? `mysql://${config.socketPath}/${config.database ?? ''}`
          : `mysql://${config.host ?? 'localhost'}:${config.port ?? 3306}/${config.database ?? ''}`,
    ...(owned
      ? {
          close: async () => {
            ended ??= pool.end();
            await ended;
          },
        }
      : {}),
  };
}
