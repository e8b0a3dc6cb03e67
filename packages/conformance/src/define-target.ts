import type { Adapter, Row } from '@sqlinbox/core';
import type { ConformanceTarget, OpenAdapter, OpenOptions } from './target.js';

/** What {@link defineTarget} builds a {@link ConformanceTarget} from. */
export interface TargetDefinition {
  /** Shown in test names, e.g. `mydb (mydriver)`. */
  readonly name: string;
  /**
   * Opens a new adapter over a pool of its own of `poolSize` connections, whose `close()` ends
   * that pool. With `serverVersion`, its dialect's `checkServer` reports that version instead of
   * asking the server (the suite proves `ServerTooOldError` with it).
   */
  adapter(opts: {
    readonly poolSize: number;
    readonly serverVersion?: string | undefined;
  }): Adapter | Promise<Adapter>;
  /** A server version string below the dialect's floor, in the server's own format. */
  readonly tooOldVersion: string;
  /**
   * The module a child process or a worker thread opens the same adapter from (see
   * {@link ConformanceTarget.childModule}). Default: none, for a database inside one process; the
   * scenarios that need another process or thread skip.
   */
  readonly childModule?: string | undefined;
  /**
   * Runs one admin statement (create, drop, inspect). Default: on a connection of an adapter of
   * the target's own with a pool of one, opened at the first statement; on a database with one
   * writer at a time that pool shares the adapters' write lock, so an admin statement waits for
   * an open transaction instead of failing busy.
   */
  exec?(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Ends a server session by its `Connection.id`. Default: none (the scenarios that kill sessions skip). */
  killSession?(connectionId: string): Promise<void>;
  /** How many advisory locks any other session holds. Default: none (lock counts are skipped). */
  advisoryLocksHeld?(): Promise<number>;
  /** Restarts the server and resolves once it answers. Default: none (restart scenarios skip). */
  restartServer?(): Promise<void>;
  /** Closes what the definition itself opened, after the target's own adapters. Default: nothing. */
  close?(): Promise<void>;
}

/**
 * A {@link ConformanceTarget} from the few things only you know: how to open your adapter, a
 * version below your floor and, where your database has them, the optional hooks. It fills in
 * the rest: `open()` hands out adapters whose `close()` is safe to call twice (the suite calls
 * it after `broker.shutdown()` has), admin statements run on an adapter of the target's own
 * unless you give `exec`, and `close()` ends every adapter still open.
 *
 * ```ts
 * const target = defineTarget({
 *   name: 'sqlite (node:sqlite)',
 *   adapter: ({ poolSize, serverVersion }) =>
 *     sqlite({ filename: file, connections: poolSize }, { serverVersion }),
 *   tooOldVersion: '3.30.0',
 * });
 * ```
 */
export function defineTarget(def: TargetDefinition): ConformanceTarget {
  const opened = new Set<OpenAdapter>();
  let admin: Promise<Adapter> | undefined;

  async function open(opts: OpenOptions = {}): Promise<OpenAdapter> {
    const adapter = await def.adapter({ poolSize: opts.poolSize ?? 10, serverVersion: opts.serverVersion });
    let closed: Promise<void> | undefined;
    const tracked: OpenAdapter = {
      ...adapter,
      close() {
        closed ??= (async () => {
          opened.delete(tracked);
          await adapter.close?.();
        })();
        return closed;
      },
    };
    opened.add(tracked);
    return tracked;
  }

  /** One statement on the admin adapter's one connection; a connection that failed is not kept. */
  async function exec(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    admin ??= Promise.resolve(def.adapter({ poolSize: 1 }));
    const { pool } = await admin;
    const conn = await pool.acquire();
    let rows: Row[];
    try {
      rows = (await conn.query(sql, params)).rows;
    } catch (err) {
      await pool.destroy(conn);
      throw err;
    }
    pool.release(conn);
    return rows;
  }

  return {
    name: def.name,
    tooOldVersion: def.tooOldVersion,
    ...(def.childModule === undefined ? {} : { childModule: def.childModule }),
    ...(def.killSession === undefined ? {} : { killSession: (id: string) => def.killSession!(id) }),
    ...(def.advisoryLocksHeld === undefined ? {} : { advisoryLocksHeld: () => def.advisoryLocksHeld!() }),
    ...(def.restartServer === undefined ? {} : { restartServer: () => def.restartServer!() }),
    open,
    exec: def.exec === undefined ? exec : (sql, params) => def.exec!(sql, params),
    async close() {
      for (const adapter of [...opened]) await adapter.close();
      const a = admin;
      admin = undefined;
      if (a !== undefined) await (await a).close?.();
      await def.close?.();
    },
  };
}
