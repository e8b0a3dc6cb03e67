import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { Codec } from './codec.js';
import { type AnyTable, type PayloadOf, validateDeadLetter } from './description.js';
import type { DeadLetterTarget } from './dialect.js';
import { type Duration, durationMs, leaseMs } from './duration.js';
import { ConfigError } from './errors.js';

/** The most workers (and lanes, claim batch, batch, prefetch) a queue takes. */
export const MAX_WORKERS = 10_000;

/**
 * How a thrown handler error is retried: the n-th attempt waits
 * `min(maxMs, baseMs * 2^(n-1))`, less a random part of at most `jitter` of it.
 */
export interface Backoff {
  /** The first retry's delay, in milliseconds. */
  readonly baseMs: number;
  /** The longest delay, in milliseconds. */
  readonly maxMs: number;
  /** Between 0 (no jitter) and 1 (anywhere from 0 to the full delay). */
  readonly jitter: number;
}

/** The backoff of a queue that sets none: 1 s, doubling at each attempt, at most 1 h, 20 % jitter. */
export const DEFAULT_BACKOFF: Backoff = Object.freeze({ baseMs: 1_000, maxMs: 3_600_000, jitter: 0.2 });

/** The delay before the next delivery of a row whose `attempt` (1 on the first delivery) failed. */
export function backoffDelay(b: Backoff, attempt: number, random: () => number = Math.random): number {
  const n = Math.max(1, Math.min(Number.isFinite(attempt) ? attempt : 1, 64));
  const full = Math.min(b.maxMs, b.baseMs * 2 ** (n - 1));
  // random() near 1 gives the full delay, 0 takes the whole jitter off it.
  return full * (1 - b.jitter * (1 - random()));
}

/** What {@link Queue.backoff} takes. */
export interface BackoffOptions {
  /** The first retry's delay (default 1 s). */
  readonly base?: Duration;
  /** The longest delay (default 1 h). */
  readonly max?: Duration;
  /** The random part taken off each delay, from 0 to 1 (default 0.2). */
  readonly jitter?: number;
}

/** Everything a subscription is mounted with. */
export interface QueueSettings {
  /** The table the queue mounts. */
  readonly table: AnyTable;
  /** Handlers run at once (default 1). */
  readonly workers: number;
  /** Partition lanes: a row runs on the lane its partition key hashes to. */
  readonly lanes: number | undefined;
  /** Lease length for this subscription, in ms (lease form); the broker's when unset. */
  readonly leaseMs: number | undefined;
  /** A retry at this attempt dead-letters the row instead. Default (undefined): retries never end. */
  readonly maxAttempts: number | undefined;
  /** Where dead rows go. Default (undefined): none. */
  readonly deadLetter: DeadLetterTarget | undefined;
  /** Transactional mode: each delivery runs in a transaction its settlement commits. Default false. */
  readonly transactional: boolean;
  /** Poll interval after an empty claim, in ms; the broker's when unset. */
  readonly pollMs: number | undefined;
  /** A handler still running after this is dropped unsettled (its row returns). Default: none. */
  readonly timeoutMs: number | undefined;
  /** The bound of each statement the engine runs for this subscription, in ms; the broker's when unset. */
  readonly statementTimeoutMs?: number | undefined;
  /** The Standard Schema every payload is validated with before the handler sees it. Default: none. */
  readonly schema: StandardSchemaV1 | undefined;
  /** The codec payloads are decoded with. Default (undefined): the payload column's own. */
  readonly codec: Codec<unknown> | undefined;
  /** Rows per claim statement at most (lease and advisory forms). Default: the workers. */
  readonly claimBatch: number | undefined;
  /** Batch subscription: rows a claim takes at most and the handler gets at once. */
  readonly batch?: number | undefined;
  /**
   * Lease form on a dialect that claims ahead: rows held claimed beyond the workers (default:
   * sized from the drain rate, from the workers up to 500). See {@link Queue.prefetch}.
   */
  readonly prefetch?: number | undefined;
  /** A name for logs and events (default: the table's name). */
  readonly name: string;
  /** A relay of an outbox: a retry leaves the record for the relay's next start. Default false. */
  readonly relay?: boolean;
  /**
   * How a thrown handler error is retried: a {@link Backoff}, or `false` for the immediate retry.
   * Default (undefined): {@link DEFAULT_BACKOFF}. See {@link Queue.backoff}.
   */
  readonly backoff?: Backoff | false | undefined;
}

/** Type-level flags of a queue. */
export interface QueueFlags {
  /** Set by {@link Queue.transactional}: the handler's `ctx.tx` is the delivery's transaction. */
  readonly tx: boolean;
  /** Set by {@link Queue.batch}: the handler takes an array (see `BatchHandler`). */
  readonly batch?: boolean;
}

/**
 * How a table is mounted: workers, lease, retries and dead letter, transactional mode. Build it
 * with {@link queue}; every method returns a new queue.
 */
export class Queue<
  D extends AnyTable = AnyTable,
  T = unknown,
  F extends QueueFlags = {
    /** Not transactional. */
    tx: false;
  },
> {
  /** Type-level only. */
  declare readonly __table: D;
  /** Type-level only: the message's type. */
  declare readonly __message: T;
  /** Type-level only: the queue's flags. */
  declare readonly __flags: F;

  constructor(
    /** Everything the queue mounts with. */
    readonly settings: QueueSettings,
  ) {}

  private with<T2 = T, F2 extends QueueFlags = F>(patch: Partial<QueueSettings>): Queue<D, T2, F2> {
    return new Queue<D, T2, F2>({ ...this.settings, ...patch });
  }

  /**
   * Runs up to `n` handlers at once (default 1; at most {@link MAX_WORKERS}), one claim in flight
   * per free worker. In the row lock and advisory forms (and transactional mode) each
   * delivery holds a connection, so at most the pool's size less one run: the start-up log says so.
   */
  workers(n: number): Queue<D, T, F> {
    return this.with({ workers: positive(n, 'workers', this.settings.table.table) });
  }

  /**
   * Runs `n` lanes; a row goes to the lane its partition key hashes to, so one key's rows never
   * split across lanes and run in claim order. Needs a `partitionKey` column.
   */
  workersByKey(n: number): Queue<D, T, F> {
    const lanes = positive(n, 'workersByKey', this.settings.table.table);
    return this.with({ lanes, workers: lanes });
  }

  /**
   * Lease length for this subscription (default: the broker's, 30 s); whole seconds, rounded up.
   * Zero or less is a `ConfigError`.
   */
  lease(d: Duration): Queue<D, T, F> {
    return this.with({ leaseMs: leaseMs(d) });
  }

  /** A retry at this attempt dead-letters the row instead; set with {@link deadLetter}. */
  maxAttempts(n: number): Queue<D, T, F> {
    return this.with({
      maxAttempts: positive(n, 'maxAttempts', this.settings.table.table, Number.MAX_SAFE_INTEGER),
    });
  }

  /**
   * Where rows at the attempt limit, and payloads that cannot be decoded, go: a group or a table.
   * A table name is validated here (an identifier, `schema.table` allowed): a `ConfigError`
   * otherwise. Default: none (a retry at the limit retries again).
   */
  deadLetter(target: DeadLetterTarget): Queue<D, T, F> {
    return this.with({ deadLetter: validateDeadLetter(target, this.settings.table.table) });
  }

  /**
   * Hands the handler the delivery's transaction as `ctx.tx`; `ack` commits its writes with the
   * settlement. Not on a batch queue: a type error, and a `ConfigError` past the types.
   */
  transactional(
    this: Queue<
      D,
      T,
      {
        /** Either. */
        readonly tx: boolean;
        /** Not a batch queue. */
        readonly batch?: false;
      }
    >,
  ): Queue<
    D,
    T,
    {
      /** Transactional. */
      tx: true;
    }
  > {
    if (this.settings.batch !== undefined) throw batchTransactional(this.settings.table.table);
    return this.with<T, { tx: true }>({ transactional: true });
  }

  /**
   * A batch subscription: a claim takes up to `n` rows and the handler gets them as one
   * array of `{ message, ctx }`, each row settled on its own through its `ctx`; rows left unsettled
   * settle by the handler's outcome (see docs/batches.md). `workers(k)` runs k batches at once.
   * Not transactional: a type error, and a `ConfigError` past the types.
   */
  batch(
    this: Queue<
      D,
      T,
      {
        /** Not transactional. */
        readonly tx: false;
      }
    >,
    n: number,
  ): Queue<
    D,
    T,
    {
      /** Not transactional. */
      tx: false;
      /** A batch queue. */
      batch: true;
    }
  > {
    const size = positive(n, 'batch', this.settings.table.table);
    if (this.settings.transactional) throw batchTransactional(this.settings.table.table);
    return this.with<T, { tx: false; batch: true }>({ batch: size });
  }

  /**
   * How a thrown handler error is retried (default: 1 s at the first failure, doubling at each
   * attempt up to 1 h, less up to 20 % jitter). The delay lives in the database: in `retry_after`
   * where the table has it; in a lease table without it, in the lease (`locked_until` is left at the
   * end of the delay); in a row lock or advisory table without it, this subscription passes over the
   * row until the delay ends (another process may take it sooner). `backoff(false)` (or
   * `'immediate'`) retries at once, as a returned `Outcome.retry()` does. A returned `retry()` and
   * `retryAfter(d)` keep their meaning either way. See docs/settlement.md.
   */
  backoff(opts: BackoffOptions | false | 'immediate'): Queue<D, T, F> {
    const table = this.settings.table.table;
    if (opts === false || opts === 'immediate') return this.with({ backoff: false });
    if (typeof opts !== 'object' || opts === null) {
      throw new ConfigError(
        `backoff takes { base, max, jitter }, false or 'immediate', got ${String(opts)}`,
        {
          table,
        },
      );
    }
    const baseMs = opts.base === undefined ? DEFAULT_BACKOFF.baseMs : durationMs(opts.base, 'backoff.base');
    const maxMs = opts.max === undefined ? DEFAULT_BACKOFF.maxMs : durationMs(opts.max, 'backoff.max');
    const jitter = opts.jitter ?? DEFAULT_BACKOFF.jitter;
    if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1))
      throw new ConfigError(`backoff.jitter must be between 0 and 1, got ${String(jitter)}`, { table });
    if (maxMs < baseMs)
      throw new ConfigError(`backoff.max (${maxMs} ms) must be at least backoff.base (${baseMs} ms)`, {
        table,
      });
    return this.with({ backoff: { baseMs, maxMs, jitter } });
  }

  /** How long to wait after an empty claim before the next (default: the broker's, 1 s; more than zero). */
  pollInterval(d: Duration): Queue<D, T, F> {
    return this.with({ pollMs: durationMs(d, 'pollInterval') });
  }

  /**
   * A handler still running after `d` is dropped unsettled and its row returns (default: no limit;
   * more than zero).
   */
  timeout(d: Duration): Queue<D, T, F> {
    return this.with({ timeoutMs: durationMs(d, 'timeout') });
  }

  /**
   * The longest any statement the engine runs for this subscription may take (a claim, a
   * settlement, a lease extension, a commit): one still running then fails, is reported (logged,
   * the `statementTimeout` event) and its connection is closed, never lent again. Default: the
   * broker's `statementTimeout` (30 s); more than zero. The handler's own statements on `ctx.tx`
   * are not bounded by it.
   */
  statementTimeout(d: Duration): Queue<D, T, F> {
    return this.with({ statementTimeoutMs: durationMs(d, 'statementTimeout') });
  }

  /** Validates every payload with a Standard Schema (zod, valibot, arktype) before the handler sees it. */
  schema<S extends StandardSchemaV1>(schema: S): Queue<D, StandardSchemaV1.InferOutput<S>, F> {
    return this.with<StandardSchemaV1.InferOutput<S>, F>({ schema });
  }

  /** Decodes payloads with a codec of your own instead of the payload column's default. */
  codec<T2>(codec: Codec<T2>): Queue<D, T2, F> {
    return this.with<T2, F>({ codec: codec as Codec<unknown> });
  }

  /** Rows one claim statement takes at most (lease and advisory forms; default: the workers). */
  claimBatch(n: number): Queue<D, T, F> {
    return this.with({ claimBatch: positive(n, 'claimBatch', this.settings.table.table) });
  }

  /**
   * Lease form: holds up to `workers + n` rows claimed, the rows beyond the busy workers waiting
   * leased in the subscription (extended while they wait, returned at once on stop), and claims
   * again, topping up to `workers + n` in one statement, as soon as it holds fewer than
   * `max(workers, n)`. Default (no prefetch): the rows held ahead start at the workers and follow the
   * drain rate, doubling while claims come back to idle workers, up to 500. A fixed
   * prefetch keeps a claim in flight while the workers drain what they hold, at the price of rows no
   * other replica can take meanwhile. Needs a dialect that claims ahead (PostgreSQL,
   * MySQL/MariaDB, SQLite); not on a transactional or batch queue. See docs/forms/lease.md.
   */
  prefetch(n: number): Queue<D, T, F> {
    return this.with({ prefetch: positive(n, 'prefetch', this.settings.table.table) });
  }

  /**
   * Runs the handler on `threads` worker threads, each with its own pool of `connections` (default
   * 1), opened and closed on the thread. The handler lives in a module (`handler`);
   * subscribe the result without a handler. Workers become at least `threads`. Not with
   * `transactional()`: ctx.tx cannot cross threads. See docs/threads.md.
   */
  onThreads(this: Queue<D, T, QueueFlags & { tx: false }>, opts: ThreadOptions): ThreadQueue<D, T> {
    const threads = threadSettings(this.settings, opts);
    return new ThreadQueue<D, T>(
      { ...this.settings, workers: Math.max(this.settings.workers, threads.threads) },
      threads,
    );
  }

  /** A name for logs and events (default: the table's name). */
  name(name: string): Queue<D, T, F> {
    return this.with({ name });
  }
}

/** Mounts a table as a queue; chain its settings. */
export function queue<D extends AnyTable>(
  table: D,
): Queue<
  D,
  PayloadOf<D>,
  {
    /** Not transactional. */
    tx: false;
  }
> {
  return new Queue({
    table,
    workers: 1,
    lanes: undefined,
    leaseMs: undefined,
    maxAttempts: undefined,
    deadLetter: undefined,
    transactional: false,
    pollMs: undefined,
    timeoutMs: undefined,
    schema: undefined,
    codec: undefined,
    claimBatch: undefined,
    batch: undefined,
    name: table.table,
  });
}

// ---------------------------------------------------------------------------------------------
// A queue mounted on threads (`onThreads`); the threads themselves run in threads.ts

/** What `onThreads` takes. */
export interface ThreadOptions {
  /** Threads to run (at least 1). */
  readonly threads: number;
  /** Connections of each thread's own pool (default 1). */
  readonly connections?: number;
  /**
   * The module a thread imports: a `file:` URL (`new URL('./handler.js', import.meta.url)`) or an
   * absolute path. Its default export (or the module itself) is a {@link ThreadModule}.
   */
  readonly handler: URL | string;
  /** A structured-cloneable value handed to `open` and to each handler as `ctx.data` (default undefined). */
  readonly data?: unknown;
}

/** The thread settings a {@link ThreadQueue} carries, defaults filled. */
export interface ThreadSettings {
  /** Threads to run (at least 1). */
  readonly threads: number;
  /** Connections of each thread's own pool (default 1). */
  readonly connections: number;
  /** The module each thread imports, as a URL string. */
  readonly handler: string;
  /** The value handed to `open` and to each handler as `ctx.data`. */
  readonly data: unknown;
}

/** A queue mounted on threads: hand it to `broker.subscribe` without a handler. */
export class ThreadQueue<D extends AnyTable = AnyTable, T = unknown> {
  /** Type-level only. */
  declare readonly __table: D;
  /** Type-level only: the message's type. */
  declare readonly __message: T;

  constructor(
    /** The settings of the queue mounted on threads. */
    readonly settings: QueueSettings,
    /** The thread settings, defaults filled. */
    readonly threads: ThreadSettings,
  ) {}
}

/** Checks `onThreads` options against the queue's settings; answers the settings with defaults. */
export function threadSettings(settings: QueueSettings, opts: ThreadOptions): ThreadSettings {
  const table = settings.table.table;
  if (settings.transactional) {
    throw new ConfigError('a transactional queue cannot run on threads: ctx.tx cannot cross threads', {
      table,
      fix: 'drop .transactional(), or write through ctx.query on the thread and settle by the outcome',
    });
  }
  if (settings.batch !== undefined) {
    throw new ConfigError('a batch queue cannot run on threads: a thread takes one message at a time', {
      table,
      fix: 'drop .batch(n), or run the batch handler in the service (without onThreads)',
    });
  }
  const whole = (n: unknown, what: string): number => {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
      throw new ConfigError(`onThreads: ${what} must be a whole number of at least 1, got ${String(n)}`, {
        table,
      });
    return n;
  };
  const h = opts.handler;
  const handler = h instanceof URL ? h.href : typeof h === 'string' && h.length > 0 ? h : undefined;
  if (handler === undefined)
    throw new ConfigError('onThreads: handler must be the URL or absolute path of a module', {
      table,
      fix: "pass new URL('./handler.js', import.meta.url)",
    });
  return {
    threads: whole(opts.threads, 'threads'),
    connections: whole(opts.connections ?? 1, 'connections'),
    handler,
    data: opts.data,
  };
}

function batchTransactional(table: string): ConfigError {
  return new ConfigError('a batch queue cannot be mounted transactional', {
    table,
    fix: 'drop .transactional(), or mount a single-message queue (each delivery holds its own transaction)',
  });
}

function positive(n: number, what: string, table: string, most = MAX_WORKERS): number {
  if (!Number.isInteger(n) || n < 1 || n > most)
    throw new ConfigError(`${what} must be a whole number from 1 to ${most}, got ${n}`, { table });
  return n;
}
