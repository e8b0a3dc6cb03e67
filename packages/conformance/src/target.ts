import type { Adapter, Row } from '@sqlinbox/core';

/** An adapter opened for a test, with its own pool; `close()` ends that pool. */
export type OpenAdapter = Adapter & {
  /** Ends the pool the adapter opened for the test. */
  close(): Promise<void>;
};

/** Options a target's `open` takes. */
export interface OpenOptions {
  /** The pool's size (default 10). */
  readonly poolSize?: number;
  /** Makes the dialect report this server version instead of asking the server. */
  readonly serverVersion?: string;
}

/**
 * What an adapter author hands to `runConformance`: how to open the adapter, and the few
 * operations a scenario needs from outside the engine.
 */
export interface ConformanceTarget {
  /** Shown in test names, e.g. `postgres (pg)`. */
  readonly name: string;
  /** Opens a new adapter with a pool of its own. */
  open(opts?: OpenOptions): Promise<OpenAdapter>;
  /** Runs one admin statement on a connection of the target's own (create, drop, inspect). */
  exec(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /**
   * Absolute path of a plain ES module whose default export, `(opts?: OpenOptions) =>
   * Promise<OpenAdapter>`, opens the same adapter in a child process (crash scenarios, the
   * two-process ledger), and on each worker thread of the threads scenario, as that thread's own
   * pool. For `runPartition` it connects to `SQLINBOX_CHILD_DB_HOST` and `SQLINBOX_CHILD_DB_PORT`
   * where they are set.
   *
   * Optional: a database that lives inside one process (an embedded engine no other process or
   * thread can open) leaves it out, and the scenarios that need another process or thread are
   * skipped, each saying why. Default: undefined, those scenarios skip.
   */
  readonly childModule?: string | undefined;
  /** A server version string below the dialect's floor, in the server's own format. */
  readonly tooOldVersion: string;
  /** Ends a server session by its `Connection.id`, as an admin would. Absent where there are no sessions. */
  killSession?(connectionId: string): Promise<void>;
  /**
   * How many advisory locks any session but the target's own holds now. Optional: absent where
   * the database cannot tell; the scenarios that count locks then skip that count (or the whole
   * scenario, where counting is all it does), saying why.
   */
  advisoryLocksHeld?(): Promise<number>;
  /**
   * Restarts the database server and resolves once it answers again. Absent where the database
   * has no server (SQLite).
   */
  restartServer?(): Promise<void>;
  /** Closes what the target itself opened. */
  close?(): Promise<void>;
}
