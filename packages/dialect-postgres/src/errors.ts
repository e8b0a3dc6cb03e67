import type { ErrorKind } from '@sqlinbox/core';
import { classifyWith, NODE_SOCKET_ERRORS } from '@sqlinbox/sql';

/**
 * Error classification for PostgreSQL, shared by both drivers: `pg` and postgres.js both put the
 * server's SQLSTATE in `err.code`; their own connection failures carry a Node socket code
 * (`ECONNRESET`), a postgres.js code (`CONNECTION_CLOSED`, ...) or, for `pg`, only a message
 * (`Connection terminated unexpectedly`).
 */

/** SQLSTATEs with a kind of their own. */
const SQLSTATE: Readonly<Record<string, ErrorKind>> = {
  '40001': 'serialization', // serialization_failure
  '40P01': 'deadlock', // deadlock_detected
  '55P03': 'lock_timeout', // lock_not_available (lock_timeout, NOWAIT)
  '57P01': 'shutdown', // admin_shutdown (also pg_terminate_backend)
  '57P02': 'shutdown', // crash_shutdown
  '57P03': 'shutdown', // cannot_connect_now (starting up or shutting down)
};

/** Node socket errors and postgres.js connection codes: the connection is gone. */
const CONNECTION_CODES = new Set([
  ...NODE_SOCKET_ERRORS,
  'ENOTFOUND',
  'EAI_AGAIN',
  // postgres.js
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** `pg` reports a lost connection by message only. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/, // "Connection terminated", "... unexpectedly", "... due to connection timeout"
  /not queryable/, // "Client has encountered a connection error and is not queryable", "Client was closed and is not queryable"
  /^timeout exceeded when trying to connect/,
  /socket hang up/,
];

/**
 * Maps a `pg` or postgres.js error to the engine's kind: 40001 serialization, 40P01 deadlock,
 * 55P03 lock_timeout, 57P01/57P02/57P03 shutdown, class 08 and socket errors connection, class 23
 * constraint, anything else `other`. Looks through `cause` and `AggregateError.errors` (Node
 * reports a refused dual-stack connect as an `AggregateError`).
 */
export function classifyError(err: unknown): ErrorKind {
  return classifyWith(err, (e: { code?: unknown; message?: unknown }) => {
    const code = typeof e.code === 'string' ? e.code : undefined;
    if (code !== undefined) {
      const kind = SQLSTATE[code];
      if (kind !== undefined) return kind;
      if (/^08[0-9A-Z]{3}$/.test(code)) return 'connection';
      if (/^23[0-9A-Z]{3}$/.test(code)) return 'constraint';
      if (CONNECTION_CODES.has(code)) return 'connection';
    }
    const message = typeof e.message === 'string' ? e.message : '';
    return CONNECTION_MESSAGES.some((re) => re.test(message)) ? 'connection' : undefined;
  });
}
