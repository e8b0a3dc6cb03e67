import { createRequire } from 'node:module';
import {
  type Adapter,
  ConfigError,
  type Connection,
  checkConnectionString,
  type Form,
  type Pool,
  type Queryable,
  type QueryResult,
  type Row,
  type Wakeup,
  type WakeupTopic,
} from '@sqlinbox/core';
import { jsonStringsAsText } from '@sqlinbox/sql';
import {
  createPostgresDialect,
  type PostgresDialect,
  type PostgresIsolation,
  type PostgresPooler,
  type TransactionPoolerForm,
} from './dialect.js';
import { retiresConnection } from './errors.js';
import { warnPooler } from './pooler.js';
import { LISTEN_IDLE_MS, topicChannel, wakeupChannel } from './sql.js';
import { PG_URL } from './url.js';

/**
 * The postgres.js adapter: wraps the user's `postgres()` instance. Connections are reserved with
 * `sql.reserve()` and statements run with `sql.unsafe(text, params)`. The slice of postgres.js it
 * calls is typed structurally below, so this package needs no postgres.js to build.
 *
 * postgres.js has no public call that closes one reserved connection, and a reserved connection
 * whose server session ended must never be used or released again: its next write throws outside
 * any promise (porsager/postgres#1208) and releasing it wedges the pool (#1199). The adapter
 * therefore keeps the connection object postgres.js hands to a query's `onexecute` option (an
 * option of `unsafe` that `sql.begin` uses itself), and with it:
 * - `destroy` calls that connection's `terminate()`: the socket closes, the server ends the session
 *   (its locks, its transaction), and postgres.js reopens the slot on demand;
 * - before each statement it checks that the connection is still the one it reserved (postgres.js
 *   clears `reserved` when the socket closes); a lost one fails the statement with a
 *   `CONNECTION_CLOSED` error instead of touching it, and is never released;
 * - a statement that fails with a socket error (`ECONNRESET`) marks the connection lost at once:
 *   postgres.js rejects that statement on the socket's `error` event, but a statement written
 *   between that and the `close` event would never settle.
 * Should a postgres.js release stop passing that object, `destroy` falls back to
 * `pg_terminate_backend(pg_backend_pid())` on the connection itself and never releases it.
 */

/** One postgres.js result: an array of rows with the command's row count. */
export interface PostgresJsResult extends ReadonlyArray<any> {
  /** The rows the command changed or returned; null where it reports no count. */
  readonly count: number | null;
  /** The result's columns with their type oids (JSON-typed strings go back to JSON text). */
  readonly columns?: readonly {
    /** The column's name. */
    readonly name: string;
    /** Its type oid. */
    readonly type: number;
  }[];
  /** The `{ pid, secret }` of the BackendKeyData of the connection that ran it (behind a pooler, the pooler's key). */
  readonly state?: {
    /** The backend pid; absent or null where postgres.js has not read it. */
    readonly pid?: number | null;
  } | null;
}

/** The internal connection object postgres.js passes to `onexecute` (undocumented; used defensively). */
interface PostgresJsRawConnection {
  reserved?: unknown;
  terminate?: () => void;
}

/** The slice of a postgres.js `Sql` (and a reserved one) the adapter calls. */
export interface PostgresJsSqlLike {
  /** Runs one statement with bound values; `onexecute` receives postgres.js's connection object. */
  unsafe(
    query: string,
    parameters?: any[],
    queryOptions?: { prepare?: boolean; onexecute?: (connection: any) => unknown },
  ): PromiseLike<any>;
}

/** A reserved postgres.js connection. */
export interface PostgresJsReservedLike extends PostgresJsSqlLike {
  /** Hands the connection back to the instance. */
  release(): void;
}

/** The slice of `postgres()`'s instance the adapter calls. */
export interface PostgresJsLike extends PostgresJsSqlLike {
  /**
   * The parsed options; `max` is the instance's size (postgres.js's default 10), `prepare`
   * whether its statements are prepared by name (postgres.js's default true).
   */
  readonly options: {
    /** The most connections the instance opens. */
    readonly max: number;
    /** Whether statements are prepared by name (absent: true). */
    readonly prepare?: boolean;
    /**
     * postgres.js's `onclose` option, called with a connection's id each time one of the
     * instance's connections closes. postgres.js reads it at each close: the adapter wraps it to
     * hear the closes (a reserve waiting then may be stranded), and yours still runs.
     */
    onclose?: ((connectionId: number) => void) | undefined;
  };
  /** Reserves one connection for the caller alone, waiting while every connection is busy. */
  reserve(): Promise<PostgresJsReservedLike>;
  /** LISTENs on a channel over postgres.js's own dedicated connection. */
  listen(
    channel: string,
    onnotify: (value: string) => void,
    onlisten?: () => void,
  ): PromiseLike<{
    /** Stops listening on the channel. */
    unlisten(): Promise<void>;
  }>;
}

/**
 * Connection options for a postgres.js instance the adapter makes and owns: `url` (a connection
 * string) and any option of `postgres(url, options)`, e.g. `postgresJs({ url, max: 10 })`. The
 * adapter ends that instance when the broker shuts down.
 */
export interface PostgresJsConnectOptions {
  /** A `postgres://user:password@host:port/database` URL; the fields below override its parts. */
  readonly url?: string | undefined;
  /** The server's host name or address (postgres.js's default: `PGHOST`, else localhost). */
  readonly host?: string | undefined;
  /** The server's port (postgres.js's default: `PGPORT`, else 5432). */
  readonly port?: number | undefined;
  /** The database to connect to (postgres.js's default: `PGDATABASE`, else the user's name). */
  readonly database?: string | undefined;
  /** The instance's size (default 10, as in postgres.js). */
  readonly max?: number | undefined;
  /** Any other option of `postgres()`. */
  readonly [option: string]: unknown;
}

/** What {@link postgresJs} takes. */
export interface PostgresJsAdapterOptions {
  /** Makes `checkServer` report this version instead of asking the server (default: ask). */
  readonly serverVersion?: string | undefined;
  /**
   * The pooler the instance connects through, by its pool mode. `'transaction'` (PgBouncer's
   * `pool_mode = transaction`): statements run unprepared, and the instance must not prepare its
   * own (`postgres(url, { prepare: false })`; an instance the adapter makes gets it, one that
   * prepares is refused with a `ConfigError`), the advisory form is refused, connection ids are
   * the pooler's client keys, and the wake-up listens only on a `listener` you give (a LISTEN
   * through the pooler would never hear a notification): without one the broker polls.
   * `'session'`: as a direct connection. Default: none, a direct connection; the adapter then warns
   * once (`SQLINBOX_POOLER`) if its first connection turns out to go through a pooler.
   */
  readonly pooler?: PostgresPooler | undefined;
  /**
   * The postgres.js instance whose `sql.listen` carries the wake-up, or the connection options
   * (URL or `{ url, ...options }`) of one the adapter makes and ends with `close()`. Default: the
   * adapter's own instance; with `pooler: 'transaction'`, none (no wake-up, the broker polls):
   * give one that connects directly or through a session pooler.
   */
  readonly listener?: PostgresJsLike | string | PostgresJsConnectOptions | undefined;
}

/** What {@link postgresJs} takes through a transaction pooler. */
export type PostgresJsTransactionPoolerOptions = PostgresJsAdapterOptions & {
  /** The instance connects through a pooler in transaction mode. */
  readonly pooler: 'transaction';
};

/** What every adapter {@link postgresJs} returns has. */
export interface PostgresJsAdapterParts {
  /** The PostgreSQL dialect, shared with the `pg` adapter. */
  readonly dialect: PostgresDialect;
  /** The instance as a core pool: one reserved connection per connection. */
  readonly pool: Pool;
  /** Where the instance connects: `postgres://host:port/database`. */
  readonly server: string;
  /**
   * Stops the adapter's LISTENs; ends the instance (and the `listener`) where the adapter made it
   * from options (an instance passed in stays the caller's, and its LISTEN connection closes with
   * its `sql.end()`).
   */
  close(): Promise<void>;
}

/** The adapter {@link postgresJs} returns. */
export type PostgresJsAdapter = Adapter<Form, PostgresIsolation> &
  PostgresJsAdapterParts & {
    /** LISTEN/NOTIFY wake-ups, through `sql.listen` of the instance (or of the `listener` given). */
    readonly wakeup: Wakeup;
  };

/**
 * The adapter {@link postgresJs} returns with `pooler: 'transaction'`: the row lock and lease forms
 * only (a table of the advisory form is a type error at `subscribe`), and a wake-up only where a
 * `listener` was given.
 */
export type PostgresJsTransactionPoolerAdapter = Adapter<TransactionPoolerForm, PostgresIsolation> &
  PostgresJsAdapterParts & {
    /** LISTEN/NOTIFY wake-ups through the `listener` given; undefined without one (the broker polls). */
    readonly wakeup: Wakeup | undefined;
  };

/** A `CONNECTION_CLOSED` error like postgres.js's own, for a statement on a lost connection. */
function closedError(id: string): Error {
  return Object.assign(
    new Error(`write CONNECTION_CLOSED: the reserved connection (backend ${id}) was closed`),
    {
      code: 'CONNECTION_CLOSED',
    },
  );
}

/**
 * An array parameter becomes a PostgreSQL array literal, sent untyped like every other value: the
 * server then gives it the type its place in the statement asks for (`id = ANY($1)` makes it the id
 * column's array type). postgres.js would otherwise type an array of strings as `text[]`.
 */
function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((v) => {
    if (v === null || v === undefined) return 'NULL';
    const text = v instanceof Date ? v.toISOString() : String(v);
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

/**
 * One reserved connection as a core `Connection`; `id` is the backend pid (behind a pooler, the
 * pid of the key the pooler gave this client connection).
 */
class PostgresJsConnection implements Connection {
  lost = false;
  done = false;

  constructor(
    readonly reserved: PostgresJsReservedLike,
    readonly id: string,
    readonly raw: PostgresJsRawConnection | undefined,
    readonly mark: unknown,
    private readonly prepare: boolean,
  ) {}

  /** Whether postgres.js still holds the connection reserved for us (false once its socket closed). */
  alive(): boolean {
    if (this.lost) return false;
    if (this.raw !== undefined && this.raw.reserved !== this.mark) this.lost = true;
    return !this.lost;
  }

  async query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    if (!this.alive()) throw closedError(this.id);
    const values = (params ?? []).map((v) => (Array.isArray(v) ? arrayLiteral(v) : v));
    try {
      // Statements with parameters are prepared once per connection (postgres.js caches them);
      // through a transaction pooler none is: the next one may run on another server session.
      const r = (await this.reserved.unsafe(sql, values, {
        prepare: this.prepare && values.length > 0,
      })) as PostgresJsResult;
      return { rows: jsonStringsAsText([...r] as R[], r.columns), rowCount: r.count ?? r.length };
    } catch (err) {
      // A read-only or recovering server's error leaves the socket usable, but the connection is
      // retired all the same at its release (see `retiresConnection`).
      if (breaksConnection(err) || retiresConnection(err)) this.lost = true;
      else this.alive();
      throw err;
    }
  }
}

/**
 * Whether an error leaves the connection unusable. A server error carries a five-character
 * SQLSTATE and leaves the session as it was, except the connection classes (08) and operator
 * intervention (57P, the session was ended). Anything else is the socket's or postgres.js's own
 * (`ECONNRESET`, `CONNECTION_CLOSED`, ...): postgres.js rejects the statement on the socket's
 * `error` event but settles nothing sent before its `close` event arrives, so no further statement
 * may go to that connection.
 */
function breaksConnection(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
}

/**
 * How a `sql.reserve()` that has to wait is stranded, and how the adapter gets out of it. postgres.js
 * queues a reserve it cannot grant at once (no open connection) at the end of its queue of requests,
 * and grants it when a connection opens and finds it first in that queue. But each time one of the
 * instance's connections closes, postgres.js takes the first request off that queue and hands it to
 * that connection's reconnect, which drops a reserve on the way (it clears a reserve it was given
 * once the connection is up, before fetching the array types, and then finds the queue without it):
 * the promise never settles (porsager/postgres#1195, open in 3.4.9). A failover does exactly that:
 * connections close by the dozen while the claims' reserves wait for a reachable primary.
 *
 * The adapter therefore hears every close of the instance's connections (postgres.js's `onclose`
 * option, see {@link onConnectionClose}) and, at each one, takes its oldest reserve still waiting
 * for lost (the one postgres.js is about to take off its queue, unless a request of the
 * application's own is ahead of it) and reserves again at once; a late grant of the one given up
 * is released at once. The close is the moment the reserve is lost, so nothing waits for a timer.
 * Where the instance takes no `onclose`, or postgres.js strands a reserve another way, the
 * watchdog below gives it up after {@link RESERVE_WATCHDOG_MS}.
 */

/**
 * How long one `sql.reserve()` may wait before the adapter stops trusting it (the last resort: a
 * reserve stranded on a connection's close is given up at the close).
 */
const RESERVE_WATCHDOG_MS = 3_000;

/** The listeners of each postgres.js instance's connection closes, by the instance's options. */
const closeListeners = new WeakMap<object, Set<() => void>>();

/**
 * Calls `listener` each time a connection of `sql` closes, before postgres.js hands the first
 * request it has queued to that connection's reconnect. It wraps the instance's `onclose` option
 * (postgres.js reads `sql.options.onclose` at each close): an `onclose` of the application's runs
 * as before, after the adapter's listeners. Answers the call that stops listening, or undefined
 * where the instance's options take no `onclose` (another postgres.js, frozen options).
 */
function onConnectionClose(sql: PostgresJsLike, listener: () => void): (() => void) | undefined {
  const options = sql.options as PostgresJsLike['options'] | undefined;
  if (options === undefined || options === null || typeof options !== 'object') return undefined;
  let listeners = closeListeners.get(options);
  if (listeners === undefined) {
    const own = options.onclose;
    if (own !== undefined && typeof own !== 'function') return undefined;
    const heard = new Set<() => void>();
    const wrapped = (connectionId: number): void => {
      for (const l of [...heard]) l();
      own?.(connectionId);
    };
    try {
      options.onclose = wrapped;
    } catch {
      return undefined;
    }
    if (options.onclose !== wrapped) return undefined;
    closeListeners.set(options, heard);
    listeners = heard;
  }
  const set = listeners;
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * A postgres.js instance as the engine's pool, over `sql.reserve()`. The adapter keeps its own
 * count of reservations and its own queue of waiters, so it never asks postgres.js for more than
 * `max` connections at once: a reserve then waits inside postgres.js only while the application's
 * own statements hold every connection, and a slot of a destroyed connection is handed on only after
 * postgres.js has seen its socket close (a reserve queued before that would be stranded, see above).
 */
class PostgresJsPool implements Pool {
  /** Reservations this adapter holds or is making. */
  private held = 0;
  /** Callers waiting for one of the `max` slots, first come first served. */
  private readonly waiting: Array<() => void> = [];
  /** Connections reserved and not yet released or retired, by id (the backend pid). */
  private readonly out = new Map<string, PostgresJsConnection>();
  /** Whether the pooler check ran (see {@link warnPooler}). */
  private probed = false;
  /** Ids for connections whose results carry no key behind a pooler. */
  private unkeyed = 0;
  /**
   * The `sql.reserve()` calls waiting, oldest first, each as the call that gives it up; a reserve
   * leaves the list when it settles or is given up.
   */
  private readonly reserving: Array<() => void> = [];
  /** Stops hearing the instance's connection closes; undefined where they cannot be heard. */
  readonly stopHearing: (() => void) | undefined;

  /** `pooler`: the adapter's option; none makes the first connection check for a pooler. */
  constructor(
    private readonly sql: PostgresJsLike,
    private readonly pooler: PostgresPooler | undefined,
  ) {
    this.stopHearing = onConnectionClose(sql, () => this.connectionClosed());
  }

  /**
   * A connection of the instance closed: postgres.js now takes the first request off its queue and
   * strands it if it is a reserve (see {@link onConnectionClose} and the note above
   * {@link RESERVE_WATCHDOG_MS}). The oldest reserve of this adapter still waiting is taken for
   * that one and reserved again; called inside postgres.js's close, it only settles a promise, so
   * the new reserve is queued after postgres.js has taken the first request off.
   */
  private connectionClosed(): void {
    this.reserving.shift()?.();
  }

  /** `sql.options.max` (postgres.js's default 10). */
  get size(): number {
    return this.sql.options.max;
  }

  /**
   * `max` less the connections this adapter holds reserved (or is reserving). Statements the
   * application runs on the same instance outside a reservation are not seen: they use the same
   * connections only for a statement's time.
   */
  spare(): number {
    return Math.max(0, this.size - this.held);
  }

  /** Takes one of the `max` slots, waiting behind earlier callers while all are taken. */
  private async takeSlot(): Promise<void> {
    if (this.held < this.size && this.waiting.length === 0) {
      this.held++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands a slot to the next waiter (the count stays), or gives it up. */
  private freeSlot(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.held--;
  }

  /**
   * `sql.reserve()`, given up and made again when a connection of the instance closes while it
   * waits (postgres.js may have stranded it), or after {@link RESERVE_WATCHDOG_MS} at the latest.
   */
  private async reserve(): Promise<PostgresJsReservedLike> {
    for (;;) {
      const attempt = this.sql.reserve();
      let giveUp!: () => void;
      const givenUp = new Promise<null>((resolve) => {
        giveUp = () => resolve(null);
      });
      this.reserving.push(giveUp);
      const timer = setTimeout(giveUp, RESERVE_WATCHDOG_MS);
      let granted: PostgresJsReservedLike | null;
      try {
        granted = await Promise.race([attempt, givenUp]);
      } finally {
        clearTimeout(timer);
        const i = this.reserving.indexOf(giveUp);
        if (i !== -1) this.reserving.splice(i, 1);
      }
      if (granted !== null) return granted;
      attempt.then(
        (late) => late.release(),
        () => {},
      );
    }
  }

  async acquire(): Promise<Connection> {
    await this.takeSlot();
    let reserved: PostgresJsReservedLike | undefined;
    try {
      reserved = await this.reserve();
      let raw: PostgresJsRawConnection | undefined;
      const r = (await reserved.unsafe('SELECT pg_backend_pid() AS pid', [], {
        onexecute: (c: PostgresJsRawConnection) => {
          raw = c;
          return true; // postgres.js reads a truthy answer as "the connection takes more statements"
        },
      })) as PostgresJsResult;
      const backend = String(r[0]?.pid);
      const key = r.state?.pid;
      // Behind a pooler the backend pid changes between transactions; the key names the client.
      let pid = backend;
      if (this.pooler !== undefined) pid = typeof key === 'number' ? String(key) : `pooled-${++this.unkeyed}`;
      else if (!this.probed) {
        this.probed = true;
        if (typeof key === 'number' && String(key) !== backend)
          warnPooler('postgres.js', String(key), backend);
      }
      const captured = raw as PostgresJsRawConnection | undefined;
      const conn = new PostgresJsConnection(
        reserved,
        pid,
        captured,
        captured?.reserved,
        this.pooler !== 'transaction',
      );
      this.out.set(pid, conn);
      return conn;
    } catch (err) {
      // Hand the reservation back only while postgres.js still holds it open for us: releasing a
      // connection whose socket closed wedges the pool (porsager/postgres#1199).
      if (reserved !== undefined && !breaksConnection(err)) reserved.release();
      this.freeSlot();
      throw err;
    }
  }

  /**
   * A connection when this adapter holds fewer than `max` reserved, else null. postgres.js opens
   * one on demand; an instance busy with the application's own statements may make it wait for one.
   */
  async tryAcquire(): Promise<Connection | null> {
    return this.spare() > 0 && this.waiting.length === 0 ? this.acquire() : null;
  }

  /**
   * `reserved.release()`. A connection that failed with a connection error is never handed back
   * (releasing a closed one wedges postgres.js, porsager/postgres#1199): it is retired instead.
   */
  release(conn: Connection): void {
    const c = this.take(conn);
    if (c === undefined || c.done) return;
    c.done = true;
    if (c.alive()) {
      c.reserved.release();
      this.freeSlot();
    } else void this.retire(c);
  }

  /**
   * Closes the physical connection: the server ends the session, its locks and its transaction.
   * The reservation is never released: postgres.js reopens the slot on demand.
   */
  async destroy(conn: Connection): Promise<void> {
    const c = this.take(conn);
    if (c === undefined || c.done) return;
    c.done = true;
    await this.retire(c);
  }

  /**
   * The reserved connection with this id, taken off the list: found by `id` alone, so a wrapper of
   * one (`{ id, query }`) releases the reservation it wraps. Undefined once released or retired.
   */
  private take(conn: Connection): PostgresJsConnection | undefined {
    const c = this.out.get(conn.id);
    if (c !== undefined) this.out.delete(conn.id);
    return c;
  }

  /**
   * Ends a connection for good and then frees its slot: postgres.js's `terminate()` on its
   * connection object unless postgres.js has already seen the socket close, then up to 5 s for it
   * to see the close (a slot handed on sooner would queue a reserve that postgres.js may strand).
   * Without that object, `pg_terminate_backend(pg_backend_pid())` on the connection itself.
   */
  private async retire(c: PostgresJsConnection): Promise<void> {
    try {
      const raw = c.raw;
      if (raw?.terminate !== undefined) {
        if (raw.reserved !== c.mark) return;
        c.lost = true;
        raw.terminate();
        const deadline = Date.now() + 5000;
        while (raw.reserved === c.mark && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        return;
      }
      if (!c.alive()) return;
      c.lost = true;
      await Promise.resolve(c.reserved.unsafe('SELECT pg_terminate_backend(pg_backend_pid())')).then(
        () => {},
        () => {},
      );
    } finally {
      this.freeSlot();
    }
  }
}

/**
 * The wake-up channel over postgres.js's `sql.listen`, which keeps ONE dedicated
 * connection per postgres.js instance for every LISTEN, outside `max` (so outside the pool budget),
 * and re-listens by itself after a reconnect; each listener is then called once, since
 * notifications may have been missed. That connection closes with the caller's `sql.end()`, and
 * {@link LISTEN_IDLE_MS} after the last LISTEN on the instance ended (this adapter's and any other
 * of the instance's): postgres.js opens it again at the next `sql.listen`. postgres.js keeps that
 * connection in an instance of its own, `sql.listen.sql` (made at the first `sql.listen` where
 * absent), and its channels in `sql.listen.channels`; the close ends that instance and drops it.
 * Where a release of postgres.js has neither, the connection stays open until `sql.end()`.
 */
class PostgresJsWakeup implements Wakeup {
  private readonly active = new Set<{ unlisten(): Promise<void> }>();
  /** Listens begun and not yet in `active`: the connection must not be closed under them. */
  private pending = 0;
  private idle: ReturnType<typeof setTimeout> | undefined;
  /** The close of the LISTEN connection in flight: a listen waits for it, then reopens. */
  private closing: Promise<void> | undefined;

  constructor(private readonly sql: PostgresJsLike) {}

  /** `LISTEN "sqlinbox_<table>"`; resolves to the unsubscribe. */
  listen(table: string, onNotify: () => void): Promise<() => Promise<void>> {
    return this.on(wakeupChannel(table), () => onNotify());
  }

  /** `LISTEN "sqlinbox:<topic>:<table>"`: control writes, settlements of a table that keeps results. */
  listenTopic(
    table: string,
    topic: WakeupTopic,
    onNotify: (payload: string) => void,
  ): Promise<() => Promise<void>> {
    return this.on(topicChannel(table, topic), onNotify);
  }

  private async on(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    let first = true;
    this.stayOpen();
    this.pending++;
    let handle: { unlisten(): Promise<void> };
    try {
      // Closing the connection while a LISTEN is queued on it would have postgres.js listen twice.
      if (this.closing !== undefined) await this.closing;
      handle = await this.sql.listen(
        channel,
        (payload) => onNotify(payload ?? ''),
        () => {
          if (!first) onNotify(''); // listening again after a reconnect: notifications may be missed
          first = false;
        },
      );
      this.active.add(handle);
    } finally {
      this.pending--;
    }
    return async () => {
      if (!this.active.delete(handle)) return;
      await handle.unlisten();
      this.closeLater();
    };
  }

  /** A listener arrives: the connection stays open. */
  private stayOpen(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
  }

  /** With no listener left, closes the connection {@link LISTEN_IDLE_MS} later (unless one arrives). */
  private closeLater(): void {
    if (this.active.size > 0 || this.pending > 0 || this.idle !== undefined) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      void this.closeIdle();
    }, LISTEN_IDLE_MS);
    this.idle.unref?.();
  }

  /**
   * Closes the instance's LISTEN connection now where nothing listens on it: not this adapter,
   * nor anything else that shares the instance. postgres.js opens one again at the next `sql.listen`.
   */
  async closeIdle(): Promise<void> {
    this.stayOpen();
    if (this.active.size > 0 || this.pending > 0 || this.closing !== undefined) return;
    const listen = this.sql.listen as unknown as {
      sql?: { end?(o: { timeout: number }): Promise<unknown> };
      channels?: Record<string, unknown>;
    };
    const inner = listen.sql;
    if (inner?.end === undefined || listen.channels === undefined || Object.keys(listen.channels).length > 0)
      return;
    // The LISTEN instance is ended and dropped (whatever state its connection is in); the next
    // `sql.listen` makes a new one.
    listen.sql = undefined;
    const closing = Promise.resolve(inner.end({ timeout: 5 })).then(
      () => undefined,
      () => undefined,
    );
    this.closing = closing;
    await closing;
    if (this.closing === closing) this.closing = undefined;
  }

  /** The dialect's insert notifies in its own statement, so a publish needs no `notify` of its own. */
  readonly notifiesOnInsert = true;

  /** `SELECT pg_notify($1, '')` on the publisher's connection: delivered when its transaction commits. */
  async notify(conn: Connection, table: string): Promise<void> {
    await conn.query(`SELECT pg_notify($1, '')`, [wakeupChannel(table)]);
  }

  /** Unlistens every channel this adapter listens on; closes the LISTEN connection where nothing else listens. */
  async close(): Promise<void> {
    const handles = [...this.active];
    this.active.clear();
    await Promise.all(handles.map((h) => h.unlisten().catch(() => {})));
    await this.closeIdle();
  }
}

/**
 * A postgres.js transaction of the service's own (the `tx` of `sql.begin(async (tx) => ..)`, or a
 * reserved connection) as a `Queryable`, for `broker.publish(outbox, message, { tx:
 * postgresJsTx(tx) })`: the message commits or rolls back with that transaction. Values
 * are bound as the adapter binds them (arrays as array literals).
 */
export function postgresJsTx(tx: PostgresJsSqlLike): Queryable {
  return {
    async query<R = Row>(sql: string, params?: readonly unknown[]) {
      const values = (params ?? []).map((v) => (Array.isArray(v) ? arrayLiteral(v) : v));
      const r = (await tx.unsafe(sql, values)) as PostgresJsResult;
      return { rows: [...r] as R[], rowCount: r.count ?? r.length };
    },
  };
}

/** The Query prototypes already guarded by {@link guardTypeFetch}. */
const guarded = new WeakSet<object>();

/**
 * Whether a query is postgres.js's own array-type lookup on a new connection: built inside the
 * connection (its handler is the connection's `execute`, never the instance's), untagged, over
 * `pg_type`'s `typarray`. No query of the application's has that handler.
 */
function isTypeFetch(q: { tagged?: unknown; handler?: { name?: unknown }; strings?: unknown }): boolean {
  return (
    q.tagged === false &&
    q.handler?.name === 'execute' &&
    Array.isArray(q.strings) &&
    typeof q.strings[0] === 'string' &&
    q.strings[0].includes('typarray') &&
    q.strings[0].includes('pg_type')
  );
}

/**
 * postgres.js (3.4.9 and earlier) looks up the array types on every new connection
 * (`fetch_types`, on by default) and drops that lookup's promise: when the server ends the session
 * during the lookup, the rejection (`write CONNECTION_CLOSED`, `read ECONNRESET`, `57P01`) is
 * unhandled and Node exits (porsager/postgres#1192, #1205, #1223). `fetch_types: false` is no way
 * out here: a `sql.reserve()` that opens a connection then never resolves (#751, #1219).
 *
 * The guard wraps `then` of postgres.js's query class (the class of the instance's own queries):
 * for that one internal lookup only (see {@link isTypeFetch}), a failure reads as "no array types
 * from this connection", which the dropped promise takes without rejecting. The connection itself
 * failed and postgres.js closes and reopens it as usual; the array types stay those another
 * connection of the instance has already fetched. Every other query, the application's included,
 * settles exactly as before, and no process-wide handler is installed.
 */
function guardTypeFetch(sql: PostgresJsSqlLike): void {
  let probe: unknown;
  try {
    probe = sql.unsafe('SELECT 1'); // never awaited: postgres.js runs a query on its first then()
  } catch {
    return;
  }
  const proto = probe === null || typeof probe !== 'object' ? undefined : Object.getPrototypeOf(probe);
  if (proto === undefined || proto === Promise.prototype || guarded.has(proto)) return;
  const then = (proto as { then?: unknown }).then;
  if (typeof then !== 'function' || !Object.hasOwn(proto, 'then')) return;
  guarded.add(proto);
  Object.defineProperty(proto, 'then', {
    configurable: true,
    writable: true,
    value: function guardedThen(this: object, onFulfilled?: unknown, onRejected?: unknown) {
      if (typeof onFulfilled === 'function' && isTypeFetch(this as never)) {
        return then.call(this, onFulfilled, () => (onFulfilled as (rows: unknown[]) => unknown)([]));
      }
      return then.call(this, onFulfilled, onRejected);
    },
  });
}

/**
 * Wraps a postgres.js instance as a sqlinbox adapter: PostgreSQL's dialect, a pool over
 * `sql.reserve()` (`size` = `sql.options.max`, connection ids = backend pids), and LISTEN/NOTIFY
 * wake-up.
 *
 * Given connection options (a URL string, or `{ url, ...options }`) instead of an instance, the
 * adapter makes the instance itself (`postgres` must be installed) and owns it: `close()`, which
 * `broker.shutdown()` calls, ends it. Given an instance, `close()` stops the adapter's LISTENs and
 * the instance stays yours to `sql.end()`.
 *
 * ```ts
 * import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';
 * const adapter = postgresJs({ url, max: 10 });           // the adapter's instance
 * // or: postgresJs(postgres(url, { max: 10 }))           // your instance: end it yourself
 * ```
 * Keep postgres.js's default value handling: no column-name `transform` (the engine reads the
 * description's column names), timestamps as Date (lease tokens round-trip). int8 comes back as a
 * string (or a bigint with `types.bigint`); both work as ids and attempts. The advisory form needs a
 * direct connection or a session-mode pooler; through a transaction pooler pass
 * `pooler: 'transaction'` (see {@link PostgresJsAdapterOptions.pooler}).
 */
export function postgresJs(
  sqlOrOptions: PostgresJsLike | string | PostgresJsConnectOptions,
  opts: PostgresJsTransactionPoolerOptions,
): PostgresJsTransactionPoolerAdapter;
export function postgresJs(
  sqlOrOptions: PostgresJsLike | string | PostgresJsConnectOptions,
  opts?: PostgresJsAdapterOptions & { readonly pooler?: 'session' | undefined },
): PostgresJsAdapter;
export function postgresJs(
  sqlOrOptions: PostgresJsLike | string | PostgresJsConnectOptions,
  opts: PostgresJsAdapterOptions,
): PostgresJsAdapter | PostgresJsTransactionPoolerAdapter;
export function postgresJs(
  sqlOrOptions: PostgresJsLike | string | PostgresJsConnectOptions,
  opts: PostgresJsAdapterOptions = {},
): PostgresJsAdapter | PostgresJsTransactionPoolerAdapter {
  const pooled = opts.pooler === 'transaction';
  const owned = typeof sqlOrOptions !== 'function';
  const client = owned
    ? makeInstance(sqlOrOptions as string | PostgresJsConnectOptions, pooled ? { prepare: false } : {})
    : sqlOrOptions;
  if (pooled && client.options.prepare !== false) {
    if (owned)
      void (client as PostgresJsLike & { end(o: { timeout: number }): Promise<void> }).end({ timeout: 0 });
    throw new ConfigError(
      'the postgres.js instance prepares its statements by name, and through a transaction pooler the next' +
        ' statement may run on a server session that never prepared the name, while the name stays on the one that did',
      {
        fix: "create the instance with postgres(url, { prepare: false }), or leave pooler: 'transaction' out",
      },
    );
  }
  guardTypeFetch(client);
  const listenerOwned = opts.listener !== undefined && typeof opts.listener !== 'function';
  const listener =
    opts.listener === undefined
      ? pooled
        ? undefined
        : client
      : listenerOwned
        ? makeInstance(opts.listener as string | PostgresJsConnectOptions, {})
        : (opts.listener as PostgresJsLike);
  if (listener !== undefined && listener !== client) guardTypeFetch(listener);
  const wakeup = listener === undefined ? undefined : new PostgresJsWakeup(listener);
  const pool = new PostgresJsPool(client, opts.pooler);
  const end = (sql: PostgresJsLike) =>
    (sql as PostgresJsLike & { end(o: { timeout: number }): Promise<void> }).end({ timeout: 5 });
  let ended: Promise<void> | undefined;
  return {
    dialect: createPostgresDialect({ serverVersion: opts.serverVersion, pooler: opts.pooler }),
    pool,
    wakeup: wakeup as Wakeup,
    server: serverOf(client),
    async close() {
      pool.stopHearing?.();
      await wakeup?.close();
      ended ??= Promise.all([
        owned ? end(client) : undefined,
        listenerOwned && listener !== undefined ? end(listener) : undefined,
      ]).then(() => undefined);
      await ended;
    },
  };
}

/** `postgres(url, options)`, with `defaults` under the options given. */
function makeInstance(
  o: string | PostgresJsConnectOptions,
  defaults: Record<string, unknown>,
): PostgresJsLike {
  const postgres = createRequire(import.meta.url)('postgres') as (
    url?: string | Record<string, unknown>,
    options?: Record<string, unknown>,
  ) => PostgresJsLike;
  if (typeof o === 'string') {
    checkConnectionString(o, { ...PG_URL, option: 'the URL' });
    return postgres(o, defaults);
  }
  const { url, ...rest } = o;
  if (url !== undefined) checkConnectionString(url, { ...PG_URL, option: 'url' });
  return url === undefined ? postgres({ ...defaults, ...rest }) : postgres(url, { ...defaults, ...rest });
}

/** `postgres://host:port/database` from the instance's parsed options; never a password. */
function serverOf(sql: PostgresJsLike): string {
  const o = sql.options as { host?: readonly string[]; port?: readonly number[]; database?: string };
  const host = o.host?.[0] ?? 'localhost';
  return `postgres://${host.includes(':') && !host.startsWith('/') ? `[${host}]` : host}:${o.port?.[0] ?? 5432}/${o.database ?? ''}`;
}
