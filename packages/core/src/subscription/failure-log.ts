import { SqlInboxError } from '../errors.js';
import type { Logger } from '../logger.js';
import { reachesLimit } from '../outcome.js';
import type { QueueSettings } from '../queue.js';

/**
 * The error a handler that ran past its queue's `timeout` fails with: its signal's abort reason,
 * and the failure the row's record keeps (`code: 'TIMEOUT'`, class `timeout`).
 */
export function timeoutError(table: string, id: unknown, ms: number, batch = false): SqlInboxError {
  const who = batch ? `batch handler of ${table}` : `handler of ${table} row ${String(id)}`;
  return new SqlInboxError('TIMEOUT', `${who} timed out after ${ms} ms`, {
    table,
    ...(batch ? {} : { rowId: id }),
  });
}

/** Whether a failure is a handler's timeout (see {@link timeoutError}). */
export function isTimeout(err: unknown): boolean {
  return err instanceof SqlInboxError && err.code === 'TIMEOUT';
}

/**
 * Logs a handler's failure once, with the outcome it leads to: retrying (with its backoff), or
 * dead-lettering where the delivery's attempt reached `maxAttempts`, or nothing changed where the
 * handler had settled its row already. Answers whether it said dead-lettering (the plan then says
 * nothing more).
 */
export function logFailure(
  logger: Logger,
  s: QueueSettings,
  row: { readonly id: unknown; readonly attempt: number },
  err: Error,
  opts: { settled: boolean; delay: number },
): boolean {
  const what = isTimeout(err) ? 'handler timed out' : 'handler failed';
  const fields = { table: s.table.table, id: row.id, attempt: row.attempt, error: err };
  if (opts.settled) {
    logger.warn(`${what} after it settled its row; the settlement stands`, fields);
    return false;
  }
  if (reachesLimit(row.attempt, s.maxAttempts) && s.deadLetter !== undefined) {
    logger.warn(`${what} at attempt ${row.attempt} of ${s.maxAttempts}: dead-lettering`, fields);
    return true;
  }
  logger.warn(`${what}; retrying`, {
    ...fields,
    ...(opts.delay > 0 ? { retryInMs: Math.round(opts.delay) } : {}),
  });
  return false;
}
