/**
 * The conformance target for SQL Server through tedious: what `runConformance` needs to put a real
 * SQL Server through the shared suite (see `conformance.mssql.ts`). It connects to the server named
 * by `SQLINBOX_MSSQL_URL`, e.g.
 *
 *   SQLINBOX_MSSQL_URL='mssql://sa:Secret_123@127.0.0.1:1433/test?trustServerCertificate=true'
 *
 * - `exec` runs on an admin connection of the target's own (a one-connection pool of the same
 *   adapter, so rows read as the adapters' do: DATETIME2 as UTC Dates, BIGINT as decimal text).
 * - `killSession(id)` runs `KILL <spid>` and waits until the session has left
 *   `sys.dm_exec_sessions`. `KILL` takes no variable, so the number is cast from an int parameter
 *   and run as dynamic SQL: no value is spliced into SQL text. The admin login needs ALTER ANY
 *   CONNECTION (sysadmin and processadmin have it).
 * - `advisoryLocksHeld()` counts the session-owned application locks (`sp_getapplock`,
 *   `@LockOwner = 'Session'`) of other sessions in this database from `sys.dm_tran_locks`
 *   (`resource_type = 'APPLICATION'`; the FIFO guards are transaction-owned and not counted). The
 *   admin login needs VIEW SERVER STATE (SQL Server 2022: VIEW SERVER PERFORMANCE STATE).
 * - `tooOldVersion` is SQL Server 2016 SP2's `13.0.5026.0`, below the 14.0 floor.
 * - The crash scenarios' child opens the adapter from `child-adapter.mjs`, with the connection
 *   settings this target hands it in `SQLINBOX_MSSQL_CONFIG`.
 */
import { fileURLToPath } from 'node:url';
import type { ConformanceTarget, OpenAdapter, OpenOptions } from '@sqlinbox/conformance';
import type { Connection, Row } from '@sqlinbox/core';
import type { ConnectionConfiguration } from 'tedious';
import { type MssqlAdapter, mssql } from '../src/tedious.js';

/** The environment variable naming the server: `mssql://user:password@host[:port]/database[?options]`. */
export const MSSQL_URL_ENV = 'SQLINBOX_MSSQL_URL';
/** The environment variable that hands the connection settings to the crash scenarios' child. */
export const MSSQL_CONFIG_ENV = 'SQLINBOX_MSSQL_CONFIG';

/** Ends a session by its `@@SPID` (`@p1`, an int). */
export const KILL_SESSION_SQL =
  "DECLARE @sqlinbox_kill NVARCHAR(64) = N'KILL ' + CAST(CAST(@p1 AS INT) AS NVARCHAR(11)); EXEC (@sqlinbox_kill)";
/** Whether a session (`@p1`) still exists. */
export const SESSION_EXISTS_SQL = 'SELECT session_id FROM sys.dm_exec_sessions WHERE session_id = @p1';
/** Session-owned application locks of other sessions in this database. */
export const ADVISORY_LOCKS_HELD_SQL =
  'SELECT COUNT(*) AS [n] FROM sys.dm_tran_locks' +
  " WHERE resource_type = 'APPLICATION' AND request_owner_type = 'SESSION'" +
  ' AND resource_database_id = DB_ID() AND request_session_id <> @@SPID';

/**
 * A tedious config from a URL: `mssql://user:password@host[:port]/database`, with query options
 * `encrypt` and `trustServerCertificate` (`true`/`false`) and `instanceName`. User and password
 * are percent-decoded.
 */
export function configFromUrl(url: string): ConnectionConfiguration {
  const u = new URL(url);
  if (u.protocol !== 'mssql:' && u.protocol !== 'sqlserver:') {
    throw new Error(`${MSSQL_URL_ENV} must start with mssql://, got ${u.protocol}//`);
  }
  const flag = (name: string): boolean | undefined => {
    const v = u.searchParams.get(name);
    return v === null ? undefined : v === 'true' || v === '1';
  };
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  const instanceName = u.searchParams.get('instanceName') ?? undefined;
  const encrypt = flag('encrypt');
  const trustServerCertificate = flag('trustServerCertificate');
  return {
    server: u.hostname,
    authentication: {
      type: 'default',
      options: { userName: decodeURIComponent(u.username), password: decodeURIComponent(u.password) },
    },
    options: {
      ...(u.port !== '' ? { port: Number(u.port) } : instanceName === undefined ? { port: 1433 } : {}),
      ...(instanceName === undefined ? {} : { instanceName }),
      ...(database === '' ? {} : { database }),
      ...(encrypt === undefined ? {} : { encrypt }),
      ...(trustServerCertificate === undefined ? {} : { trustServerCertificate }),
    },
  };
}

/** The config named by `SQLINBOX_MSSQL_URL`; a clear error when it is not set. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionConfiguration {
  const url = env[MSSQL_URL_ENV];
  if (url === undefined || url === '') {
    throw new Error(
      `set ${MSSQL_URL_ENV} to a reachable SQL Server 2017+, e.g. mssql://sa:Secret_123@127.0.0.1:1433/test?trustServerCertificate=true`,
    );
  }
  return configFromUrl(url);
}

/** The conformance target for SQL Server through tedious. Nothing connects until it is used. */
export function mssqlTarget(config?: ConnectionConfiguration): ConformanceTarget {
  const opened = new Set<OpenAdapter>();
  let resolved: ConnectionConfiguration | undefined = config;
  let admin: { adapter: MssqlAdapter; conn: Connection } | undefined;

  const settings = (): ConnectionConfiguration => {
    resolved ??= configFromEnv();
    return resolved;
  };

  async function q(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    if (admin === undefined) {
      const adapter = mssql(settings(), { poolSize: 1 });
      admin = { adapter, conn: await adapter.pool.acquire() };
    }
    return (await admin.conn.query<Row>(sql, params)).rows;
  }

  return {
    name: 'mssql (tedious)',
    childModule: fileURLToPath(new URL('./child-adapter.mjs', import.meta.url)),
    tooOldVersion: '13.0.5026.0',

    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      // A crash child forked after this opens the same server.
      process.env[MSSQL_CONFIG_ENV] = JSON.stringify(settings());
      const adapter = mssql(settings(), {
        poolSize: opts.poolSize ?? 10,
        ...(opts.serverVersion === undefined ? {} : { serverVersion: opts.serverVersion }),
      });
      const tracked: OpenAdapter = {
        ...adapter,
        close: async () => {
          opened.delete(tracked);
          await adapter.close();
        },
      };
      opened.add(tracked);
      return tracked;
    },

    exec: (sql, params) => q(sql, params),

    async killSession(connectionId: string): Promise<void> {
      const spid = Number(connectionId);
      await q(KILL_SESSION_SQL, [spid]);
      for (let i = 0; i < 100; i++) {
        if ((await q(SESSION_EXISTS_SQL, [spid])).length === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`session ${connectionId} still listed 2 s after KILL`);
    },

    async advisoryLocksHeld(): Promise<number> {
      const [row] = await q(ADVISORY_LOCKS_HELD_SQL);
      return Number(row?.n ?? 0);
    },

    async close(): Promise<void> {
      for (const a of [...opened]) await a.close();
      if (admin !== undefined) {
        admin.adapter.pool.release(admin.conn);
        await admin.adapter.close();
        admin = undefined;
      }
    },
  };
}
