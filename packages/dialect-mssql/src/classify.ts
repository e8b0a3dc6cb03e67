import type { ErrorKind } from '@sqlinbox/core';

/**
 * SQL Server error numbers with a kind of their own (tedious puts the server's number in
 * `RequestError.number`).
 */
export const ERROR_NUMBERS: Readonly<Record<number, ErrorKind>> = {
  1205: 'deadlock', // chosen as deadlock victim; the server has rolled the transaction back
  3960: 'serialization', // snapshot isolation update conflict
  1222: 'lock_timeout', // lock request time out period exceeded (LOCK_TIMEOUT)
  2627: 'constraint', // violation of a PRIMARY KEY or UNIQUE constraint
  2601: 'constraint', // duplicate key row in a unique index
  547: 'constraint', // FOREIGN KEY or CHECK constraint conflict
  515: 'constraint', // cannot insert NULL into a NOT NULL column
  6005: 'shutdown', // SHUTDOWN is in progress
  6006: 'shutdown', // server shut down by request
  596: 'connection', // the session is in the kill state (KILL <spid>)
};

/**
 * tedious codes that mean the connection is gone or unusable: its own socket and state codes
 * (`ESOCKET` wraps a lost socket, `ECLOSE` a request cut off by a close, `EINVALIDSTATE` a request
 * on a connection no longer logged in), `ECONNCLOSED` from this package's pool, and Node's socket
 * codes where one surfaces directly.
 */
const CONNECTION_CODES = new Set([
  'ESOCKET',
  'ECLOSE',
  'EINVALIDSTATE',
  'ECONNCLOSED',
  'ELOGIN',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** How deep `classifyError` follows `cause` and `AggregateError.errors`. */
const MAX_DEPTH = 4;

/**
 * Maps a tedious error to the kind the engine acts on: by the server's error number (1205
 * deadlock, 3960 serialization, 1222 lock timeout, 2627/2601/547/515 constraint, 6005/6006
 * shutdown, 596 connection), then by tedious's kind of error: a `ConnectionError` (any code) or a
 * connection code (`ESOCKET`, `ECLOSE`, `EINVALIDSTATE`, `ECONNRESET`, ...) is `connection`; anything
 * else `other`. A request that raised several server errors arrives as an `AggregateError`; its
 * errors are read in turn, as is a wrapper's `cause`. The dialect never imports tedious: a
 * `ConnectionError` is known by its class name.
 */
export function classifyError(err: unknown): ErrorKind {
  return classify(err, 0);
}

function classify(err: unknown, depth: number): ErrorKind {
  if (err === null || typeof err !== 'object' || depth > MAX_DEPTH) return 'other';
  const e = err as { number?: unknown; code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.number === 'number') {
    const kind = ERROR_NUMBERS[e.number];
    if (kind !== undefined) return kind;
  }
  if (Array.isArray(e.errors)) {
    // Several server errors: the one with a kind of its own decides (a deadlock reported beside
    // "the statement has been terminated" is still a deadlock).
    for (const inner of e.errors) {
      const kind = classify(inner, depth + 1);
      if (kind !== 'other') return kind;
    }
  }
  if (err.constructor?.name === 'ConnectionError') return 'connection';
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return 'connection';
  if (e.cause !== undefined) return classify(e.cause, depth + 1);
  return 'other';
}
