/** What both PostgreSQL adapters share about poolers. */

/**
 * The warning an adapter without a `pooler` option gives once when its first connection goes
 * through a pooler: the server's `pg_backend_pid()` differs from the pid of the BackendKeyData the
 * connection was given (a pooler answers the startup itself). It cannot tell the pooler's mode.
 */
export function warnPooler(driver: string, keyPid: string, backendPid: string): void {
  process.emitWarning(
    `sqlinbox: the ${driver} adapter's connections go through a pooler (backend pid ${backendPid}, key ${keyPid}).` +
      ` If it pools transactions (PgBouncer pool_mode = transaction), pass pooler: 'transaction' to the adapter;` +
      ` if it pools sessions, pass pooler: 'session'`,
    { code: 'SQLINBOX_POOLER' },
  );
}
