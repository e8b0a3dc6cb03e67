import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  type ConformanceTarget,
  type OpenAdapter,
  type OpenOptions,
  skipWithoutServer,
} from '@sqlinbox/conformance';
import type { Row } from '@sqlinbox/core';
import pgModule from 'pg';
import postgres from 'postgres';
import { pg } from '../src/pg.js';
import { postgresJs } from '../src/postgres.js';

/**
 * The conformance targets of this package: one per driver. Each opens adapters over pools of its
 * own, runs admin statements on a `pg` client of its own (the same value handling for both
 * targets: int8 as string, json parsed), ends sessions with `pg_terminate_backend`, and counts
 * advisory locks in `pg_locks`. The database is `SQLINBOX_PG_URL`, which test/global-setup.ts sets
 * (the local server, or a container) when it is not given; default
 * `postgres://postgres@127.0.0.1:5432/test`.
 */

/** Why there is no server (the global setup found none), or `undefined`; the file's tests then skip. */
export const NO_SERVER = skipWithoutServer('SQLINBOX_PG_SKIP');

const run = promisify(execFile);
const URL = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/**
 * Whether the database is on the machine's own server (127.0.0.1 or localhost, port 5432), the
 * one `restartServer` restarts: a target on any other server (a cluster of its own, a container)
 * has no restart, so the restart scenario skips instead of restarting a server others use.
 */
const ON_LOCAL_SERVER = (() => {
  const u = new globalThis.URL(URL);
  return ['127.0.0.1', 'localhost'].includes(u.hostname) && (u.port === '' || u.port === '5432');
})();
const here = dirname(fileURLToPath(import.meta.url));
/** A PostgreSQL release below the floor (11), as `server_version` spells it. */
const TOO_OLD = '10.5';

/**
 * Waits (up to 2 s) until every connection is back in the pool. A broker shut down a moment ago
 * may still hand one back, and postgres.js's `end()` waits its whole timeout for a reservation
 * released after `end()` began.
 */
export async function settle(pool: { size: number; spare(): number }): Promise<void> {
  for (let i = 0; i < 200 && pool.spare() < pool.size; i++) await new Promise((r) => setTimeout(r, 10));
}

/** The admin side both targets share (and the PgBouncer targets): a lazily opened `pg.Client`. */
export function adminSide(
  options?: string,
): Pick<ConformanceTarget, 'exec' | 'killSession' | 'advisoryLocksHeld' | 'restartServer' | 'close'> {
  let client: Promise<pgModule.Client> | undefined;
  const admin = () => {
    client ??= (async () => {
      const c = new pgModule.Client({ connectionString: URL, ...(options === undefined ? {} : { options }) });
      c.on('error', () => {});
      await c.connect();
      return c;
    })();
    return client;
  };
  async function restartLocal(): Promise<void> {
    const old = client;
    client = undefined;
    if (old !== undefined) await (await old).end().catch(() => {});
    const version = readdirSync('/etc/postgresql')[0]!;
    await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart']);
    for (let i = 0; i < 600; i++) {
      const up = await run('pg_isready', ['-h', '127.0.0.1', '-p', '5432']).then(
        () => true,
        () => false,
      );
      if (up) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('PostgreSQL did not come back after a restart');
  }
  return {
    /** One statement on the admin connection; answers its rows. */
    async exec(sql: string, params?: readonly unknown[]): Promise<Row[]> {
      return (await (await admin()).query(sql, params === undefined ? undefined : [...params])).rows;
    },
    /** `pg_terminate_backend(id)`, then waits (up to 5 s) until the session is gone. */
    async killSession(connectionId: string): Promise<void> {
      const c = await admin();
      await c.query('SELECT pg_terminate_backend($1::int)', [connectionId]);
      for (let i = 0; i < 500; i++) {
        const r = await c.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1::int', [connectionId]);
        if (r.rows.length === 0) return;
        await new Promise((res) => setTimeout(res, 10));
      }
      throw new Error(`session ${connectionId} did not end`);
    },
    /** Advisory locks in this database held by any session but the admin's own. */
    async advisoryLocksHeld(): Promise<number> {
      const r = await (await admin()).query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid <> pg_backend_pid()
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      return r.rows[0]?.n ?? 0;
    },
    /**
     * Restarts the local cluster with `pg_ctlcluster .. restart` (every session ends) and waits
     * until it accepts connections; the admin client is opened anew. Only where the database is
     * on that server.
     */
    restartServer: ON_LOCAL_SERVER ? restartLocal : undefined,
    /** Ends the admin connection. */
    async close(): Promise<void> {
      const c = client;
      client = undefined;
      if (c !== undefined) await (await c).end();
    },
  };
}

/** Session settings a target's connections start with, e.g. `{ standard_conforming_strings: 'off' }`. */
export type Settings = Readonly<Record<string, string>>;

/** The settings as a startup `options` string (`-c name=value ...`). */
const startupOptions = (settings: Settings | undefined): string | undefined =>
  settings === undefined
    ? undefined
    : Object.entries(settings)
        .map(([k, v]) => `-c ${k}=${v}`)
        .join(' ');

/** The settings in a target's name. */
const named = (base: string, settings: Settings | undefined): string =>
  settings === undefined
    ? base
    : `${base.slice(0, -1)}, ${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')})`;

/**
 * PostgreSQL through `pg`: `open()` makes a `pg.Pool` of `poolSize` (default 10); `settings`
 * start every session of the target (default none).
 */
export function pgTarget(settings?: Settings): ConformanceTarget {
  const options = startupOptions(settings);
  return {
    name: named('postgres (pg)', settings),
    childModule: resolve(here, 'child-pg.mjs'),
    tooOldVersion: TOO_OLD,
    ...adminSide(options),
    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      const pool = new pgModule.Pool({
        connectionString: URL,
        max: opts.poolSize ?? 10,
        ...(options === undefined ? {} : { options }),
      });
      pool.on('error', () => {}); // an idle client the server dropped (a killed session)
      const adapter = pg(pool, { serverVersion: opts.serverVersion });
      // broker.shutdown() calls close(), and the harness again after the scenario: once is enough.
      let closed: Promise<void> | undefined;
      return {
        ...adapter,
        close() {
          closed ??= (async () => {
            await adapter.close();
            await pool.end();
          })();
          return closed;
        },
      };
    },
  };
}

/**
 * PostgreSQL through postgres.js: `open()` makes a `postgres()` instance of `max` = `poolSize`
 * (default 10); `settings` start every session of the target (default none).
 */
export function postgresJsTarget(settings?: Settings): ConformanceTarget {
  return {
    name: named('postgres (postgres.js)', settings),
    childModule: resolve(here, 'child-postgres.mjs'),
    tooOldVersion: TOO_OLD,
    ...adminSide(startupOptions(settings)),
    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      const sql = postgres(URL, {
        max: opts.poolSize ?? 10,
        onnotice: () => {},
        ...(settings === undefined ? {} : { connection: { ...settings } }),
      });
      const adapter = postgresJs(sql, { serverVersion: opts.serverVersion });
      // broker.shutdown() calls close(), and the harness again after the scenario: once is enough.
      let closed: Promise<void> | undefined;
      return {
        ...adapter,
        close() {
          closed ??= (async () => {
            await adapter.close();
            await settle(adapter.pool);
            // After a scenario killed one of its sessions, end() waits its whole timeout (seen in 7
            // to 9 scenarios a run, 5 s each at 5): by now nothing of the scenario is running.
            await sql.end({ timeout: 1 });
          })();
          return closed;
        },
      };
    },
  };
}
