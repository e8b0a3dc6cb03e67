/**
 * The script each handler thread runs: imports the user's thread module, opens the
 * thread's own pool, runs deliveries the main thread hands it and answers their outcomes, and
 * closes the pool when the main thread says so. The main thread claims and settles.
 */
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { Connection } from './driver.js';
import { ConfigError } from './errors.js';
import type { Logger } from './logger.js';
import { Outcome, outcomeOf } from './outcome.js';
import {
  type FromThread,
  fromWire,
  type ThreadBoot,
  type ThreadContext,
  type ThreadModule,
  type ThreadPoolHandle,
  type ToThread,
  toWire,
} from './threads.js';

const port = parentPort!;
const boot = workerData as ThreadBoot;

function post(m: FromThread): void {
  try {
    port.postMessage(m);
  } catch {
    // A log line's fields that cannot be cloned go as text.
    if (m.t === 'log') port.postMessage({ ...m, fields: { fields: String(m.fields) } });
    else throw new Error(`cannot send ${m.t} to the main thread`);
  }
}

const logger: Logger = {
  debug: (msg, fields) => post({ t: 'log', level: 'debug', msg, ...(fields ? { fields } : {}) }),
  info: (msg, fields) => post({ t: 'log', level: 'info', msg, ...(fields ? { fields } : {}) }),
  warn: (msg, fields) => post({ t: 'log', level: 'warn', msg, ...(fields ? { fields } : {}) }),
  error: (msg, fields) => post({ t: 'log', level: 'error', msg, ...(fields ? { fields } : {}) }),
};

function moduleOf(loaded: Record<string, unknown>): ThreadModule {
  const d = loaded.default as Partial<ThreadModule> | undefined;
  const m = (d && typeof d.handle === 'function' ? d : loaded) as Partial<ThreadModule>;
  if (typeof m.handle !== 'function' || typeof m.open !== 'function') {
    throw new TypeError(
      `${boot.handler} must export open({ connections }) and handle(message, ctx), or a default threadHandler({ open, handle })`,
    );
  }
  return m as ThreadModule;
}

const specifier = /^[a-z][a-z0-9+.-]*:/i.test(boot.handler) ? boot.handler : pathToFileURL(boot.handler).href;

let mod: ThreadModule;
let handle: ThreadPoolHandle;
try {
  mod = moduleOf(await import(specifier));
  handle = await mod.open({ connections: boot.connections, data: boot.data, index: boot.index });
  if (handle === null || typeof handle !== 'object' || typeof handle.pool?.acquire !== 'function')
    throw new TypeError('open() must answer { pool, close } (pool: an adapter pool, e.g. pg(pool).pool)');
} catch (err) {
  post({ t: 'openFailed', error: toWire(err) });
  // The main thread terminates this thread.
  await new Promise(() => {});
  throw err;
}
const pool = handle.pool;

const running = new Map<number, AbortController>();
const calls = new Map<number, { resolve(): void; reject(e: unknown): void }>();
let nextCall = 1;

/** Released when `fn` resolves; closed when it throws (the session may be dead or inside a transaction). */
async function withConnection<X>(fn: (conn: Connection) => Promise<X>): Promise<X> {
  const conn = await pool.acquire();
  let result: X;
  try {
    result = await fn(conn);
  } catch (err) {
    await pool.destroy(conn).catch(() => {});
    throw err;
  }
  pool.release(conn);
  return result;
}

function settleOnMain(d: number, outcome: Outcome): Promise<void> {
  const call = nextCall++;
  return new Promise<void>((resolve, reject) => {
    calls.set(call, { resolve, reject });
    post({ t: 'settle', d, call, outcome });
  });
}

async function run(m: Extract<ToThread, { t: 'run' }>): Promise<void> {
  const controller = new AbortController();
  running.set(m.d, controller);
  const ctx: ThreadContext = {
    table: m.table,
    id: m.id,
    attempt: m.attempt,
    row: m.row,
    signal: controller.signal,
    logger,
    data: boot.data,
    index: boot.index,
    query: (sql, params) => withConnection((c) => c.query(sql, params)),
    connection: withConnection,
    settle: (o) => settleOnMain(m.d, o),
    ack: (value?: unknown) => settleOnMain(m.d, Outcome.ack(value)),
    drop: () => settleOnMain(m.d, Outcome.drop()),
    retry: () => settleOnMain(m.d, Outcome.retry()),
    retryAfter: (delay) => settleOnMain(m.d, Outcome.retryAfter(delay)),
    step: () =>
      Promise.reject(
        new ConfigError('ctx.step runs in main-thread handlers only, not in a handler thread', {
          table: m.table,
          fix: 'run the steps in a handler mounted with subscribe(), or keep their progress in tables of your own through ctx.query',
        }),
      ),
  };
  try {
    const outcome = outcomeOf(await mod.handle(m.message, ctx));
    post({ t: 'done', d: m.d, outcome });
  } catch (err) {
    post({ t: 'threw', d: m.d, error: toWire(err) });
  } finally {
    running.delete(m.d);
  }
}

async function close(): Promise<void> {
  try {
    await handle.close();
    post({ t: 'closed' });
  } catch (err) {
    post({ t: 'closed', error: toWire(err) });
  }
  port.close();
  // A pool that left a handle open must not keep the thread alive.
  setTimeout(() => process.exit(0), 1_000).unref();
}

port.on('message', (m: ToThread) => {
  switch (m.t) {
    case 'run':
      void run(m);
      return;
    case 'abort': {
      const c = running.get(m.d);
      if (c !== undefined && !c.signal.aborted) c.abort(fromWire(m.reason));
      return;
    }
    case 'settled': {
      const c = calls.get(m.call);
      calls.delete(m.call);
      if (m.error === undefined) c?.resolve();
      else c?.reject(fromWire(m.error));
      return;
    }
    case 'close':
      void close();
      return;
  }
});

post({ t: 'ready' });
