import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  type Adapter,
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
import { LISTEN_IDLE_MS, quoteIdent, topicChannel, wakeupChannel } from './sql.js';
import { PG_URL } from './url.js';

/**
 * The `pg` (node-postgres) adapter: wraps the user's `pg.Pool`. The slice of `pg` it calls is
 * typed structurally below, so this package needs neither `pg` nor `@types/pg` to build, and a
 * `pg.Pool` (and a pool of a `pg`-compatible driver) fits as is.
 */

/** The slice of a `pg` client the adapter calls. */
export interface PgClientLike {
  /** Runs one statement with bound values (`$1`, `$2`, ...). */
  query(
    text: string | { name: string; text: string; values?: unknown[] },
    values?: unknown[],
  ): Promise<{
    /** The rows the statement returned. */
    rows: any[];
    /** The rows it changed or returned; null for a statement that reports no count. */
    rowCount: number | null;
    /** The result's columns with their type oids (JSON-typed strings go back to JSON text). */
    fields?: readonly {
      /** The column's name. */
      readonly name: string;
      /** Its type oid. */
      readonly dataTypeID: number;
    }[];
  }>;
  /** `error` and `end` mark the client lost; `notification` carries NOTIFY on the LISTEN client. */
  on(event: string, listener: (...args: any[]) => void): unknown;
  /** The backend pid, set by `pg` from the server's BackendKeyData; read by query when absent. */
  readonly processID?: number | null;
}

/** A client checked out of a `pg.Pool`. */
export interface PgPoolClientLike extends PgClientLike {
  /** Back to the pool; with an error (or `true`) the pool closes the client instead. */
  release(err?: Error | boolean): void;
}

/** A client the adapter opens itself (for LISTEN). */
export interface PgStandaloneClientLike extends PgClientLike {
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Closes the connection. */
  end(): Promise<void>;
}

/** The slice of a `pg.Pool` the adapter calls. */
export interface PgPoolLike {
  /** Checks a client out, waiting while the pool is full. */
  connect(): Promise<PgPoolClientLike>;
  /** The pool's options; `max` is its size (default 10, as in `pg`). */
  readonly options: {
    /** The most clients the pool opens (default 10). */
    readonly max?: number | undefined;
  };
  /** Clients idle in the pool. */
  readonly idleCount: number;
  /** Clients open (idle, checked out or connecting). */
  readonly totalCount: number;
  /** Callers waiting for a client (default 0 where the pool does not say). */
  readonly waitingCount?: number;
  /**
   * `pg.Pool`'s events: the adapter listens to `acquire` (to watch each client as it is handed
   * out) and `error` (an idle client lost, already removed by the pool). Optional for pools that
   * emit none.
   */
  on?(event: 'acquire' | 'error', listener: (...args: any[]) => void): unknown;
}

/**
 * Connection options for a `pg.Pool` the adapter makes and owns (the options of `new pg.Pool(..)`):
 * `pg({ connectionString, max: 10 })`. The adapter ends that pool when the broker shuts down.
 */
export interface PgPoolOptions {
  /** A `postgres://user:password@host:port/database` URL; the fields below override its parts. */
  readonly connectionString?: string | undefined;
  /** The server's host name or address (`pg`'s default: `PGHOST`, else localhost). */
  readonly host?: string | undefined;
  /** The server's port (`pg`'s default: `PGPORT`, else 5432). */
  readonly port?: number | undefined;
  /** The database to connect to (`pg`'s default: `PGDATABASE`, else the user's name). */
  readonly database?: string | undefined;
  /** The role to connect as (`pg`'s default: `PGUSER`, else the OS user). */
  readonly user?: string | undefined;
  /** The role's password, or a function answering it at each connect (for rotating tokens). */
  readonly password?: string | (() => string | Promise<string>) | undefined;
  /** The pool's size (default 10, as in `pg`). */
  readonly max?: number | undefined;
  /** Any other option of `pg.Pool`. */
  readonly [option: string]: unknown;
}

/** What {@link pg} takes. */
export interface PgAdapterOptions {
  /** Makes `checkServer` report this version instead of asking the server (default: ask). */
  readonly serverVersion?: string | undefined;
  /**
   * The pooler the pool connects through, by its pool mode. `'transaction'` (PgBouncer's
   * `pool_mode = transaction`): statements run unnamed (a named prepared statement would be
   * looked for on another server session), the advisory form is refused, connection ids are the
   * pooler's client keys, and the wake-up listens only on a `listenClient` you give (a LISTEN
   * through the pooler would never hear a notification): without one the broker polls.
   * `'session'`: as a direct connection. Default: none, a direct connection; the adapter then warns
   * once (`SQLINBOX_POOLER`) if its first connection turns out to go through a pooler.
   */
  readonly pooler?: PostgresPooler | undefined;
  /**
   * Opens the dedicated LISTEN client. Default: a `new pool.Client(pool.options)` (the client
   * class `pg.Pool` keeps), i.e. the pool's own connection settings; with `pooler: 'transaction'`,
   * none (no wake-up, the broker polls): give one that connects directly or through a session
   * pooler, e.g. `() => new pg.Client({ connectionString: directUrl })`.
   */
  readonly listenClient?: (() => PgStandaloneClientLike) | undefined;
}

/** What {@link pg} takes through a transaction pooler. */
export type PgTransactionPoolerOptions = PgAdapterOptions & {
  /** The pool connects through a pooler in transaction mode. */
  readonly pooler: 'transaction';
};

/** What every adapter {@link pg} returns has. */
export interface PgAdapterParts {
  /** The PostgreSQL dialect, shared with the postgres.js adapter. */
  readonly dialect: PostgresDialect;
  /** The `pg.Pool` as a core pool: one checked-out client per connection. */
  readonly pool: Pool;
  /** Where the pool connects: `postgres://host:port/database`. */
  readonly server: string;
  /** Closes the LISTEN client, and the pool where the adapter made it from options (not a pool passed in). */
  close(): Promise<void>;
}

/** The adapter {@link pg} returns. */
export type PgAdapter = Adapter<Form, PostgresIsolation> &
  PgAdapterParts & {
    /** LISTEN/NOTIFY wake-ups, on a client of the adapter's own beside the pool. */
    readonly wakeup: Wakeup;
  };

/**
 * The adapter {@link pg} returns with `pooler: 'transaction'`: the row lock and lease forms only
 * (a table of the advisory form is a type error at `subscribe`), and a wake-up only where a
 * `listenClient` was given.
 */
export type PgTransactionPoolerAdapter = Adapter<TransactionPoolerForm, PostgresIsolation> &
  PgAdapterParts & {
    /** LISTEN/NOTIFY wake-ups on the `listenClient` given; undefined without one (the broker polls). */
    readonly wakeup: Wakeup | undefined;
  };

/** What the adapter remembers per physical client (kept in a WeakMap, so nothing lives on the client). */
interface ClientState {
  /** The backend pid, read once; empty until read. */
  pid: string;
  /**
   * Set by the client's error event (the connection is gone), or by a statement that failed as a
   * lost connection does (`retiresConnection`: a read-only or recovering server among them): the
   * pool closes the client at its release instead of lending it again.
   */
  broken: boolean;
}

const states = new WeakMap<PgClientLike, ClientState>();

/**
 * Watches a client for the rest of its life: its `error` and `end` events mark it broken. `pg`
 * emits `error` on a client whose server session ends while no statement runs on it, and with no
 * listener the process dies. `pg.Pool` listens only while a client is idle in the pool and stops
 * when it hands the client out, and a session ended within a moment of that (the server's
 * message in the same read as the end of the connection's startup) arrives before the caller
 * runs again: so the adapter watches each client from the pool's `acquire` event, synchronously,
 * and again (a no-op then) when it receives it.
 */
function watch(client: PgClientLike): ClientState {
  let state = states.get(client);
  if (state === undefined) {
    const s: ClientState = { pid: '', broken: false };
    client.on('error', () => {
      s.broken = true;
    });
    client.on('end', () => {
      s.broken = true;
    });
    states.set(client, s);
    state = s;
  }
  return state;
}

/** Ids for clients that carry no `processID` behind a pooler. */
let unkeyed = 0;

/**
 * The client's state with its id read: the `processID` of the connection's BackendKeyData (the
 * backend pid; behind a pooler, the key the pooler gave this client). A client without one reads
 * `pg_backend_pid()`, except behind a pooler, where that pid changes between transactions: it then
 * gets a number of its own (`pooled-<n>`).
 */
async function stateOf(client: PgClientLike, pooled: boolean): Promise<ClientState> {
  const state = watch(client);
  if (state.pid === '') {
    if (typeof client.processID === 'number') state.pid = String(client.processID);
    else if (pooled) state.pid = `pooled-${++unkeyed}`;
    else state.pid = String((await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
  }
  return state;
}

const names = new Map<string, string>();

/** Distinct statement texts that get a name at most; past it (dynamic SQL) statements run unnamed. */
const MAX_NAMES = 2_000;

/** A stable prepared-statement name for a statement text (`sqlinbox_` and a hash of it), or none. */
function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES) {
    name = `sqlinbox_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** Array element text a PostgreSQL array literal takes as it is, without quotes or escapes. */
const PLAIN = /^[0-9A-Za-z_.:+-]+$/;
/** The one plain word an array literal reads as NULL. */
const NULL_WORD = /^null$/i;

/**
 * The array literal (`{1,2,3}`) of an array of whole numbers and plain words (ids: integers, their
 * text, uuids), or undefined for an array with anything else in it (NULL, a quote, a space, a
 * word that reads as NULL), which `pg` then quotes and escapes itself. A settlement's ids are one
 * array parameter (`id = ANY($1)`): `pg` quotes each element through two regular expressions and
 * a concatenation, about 550 bytes allocated per id, where this takes one join.
 */
function plainArrayLiteral(values: readonly unknown[]): string | undefined {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'number' ? Number.isSafeInteger(v) : typeof v === 'bigint') parts[i] = String(v);
    else if (typeof v === 'string' && PLAIN.test(v) && (v.length !== 4 || !NULL_WORD.test(v))) parts[i] = v;
    else return undefined;
  }
  return `{${parts.join(',')}}`;
}

/** The statement's values with each plain array as its literal ({@link plainArrayLiteral}); the same array where none is. */
function plainArrays(params: readonly unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < params.length; i++) {
    const v = params[i];
    if (!Array.isArray(v)) continue;
    const literal = plainArrayLiteral(v);
    if (literal === undefined) continue;
    out ??= [...params];
    out[i] = literal;
  }
  return out ?? (params as unknown[]);
}

/** One checked-out client as a core `Connection`; `id` is the backend pid (behind a pooler, the pooler's key). */
class PgConnection implements Connection {
  constructor(
    readonly client: PgPoolClientLike,
    readonly state: ClientState,
    private readonly named: boolean,
  ) {}

  /**
   * The backend pid (`pg_backend_pid()`), so an admin can end the session by it. Behind a pooler,
   * the pid of the key the pooler gave this client, which names the client connection only.
   */
  get id(): string {
    return this.state.pid;
  }

  /**
   * Statements with parameters run as named prepared statements (the name derived from the
   * text), so each client parses and plans a claim or settlement once, not per job. Through a
   * transaction pooler every statement runs unnamed: the next transaction may run on a server
   * session that never prepared the name. Not an async function (each claim runs several of
   * these): a statement costs `pg`'s callback, one promise and one reaction; a failure is `pg`'s
   * error as it comes, with its own stack.
   */
  query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    try {
      const name =
        !this.named || params === undefined || params.length === 0 ? undefined : statementName(sql);
      // No copy (but for an array turned into its literal): pg reads the values when it sends the
      // statement, and no caller changes them meanwhile.
      const values = params === undefined ? undefined : plainArrays(params);
      return (
        name === undefined
          ? send(this.client, sql, values)
          : send(this.client, { name, text: sql, values: values! }, undefined)
      ).then(
        (r) => ({ rows: jsonStringsAsText(r.rows as R[], r.fields), rowCount: r.rowCount ?? r.rows.length }),
        (err: unknown) => {
          if (retiresConnection(err)) this.state.broken = true;
          throw err;
        },
      );
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

type PgResultLike = Awaited<ReturnType<PgClientLike['query']>>;
type PgQueryWithCallback = (
  config: Parameters<PgClientLike['query']>[0],
  values: unknown[] | undefined,
  callback: (err: Error | null, result: PgResultLike) => void,
) => void;

/**
 * `client.query` through its callback where it takes one (`pg`'s `query(config, values, callback)`),
 * else through the promise it answers. Not `pg`'s promise: it hands its query a callback made
 * after the query, inside the promise's executor, and V8 then keeps each result a busy client
 * receives (its rows and their values) alive through the young collections until the next full
 * one. A 200,000-row lease drain at 32 workers peaked at 205 MB RSS that way, 98 MB through the
 * callback, and ran faster. Not an async function: the caller's one `await` is all a statement costs.
 */
function send(
  client: PgClientLike,
  config: Parameters<PgClientLike['query']>[0],
  values: unknown[] | undefined,
): Promise<PgResultLike> {
  if (client.query.length < 3) return client.query(config, values);
  const query = client.query as unknown as PgQueryWithCallback;
  return new Promise<PgResultLike>((resolve, reject) => {
    query.call(client, config, values, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** `pg.Pool` as the engine's pool. */
class PgPool implements Pool {
  /** Connections checked out and not yet released or destroyed, by id (the backend pid). */
  private readonly out = new Map<string, PgConnection>();
  /** The pooler check of the first connection (see {@link warnPooler}); set once it ran. */
  private probed = false;

  /** `pooler`: the adapter's option; none makes the first connection check for a pooler. */
  constructor(
    private readonly pool: PgPoolLike,
    private readonly pooler: PostgresPooler | undefined,
  ) {
    if (typeof pool.on === 'function') {
      pool.on('acquire', (client: PgClientLike) => {
        watch(client);
      });
      // An idle client whose session ended: pg.Pool has removed it and re-emits the error on the
      // pool, where no listener would end the process. The application's own listener still hears it.
      pool.on('error', () => {});
    }
  }

  /** `pool.options.max` (pg's default 10). */
  get size(): number {
    return this.pool.options.max ?? 10;
  }

  /** Idle clients plus room to open new ones, less the callers already waiting. */
  spare(): number {
    const room = this.pool.idleCount + (this.size - this.pool.totalCount) - (this.pool.waitingCount ?? 0);
    return Math.max(0, room);
  }

  async acquire(): Promise<Connection> {
    const client = await this.pool.connect();
    try {
      // A client the pool handed out before has its state read: no await for it.
      const known = watch(client);
      const conn = new PgConnection(
        client,
        known.pid !== '' ? known : await stateOf(client, this.pooler !== undefined),
        this.pooler !== 'transaction',
      );
      if (!this.probed && this.pooler === undefined) await this.probe(conn);
      this.out.set(conn.id, conn);
      return conn;
    } catch (err) {
      client.release(err instanceof Error ? err : true);
      throw err;
    }
  }

  /** Warns once when the first connection's backend pid is not the pid of its key: a pooler answered. */
  private async probe(conn: PgConnection): Promise<void> {
    this.probed = true;
    if (typeof conn.client.processID !== 'number') return;
    const r = await conn.client.query('SELECT pg_backend_pid() AS pid');
    const backend = String(r.rows[0]?.pid);
    if (backend !== conn.id) warnPooler('pg', conn.id, backend);
  }

  /**
   * A client when the pool has one idle or room to open one, else null. `pg.Pool` has no
   * try-connect: between the check and `connect()` another caller may take the last client, and
   * then this waits like `acquire`.
   */
  async tryAcquire(): Promise<Connection | null> {
    return this.spare() > 0 ? this.acquire() : null;
  }

  /**
   * The checked-out connection with this id, taken off the list: a connection is found by its
   * `id` alone, so a wrapper of one (`{ id, query }`) releases the client it wraps. Undefined when
   * it is no longer checked out (released or destroyed already).
   */
  private take(conn: Connection): PgConnection | undefined {
    const c = this.out.get(conn.id);
    if (c !== undefined) this.out.delete(conn.id);
    return c;
  }

  /** `client.release()`; a client whose connection broke is released with an error, so the pool drops it. */
  release(conn: Connection): void {
    const c = this.take(conn);
    if (c === undefined) return;
    c.client.release(c.state.broken ? true : undefined);
  }

  /** `client.release(true)`: the pool ends the client, and the server its session; waits up to 5 s for the close. */
  async destroy(conn: Connection): Promise<void> {
    const c = this.take(conn);
    if (c === undefined) return;
    const client = c.client as PgPoolClientLike & { _ended?: boolean };
    const ended =
      client._ended === true
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 5000);
            client.on('end', () => {
              clearTimeout(timer);
              resolve();
            });
          });
    client.release(true);
    await ended;
  }
}

/**
 * The wake-up channel over LISTEN/NOTIFY. All of an adapter's subscriptions share ONE
 * dedicated client, opened on the first `listen` outside the pool, so it never counts against the
 * pool's size (the pool budget stays whole). Each table listens on
 * `wakeupChannel(table)`. A lost LISTEN client is reopened after a second and every listener is
 * called once, since notifications may have been missed meanwhile; polling stays the fallback.
 * The client is ended {@link LISTEN_IDLE_MS} after its last listener leaves (a broker's listeners
 * stay while it runs; an `Admin`'s result waits come and go), so a process that only waited for
 * results is not kept alive by it; the next `listen` opens it again.
 */
class PgWakeup implements Wakeup {
  private client: Promise<PgStandaloneClientLike> | undefined;
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private closed = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private idle: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly open: () => PgStandaloneClientLike) {}

  private connect(): Promise<PgStandaloneClientLike> {
    if (this.client !== undefined) return this.client;
    const opening: Promise<PgStandaloneClientLike> = (async () => {
      const client = this.open();
      const lost = () => {
        if (this.client !== opening) return; // an older client's late event, or closed on purpose
        this.client = undefined;
        client.end().catch(() => {});
        this.reconnectLater();
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (msg: { channel: string; payload?: string }) => {
        for (const cb of this.listeners.get(msg.channel) ?? []) cb(msg.payload ?? '');
      });
      await client.connect();
      return client;
    })();
    this.client = opening;
    opening.catch(() => {
      if (this.client === opening) this.client = undefined;
      this.reconnectLater();
    });
    return opening;
  }

  private reconnectLater(): void {
    if (this.closed || this.retry !== undefined || this.listeners.size === 0) return;
    this.retry = setTimeout(async () => {
      this.retry = undefined;
      if (this.closed || this.listeners.size === 0) return; // the last listener left meanwhile
      try {
        const client = await this.connect();
        for (const channel of this.listeners.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
        for (const set of this.listeners.values()) for (const cb of set) cb('');
      } catch {
        this.reconnectLater();
      }
    }, 1000);
    this.retry.unref?.();
  }

  /**
   * `LISTEN "sqlinbox_<table>"` on the shared client (once per channel); resolves to the
   * unsubscribe. After `close()` it opens the client again (another broker on the same adapter).
   */
  listen(table: string, onNotify: () => void): Promise<() => Promise<void>> {
    return this.on(wakeupChannel(table), () => onNotify());
  }

  /**
   * `LISTEN "sqlinbox:<topic>:<table>"` on the same shared client: control writes and settlements
   * of a table that keeps results, which the dialect's statements notify at their commit.
   */
  listenTopic(
    table: string,
    topic: WakeupTopic,
    onNotify: (payload: string) => void,
  ): Promise<() => Promise<void>> {
    return this.on(topicChannel(table, topic), onNotify);
  }

  private async on(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>> {
    this.closed = false;
    this.stayOpen();
    let set = this.listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(channel, set);
      set.add(cb);
      try {
        await (await this.connect()).query(`LISTEN ${quoteIdent(channel)}`);
      } catch (err) {
        set.delete(cb);
        if (set.size === 0) this.listeners.delete(channel);
        this.closeLater();
        throw err;
      }
    } else {
      set.add(cb);
    }
    return async () => {
      const current = this.listeners.get(channel);
      if (current === undefined || !current.delete(cb) || current.size > 0) return;
      this.listeners.delete(channel);
      const client = this.client;
      if (client !== undefined) await (await client).query(`UNLISTEN ${quoteIdent(channel)}`).catch(() => {});
      this.closeLater();
    };
  }

  /** A listener arrives: the client stays open. */
  private stayOpen(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
  }

  /** With no listener left, ends the client {@link LISTEN_IDLE_MS} later (unless one arrives). */
  private closeLater(): void {
    if (this.listeners.size > 0 || this.idle !== undefined || this.client === undefined) return;
    this.idle = setTimeout(() => {
      this.idle = undefined;
      void this.closeIdle();
    }, LISTEN_IDLE_MS);
    this.idle.unref?.();
  }

  /** Ends the LISTEN client now where no listener is left on it; the next `listen` opens it again. */
  async closeIdle(): Promise<void> {
    if (this.listeners.size > 0) return;
    this.stayOpen();
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await (await client.catch(() => undefined))?.end().catch(() => {});
  }

  /** The dialect's insert notifies in its own statement, so a publish needs no `notify` of its own. */
  readonly notifiesOnInsert = true;

  /** `SELECT pg_notify($1, '')` on the publisher's connection: delivered when its transaction commits. */
  async notify(conn: Connection, table: string): Promise<void> {
    await conn.query(`SELECT pg_notify($1, '')`, [wakeupChannel(table)]);
  }

  /** Ends the LISTEN client. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.stayOpen();
    this.listeners.clear();
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await (await client.catch(() => undefined))?.end().catch(() => {});
  }
}

/**
 * The service's own `pg` client (or `pg.Pool`, `pg.Client`) as a `Queryable`, for
 * `broker.publish(outbox, message, { tx: pgTx(client) })` inside a transaction the service opened
 * itself (`BEGIN` .. `COMMIT` on that client): the message commits or rolls back with it.
 * Statements run unnamed, as the client's own would.
 */
export function pgTx(client: Pick<PgClientLike, 'query'>): Queryable {
  return {
    async query<R = Row>(sql: string, params?: readonly unknown[]) {
      const r = await client.query(sql, params === undefined ? undefined : [...params]);
      return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length };
    },
  };
}

/**
 * Wraps a `pg.Pool` as a sqlinbox adapter: PostgreSQL's dialect, the pool (`size` =
 * `pool.options.max`, connection ids = backend pids, `destroy` = `client.release(true)`), and the
 * LISTEN/NOTIFY wake-up on one dedicated client outside the pool.
 *
 * Given connection options instead of a pool, the adapter makes the `pg.Pool` itself (`pg` must be
 * installed) and owns it: `close()`, which `broker.shutdown()` calls, ends it. Given a pool, `close()`
 * ends the LISTEN client only and the pool stays yours to `end()`.
 *
 * ```ts
 * import { pg } from '@sqlinbox/dialect-postgres/pg';
 * const adapter = pg({ connectionString, max: 10 });           // the adapter's pool
 * // or: pg(new Pool({ connectionString, max: 10 }))            // your pool: end it yourself
 * ```
 * The advisory form needs a direct connection or a session-mode pooler; through a
 * transaction pooler pass `pooler: 'transaction'` (see {@link PgAdapterOptions.pooler}).
 * Column values come back as `pg` parses them (int8 as string, timestamptz as Date); keep pg's
 * default parsers for timestamptz so lease tokens round-trip.
 */
export function pg(
  poolOrOptions: PgPoolLike | PgPoolOptions,
  opts: PgTransactionPoolerOptions,
): PgTransactionPoolerAdapter;
export function pg(
  poolOrOptions: PgPoolLike | PgPoolOptions,
  opts?: PgAdapterOptions & { readonly pooler?: 'session' | undefined },
): PgAdapter;
export function pg(
  poolOrOptions: PgPoolLike | PgPoolOptions,
  opts: PgAdapterOptions,
): PgAdapter | PgTransactionPoolerAdapter;
export function pg(
  poolOrOptions: PgPoolLike | PgPoolOptions,
  opts: PgAdapterOptions = {},
): PgAdapter | PgTransactionPoolerAdapter {
  const owned = !isPool(poolOrOptions);
  const pool = owned ? makePool(poolOrOptions) : poolOrOptions;
  const open =
    opts.listenClient ??
    (opts.pooler === 'transaction'
      ? undefined
      : () => {
          const Client = (pool as { Client?: new (config: unknown) => PgStandaloneClientLike }).Client;
          if (Client === undefined) throw new Error('pool has no Client class: pass opts.listenClient');
          return new Client(pool.options);
        });
  const wakeup = open === undefined ? undefined : new PgWakeup(open);
  let ended: Promise<void> | undefined;
  return {
    dialect: createPostgresDialect({ serverVersion: opts.serverVersion, pooler: opts.pooler }),
    pool: new PgPool(pool, opts.pooler),
    wakeup: wakeup as Wakeup,
    server: serverOf(pool.options as PgPoolOptions),
    async close() {
      await wakeup?.close();
      if (owned) {
        ended ??= (pool as PgPoolLike & { end(): Promise<void> }).end();
        await ended;
      }
    },
  };
}

function isPool(x: PgPoolLike | PgPoolOptions): x is PgPoolLike {
  return typeof (x as { connect?: unknown }).connect === 'function';
}

/** `new pg.Pool(options)`, with an `error` listener: an idle client the server dropped must not end the process. */
function makePool(options: PgPoolOptions): PgPoolLike {
  if (options.connectionString !== undefined) checkConnectionString(options.connectionString, PG_URL);
  const { Pool } = createRequire(import.meta.url)('pg') as {
    Pool: new (o: unknown) => PgPoolLike & { on(e: string, l: (...a: unknown[]) => void): unknown };
  };
  const pool = new Pool(options);
  pool.on('error', () => {});
  return pool;
}

/** `postgres://host:port/database` from pool options (libpq's defaults and environment where unset); never a password. */
export function serverOf(o: PgPoolOptions): string {
  let host = o.host;
  let port = o.port === undefined ? undefined : String(o.port);
  let database = o.database;
  if (o.connectionString !== undefined) {
    try {
      const u = new URL(o.connectionString);
      host ??= decodeURIComponent(u.hostname) || u.searchParams.get('host') || undefined;
      port ??= u.port || undefined;
      database ??= decodeURIComponent(u.pathname.slice(1)) || undefined;
    } catch {
      // not a URL (a keyword string): the environment's defaults below
    }
  }
  host ??= process.env.PGHOST ?? 'localhost';
  port ??= process.env.PGPORT ?? '5432';
  database ??= process.env.PGDATABASE ?? o.user ?? process.env.PGUSER ?? '';
  return `postgres://${host.includes(':') && !host.startsWith('/') ? `[${host}]` : host}:${port}/${database}`;
}
