/**
 * What this package knows about a server session beyond the core's `Connection`: the advisory
 * locks the dialect took on it and whether it sits in a transaction. The driver wrappers read
 * both when a connection is released, so a session holding either never goes back to the pool.
 */
import type { Connection } from '@sqlinbox/core';
import { keysHeld } from '@sqlinbox/sql';

/** A connection that can say whether its session is inside a transaction (the driver wrappers). */
export interface TransactionAware {
  /** From the server status flags of the last reply: `SERVER_STATUS_IN_TRANS`. */
  inTransaction(): boolean;
}

/** The `SERVER_STATUS_IN_TRANS` bit of the server status flags. */
export const SERVER_STATUS_IN_TRANS = 1;

/** Whether `conn` is known to be inside a transaction; undefined where it cannot tell. */
export function knownInTransaction(conn: Connection): boolean | undefined {
  const c = conn as Partial<TransactionAware>;
  return typeof c.inTransaction === 'function' ? c.inTransaction() : undefined;
}

/**
 * Why a connection must be closed rather than returned to the pool, or undefined when it is clean:
 * an open transaction or an advisory lock would otherwise pass to the pool's next borrower.
 */
export function dirtyReason(conn: Connection): string | undefined {
  if (knownInTransaction(conn) === true) return 'it is inside a transaction';
  const keys = keysHeld(conn);
  if (keys.length > 0)
    return `it holds the advisory lock of ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
  return undefined;
}

/**
 * Warns that a connection came back dirty and is being closed instead: the engine guarantees it
 * never happens, so this is a bug to see in the logs, not to paper over.
 */
export function warnDirtyRelease(conn: Connection, reason: string): void {
  process.emitWarning(
    `sqlinbox: connection ${conn.id} was released while ${reason}; it is closed instead of returned to the pool`,
    { code: 'SQLINBOX_DIRTY_RELEASE' },
  );
}
