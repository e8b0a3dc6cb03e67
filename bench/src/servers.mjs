/**
 * W6's database servers: a PostgreSQL cluster and a MariaDB server of the benchmark's own, each
 * made fresh in a temporary directory with the server's stock settings (autovacuum on; nothing in
 * postgresql.conf or my.cnf changed), listening on 127.0.0.1 on a free port, and stopped and
 * removed after. The shared servers of the machine are left alone: their settings (autovacuum off
 * on this machine's PostgreSQL) are not what a user runs.
 *
 *   BENCH_PG_BIN      PostgreSQL's bin directory (default /usr/lib/postgresql/15/bin)
 *   BENCH_TMPDIR      where the data directories go (default the OS's temporary directory)
 *   BENCH_PG_OPTIONS  settings for a diagnosis, as `-c name=value` words (default none: stock), e.g.
 *                     `-c shared_preload_libraries=auto_explain -c auto_explain.log_min_duration=200`
 *   BENCH_MY_OPTIONS  MariaDB settings for a diagnosis, as `--name=value` words (default none), e.g.
 *                     `--slow-query-log --long-query-time=0.2 --log-slow-verbosity=query_plan,explain`
 *   BENCH_SERVER_LOGS a directory the servers' logs are copied into when they stop (default none)
 *
 * Running as root, the servers run as the system users `postgres` and `mysql` (neither server
 * starts as root); otherwise as the user running the benchmark.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pgLib from 'pg';

const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const isRoot = () => process.getuid?.() === 0;

/** A TCP port nobody listens on now, on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The uid and gid of a system user, from /etc/passwd (`id` would do as well). */
function userIds(name) {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no system user '${name}': W6 runs its servers as that user when run as root`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Gives `dir` and everything under it to `ids` (the server's own user). */
function chownTree(dir, ids) {
  chownSync(dir, ids.uid, ids.gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chownTree(p, ids);
    else chownSync(p, ids.uid, ids.gid);
  }
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

async function waitUntil(what, probe, logFile, ms = 60_000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      await probe();
      return;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  let log = '';
  try {
    log = readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
  } catch {}
  throw new Error(`${what} did not come up: ${String(last?.message ?? last)}\n${log}`);
}

/** Copies a server's log into BENCH_SERVER_LOGS, where set, before its directory goes. */
function keepLog(file, name) {
  const to = process.env.BENCH_SERVER_LOGS;
  if (!to) return;
  try {
    mkdirSync(to, { recursive: true });
    copyFileSync(file, join(to, `${name}-${new Date().toISOString().replaceAll(':', '')}.log`));
  } catch {}
}

/** Waits for a child process to exit, SIGKILLing it after `ms`. */
function stopProcess(proc, signal, ms = 60_000) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), ms);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill(signal);
  });
}

/**
 * A fresh PostgreSQL cluster (`initdb`, trust authentication, the stock postgresql.conf), started
 * on a free port. Answers its URL (database `postgres`), the postmaster's pid and `stop()`, which
 * shuts it down (fast) and removes its directory.
 */
export async function startPostgres() {
  const initdb = join(PG_BIN, 'initdb');
  if (!existsSync(initdb))
    throw new Error(`no PostgreSQL at ${PG_BIN} (set BENCH_PG_BIN to a PostgreSQL bin directory)`);
  const dir = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'sqlinbox-bench-pg-'));
  return cleanedUpOnFailure(dir, (started) => postgresIn(dir, started));
}

/**
 * Runs `start(started)` and, where it throws, stops the process it reported through `started`
 * and removes `dir`, so a server that did not come up leaves nothing behind.
 */
async function cleanedUpOnFailure(dir, start) {
  let proc;
  try {
    return await start((p) => {
      proc = p;
    });
  } catch (err) {
    if (proc) await stopProcess(proc, 'SIGKILL', 5000);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function postgresIn(dir, started) {
  const initdb = join(PG_BIN, 'initdb');
  const data = join(dir, 'data');
  const as = isRoot() ? userIds('postgres') : undefined;
  if (as) chownTree(dir, as);
  const ids = as ? { uid: as.uid, gid: as.gid } : {};
  run(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], ids);
  const port = await freePort();
  const logFile = join(dir, 'server.log');
  const log = openSync(logFile, 'a');
  if (as) chownSync(logFile, as.uid, as.gid);
  const proc = spawn(
    join(PG_BIN, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      ...(process.env.BENCH_PG_OPTIONS?.trim().split(/\s+/) ?? []),
    ],
    { ...ids, stdio: ['ignore', log, log] },
  );
  started(proc);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitUntil(
    'PostgreSQL',
    async () => {
      if (proc.exitCode !== null) throw new Error(`postgres exited (${proc.exitCode})`);
      const c = new pgLib.Client({ connectionString: url });
      await c.connect();
      await c.end();
    },
    logFile,
  );
  return {
    url,
    pid: proc.pid,
    dir,
    version: readFileSync(join(data, 'PG_VERSION'), 'utf8').trim(),
    async stop() {
      await stopProcess(proc, 'SIGINT'); // fast shutdown
      keepLog(logFile, 'postgresql');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh MariaDB server (`mariadb-install-db`, then `mariadbd --no-defaults`: no my.cnf read, so
 * every setting is the server's own default), on a free port and a socket of its own, with a
 * database `bench`. Answers its URL, the server's pid and `stop()`.
 */
export async function startMariadb() {
  const dir = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'sqlinbox-bench-my-'));
  return cleanedUpOnFailure(dir, (started) => mariadbIn(dir, started));
}

async function mariadbIn(dir, started) {
  const data = join(dir, 'data');
  const user = isRoot() ? 'mysql' : userInfo().username;
  if (isRoot()) chownTree(dir, userIds('mysql'));
  run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${data}`,
    `--user=${user}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
    '--skip-name-resolve',
  ]);
  const port = await freePort();
  const logFile = join(dir, 'server.log');
  const proc = spawn(
    'mariadbd',
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--user=${user}`,
      `--port=${port}`,
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${logFile}`,
      '--bind-address=127.0.0.1',
      '--skip-name-resolve',
      ...(process.env.BENCH_MY_OPTIONS?.trim().split(/\s+/) ?? []),
    ],
    { stdio: 'ignore' },
  );
  started(proc);
  const root = `mysql://root@127.0.0.1:${port}`;
  await waitUntil(
    'MariaDB',
    async () => {
      if (proc.exitCode !== null) throw new Error(`mariadbd exited (${proc.exitCode})`);
      const c = await mysql.createConnection({ uri: root });
      await c.query('CREATE DATABASE IF NOT EXISTS bench');
      await c.end();
    },
    logFile,
  );
  const c = await mysql.createConnection({ uri: root });
  const [[v]] = await c.query('SELECT VERSION() AS v');
  await c.end();
  return {
    url: `${root}/bench`,
    pid: proc.pid,
    dir,
    version: v.v,
    async stop() {
      await stopProcess(proc, 'SIGTERM');
      keepLog(logFile, 'mariadb');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * CPU milliseconds used so far by the server whose main process is `pid`: its own user and system
 * time with that of the children it has reaped (/proc/<pid>/stat utime, stime, cutime, cstime),
 * and the time of its children still running (PostgreSQL's backends, autovacuum's workers). A
 * MariaDB server is one process: its threads are in its own time. In clock ticks of 10 ms.
 */
export function serverTreeCpuMs(pid) {
  const fields = (p) => {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    // The fields after the parenthesised command: state is [0], ppid [1], utime [11], stime [12],
    // cutime [13], cstime [14].
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  let ticks = 0;
  try {
    const f = fields(pid);
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  } catch {
    return 0;
  }
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const f = fields(p);
      if (Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
    } catch {}
  }
  return ticks * 10;
}
