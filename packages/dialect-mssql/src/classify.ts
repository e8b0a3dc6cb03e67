import type { ErrorKind } from '@sqlinbox/core';
import { classifyWith, NODE_SOCKET_ERRORS } from '@sqlinbox/sql';

/** SQL Server error numbers with a kind of their own (tedious: `RequestError.number`). */
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

/** tedious's codes of a connection gone or unusable, this package's pool's `ECONNCLOSED`, and Node's socket codes. */
const CONNECTION_CODES = new Set([
  ...'ESOCKET ECLOSE EINVALIDSTATE ECONNCLOSED ELOGIN ENOTFOUND EAI_AGAIN'.split(' '),
  ...NODE_SOCKET_ERRORS,
]);

/**
 * A driver error's kind: by the server's error number, else `connection` for a `ConnectionError`
 * (by class name: the dialect never imports tedious) or a connection code; an `AggregateError`'s
 * errors (a deadlock beside "the statement has been terminated") and a `cause` are read in turn.
 */
export function classifyError(err: unknown): ErrorKind {
  return classifyWith(err, (e: { number?: unknown; code?: unknown }) => {
    const byNumber = typeof e.number === 'number' ? ERROR_NUMBERS[e.number] : undefined;
    const gone = e.constructor?.name === 'ConnectionError' || CONNECTION_CODES.has(String(e.code));
    return byNumber ?? (gone ? 'connection' : undefined);
  });
}
