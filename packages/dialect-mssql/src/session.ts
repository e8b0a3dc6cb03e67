/**
 * What this package knows about a server session beyond the core's `Connection`: the
 * application locks (`sp_getapplock`, session-owned) the dialect took on it and has not released.
 * The tedious pool reads it when a connection comes back, so a session holding a key never goes
 * back to the pool (where the next borrower would hold the key without knowing).
 */
import type { Connection } from '@sqlinbox/core';

const heldKeys = new WeakMap<Connection, Set<string>>();

/** Records a key the dialect locked on `conn`. */
export function noteLocked(conn: Connection, key: string): void {
  let keys = heldKeys.get(conn);
  if (keys === undefined) {
    keys = new Set();
    heldKeys.set(conn, keys);
  }
  keys.add(key);
}

/** Records a key the dialect released (or no longer holds) on `conn`. */
export function noteUnlocked(conn: Connection, key: string): void {
  heldKeys.get(conn)?.delete(key);
}

/** The keys the dialect holds on `conn` (empty for a connection it never locked on). */
export function keysHeld(conn: Connection): readonly string[] {
  return [...(heldKeys.get(conn) ?? [])];
}
