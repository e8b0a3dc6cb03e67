// Crash loop (R-OPS-8): starts N fresh worker processes (scripts/kill-loop-worker.mjs) one after
// another, per driver, and ends every session each one opens during its first `killMs`, counted
// from the first session killed (pg_terminate_backend / KILL, as fast as the database answers),
// then lets it run and counts:
//   crashed  - the worker exited by itself (a process the driver brought down),
//   stalled  - alive but settled none of 5 rows added after the kills stopped within `settleMs` (default 10 s:
//              the workers' 5 s lease plus 5 s, since a claim that committed while its answer was
//              lost to a kill holds its rows until its lease ends; a stall reports how many rows
//              were still leased),
//   ok       - alive and settling.
// It runs the built dist/ of the dialect packages (`pnpm build` first). Sessions are picked by
// database and application_name on PostgreSQL, by database on MariaDB/MySQL: it kills only the
// sessions of its own database (SQLINBOX_PG_URL, SQLINBOX_MYSQL_DATABASE), so run nothing else there.
//
//   node scripts/kill-loop.mjs [--drivers pg,postgres.js,mysql2,mariadb] [--n 100] [--kill-ms 1500] [--bare]
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { env } from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js,mysql2,mariadb' },
    n: { type: 'string', default: '100' },
    'kill-ms': { type: 'string', default: '1500' },
    'settle-ms': { type: 'string', default: '10000' },
    json: { type: 'boolean', default: false },
    // pg: no pool.on('error') in the worker (an application that forgot it).
    bare: { type: 'boolean', default: false },
  },
});
const root = fileURLToPath(new URL('..', import.meta.url));
const PG_URL = env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MY_DB = env.SQLINBOX_MYSQL_DATABASE ?? 'test';
const pgReq = createRequire(`${root}packages/dialect-postgres/package.json`);
const myReq = createRequire(`${root}packages/dialect-mysql/package.json`);
const N = Number(args.n);
const KILL_MS = Number(args['kill-ms']);
const SETTLE_MS = Number(args['settle-ms']);
/** How long a worker may take to open its first session before the kill window gives up on it. */
const START_MS = 60_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One admin session per database family: table setup, row inserts, kills. */
async function admin(driver) {
  const table = `kill_loop_${process.pid}_${driver.replace(/\W/g, '')}`;
  if (driver === 'pg' || driver === 'postgres.js') {
    const pg = pgReq('pg');
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    const db = (await c.query('SELECT current_database() AS d')).rows[0].d;
    await c.query(
      `CREATE TABLE "${table}" (id bigserial PRIMARY KEY, payload jsonb NOT NULL, attempt int NOT NULL DEFAULT 0, locked_until timestamptz(3))`,
    );
    return {
      table,
      insert: (n) =>
        c.query(`INSERT INTO "${table}" (payload) SELECT '{}'::jsonb FROM generate_series(1, $1)`, [n]),
      leased: async () =>
        (await c.query(`SELECT count(*)::int AS n FROM "${table}" WHERE locked_until > now()`)).rows[0].n,
      kill: async (app) =>
        (
          await c.query(
            'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND pid <> pg_backend_pid()',
            [db, app],
          )
        ).rows[0].n,
      drop: async () => {
        await c.query(`DROP TABLE IF EXISTS "${table}"`);
        await c.end();
      },
    };
  }
  const mysql = myReq('mysql2/promise');
  // No default database: the kills pick the workers' sessions by their database alone.
  const c = await mysql.createConnection({ host: '127.0.0.1', user: 'root', password: '' });
  const q = `\`${MY_DB}\`.\`${table}\``;
  await c.query(
    `CREATE TABLE ${q} (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload JSON NOT NULL, attempt INT NOT NULL DEFAULT 0, locked_until DATETIME(3) NULL)`,
  );
  return {
    table,
    insert: async (n) => {
      await c.query(
        `INSERT INTO ${q} (payload) VALUES ${Array.from({ length: n }, () => "('{}')").join(',')}`,
      );
    },
    leased: async () => {
      const [rows] = await c.query(`SELECT COUNT(*) AS n FROM ${q} WHERE locked_until > UTC_TIMESTAMP(3)`);
      return Number(rows[0].n);
    },
    kill: async () => {
      const [rows] = await c.query(
        'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()',
        [MY_DB],
      );
      let n = 0;
      for (const r of rows) {
        try {
          await c.query(`KILL ${Number(r.id)}`);
          n++;
        } catch {
          // already gone
        }
      }
      return n;
    },
    drop: async () => {
      await c.query(`DROP TABLE IF EXISTS ${q}`);
      await c.end();
    },
  };
}

async function runOne(driver, a, i) {
  const app = `sqlinbox_kill_loop_${process.pid}_${i}`;
  await a.insert(20);
  const child = fork(`${root}scripts/kill-loop-worker.mjs`, [], {
    env: {
      ...process.env,
      SQLINBOX_KILL_LOOP: JSON.stringify({
        driver,
        table: a.table,
        app,
        transactional: i % 2 === 1,
        bare: args.bare,
      }),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let exited;
  const exit = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    }),
  );
  let settled = 0;
  child.on('message', (m) => {
    if (m?.type === 'settled') settled = m.settled;
  });
  let kills = 0;
  // The kill window opens at the first session killed, not at the fork: on a loaded machine a
  // worker takes seconds to load its modules, and a window timed from the fork closed before the
  // worker opened a session (CI saw a run of 10 workers with no kill at all). A worker that opens
  // none within START_MS is killed by nothing and counts as it ends.
  const startBy = Date.now() + START_MS;
  while (kills === 0 && exited === undefined && Date.now() < startBy) {
    kills += await a.kill(app);
    if (kills === 0) await sleep(5);
  }
  const end = Date.now() + KILL_MS;
  while (Date.now() < end && exited === undefined) kills += await a.kill(app);
  // Fresh rows after the kills: a live worker must settle something even if it finished the
  // first 20 while the kills ran.
  await a.insert(5);
  const before = settled;
  const deadline = Date.now() + SETTLE_MS;
  while (exited === undefined && settled <= before && Date.now() < deadline) await sleep(20);
  let outcome;
  if (exited !== undefined) outcome = 'crashed';
  else if (settled <= before) outcome = 'stalled';
  else outcome = 'ok';
  const leased = outcome === 'stalled' ? await a.leased() : undefined;
  if (exited === undefined) child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exit;
  clearTimeout(timer);
  const last = stderr.trim().split('\n').filter(Boolean);
  return { outcome, kills, leased, exit: exited, error: outcome === 'crashed' ? last.join('\n') : undefined };
}

const summary = {};
for (const driver of args.drivers.split(',')) {
  const a = await admin(driver);
  const counts = { crashed: 0, stalled: 0, ok: 0, kills: 0 };
  // Per stall, the rows still leased when it was seen.
  const stalls = [];
  const errors = new Map();
  try {
    for (let i = 0; i < N; i++) {
      const r = await runOne(driver, a, i);
      counts[r.outcome]++;
      counts.kills += r.kills;
      if (r.outcome === 'stalled') stalls.push({ worker: i, leased: r.leased });
      if (r.error !== undefined) {
        const key =
          r.error.split('\n').find((l) => /Error|error/.test(l)) ?? r.error.split('\n')[0] ?? '(no stderr)';
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
      if (r.outcome !== 'ok' && !args.json)
        process.stderr.write(
          `${driver} #${i}: ${r.outcome}${r.leased === undefined ? '' : ` (${r.leased} rows leased)`}\n${r.error ?? ''}\n`,
        );
    }
  } finally {
    await a.drop();
  }
  summary[driver] = { workers: N, ...counts, crashes: Object.fromEntries(errors), stalls };
  console.log(JSON.stringify({ driver, ...summary[driver] }));
}
