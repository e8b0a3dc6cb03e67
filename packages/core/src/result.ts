import { defaultCodec } from './codec.js';
import type { AnyTable, TypedResult } from './description.js';
import type { Adapter, DeadLetterTarget, TableOps } from './dialect.js';
import type { Connection, Row } from './driver.js';
import { type Duration, durationMs } from './duration.js';
import { ConfigError, EncodeError, messageOf, SqlInboxError } from './errors.js';

/**
 * A row's result as `admin.result` reads it: processed (acked, or dropped) with the value its
 * handler acked with (`undefined` where it kept none); still pending (ready, delayed or in work);
 * dead (in the dead letter the call was given); or missing (no such row: never published, not
 * committed yet, pruned by the retention, or removed).
 */
export type RowResult<R = unknown> =
  | {
      /** Processed: its ack (or drop) settled. */
      readonly state: 'processed';
      /** The value the handler acked with (`Outcome.ack(value)`), decoded; undefined: none kept. */
      readonly value: R | undefined;
      /** When it was settled (`processed_at`). */
      readonly processedAt: Date | null;
    }
  | {
      /** Dead: in the dead-letter group or table the call was given. */
      readonly state: 'dead';
      /** The failure record's last message, where the table keeps one. */
      readonly lastError: string | null;
    }
  | {
      /** Pending: ready, delayed or in work; missing: no row of that id. */
      readonly state: 'pending' | 'missing';
    };

/** The result type a description states (see `typedResult`); unknown where it states none. */
export type ResultOf<D> = D extends TypedResult<infer R> ? R : unknown;

/** Options of a wait for a result (`broker.result`, `admin.waitResult`). */
export interface ResultWaitOptions {
  /** How long to wait for the row to be processed. Default 30 s. */
  readonly timeout?: Duration;
  /** The table's dead letter, so a row that died ends the wait with a `ResultDeadError`. */
  readonly deadLetter?: DeadLetterTarget;
  /** Ends the wait early: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * The pause between two reads of the row, held flat. Default: 50 ms growing by half to 250 ms;
   * where a notification wakes the wait (`broker.result` and `admin.waitResult` on PostgreSQL,
   * and a settlement of the broker's own subscriptions) a flat 2 s, a fallback for a notification
   * lost with its listener.
   */
  readonly pollInterval?: Duration;
}

/** A wait for a row's result ran past its timeout; the row was still pending, or missing. */
export class ResultTimeoutError extends SqlInboxError {
  /** The timeout that passed, in milliseconds. */
  readonly timeoutMs: number;
  /** What the last read found: `pending` or `missing`. */
  readonly lastState: 'pending' | 'missing';
  constructor(table: string, rowId: unknown, timeoutMs: number, lastState: 'pending' | 'missing') {
    super(
      'RESULT_TIMEOUT',
      `no result of ${table} row ${String(rowId)} after ${timeoutMs} ms: the row is ${lastState === 'missing' ? 'missing (never published, not committed yet, or pruned)' : 'still pending'}`,
      { table, rowId },
    );
    this.timeoutMs = timeoutMs;
    this.lastState = lastState;
  }
}

/** A row waited for died (it is in its dead letter) instead of being processed: it has no result. */
export class ResultDeadError extends SqlInboxError {
  /** The failure record's last message, where the table keeps one. */
  readonly lastError: string | null;
  constructor(table: string, rowId: unknown, lastError: string | null) {
    super(
      'RESULT_DEAD',
      `${table} row ${String(rowId)} is dead, with no result${lastError === null ? '' : `: ${lastError}`}`,
      { table, rowId },
    );
    this.lastError = lastError;
  }
}

const json = defaultCodec('json');

/**
 * A handler's result as the result column keeps it: JSON text of `{"value": <the value>}`. The
 * envelope tells a kept `null` from none (SQL NULL), and reads back the same through every driver,
 * whether it hands a JSON column over as text or parsed. A value JSON cannot carry throws an
 * `EncodeError` naming the table and where in the value it is.
 */
export function encodeResult(table: string, value: unknown): string {
  try {
    return `{"value":${json.encode(value) as string}}`;
  } catch (err) {
    throw new EncodeError(table, `the result ${messageOf(err).replace(/^message/, 'value')}`, err);
  }
}

/**
 * The value a result column holds, as the driver returned it (JSON text, bytes, or parsed):
 * undefined for SQL NULL; the envelope's value; a JSON value written by other means as it is.
 */
export function decodeResult(raw: unknown): unknown {
  if (raw === null || raw === undefined) return undefined;
  let v: unknown = raw;
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    try {
      v = json.decode(raw);
    } catch {
      return typeof raw === 'string' ? raw : v;
    }
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0] === 'value') return (v as { value: unknown }).value;
  }
  return v;
}

/** A ConfigError where the table keeps no results. */
export function needResult(table: AnyTable): string {
  if (table.result !== undefined) return table.result;
  throw new ConfigError('the table keeps no results', {
    table: table.table,
    fix: "declare result: 'result' (and processedAt) in its description",
  });
}

/** Row `id`'s result, read on `conn` through the admin list statement of `ops`. */
export async function resultOn(
  conn: Connection,
  table: AnyTable,
  ops: TableOps,
  id: unknown,
): Promise<RowResult> {
  const column = needResult(table);
  const admin = ops.admin;
  if (admin === undefined)
    throw new ConfigError('the dialect has no admin statements, which read a result', { table: table.table });
  const now = new Date();
  let found: Row[] = await admin.list(conn, { state: 'all', ids: [id], limit: 1, now });
  if (found.length === 0) found = await admin.list(conn, { state: 'dead', ids: [id], limit: 1, now });
  const row = found[0];
  if (row === undefined) return MISSING;
  const state = String(row.sqlinbox_state);
  if (state === 'done')
    return {
      state: 'processed',
      value: decodeResult(row[column]),
      processedAt: at(table.processedAt === undefined ? undefined : row[table.processedAt]),
    };
  if (state === 'dead') {
    const e = table.lastError === undefined ? null : row[table.lastError];
    return { state: 'dead', lastError: e == null ? null : String(e) };
  }
  return PENDING;
}

/** Row `id`'s result, on a connection of the adapter's pool. */
export async function readResult(
  adapter: Adapter,
  table: AnyTable,
  id: unknown,
  deadLetter: DeadLetterTarget | undefined,
): Promise<RowResult> {
  needResult(table);
  const ops = adapter.dialect.prepare(table, { deadLetter });
  const conn = await adapter.pool.acquire();
  let result: RowResult;
  try {
    result = await resultOn(conn, table, ops, id);
  } catch (err) {
    await adapter.pool.destroy(conn).catch(() => undefined);
    throw err;
  }
  adapter.pool.release(conn);
  return result;
}

/** The first pause between reads of a wait, and the longest: each pause is half again the last. */
export const RESULT_POLL_MS = { first: 50, max: 250 } as const;

/** The pause between reads of a wait that a notification wakes: a fallback only. */
export const RESULT_WOKEN_POLL_MS = 2_000;

/**
 * What ends a wait's pause early: `wake()` (a settlement of the row, heard by this process), so the
 * wait reads again at once. A wake during a read makes the next pause end at once.
 */
export class ResultWaker {
  private woken = false;
  private ring: (() => void) | undefined;

  /** The row may have settled: the pause in progress ends now, else the next one does not wait. */
  wake(): void {
    if (this.ring !== undefined) this.ring();
    else this.woken = true;
  }

  /** Sleeps `ms`, less where {@link wake} is called (or was, since the last pause). */
  pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.ring = undefined;
      };
      const timer = setTimeout(() => {
        end();
        resolve();
      }, ms);
      const abort = () => {
        end();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.ring = () => {
        end();
        resolve();
      };
    });
  }
}

/**
 * Reads `read` until the row is processed and answers its value; a dead row rejects with a
 * `ResultDeadError`, a row still pending or missing at the timeout with a `ResultTimeoutError`.
 * Holds no connection between reads, which start 50 ms apart and grow to 250 ms, or are
 * `opts.pollInterval` apart; with `woken` (a notification heard, `waker` rings) a flat 2 s, and
 * a ring of `waker` reads at once.
 */
export async function waitForResult(
  table: AnyTable,
  id: unknown,
  opts: ResultWaitOptions,
  read: () => Promise<RowResult>,
  waker?: ResultWaker,
  woken = false,
): Promise<unknown> {
  needResult(table);
  const timeoutMs = durationMs(opts.timeout ?? 30_000, 'result timeout');
  const flat =
    opts.pollInterval === undefined ? undefined : durationMs(opts.pollInterval, 'result pollInterval');
  const deadline = Date.now() + timeoutMs;
  let pause: number = flat ?? (woken ? RESULT_WOKEN_POLL_MS : RESULT_POLL_MS.first);
  const grows = flat === undefined && !woken;
  for (;;) {
    opts.signal?.throwIfAborted();
    const r = await read();
    if (r.state === 'processed') return r.value;
    if (r.state === 'dead') throw new ResultDeadError(table.table, id, r.lastError);
    const left = deadline - Date.now();
    if (left <= 0) throw new ResultTimeoutError(table.table, id, timeoutMs, r.state);
    if (waker === undefined) await sleep(Math.min(pause, left), opts.signal);
    else await waker.pause(Math.min(pause, left), opts.signal);
    if (grows) pause = Math.min(RESULT_POLL_MS.max, Math.round(pause * 1.5));
  }
}

const MISSING: RowResult = Object.freeze({ state: 'missing' });
const PENDING: RowResult = Object.freeze({ state: 'pending' });

/** Sleeps `ms`, or less where `signal` aborts (then rejects with its reason). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** An instant column's value as the driver returned it (Date, epoch ms, or text), as a Date. */
function at(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  const d = typeof v === 'number' || typeof v === 'bigint' ? new Date(Number(v)) : new Date(String(v));
  return Number.isNaN(d.getTime()) ? null : d;
}
