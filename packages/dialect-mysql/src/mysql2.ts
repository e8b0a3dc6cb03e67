/**
 * sqlinbox over `mysql2` (its promise API): `mysql2(pool)` wraps the user's pool as the core's
 * `Pool` and pairs it with the MySQL/MariaDB dialect.
 *
 * ```ts
 * import mysql from 'mysql2/promise';
 * import { mysql2 } from '@sqlinbox/dialect-mysql/mysql2';
 * const broker = new Broker(mysql2(mysql.createPool({ uri, connectionLimit: 10 })));
 * ```
 */
import { createRequire } from 'node:module';
import {
  type Adapter,
  checkConnectionString,
  type Form,
  type IsolationLevel,
  type Queryable,
} from '@sqlinbox/core';
import type {
  FieldPacket,
  PoolOptions,
  Pool as PromisePool,
  PoolConnection as PromisePoolConnection,
  QueryOptions,
} from 'mysql2/promise';
import { createMysqlDialect, mysqlDialect } from './dialect.js';
import { type Backend, type BackendResult, MysqlPool } from './pool.js';
import { SERVER_STATUS_IN_TRANS } from './session.js';
import { parseUtc, toDriverValue } from './sql.js';

/** Options of {@link mysql2}. */
export interface Mysql2AdapterOptions {
  /**
   * Makes `checkServer` report this version instead of asking the server. Default: undefined,
   * ask the server (`SELECT VERSION()`).
   */
  readonly serverVersion?: string | undefined;
}

/** What this file reads of a mysql2 core pool; the counts are not part of mysql2's typed API. */
interface CorePoolView {
  readonly config?: { readonly connectionLimit?: number };
  readonly _allConnections?: { readonly length: number };
  readonly _freeConnections?: { readonly length: number };
  readonly _connectionQueue?: { readonly length: number };
}

/** What a mysql2 field offers a `typeCast`. */
interface CastField {
  readonly type: string;
  /** MariaDB 10.5+ extended metadata: `json` for its JSON (LONGTEXT) columns. */
  readonly extendedFormat?: string | undefined;
  string(encoding?: string): string | null;
}

/**
 * Reads `DATETIME`/`TIMESTAMP` as UTC instants whatever the pool's `timezone` and `dateStrings`
 * say, and JSON as its text: MySQL's JSON type, and MariaDB's JSON (LONGTEXT marked `json` in the
 * extended metadata, which mysql2 would otherwise parse). The rest as the driver reads it.
 */
function typeCast(field: CastField, next: () => unknown): unknown {
  if (field.extendedFormat === 'json') return field.string('utf8');
  switch (field.type) {
    case 'DATETIME':
    case 'DATETIME2':
    case 'TIMESTAMP':
    case 'TIMESTAMP2':
      return parseUtc(field.string('ascii'));
    case 'JSON':
      return field.string('utf8');
    default:
      return next();
  }
}

interface OkPacket {
  readonly affectedRows: number;
  readonly insertId: number | string;
  readonly serverStatus?: number;
}

/**
 * How many prepared statements the adapter keeps open per connection: past this, the least
 * recently used is closed (`unprepare`). mysql2's own cache (`maxPreparedStatements`, default
 * 16000) would let ten connections hold more than the server's `max_prepared_stmt_count` (default
 * 16382, for all sessions together) where statement texts vary, e.g. `publishMany` of varying sizes.
 */
export const PREPARED_PER_CONNECTION = 256;

/** The statements prepared on each physical connection, least recently used first. */
const prepared = new WeakMap<object, Map<string, true>>();

type Mysql2Handle = Pick<PromisePoolConnection, 'query' | 'execute'> &
  Partial<Pick<PromisePoolConnection, 'unprepare' | 'connection'>>;

/** Notes that `sql` ran prepared on `h`; closes the least recently used past the limit. */
function remember(h: Mysql2Handle, sql: string): void {
  const key: object = h.connection ?? h;
  let lru = prepared.get(key);
  if (lru === undefined) {
    lru = new Map();
    prepared.set(key, lru);
  }
  lru.delete(sql);
  lru.set(sql, true);
  if (lru.size <= PREPARED_PER_CONNECTION) return;
  const oldest = lru.keys().next().value as string;
  lru.delete(oldest);
  // The key mysql2 caches it under: the text and these two options, as `run` sets them.
  h.unprepare?.({ sql: oldest, nestTables: false, rowsAsArray: false } as never);
}

/** A mysql2 connection's callback API, under its promise wrapper. */
interface CallbackConnection {
  query(options: QueryOptions, done: (err: unknown, result: unknown, fields: FieldPacket[]) => void): unknown;
  execute(
    options: QueryOptions,
    done: (err: unknown, result: unknown, fields: FieldPacket[]) => void,
  ): unknown;
}

/**
 * Sends a statement through the connection's callback API where the handle has one (mysql2's
 * promise connections do): the promise API captures a stack trace for every statement (its
 * `trace` option, on by default), a cost paid per statement that the engine never reads.
 */
function send(
  h: Mysql2Handle,
  method: 'query' | 'execute',
  options: QueryOptions,
): Promise<[unknown, FieldPacket[]]> {
  const c = h.connection as unknown as CallbackConnection | undefined;
  if (typeof c?.[method] !== 'function')
    return (method === 'query' ? h.query(options) : h.execute(options)) as Promise<[unknown, FieldPacket[]]>;
  return new Promise((resolve, reject) => {
    c[method](options, (err, result, fields) => (err ? reject(err) : resolve([result, fields])));
  });
}

/**
 * Runs one statement on a checked-out connection, values already converted for the driver.
 *
 * A statement with values runs as a server-side prepared statement (`execute`: the binary
 * protocol), so every value reaches the server as a bound parameter and no server setting
 * (`NO_BACKSLASH_ESCAPES`, `ANSI_QUOTES`, the character set) can change what it means; mysql2's
 * `query` would splice them into the text with escapes that cannot see the session's `sql_mode`.
 * mysql2 keeps each connection's prepared statements in a cache keyed by SQL text; this adapter
 * keeps at most {@link PREPARED_PER_CONNECTION} of them open per connection. A statement without values has nothing to bind and runs as text
 * (`query`), which also serves those the prepared protocol does not take (`START TRANSACTION`).
 */
async function run(h: Mysql2Handle, sql: string, params: readonly unknown[]): Promise<BackendResult> {
  const options = {
    sql,
    values: params as unknown[],
    rowsAsArray: false,
    nestTables: false,
    namedPlaceholders: false,
    typeCast: typeCast as QueryOptions['typeCast'],
  } as QueryOptions;
  let reply: [unknown, FieldPacket[]];
  if (params.length === 0) reply = await send(h, 'query', options);
  else {
    try {
      reply = await send(h, 'execute', options);
    } finally {
      remember(h, sql);
    }
  }
  const [res] = reply;
  if (Array.isArray(res))
    return { rows: res as Record<string, unknown>[], rowCount: res.length, inTransaction: undefined };
  const ok = res as OkPacket;
  return {
    rows: [],
    rowCount: ok.affectedRows,
    insertId: ok.insertId,
    inTransaction:
      ok.serverStatus === undefined ? undefined : (ok.serverStatus & SERVER_STATUS_IN_TRANS) !== 0,
  };
}

class Mysql2Backend implements Backend<PromisePoolConnection> {
  readonly size: number;

  constructor(private readonly pool: PromisePool) {
    const limit = this.core()?.config?.connectionLimit;
    // mysql2's default is 10; 0 means no limit.
    this.size = limit === undefined ? 10 : limit === 0 ? Number.POSITIVE_INFINITY : limit;
  }

  private core(): CorePoolView | undefined {
    return (this.pool as unknown as { pool?: CorePoolView }).pool;
  }

  getConnection(): Promise<PromisePoolConnection> {
    return this.pool.getConnection();
  }

  physical(h: PromisePoolConnection): object {
    return h.connection;
  }

  /**
   * mysql2's pool listens for a connection's first `error` only (`once`), and the connection emits
   * another for a write after its session ended: a listener of the adapter's own takes those.
   */
  watch(h: PromisePoolConnection): void {
    (h.connection as unknown as { on(event: 'error', listener: () => void): unknown }).on('error', () => {});
  }

  async sessionId(h: PromisePoolConnection): Promise<string> {
    const { rows } = await this.run(h, 'SELECT CONNECTION_ID() AS `id`', []);
    return String(rows[0]?.id);
  }

  run(h: PromisePoolConnection, sql: string, params: readonly unknown[]): Promise<BackendResult> {
    return run(h, sql, params);
  }

  release(h: PromisePoolConnection): void {
    h.release();
  }

  destroy(h: PromisePoolConnection): void {
    h.destroy();
  }

  spare(): number | undefined {
    const core = this.core();
    if (core?._allConnections === undefined || core._freeConnections === undefined) return undefined;
    const room = this.size - core._allConnections.length;
    return core._freeConnections.length + room - (core._connectionQueue?.length ?? 0);
  }
}

/**
 * A `mysql2/promise` connection of the service's own, inside a transaction it opened itself
 * (`beginTransaction()` .. `commit()`), as a `Queryable`, for `broker.publish(outbox, message, { tx:
 * mysql2Tx(conn) })`: the message commits or rolls back with that transaction. Values
 * are bound and read as the adapter binds and reads them (instants as UTC `DATETIME(3)` text).
 */
export function mysql2Tx(conn: Pick<PromisePoolConnection, 'query' | 'execute'>): Queryable {
  return {
    query: (sql, params = []) => run(conn, sql, params.map(toDriverValue)) as never,
  };
}

/**
 * Wraps a `mysql2/promise` pool for sqlinbox.
 *
 * Given pool options (those of `mysql.createPool(..)`) instead of a pool, the adapter makes the
 * pool itself (`mysql2` must be installed) and owns it: `close()`, which `broker.shutdown()` calls,
 * ends it. A pool passed in stays yours to `end()`.
 *
 * ```ts
 * const adapter = mysql2({ host, user, database, connectionLimit: 10 });   // the adapter's pool
 * // or: mysql2(mysql.createPool({ ... }))                                   // your pool
 * ```
 *
 * - `Connection.id` is the session's `CONNECTION_ID()`, read once per physical connection.
 * - Every session runs `SET time_zone = '+00:00'` once, when first seen; Dates are bound as UTC
 *   text and `DATETIME`/`TIMESTAMP` read back as UTC Dates, whatever the pool's `timezone`.
 * - `size` is the pool's `connectionLimit` (mysql2's default 10; 0, no limit, is Infinity);
 *   `spare()` is its free connections plus the room to open more, less requests waiting (read from
 *   mysql2's pool counters, or counted by this adapter where those are absent).
 * - `release` returns a clean connection; one inside a transaction or holding an advisory lock is
 *   closed instead, with a `SQLINBOX_DIRTY_RELEASE` warning. `destroy` is `conn.destroy()`.
 *
 * @param poolOrOptions a pool from `mysql.createPool(..)` of `mysql2/promise` (it stays the
 *   caller's to end), or the options to make one (the adapter's, ended at shutdown).
 * @param opts `serverVersion` (default: ask the server).
 */
export function mysql2(
  poolOrOptions: PromisePool | PoolOptions,
  opts: Mysql2AdapterOptions = {},
): Adapter<Form, IsolationLevel> & {
  /** Where the pool connects, `mysql://host:port/database` (never a password), for messages. */
  readonly server: string;
} {
  const owned = typeof (poolOrOptions as { getConnection?: unknown }).getConnection !== 'function';
  const uri = owned ? (poolOrOptions as PoolOptions).uri : undefined;
  if (uri !== undefined) {
    checkConnectionString(uri, {
      option: 'uri',
      schemes: ['mysql', 'mariadb'],
      example: 'mysql://user:password@localhost:3306/app',
    });
  }
  const pool = owned
    ? (
        createRequire(import.meta.url)('mysql2/promise') as { createPool(o: PoolOptions): PromisePool }
      ).createPool(poolOrOptions as PoolOptions)
    : (poolOrOptions as PromisePool);
  const config = (pool as unknown as { pool?: { config?: { connectionConfig?: PoolOptions } } }).pool?.config
    ?.connectionConfig;
  let ended: Promise<void> | undefined;
  return {
    dialect:
      opts.serverVersion === undefined
        ? mysqlDialect
        : createMysqlDialect({ serverVersion: opts.serverVersion }),
    pool: new MysqlPool(new Mysql2Backend(pool)),
    server: mysqlServer(owned ? (poolOrOptions as PoolOptions) : (config ?? {})),
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

/** `mysql://host:port/database` (or the socket path) from pool options; never a password. */
function mysqlServer(o: {
  host?: string;
  port?: number;
  socketPath?: string;
  database?: string;
  uri?: string;
}): string {
  if (o.socketPath !== undefined) return `mysql://${o.socketPath}/${o.database ?? ''}`;
  if (o.uri !== undefined) {
    try {
      const u = new URL(o.uri);
      return `mysql://${u.hostname}:${u.port || 3306}${u.pathname}`;
    } catch {
      // not a URL: the fields below
    }
  }
  return `mysql://${o.host ?? 'localhost'}:${o.port ?? 3306}/${o.database ?? ''}`;
}
