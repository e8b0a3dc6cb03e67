import type { PGlite } from '@electric-sql/pglite';
import type { Adapter, Connection, Logger, Pool, QueryResult, Row } from '@sqlinbox/core';
import { jsonStringsAsText } from '@sqlinbox/sql';
import { createPgliteDialect, PgliteBusyError, PgliteClosedError } from './dialect.js';

/**
 * The one backend session of a PGlite instance, shared by every connection of every pool over it.
 * Statements run one at a time, and a connection whose transaction is open owns the session until
 * it ends: the other connections' statements wait, so none lands inside another's transaction.
 */
class Session {
  private owner: PgliteConnection | null = null;
  private busy = false;
  private sleepers: (() => void)[] = [];
  private next = 1;

  constructor(readonly db: PGlite) {}

  newId(): string {
    return `pglite-${this.next++}`;
  }

  async run<T>(conn: PgliteConnection, body: () => Promise<T>): Promise<T> {
    while (this.busy || (this.owner !== null && this.owner !== conn)) {
      await new Promise<void>((resolve) => this.sleepers.push(resolve));
    }
    this.busy = true;
    try {
      return await body();
    } finally {
      this.owner = this.db.isInTransaction() ? conn : null;
      this.busy = false;
      for (const wake of this.sleepers.splice(0)) wake();
    }
  }

  /** Ends what a server ends with a session: the connection's open transaction. */
  async end(conn: PgliteConnection): Promise<void> {
    if (this.owner === conn) await this.run(conn, () => this.db.query('ROLLBACK'));
  }
}

const sessions = new WeakMap<PGlite, Session>();

function sessionOf(db: PGlite): Session {
  let s = sessions.get(db);
  if (s === undefined) {
    s = new Session(db);
    sessions.set(db, s);
  }
  return s;
}

export class PgliteConnection implements Connection {
  open = true;
  constructor(
    readonly id: string,
    private readonly db: PGlite,
  ) {}

  /** Whether the session is inside a transaction (the runner asks before a savepoint). */
  inTransaction(): boolean {
    return this.db.isInTransaction();
  }

  async query<R = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    // PGlite answers without I/O: yield so timers (lease extension, timeouts) run between statements.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!this.open) throw new PgliteClosedError(this.id);
    return sessionOf(this.db).run(this, async () => {
      const res = await this.db.query<R>(sql, [...params]);
      // PGlite parses json and jsonb: a JSON string goes back to its text, for the payload's codec.
      const rows = jsonStringsAsText(res.rows, res.fields);
      return { rows, rowCount: res.rowCount ?? res.affectedRows ?? rows.length };
    });
  }
}

/** A pool of logical connections over the instance's one session (see {@link Session}). */
export class PglitePool implements Pool {
  private closed = false;
  private readonly session: Session;
  private readonly idle: PgliteConnection[] = [];
  private readonly out = new Map<string, PgliteConnection>();
  private readonly waiters: ((conn: PgliteConnection) => void)[] = [];

  constructor(
    db: PGlite,
    readonly size: number,
    private readonly logger?: Logger,
    private readonly acquireTimeoutMs?: number,
  ) {
    this.session = sessionOf(db);
  }

  spare(): number {
    return this.closed ? 0 : this.size - this.out.size;
  }
  async tryAcquire(): Promise<Connection | null> {
    if (this.closed) throw new PgliteClosedError('pool');
    if (this.out.size >= this.size) return null;
    const conn = this.idle.pop() ?? new PgliteConnection(this.session.newId(), this.session.db);
    this.out.set(conn.id, conn);
    return conn;
  }
  async acquire(): Promise<Connection> {
    const conn = await this.tryAcquire();
    if (conn !== null) return conn;
    return new Promise((resolve, reject) => {
      const waiter = (c: PgliteConnection) => {
        clearTimeout(timer);
        resolve(c);
      };
      const ms = this.acquireTimeoutMs;
      const timer =
        ms === undefined
          ? undefined
          : setTimeout(() => {
              this.waiters.splice(this.waiters.indexOf(waiter), 1);
              reject(new PgliteBusyError([...this.out.keys()].join(', '), ms));
            }, ms);
      this.waiters.push(waiter);
    });
  }
  /** The engine may hand back a wrapper: connections are found by id. */
  release(conn: Connection): void {
    const held = this.out.get(conn.id);
    if (held === undefined) return;
    if (held.inTransaction() && this.session.db.isInTransaction()) {
      this.logger?.warn('PGlite connection released inside a transaction: closed instead', {
        connection: held.id,
      });
      void this.destroy(held);
      return;
    }
    this.handBack(held);
  }
  async destroy(conn: Connection): Promise<void> {
    const held = this.out.get(conn.id);
    if (held === undefined) return;
    held.open = false;
    this.out.delete(held.id);
    await this.session.end(held).catch(() => undefined);
    this.wakeWaiter();
  }
  private handBack(conn: PgliteConnection): void {
    this.out.delete(conn.id);
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.out.set(conn.id, conn);
      waiter(conn);
    } else this.idle.push(conn);
  }
  private wakeWaiter(): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) return;
    const conn = new PgliteConnection(this.session.newId(), this.session.db);
    this.out.set(conn.id, conn);
    waiter(conn);
  }
  /** Refuses new connections; the instance itself stays open (it is the caller's). */
  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface PgliteAdapterOptions {
  /** Logical connections over the one session (default 10); the engine wants at least 2. */
  readonly poolSize?: number | undefined;
  /** Reported by `checkServer` instead of asking the server. */
  readonly serverVersion?: string | undefined;
  /** Where the pool warns about a connection it closed instead of pooling. */
  readonly logger?: Logger | undefined;
  /** How long `acquire` waits for a free connection before `PgliteBusyError`. Default: no limit. */
  readonly acquireTimeoutMs?: number | undefined;
}

/** An adapter over a PGlite instance the caller opened (and closes). */
export function pglite(db: PGlite, opts: PgliteAdapterOptions = {}): Adapter & { close(): Promise<void> } {
  const pool = new PglitePool(db, opts.poolSize ?? 10, opts.logger, opts.acquireTimeoutMs);
  return {
    dialect: createPgliteDialect({ serverVersion: opts.serverVersion }),
    pool,
    server: 'pglite',
    close: () => pool.close(),
  };
}
