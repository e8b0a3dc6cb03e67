/**
 * sqlinbox over `tedious`: `mssql(config)` opens a small pool of tedious connections (tedious has no
 * pool of its own) and pairs it with the SQL Server dialect.
 *
 * ```ts
 * import { Broker } from '@sqlinbox/core';
 * import { mssql } from '@sqlinbox/dialect-mssql/tedious';
 * const adapter = mssql({ server: 'localhost', authentication: { type: 'default',
 *   options: { userName: 'sa', password } }, options: { database: 'app', trustServerCertificate: true } },
 *   { poolSize: 10 });
 * const broker = new Broker(adapter);
 * // ...
 * await broker.shutdown();
 * await adapter.close();
 * ```
 */
import type { Adapter, Connection, Form, IsolationLevel, Pool, QueryResult, Row } from '@sqlinbox/core';
import { keysHeld } from '@sqlinbox/sql';
import { type ConnectionConfiguration, Request, Connection as TediousConnection, TYPES } from 'tedious';
import { createMssqlDialect, mssqlDialect } from './dialect.js';

// How a bound value is typed: every statement of the dialect binds plain values (`@p1..@pN`).

/** The SQL Server parameter types a value may be sent as (tedious `TYPES` names). */
export type ParameterType = 'Int' | 'BigInt' | 'Float' | 'NVarChar' | 'DateTime2' | 'VarBinary' | 'Bit';

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/**
 * The type of a bound value: an integer number `Int` within 32 bits, `BigInt` beyond (and a JS
 * bigint), other numbers `Float`; a string `NVarChar` (`nvarchar(max)` past 4000 characters); a
 * Date `DateTime2` (sent in UTC, millisecond precision kept); a Buffer or Uint8Array `VarBinary`; a
 * boolean `Bit`; null and undefined a NULL `NVarChar`, which converts implicitly to every column
 * type the dialect writes except binary ones. Anything else is refused: the engine never binds it.
 */
export function parameterType(value: unknown): ParameterType {
  if (value === null || value === undefined) return 'NVarChar';
  switch (typeof value) {
    case 'number':
      if (Number.isInteger(value)) return value >= INT_MIN && value <= INT_MAX ? 'Int' : 'BigInt';
      return 'Float';
    case 'bigint':
      return 'BigInt';
    case 'string':
      return 'NVarChar';
    case 'boolean':
      return 'Bit';
    default:
      if (value instanceof Date) return 'DateTime2';
      if (value instanceof Uint8Array) return 'VarBinary';
      throw new TypeError(
        `sqlinbox: cannot bind a ${Object.prototype.toString.call(value)} to a SQL Server parameter`,
      );
  }
}

/** The value as the driver sends it: undefined as null, a Uint8Array as a Buffer over the same bytes. */
export function parameterValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return value;
}

/** Options of {@link mssql}. */
export interface MssqlAdapterOptions {
  /** The most connections the pool opens. Default 10. */
  readonly poolSize?: number;
  /**
   * Makes `checkServer` report this version instead of asking the server
   * (`SERVERPROPERTY('ProductVersion')`). Default: undefined, ask the server.
   */
  readonly serverVersion?: string;
}

/** What {@link mssql} returns: the adapter, whose `close()` ends the connections its pool opened. */
export type MssqlAdapter = Adapter<Form, IsolationLevel> & {
  /** The adapter's own pool of tedious connections. */
  readonly pool: MssqlPool;
  /** Closes every connection the pool opened; the server ends their sessions. */
  close(): Promise<void>;
};

/** The error a statement on a closed connection fails with (`code` ECONNCLOSED: kind `connection`). */
export class MssqlConnectionClosedError extends Error {
  /** The driver-style error code the dialect classifies as a lost connection. */
  readonly code = 'ECONNCLOSED';
  constructor(id: string) {
    super(`sqlinbox: connection ${id} is closed`);
    this.name = 'MssqlConnectionClosedError';
  }
}

/** A tedious column as a `row` event gives it. */
interface TediousColumn {
  readonly value: unknown;
  readonly metadata: { readonly colName: string };
}

/**
 * One tedious connection as the engine sees it. `id` is the session's `@@SPID`, so `KILL <id>` ends
 * exactly this session. Statements run one at a time, in call order (tedious takes one request at a
 * time per connection). A statement with parameters runs through `sp_executesql`
 * (`execSql`); one without runs as a plain batch (`execSqlBatch`), so a `SET TRANSACTION ISOLATION
 * LEVEL` in it outlives the statement, as `begin` needs.
 */
export class MssqlConnection implements Connection {
  private tail: Promise<unknown> = Promise.resolve();
  private ended = false;
  private readonly endedPromise: Promise<void>;

  constructor(
    /** The server's session id (`@@SPID`), as text. */
    readonly id: string,
    /** The tedious connection underneath. */
    readonly raw: TediousConnection,
  ) {
    this.endedPromise = new Promise((resolve) => {
      raw.once('end', () => {
        this.ended = true;
        resolve();
      });
    });
  }

  /** Whether the connection is still open (the server may still end it any time). */
  get open(): boolean {
    return !this.ended && !this.raw.closed;
  }

  /** Whether the session is inside a transaction (tedious follows the server's transaction tokens). */
  inTransaction(): boolean {
    return this.raw.inTransaction;
  }

  query<R = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    const result = this.tail.then(
      () => this.run<R>(sql, params),
      () => this.run<R>(sql, params),
    );
    this.tail = result.catch(() => undefined);
    return result;
  }

  private run<R>(sql: string, params: readonly unknown[]): Promise<QueryResult<R>> {
    if (!this.open) return Promise.reject(new MssqlConnectionClosedError(this.id));
    return new Promise((resolve, reject) => {
      const rows: R[] = [];
      const request = new Request(sql, (err, rowCount) => {
        if (err) reject(err);
        else resolve({ rows, rowCount: rowCount ?? rows.length });
      });
      request.on('row', (columns: TediousColumn[] | Record<string, TediousColumn>) => {
        const row: Record<string, unknown> = {};
        for (const c of Array.isArray(columns) ? columns : Object.values(columns))
          row[c.metadata.colName] = c.value;
        rows.push(row as R);
      });
      try {
        params.forEach((value, i) => {
          request.addParameter(`p${i + 1}`, TYPES[parameterType(value)], parameterValue(value));
        });
      } catch (err) {
        reject(err);
        return;
      }
      if (params.length === 0) this.raw.execSqlBatch(request);
      else this.raw.execSql(request);
    });
  }

  /** Closes the connection; resolves when tedious has ended it. */
  close(): Promise<void> {
    if (!this.ended) this.raw.close();
    return this.endedPromise;
  }
}

/** Opens one tedious connection and reads its session id. */
async function openConnection(config: ConnectionConfiguration): Promise<MssqlConnection> {
  const raw = new TediousConnection(config);
  // A socket error after login surfaces here and as the failure of the request in flight; the
  // listener keeps it from being an unhandled 'error' event, and 'end' marks the connection closed.
  raw.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    raw.connect((err) => (err ? reject(err) : resolve()));
  });
  const probe = new MssqlConnection('?', raw);
  try {
    // A settlement's answer is its row count: NOCOUNT (which a server's `user options` may turn on
    // for every session) would make every settlement look like a lost lease.
    const { rows } = await probe.query<{ spid: unknown }>('SET NOCOUNT OFF; SELECT @@SPID AS [spid]');
    return new MssqlConnection(String(rows[0]?.spid), raw);
  } catch (err) {
    await probe.close();
    throw err;
  }
}

/**
 * The config as this adapter needs it: instants sent and read in UTC (`useUTC`, so a lease token
 * round-trips), rows as arrays of columns under their own names (no `camelCaseColumns` or
 * `columnNameReplacer`, which would rename the columns the engine reads), and no row collection by
 * tedious (rows are read as they arrive).
 */
export function adapterConfig(config: ConnectionConfiguration): ConnectionConfiguration {
  const options = { ...config.options };
  delete options.columnNameReplacer;
  return {
    ...config,
    options: {
      ...options,
      useUTC: true,
      useColumnNames: false,
      camelCaseColumns: false,
      rowCollectionOnDone: false,
      rowCollectionOnRequestCompletion: false,
    },
  };
}

/**
 * A minimal pool of tedious connections of at most `size`, opened on demand. The core needs only
 * the few calls of its `Pool`, so the pool is this small rather than a dependency.
 *
 * `release` returns a connection only when it is open, outside a transaction and holding no key
 * this package locked; otherwise it warns (`SQLINBOX_DIRTY_RELEASE`) and closes it, so the server
 * rolls back and unlocks (the engine never releases such a connection, so this is a bug to see).
 */
export class MssqlPool implements Pool {
  readonly size: number;
  private readonly idle: MssqlConnection[] = [];
  private readonly waiters: { resolve: (c: MssqlConnection) => void; reject: (e: unknown) => void }[] = [];
  private readonly all = new Set<MssqlConnection>();
  /** Connections being opened (they count against `size`). */
  private opening = 0;
  private closed = false;

  constructor(
    private readonly config: ConnectionConfiguration,
    size = 10,
  ) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`sqlinbox: pool size must be 1 or more, got ${size}`);
    this.size = size;
  }

  /** Connections open or opening. */
  private get count(): number {
    return this.all.size + this.opening;
  }

  spare(): number {
    return Math.max(0, this.idle.length + (this.size - this.count) - this.waiters.length);
  }

  async acquire(): Promise<Connection> {
    const now = await this.tryAcquire();
    if (now !== null) return now;
    return new Promise<MssqlConnection>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  async tryAcquire(): Promise<Connection | null> {
    if (this.closed) throw new Error('sqlinbox: the SQL Server pool is closed');
    while (this.idle.length > 0) {
      const c = this.idle.pop()!;
      if (c.open) return c;
      this.all.delete(c);
    }
    if (this.count >= this.size) return null;
    return this.open();
  }

  release(conn: Connection): void {
    const c = this.own(conn);
    if (this.idle.includes(c)) return;
    const reason = dirtyReason(c, conn);
    if (reason !== undefined) {
      if (c.open) {
        process.emitWarning(
          `sqlinbox: connection ${c.id} was released while ${reason}; it is closed instead of returned to the pool`,
          { code: 'SQLINBOX_DIRTY_RELEASE' },
        );
      }
      void this.destroy(c).catch(() => {});
      return;
    }
    if (this.closed) {
      void this.destroy(c).catch(() => {});
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter.resolve(c);
    else this.idle.push(c);
  }

  async destroy(conn: Connection): Promise<void> {
    const c = this.own(conn);
    if (!this.all.delete(c)) {
      await c.close();
      return;
    }
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    try {
      await c.close();
    } finally {
      this.serveWaiter();
    }
  }

  /** Closes every connection, idle or not, and fails every waiter. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new Error('sqlinbox: the SQL Server pool is closed'));
    const all = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.allSettled(all.map((c) => c.close()));
  }

  private async open(): Promise<MssqlConnection> {
    this.opening++;
    try {
      const c = await openConnection(this.config);
      if (this.closed) {
        await c.close();
        throw new Error('sqlinbox: the SQL Server pool is closed');
      }
      this.all.add(c);
      c.raw.once('end', () => {
        // The server ended the session (KILL, restart): an idle connection is dropped at once.
        const i = this.idle.indexOf(c);
        if (i >= 0) {
          this.idle.splice(i, 1);
          this.all.delete(c);
          this.serveWaiter();
        }
      });
      return c;
    } finally {
      this.opening--;
    }
  }

  /** Room freed: opens a connection for the first waiter. */
  private serveWaiter(): void {
    if (this.closed || this.waiters.length === 0 || this.count >= this.size) return;
    const waiter = this.waiters.shift()!;
    this.open().then(waiter.resolve, waiter.reject);
  }

  /**
   * The connection with `conn`'s id (a wrapper `{ id, query }` finds the connection it wraps);
   * one this pool no longer holds is taken as it is, when it is one of this package's.
   */
  private own(conn: Connection): MssqlConnection {
    for (const c of this.all) if (c.id === conn.id) return c;
    if (!(conn instanceof MssqlConnection))
      throw new TypeError(`sqlinbox: connection ${conn.id} did not come from this pool`);
    return conn;
  }
}

/** Why a connection must be closed instead of returned to the pool, or undefined when it is clean. */
function dirtyReason(c: MssqlConnection, given: Connection = c): string | undefined {
  if (!c.open) return 'it is closed';
  if (c.inTransaction()) return 'it is inside a transaction';
  // The dialect records a lock on the object it was given, a wrapper of `c` included.
  const keys = given === c ? keysHeld(c) : [...keysHeld(c), ...keysHeld(given)];
  if (keys.length > 0)
    return `it holds the application lock of ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
  return undefined;
}

/**
 * sqlinbox on SQL Server through tedious.
 *
 * - `config` is tedious's `ConnectionConfiguration`; the adapter forces `useUTC` and plain column
 *   names (see {@link adapterConfig}). Its `requestTimeout` (tedious default 15 s) bounds every
 *   statement, handler queries on `ctx.tx` included.
 * - The pool opens up to `opts.poolSize` connections (default 10) on demand; `Connection.id` is the
 *   session's `@@SPID`.
 * - `opts.serverVersion` makes `checkServer` report that version (default: ask the server).
 * - `close()` ends every connection the pool opened.
 */
export function mssql(config: ConnectionConfiguration, opts: MssqlAdapterOptions = {}): MssqlAdapter {
  const pool = new MssqlPool(adapterConfig(config), opts.poolSize ?? 10);
  return {
    dialect:
      opts.serverVersion === undefined
        ? mssqlDialect
        : createMssqlDialect({ serverVersion: opts.serverVersion }),
    pool,
    close: () => pool.close(),
  };
}
