/**
 * `pnpm bench` (R-PLUS-6): sqlinbox against graphile-worker, pg-boss and BullMQ's PostgreSQL backend and against the raw SQL
 * loops of each claim form, on the local PostgreSQL, MariaDB and an SQLite file, in one run.
 *
 *   pnpm bench                 # quick mode (the default; also `-- --quick`): under 3 minutes
 *   pnpm bench -- --full       # BENCH.md's W1-W5, 3 repetitions, median/min/max
 *   pnpm bench -- --only 'drain-pg-sqlinbox'   # the cases whose id matches (no docs written)
 *   pnpm bench -- --scale 0.1  # shrink every backlog (a dry run of --full)
 *   pnpm bench -- --reps 1     # repetitions (default: 1 quick, 3 full)
 *   pnpm bench -- --report bench/results/latest.json   # rewrite the docs from a results file
 *   pnpm bench -- --report bench/results/latest.json --overlay bench/results/later.json
 *                              # ... with the cases of a later run in place of the same cases (the page lists them)
 *   pnpm bench -- --out /tmp/r.json --no-docs          # keep the committed results and docs as they are
 *   pnpm bench -- --out /tmp/r.json --docs /tmp/docs   # the table and chart into /tmp/docs instead of docs/
 *   pnpm bench -- --node 24    # the Node every case runs on (default 24; `current`: the one running pnpm)
 *   pnpm bench -- --node-flags=--max-semi-space-size=8    # Node options for every case's process, every system alike
 *   pnpm bench -- --full --only '^sustained-[ad]-pg-(sqlinbox-lease-sql|graphile|pgboss)'   # W6, a part of it
 *   pnpm bench -- --full --w6-seconds 300 --w6-rates 'pg-sqlinbox-lease-sql=9000,pg-graphile-tuned=3000'
 *                              # W6's case length, and fixed rates instead of the search for (a), (b), (d), (e)
 *   pnpm bench -- --full --w6-target 1000000   # W6 (c): the backlog the overload stops at
 *   pnpm bench -- --full --w6-stock-table      # W6 on PostgreSQL tables without ddl()'s storage parameters
 *
 * Every system runs on one Node: unless `--node current`, this script starts itself again on Node
 * `--node` (scripts/node.sh installs it from the npm registry into ~/.cache on first use), and the
 * children it forks inherit that binary. better-sqlite3 13 loads a Node-API prebuild, so the install
 * made under Node 22 serves Node 24 as it is.
 *
 * Writes bench/results/latest.json (every figure), docs/benchmarks.md and
 * docs/benchmarks/throughput.svg. Each timed case runs in a child process of its own.
 */
import { execFileSync, fork, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { RUN } from './config.mjs';
import { plan } from './plan.mjs';
import { writeReport } from './report.mjs';
import { loadBullmq } from './run-peers.mjs';
import { after, before, cleanup, cleanupAll, myq, pgq, prepare } from './setup.mjs';
import { runSustained, line as sustainedLine } from './sustained.mjs';
import { machine } from './sys.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
// `pnpm bench -- --full` hands the script a literal `--` first: options follow it.
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
const { values } = parseArgs({
  args: argv,
  options: {
    quick: { type: 'boolean', default: false },
    full: { type: 'boolean', default: false },
    scale: { type: 'string', default: '1' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
    report: { type: 'string' },
    overlay: { type: 'string', multiple: true },
    reps: { type: 'string' },
    'no-docs': { type: 'boolean', default: false },
    docs: { type: 'string' },
    node: { type: 'string', default: '24' },
    'node-flags': { type: 'string' },
    'w6-seconds': { type: 'string' },
    'w6-window': { type: 'string' },
    'w6-rates': { type: 'string' },
    'w6-target': { type: 'string' },
    'w6-stock-table': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
/**
 * Starts this script again on Node `--node` (a major) unless it already runs there, and exits with
 * its status. `--report` runs nothing, so it stays where it is.
 */
function onWantedNode() {
  const want = values.node;
  if (want === 'current' || values.report || process.versions.node.split('.')[0] === want) return;
  if (!/^\d+$/.test(want)) throw new Error(`--node ${want}: a major version (24) or 'current'`);
  const bin = execFileSync('bash', [join(root, 'scripts', 'node.sh'), want], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .toString()
    .trim();
  process.stdout.write(
    `sqlinbox bench: on Node ${want} (${join(bin, 'node')}), started from ${process.version}\n`,
  );
  const r = spawnSync(join(bin, 'node'), [fileURLToPath(import.meta.url), ...argv], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_LAUNCHED_FROM: process.version },
  });
  process.exit(r.status ?? 1);
}
onWantedNode();

const mode = values.full ? 'full' : 'quick';
const scale = Number(values.scale);
const planned = plan(mode, scale);
const all = planned.cases;
const repetitions = values.reps === undefined ? planned.repetitions : Number(values.reps);
const only = values.only === undefined ? undefined : new RegExp(values.only);
const selected = only ? all.filter((c) => only.test(c.id)) : all;

const log = (s) => process.stdout.write(`${s}\n`);
/** A path given on the command line, from where `pnpm bench` was typed (pnpm runs this script in bench/). */
const fromCaller = (p) => resolve(process.env.INIT_CWD ?? process.cwd(), p);
/** Where the table (benchmarks.md) and the chart (benchmarks/throughput.svg) go: docs/ unless `--docs`. */
const docsDir = values.docs === undefined ? join(root, 'docs') : fromCaller(values.docs);

/** `--node-flags`: the same Node options for every system's process. */
const nodeFlags = values['node-flags']?.trim().split(/\s+/) ?? [];

/** Runs one timed case in a child; `onMessage` sees its control messages. */
function child(spec, onMessage = () => {}) {
  const execArgv = [...nodeFlags];
  if (values['cpu-prof'] && new RegExp(values['cpu-prof']).test(spec.id)) {
    mkdirSync(join(root, 'bench', 'results', 'profiles'), { recursive: true });
    execArgv.push(
      '--cpu-prof',
      `--cpu-prof-dir=${join(root, 'bench', 'results', 'profiles')}`,
      `--cpu-prof-name=${spec.id}.cpuprofile`,
    );
  }
  const proc = fork(join(here, 'child.mjs'), [], {
    env: { ...process.env, BENCH_SPEC: JSON.stringify(spec), BENCH_RUN: RUN },
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${spec.id} timed out`));
    }, 600_000);
    proc.on('message', (m) => {
      if (m.type === 'result') {
        clearTimeout(timer);
        resolve(m.result);
      } else if (m.type === 'error') {
        clearTimeout(timer);
        reject(new Error(m.message));
      } else onMessage(m, proc);
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${spec.id} exited (${code ?? signal}) without a result`));
    });
  });
  return { proc, done };
}

const waitFor = (proc, type) =>
  new Promise((resolve, reject) => {
    proc.on('message', (m) => m.type === type && resolve(m));
    proc.on('exit', () => reject(new Error(`child exited before '${type}'`)));
  });

/** W5: a victim holds a row per worker, a rescuer waits, the victim is SIGKILLed. */
async function recovery(spec) {
  await prepare(spec);
  const victim = child({ ...spec, workload: 'victim' });
  victim.done.catch(() => {});
  await waitFor(victim.proc, 'holding');
  const rescuer = child({ ...spec, workload: 'rescue' });
  await waitFor(rescuer.proc, 'ready');
  victim.proc.kill('SIGKILL');
  const at = Date.now();
  rescuer.proc.send({ type: 'killed', at });
  const result = await rescuer.done;
  await cleanup(spec);
  return result;
}

/** The rows per claim the engine reached in its drain `id`, in its latest run (the limit loops' k). */
let engineK = () => undefined;

async function runCase(spec) {
  if (spec.workload === 'recovery') return recovery(spec);
  if (spec.k === 'engine') {
    const k = engineK(spec.engineOf);
    if (k === undefined)
      throw new Error(`${spec.engineOf} did not run before ${spec.id}: no batch size to loop at`);
    const result = await runCase({ ...spec, k });
    return { ...result, k };
  }
  await prepare(spec);
  const b = await before(spec);
  const result = await child(spec).done;
  const jobs = spec.workload === 'latency' ? result.sent : spec.jobs;
  Object.assign(result, await after(spec, b, jobs));
  await cleanup(spec);
  return result;
}

function bullmqVersion() {
  try {
    const dir = process.env.BENCH_BULLMQ_DIR;
    const req = createRequire(join(dir ?? join(root, 'bench'), 'noop.js'));
    return JSON.parse(readFileSync(req.resolve('bullmq/package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/** A bench dependency's version, read from its package.json (graphile-worker 0.18's exports do not list that file). */
function version(pkg) {
  try {
    return JSON.parse(readFileSync(join(root, 'bench', 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

async function versions() {
  const sqlite = new Database(':memory:');
  const v = {
    node: process.version,
    postgresql: (await pgq('SHOW server_version')).rows[0].server_version,
    mariadb: (await myq('SELECT VERSION() AS v'))[0].v,
    sqlite: sqlite.prepare('SELECT sqlite_version() AS v').get().v,
    sqlinbox: JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')).version,
    'graphile-worker': version('graphile-worker'),
    'pg-boss': version('pg-boss'),
    bullmq: version('bullmq'),
    pg: version('pg'),
    mysql2: version('mysql2'),
    'better-sqlite3': version('better-sqlite3'),
  };
  sqlite.close();
  try {
    v.commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  } catch {
    v.commit = null;
  }
  return v;
}

async function serverSettings() {
  const names = ['synchronous_commit', 'shared_buffers', 'autovacuum', 'max_wal_size', 'wal_level', 'fsync'];
  const { rows } = await pgq('SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)', [names]);
  const pg = Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]));
  const my = await myq(
    "SHOW VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit', 'innodb_buffer_pool_size', 'transaction_isolation', 'tx_isolation')",
  );
  return { postgresql: pg, mariadb: Object.fromEntries(my.map((r) => [r.Variable_name, r.Value])) };
}

async function main() {
  if (values.report) {
    // Regenerates docs/benchmarks.md from a results file, running nothing.
    const out = JSON.parse(readFileSync(fromCaller(values.report), 'utf8'));
    // A later run's cases in place of the same cases of the full run; the page says which and when.
    for (const file of values.overlay ?? []) {
      const later = JSON.parse(readFileSync(fromCaller(file), 'utf8'));
      const ids = new Set(later.results.map((e) => e.id));
      out.results = out.results.filter((e) => !ids.has(e.id)).concat(later.results);
      // An earlier overlay's cases that this one measures again are this one's to name.
      out.meta.overlays = (out.meta.overlays ?? [])
        .map((o) => ({ ...o, ids: o.ids.filter((id) => !ids.has(id)) }))
        .filter((o) => o.ids.length > 0);
      out.meta.overlays.push({
        file: relative(root, fromCaller(file)),
        date: later.meta.date,
        commit: later.meta.versions?.commit ?? null,
        // The runs each case took (W6 runs every case once, whatever the run's repetitions).
        repetitions: Math.max(1, ...later.results.map((e) => e.runs?.length ?? 1)),
        ids: [...ids],
      });
    }
    for (const v of writeReport(out, docsDir))
      log(`${v.pass === null ? 'n/a ' : v.pass ? 'PASS' : 'FAIL'}  ${v.claim}: ${v.detail}`);
    return;
  }
  const started = new Date();
  const t0 = Date.now();
  const bullmq = await loadBullmq();
  const bullmqMissing =
    'not run: the bullmq package cannot be loaded here (a bench dependency: run `pnpm install`)';
  const cases = bullmq ? selected : selected.filter((c) => c.kind !== 'bullmq');
  const meta = {
    mode,
    scale,
    repetitions,
    date: started.toISOString(),
    machine: machine(),
    versions: await versions(),
    settings: await serverSettings(),
    // Every case runs on this Node (the children are forked with its binary).
    node: {
      version: process.version,
      launchedFrom: process.env.BENCH_LAUNCHED_FROM ?? process.version,
      ...(nodeFlags.length > 0 ? { flags: nodeFlags.join(' ') } : {}),
    },
    bullmq: bullmq
      ? `run: bullmq ${bullmqVersion()}${process.env.BENCH_BULLMQ_DIR ? ', loaded from BENCH_BULLMQ_DIR (installed outside the workspace with npm)' : ''}`
      : bullmqMissing,
  };
  log(
    `sqlinbox bench, ${mode} mode: ${cases.length} cases x ${repetitions}, on ${meta.machine.nproc} cores (${meta.machine.cpuModel}), Node ${process.version}`,
  );
  // Repetition-major: every case's first run, then every case's second, and so on, so a slow
  // stretch of the machine (a checkpoint, a busy disk, another process) falls on every system
  // alike rather than on one system's three runs, and the ratios compare neighbours in time.
  const entries = cases.map((spec) => ({ ...spec, runs: [] }));
  engineK = (id) => {
    const run = entries.find((e) => e.id === id)?.runs.at(-1);
    return run?.rowsPerClaim ? Math.max(1, Math.round(run.rowsPerClaim)) : undefined;
  };
  // W6 runs once, after the rounds, on servers of its own (sustained.mjs).
  const sustained = entries.filter((e) => e.workload === 'sustained');
  let failed = 0;
  const file = values.out
    ? fromCaller(values.out)
    : join(root, 'bench', 'results', only ? 'partial.json' : 'latest.json');
  mkdirSync(dirname(file), { recursive: true });
  // Written after every case run, so a run that dies (its database restarted under it, a crash)
  // keeps every run it finished.
  const save = () => {
    const results = entries.filter((e) => e.runs.length > 0);
    const out = { meta: { ...meta, seconds: Math.round((Date.now() - t0) / 1000) }, results };
    writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
    return out;
  };
  for (let r = 0; r < repetitions; r++) {
    if (repetitions > 1) log(`round ${r + 1} of ${repetitions}`);
    for (const entry of entries) {
      if (entry.workload === 'sustained') continue;
      const { runs, ...spec } = entry;
      // A case whose child could not load a workspace package (a rebuild beside the run removes
      // dist/ for a moment) is tried again after a pause, twice at most.
      for (let attempt = 1; ; attempt++) {
        try {
          runs.push(await runCase(spec));
          break;
        } catch (err) {
          await cleanup(spec).catch(() => {});
          const message = String(err.message ?? err);
          if (attempt < 3 && /ERR_MODULE_NOT_FOUND|without a result/.test(message)) {
            log(`  ${spec.id}: ${message.split('\n')[0].slice(0, 120)}; trying again`);
            await new Promise((resolve) => setTimeout(resolve, 5000));
            continue;
          }
          failed++;
          runs.push({ error: message.split('\n').slice(0, 3).join(' ') });
          break;
        }
      }
      save();
      log(summary(entry, entries));
    }
  }
  if (sustained.length > 0) {
    log(`W6, sustained load: ${sustained.length} cases`);
    const num = (k) => (values[k] === undefined ? undefined : Number(values[k]));
    const rates = Object.fromEntries(
      (values['w6-rates'] ?? '')
        .split(',')
        .filter(Boolean)
        .map((kv) => {
          const [k, v] = kv.split('=');
          return [k.trim(), Number(v)];
        }),
    );
    failed += await runSustained(
      sustained,
      {
        mode,
        seconds: num('w6-seconds'),
        window: num('w6-window'),
        overloadTarget: num('w6-target'),
        stockTable: values['w6-stock-table'],
        commit: meta.versions.commit,
        rates,
      },
      log,
      save,
    );
  }
  const out = save();
  log(`wrote ${file}`);
  // What the run made is dropped; a failure here (a server gone meanwhile) costs no result.
  await cleanupAll().catch((err) => log(`cleanup failed: ${String(err.message ?? err).split('\n')[0]}`));
  if (!only && !values['no-docs']) {
    const verdicts = writeReport(out, docsDir);
    for (const v of verdicts)
      log(`${v.pass === null ? 'n/a ' : v.pass ? 'PASS' : 'FAIL'}  ${v.claim}: ${v.detail}`);
  }
  log(`done in ${out.meta.seconds} s${failed ? `, ${failed} case runs failed` : ''}`);
  if (failed) process.exitCode = 1;
}

/** The plain drain a fan-in or fail-once case is read against: the same system's at the same workers, in this run. */
export function plainOf(e) {
  if (e.kind === 'bullmq') return `drain-${e.db}-bullmq-${e.variant}-w${e.workers}`;
  return `drain-${e.db}-${e.kind}-${e.form}-w${e.workers}`;
}

function summary(e, entries = []) {
  const ok = e.runs.filter((r) => !r.error);
  if (ok.length === 0) return `  ${e.id}: FAILED ${e.runs[0].error}`;
  const r = ok[0];
  if (e.workload === 'sustained') return `  ${e.id}: ${sustainedLine(r)}`;
  if (e.workload === 'latency')
    return `  ${e.id}: p50 ${r.p50} ms, p99 ${r.p99} ms (${r.received}/${r.sent})${r.stealPct ? `, steal ${r.stealPct}%` : ''}`;
  if (e.workload === 'recovery') return `  ${e.id}: redelivered after ${r.redeliveredMs} ms`;
  if (e.workload === 'enqueue') return `  ${e.id}: ${Math.round(r.jobsPerSec)} jobs/s`;
  const rates = ok.map((x) => Math.round(x.jobsPerSec)).join(' / ');
  const extra =
    (r.rowsPerClaim ? `, ${r.rowsPerClaim.toFixed(1)} rows/claim` : '') +
    (r.rowsPerSettle ? `, ${r.rowsPerSettle.toFixed(1)} rows/settle` : '');
  if (e.flow === 'failonce') {
    const plain = entries.find((x) => x.id === plainOf(e))?.runs.find((x) => !x.error);
    const beside = plain
      ? `, ${(r.jobsPerSec / plain.jobsPerSec).toFixed(2)}x the plain drain's ${Math.round(plain.jobsPerSec)} jobs/s`
      : '';
    return `  ${e.id}: ${rates} jobs/s (every row failed once, ${r.failures} failures recorded, then acked)${beside}${r.left ? `, LEFT ${r.left}` : ''}${r.duplicates ? `, DUPLICATES ${r.duplicates}` : ''}`;
  }
  if (e.flow === 'fanin') {
    const plain = entries.find((x) => x.id === plainOf(e))?.runs.find((x) => !x.error);
    const beside = plain
      ? `, ${(r.jobsPerSec / plain.jobsPerSec).toFixed(2)}x the plain drain's ${Math.round(plain.jobsPerSec)} jobs/s`
      : '';
    return `  ${e.id}: ${rates} jobs/s (1 parent, ${e.jobs - 1} children; the parent read ${r.childrenRead})${beside}${r.left ? `, LEFT ${r.left}` : ''}${r.duplicates ? `, DUPLICATES ${r.duplicates}` : ''}`;
  }
  return `  ${e.id}: ${rates} jobs/s, start-up ${Math.round(r.startupMs)} ms, RSS ${r.peakRssMB} MB${extra}${ok.some((x) => x.stealPct) ? `, steal ${ok.map((x) => x.stealPct ?? '–').join(' / ')}%` : ''}${r.left ? `, LEFT ${r.left}` : ''}${r.duplicates ? `, DUPLICATES ${r.duplicates}` : ''}`;
}

process.on('SIGINT', () => {
  cleanupAll().finally(() => process.exit(130));
});

main().catch(async (err) => {
  console.error(err);
  await cleanupAll().catch(() => {});
  process.exit(1);
});
