import type { PGlite } from '@electric-sql/pglite';
import type { Adapter, Connection, Logger, Pool, QueryResult, Row } from '@sqlinbox/core';
import { createPgliteDialect, PgliteBusyError, PgliteClosedError } from './dialect.js';

/**
 * The one backend session of a PGlite instance, lent to one connection at a time. Every pool
 * over the same instance shares it, so two adapters (two brokers) on one database take turns.
 */
class Session {
  holder: PgliteConnection | null = null;
  private readonly waiters: { pool: PglitePool; resolve: (conn: PgliteConnection) => void }[] = [];
  private next = 1;

  constructor(readonly db: PGlite) {}

  newId(): string {
    return `pglite-${this.next++}`;
  }

  /** Lends the session to the pool's connection, or null while another holds it. */
  take(pool: PglitePool): PgliteConnection | null {
    if (this.holder !== null) return null;
    this.holder = pool.connection();
    this.holder.open = true;
    return this.holder;
  }

  /** Waits for the session; rejects after `timeoutMs` (when given) with the holder's id. */
  wait(pool: PglitePool, timeoutMs: number | undefined): Promise<PgliteConnection> {
    return new Promise((resolve, reject) => {
      const waiter = {
        pool,
        resolve: (conn: PgliteConnection) => {
          clearTimeout(timer);
          resolve(conn);
        },
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.waiters.splice(this.waiters.indexOf(waiter), 1);
              reject(new PgliteBusyError(this.holder?.id ?? 'none', timeoutMs));
            }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Hands the session to the next waiter, or leaves it free. */
  free(): void {
    this.holder = null;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter.resolve(this.take(waiter.pool) as PgliteConnection);
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
    const res = await this.db.query<R>(sql, [...params]);
    return { rows: res.rows, rowCount: res.rowCount ?? res.affectedRows ?? res.rows.length };
  }
}

/** What a session must not carry to its next holder: a transaction, or advisory locks. */
async function leftovers(db: PGlite): Promise<string | undefined> {
  if (db.isInTransaction()) return 'an open transaction';
  const { rows } = await db.query<{ n: number }>(
    "SELECT COUNT(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()",
  );
  return (rows[0]?.n ?? 0) > 0 ? 'advisory locks' : undefined;
}

/** Ends what a session of a real server would lose with its connection. */
async function endSession(db: PGlite): Promise<void> {
  if (db.isInTransaction()) await db.query('ROLLBACK');
  await db.query('SELECT pg_advisory_unlock_all()');
}

/**
 * A pool of one connection over the instance's one session. `destroy` does what a server does to
 * a closed session: rolls back its transaction and releases its advisory locks.
 */
export class PglitePool implements Pool {
  readonly size = 1;
  private closed = false;
  private readonly session: Session;
  private conn: PgliteConnection | null = null;

  constructor(
    db: PGlite,
    private readonly logger?: Logger,
    private readonly acquireTimeoutMs?: number,
  ) {
    this.session = sessionOf(db);
  }

  /** The pool's one connection: the same one after a release, a new one after a destroy. */
  connection(): PgliteConnection {
    this.conn ??= new PgliteConnection(this.session.newId(), this.session.db);
    return this.conn;
  }
  spare(): number {
    return !this.closed && this.session.holder === null ? 1 : 0;
  }
  async acquire(): Promise<Connection> {
    if (this.closed) throw new PgliteClosedError('pool');
    return this.session.take(this) ?? this.session.wait(this, this.acquireTimeoutMs);
  }
  async tryAcquire(): Promise<Connection | null> {
    if (this.closed) throw new PgliteClosedError('pool');
    return this.session.take(this);
  }
  /** The connection out of the pool, found by id: the engine may hand back a wrapper of it. */
  private held(conn: Connection): PgliteConnection | undefined {
    const h = this.session.holder;
    return h !== null && h.id === conn.id ? h : undefined;
  }
  release(conn: Connection): void {
    const held = this.held(conn);
    if (held === undefined) return;
    held.open = false;
    void leftovers(this.session.db).then(
      (what) => {
        if (what === undefined) return this.session.free();
        this.logger?.warn('PGlite connection released with leftovers: closed instead', {
          connection: conn.id,
          leftovers: what,
        });
        return this.end(held);
      },
      () => this.end(held),
    );
  }
  async destroy(conn: Connection): Promise<void> {
    const held = this.held(conn);
    if (held !== undefined) await this.end(held);
  }
  private async end(held: PgliteConnection): Promise<void> {
    held.open = false;
    if (this.conn === held) this.conn = null;
    try {
      await endSession(this.session.db);
    } finally {
      this.session.free();
    }
  }
  /** Refuses new connections; the instance itself stays open (it is the caller's). */
  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface PgliteAdapterOptions {
  /** Reported by `checkServer` instead of asking the server. */
  readonly serverVersion?: string | undefined;
  /** Where the pool warns about a connection it closed instead of pooling. */
  readonly logger?: Logger | undefined;
  /**
   * How long `acquire` waits for the session before it fails with `PgliteBusyError`. Default: no
   * limit. Code that holds a connection and asks the pool for a second one waits forever without it.
   */
  readonly acquireTimeoutMs?: number | undefined;
}

/** An adapter over a PGlite instance the caller opened (and closes). */
export function pglite(db: PGlite, opts: PgliteAdapterOptions = {}): Adapter & { close(): Promise<void> } {
  const pool = new PglitePool(db, opts.logger, opts.acquireTimeoutMs);
  return {
    dialect: createPgliteDialect({ serverVersion: opts.serverVersion }),
    pool,
    server: 'pglite',
    close: () => pool.close(),
  };
}
