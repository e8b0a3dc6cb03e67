import { Worker } from 'node:worker_threads';
import type { Connection, Pool, QueryResult, Row } from './driver.js';
import { CancelledError, ConfigError, isErrorCode, SqlInboxError } from './errors.js';
import type { Logger } from './logger.js';
import type { Outcome } from './outcome.js';
import type { ThreadSettings } from './queue.js';
import type { Context, Handler } from './subscription/handler.js';

/**
 * Worker threads: a handler that computes runs on dedicated `node:worker_threads`
 * threads. The subscription still claims and settles on the main thread, through the service's
 * pool; each thread imports the handler's module, opens its own small pool there and closes it
 * when the thread ends. A function cannot cross threads, so the handler lives in a module.
 */

/** What a thread module's `open` is given; `D` is the type of `onThreads({ data })`. */
export interface ThreadOpenOptions<D = any> {
  /** Connections the thread's pool may open: size the pool to exactly this. */
  readonly connections: number;
  /** `onThreads({ data })`. */
  readonly data: D;
  /** The thread's number, 0 to threads - 1 (a thread started after a crash takes the number it replaces). */
  readonly index: number;
}

/**
 * The thread's own pool, as `open` answers it: the `pool` of a dialect adapter (`pg(pool).pool`,
 * `sqlite(...).pool`, ...) and how to close what `open` opened (`() => pool.end()`).
 */
export interface ThreadPoolHandle {
  /** The thread's pool, from a dialect adapter. */
  readonly pool: Pool;
  /** Closes what `open` opened; called once when the thread ends. */
  close(): Promise<void> | void;
}

/** What a handler on a thread is given beside its message; `D` is the type of `onThreads({ data })`. */
export interface ThreadContext<D = any> {
  /** The queue table. */
  readonly table: string;
  /** The row's id. */
  readonly id: unknown;
  /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
  readonly attempt: number;
  /** The row as the claim read it (structured-cloned from the main thread). */
  readonly row: Readonly<Row>;
  /** Fires when the main thread's delivery aborts: shutdown, lease loss, the handler's timeout. */
  readonly signal: AbortSignal;
  /** Writes to the broker's logger, on the main thread. */
  readonly logger: Logger;
  /** `onThreads({ data })`. */
  readonly data: D;
  /** The thread's number. */
  readonly index: number;
  /** Runs one statement on a connection of the thread's own pool. */
  query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Holds one connection of the thread's own pool for `fn` (several statements, a transaction of your own). */
  connection<X>(fn: (conn: Connection) => Promise<X>): Promise<X>;
  /** Settles now, on the main thread, and reports the settlement's own failure here. */
  settle(outcome: Outcome): Promise<void>;
  /** Settles now as `Outcome.ack(value)`: the row is deleted, or stamped `processed_at`; `value` is kept where the table has a result column. */
  ack(value?: unknown): Promise<void>;
  /** Settles now as `Outcome.drop()`: a poisoned message, settled exactly like an ack. */
  drop(): Promise<void>;
  /** Settles now as `Outcome.retry()`: delivered again, or dead-lettered at `maxAttempts`. */
  retry(): Promise<void>;
  /** Settles now as `Outcome.retryAfter(delay)`: delivered again no earlier than `delay` (ms, or an instant). */
  retryAfter(delay: number | Date): Promise<void>;
  /**
   * Durable steps (`ctx.step`) run in main-thread handlers only: here it always rejects with a
   * `ConfigError` saying so, and runs nothing (the steps table is written on the main thread's
   * connections and the delivery's transaction, which a thread does not hold).
   */
  step(name: string, fn: () => unknown): Promise<never>;
}

/**
 * What a thread module exports (as its default export, or as named exports `open` and `handle`):
 * `T` is the message's type, `D` the type of `onThreads({ data })`.
 */
export interface ThreadModule<T = any, D = any> {
  /** Opens the thread's own pool, once, when the thread starts. */
  open(opts: ThreadOpenOptions<D>): ThreadPoolHandle | Promise<ThreadPoolHandle>;
  /** The handler: answers an outcome, or nothing for ack; a throw is a retry. */
  handle(message: T, ctx: ThreadContext<D>): Promise<Outcome | undefined | void> | Outcome | undefined | void;
}

/** Types a thread module: `export default threadHandler<Message, Data>({ open, handle })`. */
export function threadHandler<T = any, D = any>(module: ThreadModule<T, D>): ThreadModule<T, D> {
  return module;
}

/** One subscription's demand on the database: its threads and each thread's pool. */
export interface ThreadDemand {
  /** The subscription's queue table, for the error message. */
  readonly table: string;
  /** Its threads. */
  readonly threads: number;
  /** Connections of each thread's pool. */
  readonly connections: number;
}

/** The service's own connections: its pool, and the wake-up listener's where the adapter has one. */
export interface ServiceConnections {
  /** The most connections the service's pool opens. */
  readonly pool: number;
  /** 1 where the adapter listens for wake-ups on a connection of its own (PostgreSQL LISTEN), else 0. */
  readonly listener: number;
}

/**
 * The connection arithmetic: the service's connections (pool and listener) plus, over
 * the thread subscriptions, threads x connections, must stay within `connectionLimit`. Throws a
 * ConfigError naming the table and the numbers when `next` would pass it; answers the total with
 * `next` otherwise.
 */
export function checkConnectionLimit(
  limit: number | undefined,
  service: ServiceConnections,
  mounted: readonly ThreadDemand[],
  next: ThreadDemand,
): number {
  const others = mounted.reduce((n, d) => n + d.threads * d.connections, 0);
  const own = next.threads * next.connections;
  const base = service.pool + service.listener;
  const total = base + others + own;
  if (limit !== undefined && total > limit) {
    const serviceText =
      service.listener > 0
        ? `the service pool and listener (${service.pool} + ${service.listener})`
        : `the service pool (${service.pool})`;
    throw new ConfigError(
      `onThreads needs ${next.threads} threads x ${next.connections} connections = ${own}; ` +
        `with ${serviceText} and the other thread pools (${others}) that is ${total}, ` +
        `over the broker's connectionLimit of ${limit}`,
      {
        table: next.table,
        fix: 'fewer threads or connections, a smaller service pool, or a higher connectionLimit',
      },
    );
  }
  return total;
}

/** A thread ended while rows of it were in work: they come back by the form's rules, as a retry. */
export class ThreadExitedError extends SqlInboxError {
  constructor(table: string, rowId: unknown, detail: string) {
    super('THREAD_EXITED', `the thread running ${table} row ${String(rowId)} ended: ${detail}`, {
      table,
      rowId,
    });
  }
}

// --- the main thread's side ------------------------------------------------------------------

/** An error as it crosses threads. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly stack?: string;
  /** A `CancelledError`'s table, row id and reason, so the thread's is one too. */
  readonly cancel?: { readonly table: string | undefined; readonly rowId: unknown; readonly reason: string };
}

export function toWire(err: unknown): WireError {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return {
      name: err.name,
      message: err.message,
      ...(typeof code === 'string' ? { code } : {}),
      ...(err.stack === undefined ? {} : { stack: err.stack }),
      ...(err instanceof CancelledError
        ? { cancel: { table: err.table, rowId: err.rowId, reason: err.reason } }
        : {}),
    };
  }
  return { name: 'Error', message: String(err) };
}

export function fromWire(w: WireError): Error {
  // sqlinbox's own codes come back as a SqlInboxError (a cancel as a CancelledError); any other
  // (a driver's) on a plain Error.
  const c = w.cancel;
  const err =
    c !== undefined
      ? new CancelledError(c.table ?? '', c.rowId, c.reason)
      : isErrorCode(w.code)
        ? new SqlInboxError(w.code, w.message)
        : Object.assign(new Error(w.message), w.code === undefined ? {} : { code: w.code });
  err.name = w.name;
  if (w.stack !== undefined) err.stack = w.stack;
  return err;
}

/** Messages from the main thread to a thread. */
export type ToThread =
  | { t: 'run'; d: number; message: unknown; table: string; id: unknown; attempt: number; row: Row }
  | { t: 'abort'; d: number; reason: WireError }
  | { t: 'settled'; call: number; error?: WireError }
  | { t: 'close' };

/** Messages from a thread to the main thread. */
export type FromThread =
  | { t: 'ready' }
  | { t: 'openFailed'; error: WireError }
  | { t: 'done'; d: number; outcome: unknown }
  | { t: 'threw'; d: number; error: WireError }
  | { t: 'settle'; d: number; call: number; outcome: Outcome }
  | { t: 'log'; level: keyof Logger; msg: string; fields?: Record<string, unknown> }
  | { t: 'closed'; error?: WireError };

/** What `workerData` carries to a thread. */
export interface ThreadBoot {
  readonly handler: string;
  readonly connections: number;
  readonly data: unknown;
  readonly index: number;
  readonly table: string;
}

interface Pending {
  readonly ctx: Context;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/** The worker script: built next to this module (`dist/`); run from source, the built one. */
function workerScript(): URL {
  const here = import.meta.url;
  return new URL(
    /\.[cm]?ts$/.test(new URL(here).pathname) ? '../dist/thread-worker.mjs' : './thread-worker.mjs',
    here,
  );
}

/**
 * The thread's flags: the process's, less this repository's `@sqlinbox/source` export condition
 * (set by its test runner), which points at TypeScript sources a thread cannot load.
 */
function threadExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '--conditions' || a === '-C') && argv[i + 1] === SOURCE_CONDITION) i++;
    else if (a !== `--conditions=${SOURCE_CONDITION}` && a !== `-C=${SOURCE_CONDITION}`) out.push(a);
  }
  return out;
}
const SOURCE_CONDITION = '@sqlinbox/source';

/** One thread and the deliveries it runs. */
class Thread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  ready = false;
  closing = false;
  /** Deliveries that chose this thread and are about to be handed to it. */
  reserved = 0;
  /** Set once the thread confirmed it closed its pool. */
  poolClosed = false;
  readonly exited: Promise<number>;
  readonly opened: Promise<void>;

  constructor(
    readonly index: number,
    boot: ThreadBoot,
    onMessage: (thread: Thread, m: FromThread) => void,
  ) {
    this.worker = new Worker(workerScript(), { workerData: boot, execArgv: threadExecArgv() });
    let opened!: () => void;
    let failed!: (e: unknown) => void;
    this.opened = new Promise<void>((res, rej) => {
      opened = res;
      failed = rej;
    });
    this.opened.catch(() => {});
    let uncaught: unknown;
    this.worker.on('message', (m: FromThread) => {
      if (m.t === 'ready') {
        this.ready = true;
        opened();
      } else if (m.t === 'openFailed') {
        failed(
          new SqlInboxError('THREAD_OPEN', `thread ${index} of ${boot.table} could not open its pool`, {
            table: boot.table,
            cause: fromWire(m.error),
          }),
        );
        void this.worker.terminate();
      } else {
        onMessage(this, m);
      }
    });
    this.worker.on('error', (err) => {
      uncaught = err;
    });
    this.exited = new Promise<number>((resolve) => {
      this.worker.on('exit', (code) => {
        this.ready = false;
        failed(
          new SqlInboxError(
            'THREAD_OPEN',
            `thread ${index} of ${boot.table} ended before it opened its pool (exit code ${code})`,
            { table: boot.table, cause: uncaught },
          ),
        );
        resolve(code);
      });
    });
    this.uncaught = () => uncaught;
  }

  readonly uncaught: () => unknown;

  post(m: ToThread): void {
    this.worker.postMessage(m);
  }
}

/**
 * The threads of one subscription: starts them, hands each delivery to the least busy ready
 * thread, forwards aborts and explicit settlements, starts a new thread when one ends, and closes
 * them at shutdown.
 */
export class ThreadPool {
  private readonly threads: (Thread | undefined)[];
  private nextDelivery = 1;
  private turn = 0;
  private closing = false;
  private readyWaiters: (() => void)[] = [];
  private respawnFailures = 0;

  constructor(
    readonly table: string,
    readonly settings: ThreadSettings,
    private readonly logger: Logger,
  ) {
    this.threads = Array.from({ length: settings.threads }, () => undefined);
  }

  /** Starts every thread and waits until each opened its pool; rejects (and stops them) if one cannot. */
  async start(): Promise<void> {
    this.closing = false;
    for (let i = 0; i < this.threads.length; i++) this.threads[i] = this.spawn(i);
    try {
      await Promise.all(this.threads.map((t) => t!.opened));
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** The handler the subscription runs on the main thread: it hands the delivery to a thread. */
  readonly handler: Handler<unknown, undefined> = async (message, ctx) => {
    const thread = this.pick() ?? (await this.readyThread(ctx.signal));
    thread.reserved--;
    const d = this.nextDelivery++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        try {
          thread.post({ t: 'abort', d, reason: toWire(ctx.signal.reason) });
        } catch {
          // the thread is gone: its exit rejects this delivery
        }
      };
      const done = () => ctx.signal.removeEventListener('abort', onAbort);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      thread.pending.set(d, {
        ctx,
        resolve: (v) => {
          done();
          resolve(v as Outcome | undefined);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      try {
        thread.post({
          t: 'run',
          d,
          message,
          table: ctx.table,
          id: ctx.id,
          attempt: ctx.attempt,
          row: ctx.row as Row,
        });
      } catch (err) {
        // A message or row that cannot be cloned (a function, a class instance's methods).
        thread.pending.delete(d);
        done();
        reject(err);
      }
      if (ctx.signal.aborted) onAbort();
    });
  };

  /** Closes every thread's pool and ends the threads; answers the connections the thread pools closed. */
  async close(): Promise<number> {
    this.closing = true;
    for (const w of this.readyWaiters) w();
    this.readyWaiters = [];
    let closed = 0;
    await Promise.all(
      this.threads.map(async (t) => {
        if (t === undefined) return;
        t.closing = true;
        try {
          t.post({ t: 'close' });
        } catch {
          // already gone
        }
        const timer = setTimeout(() => void t.worker.terminate(), 10_000);
        await t.exited;
        clearTimeout(timer);
        if (t.poolClosed) closed += this.settings.connections;
      }),
    );
    return closed;
  }

  private spawn(index: number): Thread {
    const boot: ThreadBoot = {
      handler: this.settings.handler,
      connections: this.settings.connections,
      data: this.settings.data,
      index,
      table: this.table,
    };
    const t = new Thread(index, boot, (th, m) => this.onMessage(th, m));
    t.opened.then(
      () => {
        this.respawnFailures = 0;
        const w = this.readyWaiters;
        this.readyWaiters = [];
        for (const f of w) f();
      },
      () => {},
    );
    void t.exited.then((code) => this.onExit(t, code));
    return t;
  }

  private onExit(t: Thread, code: number): void {
    const reason = t.uncaught();
    for (const [, p] of t.pending) {
      p.reject(
        new ThreadExitedError(
          this.table,
          p.ctx.id,
          reason === undefined ? `exit code ${code}` : `uncaught ${String(reason)}`,
        ),
      );
    }
    t.pending.clear();
    if (this.closing || t.closing || this.threads[t.index] !== t) return;
    this.logger.error('a handler thread ended; starting another', {
      table: this.table,
      thread: t.index,
      exitCode: code,
      error: reason,
    });
    this.threads[t.index] = undefined;
    // A thread that cannot open its pool again waits before the next try: doubling, at most 30 s.
    const wait = this.respawnFailures === 0 ? 0 : Math.min(30_000, 100 * 2 ** this.respawnFailures);
    setTimeout(() => {
      if (this.closing) return;
      const next = this.spawn(t.index);
      this.threads[t.index] = next;
      next.opened.catch((err) => {
        this.respawnFailures++;
        this.logger.error('a handler thread could not open its pool', {
          table: this.table,
          thread: t.index,
          error: err,
        });
      });
    }, wait).unref();
  }

  private onMessage(thread: Thread, m: FromThread): void {
    switch (m.t) {
      case 'done': {
        const p = thread.pending.get(m.d);
        thread.pending.delete(m.d);
        p?.resolve(m.outcome);
        return;
      }
      case 'threw': {
        const p = thread.pending.get(m.d);
        thread.pending.delete(m.d);
        p?.reject(fromWire(m.error));
        return;
      }
      case 'settle': {
        const p = thread.pending.get(m.d);
        const answer = (error?: WireError) => {
          try {
            thread.post(
              error === undefined ? { t: 'settled', call: m.call } : { t: 'settled', call: m.call, error },
            );
          } catch {
            // the thread is gone
          }
        };
        if (p === undefined) {
          answer(
            toWire(new SqlInboxError('ALREADY_SETTLED', 'this delivery has ended', { table: this.table })),
          );
          return;
        }
        p.ctx.settle(m.outcome).then(
          () => answer(),
          (err: unknown) => answer(toWire(err)),
        );
        return;
      }
      case 'log': {
        this.logger[m.level](m.msg, { table: this.table, thread: thread.index, ...(m.fields ?? {}) });
        return;
      }
      case 'closed': {
        if (m.error === undefined) thread.poolClosed = true;
        else
          this.logger.error('a handler thread could not close its pool', {
            table: this.table,
            thread: thread.index,
            error: fromWire(m.error),
          });
        return;
      }
      default:
        return;
    }
  }

  /** The ready thread with the fewest deliveries, reserved for the caller; none while none is ready. */
  private pick(): Thread | undefined {
    if (this.closing) return undefined;
    let best: Thread | undefined;
    // Ties go round the threads, so deliveries arriving one by one spread over them.
    const n = this.threads.length;
    const from = this.turn++ % n;
    for (let i = 0; i < n; i++) {
      const t = this.threads[(from + i) % n];
      if (t === undefined || !t.ready || t.closing) continue;
      if (best === undefined || t.pending.size + t.reserved < best.pending.size + best.reserved) best = t;
    }
    if (best !== undefined) best.reserved++;
    return best;
  }

  /** Waits for a ready thread (one is starting after a crash). */
  private async readyThread(signal: AbortSignal): Promise<Thread> {
    for (;;) {
      if (this.closing)
        throw new SqlInboxError('CLOSED', 'the handler threads are closed', { table: this.table });
      if (signal.aborted) throw signal.reason;
      const best = this.pick();
      if (best !== undefined) return best;
      await new Promise<void>((resolve) => {
        this.readyWaiters.push(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }
}
