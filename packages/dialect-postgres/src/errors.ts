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
  // A server that cannot take this work: the connection is given up and the next one is opened
  // afresh, which after a failover (a new primary behind the same name, a host list) reaches the
  // primary. Never a backoff as for a busy server: this one will not mend by waiting.
  '57P03': 'connection', // cannot_connect_now (starting up, shutting down, in recovery)
  '25006': 'connection', // read_only_sql_transaction: a standby, or a primary turned read-only
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
 * 55P03 lock_timeout, 57P01/57P02 shutdown; 57P03 (a server starting, stopping or in recovery),
 * 25006 (a read-only server: a standby, or a demoted primary), class 08 and socket errors
 * connection; class 23 constraint, anything else `other`. The engine never opens a read-only
 * transaction of its own, so a 25006 on its statement means the server, not the statement. Looks through `cause` and `AggregateError.errors` (Node
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

/**
 * Whether a connection that failed with `err` must be retired rather than returned to the pool:
 * its session is gone (`connection`, `shutdown`), or its server cannot take the engine's work
 * (read-only or in recovery). A pooled connection to a demoted primary stays open and healthy, so
 * only this keeps the pool from handing it out again after a failover.
 */
export function retiresConnection(err: unknown): boolean {
  const kind = classifyError(err);
  return kind === 'connection' || kind === 'shutdown';
}
