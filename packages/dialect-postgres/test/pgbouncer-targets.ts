import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { adminSide, settle } from './targets.js';

/**
 * The conformance targets through PgBouncer in transaction pooling mode (the one
 * test/global-setup.ts found or started, `SQLINBOX_PGBOUNCER_URL`): each adapter's pool connects
 * through the pooler with `pooler: 'transaction'`; admin statements, advisory lock counts and
 * restarts go to the server directly (`SQLINBOX_PG_URL`), as in ./targets.ts.
 *
 * Killing a session: behind the pooler a connection's id is the pooler's key for one client
 * connection, and no server session belongs to it between transactions. `killSession` therefore
 * cuts that client connection (its socket, as a failed network would) and waits until PgBouncer
 * has let it go, and has closed the server session it was linked to mid-transaction, if any
 * (PgBouncer closes a server session its client left inside a transaction: its locks and its
 * transaction end with it). The PgBouncer admin console (`SHOW CLIENTS`, `SHOW SERVERS`) says both.
 */

/** Why there is no PgBouncer (the global setup found none), or `undefined`; the file's tests then skip. */
export const NO_BOUNCER = skipWithoutServer('SQLINBOX_PGBOUNCER_SKIP');

/** The database through the pooler. */
export const BOUNCER_URL = process.env.SQLINBOX_PGBOUNCER_URL ?? 'postgres://postgres@127.0.0.1:6432/test';
const bouncer = new URL(BOUNCER_URL);
const here = dirname(fileURLToPath(import.meta.url));

/** A statement on PgBouncer's admin console (database `pgbouncer`), on a client of its own. */
export async function consoleQuery(sql: string): Promise<Row[]> {
  const u = new URL(BOUNCER_URL);
  u.pathname = '/pgbouncer';
  const c = new pgModule.Client({ connectionString: u.href });
  c.on('error', () => {});
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Cuts one client connection to PgBouncer: destroys its socket, then waits until PgBouncer no
 * longer lists the client, and until each server session it was linked to is unlinked, or closed
 * and gone from the server (`exec` runs on the server directly).
 */
async function cut(socket: Socket, exec: (sql: string, params?: readonly unknown[]) => Promise<Row[]>) {
  const port = socket.localPort;
  const me = (await consoleQuery('SHOW CLIENTS')).find((r) => Number(r.port) === port);
  const linked = me?.link ? (await consoleQuery('SHOW SERVERS')).filter((r) => r.ptr === me.link) : [];
  socket.destroy();
  if (me === undefined) return;
  await until(
    async () => !(await consoleQuery('SHOW CLIENTS')).some((r) => Number(r.port) === port),
    `PgBouncer to let client port ${port} go`,
  );
  for (const server of linked) {
    const pid = Number(server.remote_pid);
    await until(async () => {
      const now = (await consoleQuery('SHOW SERVERS')).find((r) => r.ptr === server.ptr);
      if (now !== undefined && Number(now.remote_pid) === pid) return now.link !== me.ptr;
      // Closed by PgBouncer: wait until the server has ended the session (its locks with it).
      return (await exec('SELECT 1 FROM pg_stat_activity WHERE pid = $1::int', [pid])).length === 0;
    }, `the server session ${pid} of client port ${port} to end`);
  }
}

/**
 * Calls `found` with the pid of the BackendKeyData the server (here: PgBouncer) sends on this
 * socket during the startup: the key postgres.js gives each query result as `state.pid`, which
 * the adapter takes as the connection's id. Reads the startup messages only.
 */
function learnKey(socket: Socket, found: (pid: number) => void): void {
  let buf = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 5) {
      const length = buf.readInt32BE(1);
      if (buf.length < 1 + length) return;
      const type = String.fromCharCode(buf[0]!);
      if (type === 'K') found(buf.readUInt32BE(5));
      if (type === 'K' || type === 'Z' || type === 'E') {
        socket.off('data', onData);
        return;
      }
      buf = buf.subarray(1 + length);
    }
  };
  socket.on('data', onData);
}

/** The direct admin side, with `killSession` cutting the client connection the id names. */
function side(
  sockets: Map<string, Socket>,
): Pick<ConformanceTarget, 'exec' | 'killSession' | 'advisoryLocksHeld' | 'restartServer' | 'close'> {
  const admin = adminSide();
  return {
    ...admin,
    async killSession(connectionId: string): Promise<void> {
      const socket = sockets.get(connectionId);
      if (socket === undefined) throw new Error(`no client connection ${connectionId} of this target`);
      sockets.delete(connectionId);
      await cut(socket, admin.exec);
    },
  };
}

/** PostgreSQL through PgBouncer (transaction pooling) and `pg`, with `pooler: 'transaction'`. */
export function pgBouncerPgTarget(): ConformanceTarget {
  const sockets = new Map<string, Socket>();
  return {
    name: 'R-RUN-4 postgres (pg) through PgBouncer in transaction pooling mode',
    childModule: resolve(here, 'child-pg-pgbouncer.mjs'),
    tooOldVersion: '10.5',
    ...side(sockets),
    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      const pool = new pgModule.Pool({ connectionString: BOUNCER_URL, max: opts.poolSize ?? 10 });
      pool.on('error', () => {}); // an idle client whose connection was cut
      pool.on('connect', (client) => {
        // pg keeps the key's pid as processID and the socket as connection.stream (neither typed).
        const c = client as unknown as { processID: number; connection: { stream: Socket } };
        sockets.set(String(c.processID), c.connection.stream);
      });
      const adapter = pg(pool, { serverVersion: opts.serverVersion, pooler: 'transaction' });
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

/** PostgreSQL through PgBouncer (transaction pooling) and postgres.js (`prepare: false`), with `pooler: 'transaction'`. */
export function pgBouncerPostgresJsTarget(): ConformanceTarget {
  const sockets = new Map<string, Socket>();
  return {
    name: 'R-RUN-4 postgres (postgres.js) through PgBouncer in transaction pooling mode',
    childModule: resolve(here, 'child-postgres-pgbouncer.mjs'),
    tooOldVersion: '10.5',
    ...side(sockets),
    async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
      // Sockets of the target's own (postgres.js's `socket` option, untyped in its declarations),
      // so killSession can cut the one an id names.
      const socket = async () => {
        const s = connect({ host: bouncer.hostname, port: Number(bouncer.port) });
        await once(s, 'connect');
        learnKey(s, (pid) => sockets.set(String(pid), s));
        return s;
      };
      const sql = postgres(BOUNCER_URL, {
        max: opts.poolSize ?? 10,
        prepare: false,
        onnotice: () => {},
        ...({ socket } as object),
      });
      const adapter = postgresJs(sql, { serverVersion: opts.serverVersion, pooler: 'transaction' });
      let closed: Promise<void> | undefined;
      return {
        ...adapter,
        close() {
          closed ??= (async () => {
            await adapter.close();
            await settle(adapter.pool);
            await sql.end({ timeout: 5 });
          })();
          return closed;
        },
      };
    },
  };
}
