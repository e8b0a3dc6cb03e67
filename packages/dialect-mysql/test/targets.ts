/**
 * The conformance targets of this package: the server test/global-setup.ts found (`SQLINBOX_MYSQL_URL`;
 * on this machine MariaDB 10.11 at 127.0.0.1:3306, root, no password, database
 * `SQLINBOX_MYSQL_DATABASE` or `test`) through `mysql2` and through the `mariadb` connector.
 *
 * - `exec` runs on an admin connection of the target's own (a one-connection pool wrapped by the
 *   same adapter, so its rows read as the adapters' do: Dates as UTC instants, JSON as text).
 * - `killSession(id)` runs `KILL <id>` and waits until the session has left the process list.
 * - `advisoryLocksHeld()` counts user locks held by sessions other than the admin. MySQL lists them
 *   in `performance_schema.metadata_locks` and MariaDB in `information_schema.METADATA_LOCK_INFO`,
 *   but only when the `metadata_lock_info` plugin is installed (it is not on the test server, and
 *   the target does not install plugins on a shared server). Without either view the target counts
 *   what it can verify: every adapter it opens (and the crash child's, through the file named in
 *   `SQLINBOX_MYSQL_LOCK_LOG`) records the keys it locks, and the count is how many of those
 *   names `IS_USED_LOCK(name)` finds held. A lock taken outside the dialect's `advisory.lock` (a
 *   table's own lock function) is not seen that way.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ConformanceTarget, OpenAdapter, OpenOptions } from '@sqlinbox/conformance';
import type { Adapter, Connection, Row } from '@sqlinbox/core';
import * as connector from 'mariadb';
import mysql from 'mysql2/promise';
import { mariadb } from '../src/mariadb.js';
import { mysql2 } from '../src/mysql2.js';
import { lockNameOf } from '../src/statements.js';
import { DB } from './helpers.js';
import { LOCK_LOG_ENV, recordLocks } from './lock-log.mjs';

export { NO_SERVER } from './helpers.js';

/** Whether the database is on the machine's own MariaDB, the one `restartMariadb` restarts. */
const ON_LOCAL_SERVER = ['127.0.0.1', 'localhost'].includes(DB.host) && DB.port === 3306;

/** A pool of the driver's own, opened for the target, with the adapter around it. */
type Opener = (size: number, serverVersion: string | undefined) => { adapter: Adapter; end(): Promise<void> };

/** Modes added to each session's `sql_mode` (e.g. `NO_BACKSLASH_ESCAPES,ANSI_QUOTES`); none by default. */
type SqlMode = string | undefined;

/** The statement that adds `mode` to a session's `sql_mode`. */
const setMode = (mode: string) => `SET SESSION sql_mode = CONCAT(@@sql_mode, ',${mode}')`;

const openMysql2 =
  (mode: SqlMode): Opener =>
  (size, serverVersion) => {
    const pool = mysql.createPool({ ...DB, connectionLimit: size });
    // Runs before any statement of the adapter: mysql2 queues a connection's commands in order.
    if (mode !== undefined) pool.pool.on('connection', (c) => void c.query(setMode(mode)));
    return { adapter: mysql2(pool, { serverVersion }), end: () => pool.end() };
  };

const openMariadb =
  (mode: SqlMode): Opener =>
  (size, serverVersion) => {
    const pool = connector.createPool({
      ...DB,
      connectionLimit: size,
      minimumIdle: 0,
      ...(mode === undefined ? {} : { initSql: setMode(mode) }),
    });
    return { adapter: mariadb(pool, { serverVersion, connectionLimit: size }), end: () => pool.end() };
  };

function target(name: string, childFile: string, openPool: Opener): ConformanceTarget {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-mysql-target-'));
  const lockLog = join(dir, 'locks.log');
  writeFileSync(lockLog, '');
  const opened = new Set<OpenAdapter>();
  let admin: { conn: Connection; release(): void; end(): Promise<void> } | undefined;
  let lockView: 'mariadb' | 'mysql' | 'none' | undefined;

  async function adminConn(): Promise<Connection> {
    if (admin === undefined) {
      const p = openPool(1, undefined);
      const conn = await p.adapter.pool.acquire();
      admin = { conn, release: () => p.adapter.pool.release(conn), end: p.end };
    }
    return admin.conn;
  }
  async function q(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return (await (await adminConn()).query<Row>(sql, params)).rows;
  }

  /** Which server view lists user locks, if any. */
  async function view(): Promise<'mariadb' | 'mysql' | 'none'> {
    if (lockView === undefined) {
      const [r] = await q(
        "SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = 'METADATA_LOCK_INFO') AS `maria`," +
          " (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'metadata_locks') AS `mysql`," +
          ' @@performance_schema AS `ps`, VERSION() AS `v`',
      );
      const isMaria = /mariadb/i.test(String(r?.v));
      lockView =
        Number(r?.maria) > 0
          ? 'mariadb'
          : !isMaria && Number(r?.mysql) > 0 && Number(r?.ps) === 1
            ? 'mysql'
            : 'none';
    }
    return lockView;
  }

  return {
    name,
    childModule: fileURLToPath(new URL(childFile, import.meta.url)),
    tooOldVersion: '10.5.1-MariaDB',

    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      // A crash child forked after this records its lock keys in the same file.
      process.env[LOCK_LOG_ENV] = lockLog;
      const p = openPool(opts.poolSize ?? 10, opts.serverVersion);
      const adapter = recordLocks(p.adapter, lockLog);
      // broker.shutdown() calls close(), and the harness again after the scenario: once is enough.
      let closed: Promise<void> | undefined;
      const tracked: OpenAdapter = {
        ...adapter,
        close: () => {
          opened.delete(tracked);
          closed ??= p.end();
          return closed;
        },
      };
      opened.add(tracked);
      return tracked;
    },

    exec: (sql, params) => q(sql, params),

    async killSession(connectionId: string): Promise<void> {
      await q('KILL ?', [Number(connectionId)]);
      for (let i = 0; i < 100; i++) {
        if (
          (await q('SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ?', [Number(connectionId)]))
            .length === 0
        )
          return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`session ${connectionId} still listed 2 s after KILL`);
    },

    async advisoryLocksHeld(): Promise<number> {
      const v = await view();
      if (v === 'mariadb') {
        const [r] = await q(
          "SELECT COUNT(*) AS `n` FROM information_schema.METADATA_LOCK_INFO WHERE LOCK_TYPE = 'User lock' AND THREAD_ID <> CONNECTION_ID()",
        );
        return Number(r?.n);
      }
      if (v === 'mysql') {
        const [r] = await q(
          "SELECT COUNT(*) AS `n` FROM performance_schema.metadata_locks m WHERE m.OBJECT_TYPE = 'USER LEVEL LOCK'" +
            ' AND m.OWNER_THREAD_ID <> (SELECT t.THREAD_ID FROM performance_schema.threads t WHERE t.PROCESSLIST_ID = CONNECTION_ID())',
        );
        return Number(r?.n);
      }
      const names = new Set<string>();
      for (const line of readFileSync(lockLog, 'utf8').split('\n')) {
        if (line === '') continue;
        const tab = line.indexOf('\t');
        names.add(lockNameOf(line.slice(0, tab) || DB.database, JSON.parse(line.slice(tab + 1)) as string));
      }
      let held = 0;
      const all = [...names];
      for (let i = 0; i < all.length; i += 200) {
        const chunk = all.slice(i, i + 200);
        const [r] = await q(
          `SELECT COUNT(*) AS \`n\` FROM (${chunk.map(() => 'SELECT IS_USED_LOCK(?) AS h').join(' UNION ALL ')}) AS x` +
            ' WHERE x.h IS NOT NULL AND x.h <> CONNECTION_ID()',
          chunk,
        );
        held += Number(r?.n);
      }
      return held;
    },

    /**
     * Stops MariaDB with `mariadb-admin shutdown` and starts it again the way the machine does,
     * then waits until it answers; the admin connection is opened anew. Only where the database is
     * on the machine's own server (127.0.0.1 or localhost, port 3306): a target on any other server
     * has no restart, so the restart scenario skips instead of restarting a server others use.
     */
    restartServer: ON_LOCAL_SERVER
      ? async (): Promise<void> => {
          const old = admin;
          admin = undefined;
          if (old !== undefined) await old.end().catch(() => {});
          await restartMariadb();
        }
      : undefined,

    async close(): Promise<void> {
      for (const a of [...opened]) await a.close();
      if (admin !== undefined) {
        admin.release();
        await admin.end();
        admin = undefined;
      }
      if (process.env[LOCK_LOG_ENV] === lockLog) delete process.env[LOCK_LOG_ENV];
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const run = promisify(execFile);

/**
 * Restarts the local MariaDB server and waits (up to 60 s) until it answers a ping. The server is
 * the one whose pid its own pid file holds: other mariadbd processes may run beside it (the Galera
 * nodes packages/clusters starts in its own lane), and neither the wait for the end nor the start
 * may take them for it (a start that did so found "a mariadbd already running" and started nothing,
 * leaving the server down for every later test).
 */
async function restartMariadb(): Promise<void> {
  const pidFile = (
    await run('mariadb', ['-h', '127.0.0.1', '-uroot', '-NBe', 'SELECT @@pid_file'])
  ).stdout.trim();
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  await run('mariadb-admin', ['-h', '127.0.0.1', '-uroot', 'shutdown']).catch(() => {});
  // Wait for the process itself to end: a server still shutting down makes the start below a no-op.
  for (let i = 0; i < 600 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  await run('start-stop-daemon', [
    ...['--start', '--oknodo', '--background'],
    ...['--pidfile', pidFile, '--exec', '/usr/sbin/mariadbd'],
  ]);
  for (let i = 0; i < 600; i++) {
    const up = await run('mariadb-admin', ['-h', '127.0.0.1', '-uroot', 'ping']).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('MariaDB did not come back after a restart');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The conformance target for MariaDB (standing in for MySQL) through `mysql2`; `sqlMode` adds
 * modes to every session's `sql_mode` (default none).
 */
export function mysql2Target(sqlMode?: string): ConformanceTarget {
  const suffix = sqlMode === undefined ? '' : `, sql_mode +${sqlMode}`;
  return target(`mysql (mysql2${suffix})`, './child-mysql2.mjs', openMysql2(sqlMode));
}

/** The conformance target for MariaDB through the `mariadb` connector; `sqlMode` as above. */
export function mariadbTarget(sqlMode?: string): ConformanceTarget {
  const suffix = sqlMode === undefined ? '' : `, sql_mode +${sqlMode}`;
  return target(`mysql (mariadb${suffix})`, './child-mariadb.mjs', openMariadb(sqlMode));
}

/**
 * Where this dialect drifts from the per-method contract today, each skipped by name in the
 * contract run (`runContract(target, { skip: CONTRACT_DRIFTS })`) until the dialect is fixed.
 * None now: the row lock form's FIFO guard, a plain locking read, used to scan the primary key and
 * wait on another group's rows another connection held; it reads its group's range of the
 * `sqlinbox_fifo` index now (`FORCE INDEX`, `headGuard()` in src/statements.ts).
 */
export const CONTRACT_DRIFTS: readonly { test: string; reason: string }[] = [];
