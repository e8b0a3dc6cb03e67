import type { Dialect, TableOps } from './dialect.js';
import type { Connection, Pool } from './driver.js';
import { StatementTimeoutError } from './errors.js';

/** What the engine calls a statement of its own, by the dialect or table method that runs it. */
const OPERATIONS: Readonly<Record<string, string>> = {
  claimLocked: 'claim',
  claimLease: 'claim',
  candidates: 'claim',
  lock: 'claim',
  take: 'claim',
  settle: 'settle',
  settleMany: 'settle',
  extendLeases: 'extend',
  insert: 'publish',
  begin: 'begin',
  commit: 'commit',
  rollback: 'rollback',
  savepoint: 'savepoint',
  rollbackToSavepoint: 'rollback',
};

/** The parts of a table's statements that hold statements of their own. */
const PARTS = new Set(['advisory', 'concurrency', 'batch', 'rates', 'schedules', 'admin']);

/** The dialect methods that run a statement on a connection; the others pass through unbounded. */
const DIALECT_CALLS = new Set(['begin', 'commit', 'rollback', 'savepoint', 'rollbackToSavepoint']);

function isConnection(v: unknown): v is Connection {
  return typeof v === 'object' && v !== null && typeof (v as Connection).query === 'function';
}

/**
 * Bounds every statement the engine runs on a connection of its pool (a claim, a settlement, an
 * extension, a commit, a publish) by `ms`, however the driver behaves: a server that stopped
 * answering, a lock another session holds, a commit waiting for a standby that left. A statement
 * still running at its bound fails with a {@link StatementTimeoutError}, is reported through
 * `report`, and its connection is closed at once and never lent again: the engine's later calls
 * on it fail with the same error without reaching the driver, and its release is a no-op. The
 * rows it held come back as their form says (a lease when it runs out, a row lock or an advisory
 * lock when the server ends the session).
 *
 * Only connections taken through {@link pool} are bounded: a statement on the caller's own
 * transaction (a publish with `tx`), or the handler's own statements on the delivery's
 * transaction (`ctx.tx`, which does not go through these methods), are the application's.
 */
export class Bounds {
  /** The pool to hand the engine: the same connections, with hung ones closed instead of returned. */
  readonly pool: Pool;
  /** Connections lent through {@link pool} and not yet returned. */
  private readonly lent = new WeakSet<Connection>();
  /** Connections whose statement passed its bound, with the error that says so. */
  private readonly hung = new WeakMap<Connection, StatementTimeoutError>();

  constructor(
    private readonly inner: Pool,
    private readonly ms: number,
    private readonly table: string | undefined,
    private readonly report: (err: StatementTimeoutError) => void,
  ) {
    const lent = this.lent;
    const hung = this.hung;
    this.pool = {
      get size() {
        return inner.size;
      },
      spare: () => inner.spare(),
      acquire: async () => {
        const conn = await inner.acquire();
        lent.add(conn);
        return conn;
      },
      tryAcquire: async () => {
        const conn = await inner.tryAcquire();
        if (conn !== null) lent.add(conn);
        return conn;
      },
      release: (conn) => {
        lent.delete(conn);
        if (!hung.has(conn)) inner.release(conn);
      },
      destroy: async (conn) => {
        lent.delete(conn);
        if (!hung.has(conn)) await inner.destroy(conn);
      },
    };
  }

  /** `dialect`, its transaction statements and its tables' statements bounded. */
  dialect(dialect: Dialect): Dialect {
    const cache = new Map<PropertyKey, unknown>();
    const target = dialect;
    return forward(dialect, {
      get: (prop) => {
        const v: unknown = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        let f = cache.get(prop);
        if (f === undefined) {
          const fn = v as (...args: unknown[]) => unknown;
          if (prop === 'prepare') {
            f = (...args: unknown[]) => this.ops(fn.apply(target, args) as TableOps);
          } else if (typeof prop === 'string' && DIALECT_CALLS.has(prop)) {
            f = this.method(target, prop, fn);
          } else {
            f = fn.bind(target);
          }
          cache.set(prop, f);
        }
        return f;
      },
    });
  }

  /** A table's statements, each method that takes a connection first bounded. */
  ops<O extends object>(ops: O): O {
    const cache = new Map<PropertyKey, unknown>();
    const target = ops;
    return forward(ops, {
      get: (prop) => {
        const v: unknown = Reflect.get(target, prop, target);
        if (v === undefined || v === null) return v;
        let f = cache.get(prop);
        if (f === undefined) {
          if (typeof v === 'function')
            f = this.method(target, String(prop), v as (...args: unknown[]) => unknown);
          else if (typeof v === 'object' && typeof prop === 'string' && PARTS.has(prop)) f = this.ops(v);
          else return v;
          cache.set(prop, f);
        }
        return f;
      },
    });
  }

  private method(target: object, name: string, fn: (...args: unknown[]) => unknown) {
    return (...args: unknown[]): unknown => {
      const conn = args[0];
      if (!isConnection(conn)) return fn.apply(target, args);
      const known = this.hung.get(conn);
      if (known !== undefined) return Promise.reject(known);
      if (!this.lent.has(conn)) return fn.apply(target, args);
      let p: Promise<unknown>;
      try {
        p = fn.apply(target, args) as Promise<unknown>;
      } catch (err) {
        return Promise.reject(err);
      }
      return this.run(name, conn, p);
    };
  }

  /**
   * `p`, the statement running on `conn`, failing at the bound; not an async function (one per
   * statement). No timer of its own: the statement joins {@link running}, which one
   * {@link watch} timer checks.
   */
  private run<T>(name: string, conn: Connection, p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Running = { name, conn, deadline: Date.now() + this.ms, reject };
      this.running.add(entry);
      if (this.timer === undefined) this.arm(this.ms);
      p.then(
        (v) => {
          if (this.running.delete(entry)) resolve(v);
        },
        (err: unknown) => {
          if (this.running.delete(entry)) reject(err);
        },
      );
    });
  }

  /** Statements running, oldest first (each has the same bound, so the first ends first). */
  private readonly running = new Set<Running>();
  /** The one timer, set for the oldest running statement's deadline; undefined while none runs. */
  private timer: NodeJS.Timeout | undefined;

  private arm(ms: number): void {
    // Unreferenced: a running statement's own socket keeps the process alive, not its bound.
    this.timer = setTimeout(() => this.watch(), Math.max(0, ms));
    this.timer.unref();
  }

  /** Fails every statement past its deadline; sets the timer again for the oldest left. */
  private watch(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const entry of this.running) {
      if (entry.deadline > now) {
        this.arm(entry.deadline - now);
        return;
      }
      this.running.delete(entry);
      const { conn, name } = entry;
      const err = new StatementTimeoutError(OPERATIONS[name] ?? name, name, this.ms, conn.id, this.table);
      this.hung.set(conn, err);
      this.lent.delete(conn);
      // Closed now, not when the engine lets go of it: the pool must never lend it again, and
      // closing the session ends what it holds (its transaction, its locks) on the server.
      this.inner.destroy(conn).catch(() => undefined);
      this.report(err);
      entry.reject(err);
    }
  }
}

/** A statement {@link Bounds} watches. */
interface Running {
  readonly name: string;
  readonly conn: Connection;
  /** When it fails (epoch ms). */
  readonly deadline: number;
  readonly reject: (err: unknown) => void;
}

/**
 * A proxy of `target` whose property reads go through `get`. The proxy's own target is an empty
 * shell, never `target`: a proxy must answer a non-configurable, non-writable data property of its
 * target with that very value, and a dialect or table may well hold one (the conformance suite's
 * `Object.create(dialect, { prepare: { value } })`, a frozen object), whose methods must still be
 * bounded. The other traps answer from `target`, so spreading, `in` and `instanceof` see it.
 */
function forward<T extends object>(target: T, handler: { get(prop: PropertyKey): unknown }): T {
  return new Proxy(Object.create(null) as T, {
    get: (_, prop) => handler.get(prop),
    has: (_, prop) => prop in target,
    ownKeys: () => Reflect.ownKeys(target),
    getOwnPropertyDescriptor: (_, prop) => {
      const d = Reflect.getOwnPropertyDescriptor(target, prop);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target),
  });
}
