/**
 * docs/benchmarks.md and docs/benchmarks/throughput.svg from one run's results: the machine and
 * versions, the ratios the issue asks for with pass/fail, and every table. No charting dependency:
 * the SVG is written by hand.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : s[Math.floor((s.length - 1) / 2)];
};

/** One case's runs folded: jobs/s median/min/max, the other figures from the median run. */
export function fold(entry) {
  const ok = entry.runs.filter((r) => !r.error);
  if (ok.length === 0) return { ...entry, failed: entry.runs[0]?.error ?? 'no run' };
  const key =
    entry.workload === 'latency' ? 'p50' : entry.workload === 'recovery' ? 'redeliveredMs' : 'jobsPerSec';
  const values = ok.map((r) => r[key]);
  const med = median(values);
  const run = ok.find((r) => r[key] === med) ?? ok[0];
  return {
    ...entry,
    ...run,
    median: med,
    min: Math.min(...values),
    max: Math.max(...values),
    reps: ok.length,
  };
}

const n0 = (x) =>
  x === null || x === undefined || Number.isNaN(x) ? '–' : Math.round(x).toLocaleString('en-US');
const n1 = (x) => (x === null || x === undefined ? '–' : (Math.round(x * 10) / 10).toString());
const n2 = (x) => (x === null || x === undefined ? '–' : (Math.round(x * 100) / 100).toString());
const pct = (x) => `${Math.round(x * 100)}%`;

function rate(e) {
  if (e.failed) return `failed: ${e.failed.slice(0, 80)}`;
  if (e.reps > 1) return `**${n0(e.median)}** (${n0(e.min)}–${n0(e.max)})`;
  return `**${n0(e.median)}**`;
}

const FORM = { rowlock: 'row lock', lease: 'lease', advisory: 'advisory' };

function systemOf(e) {
  if (e.kind === 'sqlinbox') {
    let s = `sqlinbox ${FORM[e.form]}`;
    if (e.claimBatch) s += `, claimBatch(${e.claimBatch})`;
    if (e.prefetch) s += `, prefetch(${e.prefetch})`;
    if (e.experiment) s += ` — what-if: ${e.experiment.replace('+', ' + ')}`;
    return s;
  }
  if (e.kind === 'raw')
    return `raw ${FORM[e.form]} loop, k=${e.k}${e.batchDelete ? ', one DELETE per claim (what-if)' : ''}`;
  if (e.kind === 'graphile') return `graphile-worker ${e.variant}`;
  if (e.kind === 'bullmq') return "BullMQ's PostgreSQL backend, defaults";
  if (e.kind === 'pgboss')
    return `pg-boss ${e.variant.startsWith('work') ? `work() batchSize ${e.batch}` : `fetch/complete batchSize ${e.batch}`}`;
  return e.kind;
}

function drainTable(entries, db) {
  const head =
    db === 'pg'
      ? '| system | workers | jobs | jobs/s | start-up ms | drain ms | rows/claim | Node CPU ms | server CPU ms | Node peak RSS MB | WAL B/job | dead tuples after | table MB after |'
      : db === 'mysql'
        ? '| system | workers | jobs | jobs/s | start-up ms | drain ms | rows/claim | Node CPU ms | server CPU ms | Node peak RSS MB | redo B/job | table MB after |'
        : '| system | workers | jobs | jobs/s | start-up ms | drain ms | rows/claim | Node CPU ms | Node peak RSS MB | file + WAL MB after |';
  const cols = head.split('|').length - 2;
  const lines = [head, `|${' --- |'.repeat(cols)}`];
  for (const e of entries) {
    const common = [
      systemOf(e),
      e.kind === 'raw' ? `${e.db === 'sqlite' ? 1 : e.workers} clients` : e.workers,
      n0(e.jobs),
      rate(e),
      n0(e.startupMs),
      n0(e.drainMs),
      e.rowsPerClaim ? n1(e.rowsPerClaim) : '–',
      n0(e.nodeCpuMs),
    ];
    const mb = (b) => (b === undefined ? '–' : n1(b / 2 ** 20));
    let rest;
    if (db === 'pg')
      rest = [n0(e.serverCpuMs), n1(e.peakRssMB), n0(e.walBytesPerJob), n0(e.deadTuples), mb(e.tableBytes)];
    else if (db === 'mysql')
      rest = [n0(e.serverCpuMs), n1(e.peakRssMB), n0(e.redoBytesPerJob), mb(e.tableBytes)];
    else rest = [n1(e.peakRssMB), mb((e.fileBytes ?? 0) + (e.walFileBytes ?? 0))];
    lines.push(`| ${[...common, ...rest].join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The ratios of the issue, each with its figures and a verdict (null where not measured). */
export function verdicts(byId, mode) {
  const v = [];
  const get = (id) => {
    const e = byId.get(id);
    return e && !e.failed ? e : undefined;
  };
  const ratio = (claim, aId, bId, min, what) => {
    const a = get(aId);
    const b = get(bId);
    if (!a || !b) {
      v.push({ claim, pass: null, detail: `not measured (${!a ? aId : bId})` });
      return;
    }
    const r = a.median / b.median;
    v.push({
      claim,
      pass: r >= min,
      detail: `${n0(a.median)} / ${n0(b.median)} jobs/s = ${n2(r)}x (${what} ${min}x${r >= min ? '' : `; short by ${pct(1 - r / min)}`})`,
    });
  };
  ratio(
    'PostgreSQL lease, 32 workers, vs graphile-worker tuned (32)',
    'drain-pg-sqlinbox-lease-w32',
    'drain-pg-graphile-tuned-w32',
    1.5,
    'need ≥',
  );
  ratio(
    'PostgreSQL lease prefetch(64), 32 workers, vs graphile-worker tuned (32): tuned against tuned',
    'drain-pg-sqlinbox-lease-pf64-w32',
    'drain-pg-graphile-tuned-w32',
    1.5,
    'need ≥',
  );
  ratio(
    'PostgreSQL lease, 32 workers, vs raw lease loop k=50, 32 clients',
    'drain-pg-sqlinbox-lease-w32',
    'drain-pg-raw-lease-k50-w32',
    0.6,
    'need ≥',
  );
  ratio(
    'PostgreSQL lease claimBatch(1), 32 workers, vs raw lease loop k=1 (same batch)',
    'drain-pg-sqlinbox-lease-cb1-w32',
    'drain-pg-raw-lease-k1-w32',
    0.6,
    'need ≥',
  );
  ratio(
    'PostgreSQL row lock, 32 workers, vs raw row lock loop k=1',
    'drain-pg-sqlinbox-rowlock-w32',
    'drain-pg-raw-rowlock-k1-w32',
    0.85,
    'need ≥',
  );
  ratio(
    'PostgreSQL advisory, 32 workers, vs raw advisory loop k=50',
    'drain-pg-sqlinbox-advisory-w32',
    'drain-pg-raw-advisory-k50-w32',
    0.85,
    'need ≥',
  );
  const lat = get('latency-pg-sqlinbox-lease-w8-r100');
  if (lat) {
    v.push({
      claim: 'PostgreSQL enqueue-to-start p50 at 100 jobs/s (lease, NOTIFY wake-up)',
      pass: lat.p50 < 2,
      detail: `${n2(lat.p50)} ms (need < 2 ms)`,
    });
    v.push({
      claim: 'PostgreSQL enqueue-to-start p99 at 100 jobs/s',
      pass: lat.p99 < 10,
      detail: `${n2(lat.p99)} ms (need < 10 ms)`,
    });
  } else v.push({ claim: 'PostgreSQL latency at 100 jobs/s', pass: null, detail: 'not measured' });
  // SQLite: the best worker count of the lease form against the batched raw loop.
  const sq = [...byId.values()].filter(
    (e) => e.id.startsWith('drain-sqlite-sqlinbox-lease-w') && !e.experiment && !e.failed,
  );
  const best = sq.sort((a, b) => b.median - a.median)[0];
  if (best)
    ratio(
      `SQLite lease (best: ${best.workers} workers) vs raw lease loop k=50`,
      best.id,
      'drain-sqlite-raw-lease-k50-w1',
      0.5,
      'need ≥',
    );
  else v.push({ claim: 'SQLite lease vs raw', pass: null, detail: 'not measured' });
  ratio(
    'MariaDB row lock, 32 workers, vs raw loop k=1',
    'drain-mysql-sqlinbox-rowlock-w32',
    'drain-mysql-raw-rowlock-k1-w32',
    0.7,
    'need ≥',
  );
  ratio(
    'MariaDB lease, 32 workers, vs raw loop k=50',
    'drain-mysql-sqlinbox-lease-w32',
    'drain-mysql-raw-lease-k50-w32',
    0.7,
    'need ≥',
  );
  ratio(
    'MariaDB lease prefetch(64), 32 workers, vs raw loop k=50',
    'drain-mysql-sqlinbox-lease-pf64-w32',
    'drain-mysql-raw-lease-k50-w32',
    0.7,
    'need ≥',
  );
  ratio(
    'MariaDB advisory, 32 workers, vs raw loop k=50',
    'drain-mysql-sqlinbox-advisory-w32',
    'drain-mysql-raw-advisory-k50-w32',
    0.7,
    'need ≥',
  );
  const m200 = get('memory200000-pg-sqlinbox-lease-w32');
  const m20 = get('memory20000-pg-sqlinbox-lease-w32');
  if (m200) {
    v.push({
      claim: 'Draining a 200k backlog: Node peak RSS',
      pass: m200.peakRssMB < 150,
      detail: `${n1(m200.peakRssMB)} MB (need < 150 MB)`,
    });
    if (m20) {
      const r = m200.peakRssMB / m20.peakRssMB;
      v.push({
        claim: 'Peak RSS at 200k over peak RSS at 20k',
        pass: r <= 1.1,
        detail: `${n1(m200.peakRssMB)} / ${n1(m20.peakRssMB)} MB = ${n2(r)}x (need ≤ 1.1x)`,
      });
    }
  } else {
    v.push({
      claim: 'Draining a 200k backlog: peak RSS < 150 MB and ≤ 1.1x the 20k peak',
      pass: null,
      detail:
        mode === 'quick'
          ? `quick mode drains 20k only (${m20 ? `${n1(m20.peakRssMB)} MB` : 'not measured'}); run --full`
          : 'not measured',
    });
  }
  return v;
}

/** The chart: throughput by workers, PostgreSQL drains, one line per system. */
function svg(byId, workerCounts) {
  const series = [
    ['drain-pg-sqlinbox-lease', 'sqlinbox lease', '#1f77b4', ''],
    ['drain-pg-sqlinbox-rowlock', 'sqlinbox row lock', '#2ca02c', ''],
    ['drain-pg-sqlinbox-advisory', 'sqlinbox advisory', '#9467bd', ''],
    ['drain-pg-graphile-tuned', 'graphile-worker tuned', '#d62728', ''],
    ['drain-pg-graphile-default', 'graphile-worker defaults', '#ff9896', ''],
    ['drain-pg-pgboss-fetch100', 'pg-boss fetch/complete 100', '#ff7f0e', ''],
    ['drain-pg-pgboss-work100', 'pg-boss work() 100', '#ffbb78', ''],
    ['drain-pg-bullmq-defaults', 'BullMQ (PostgreSQL) defaults', '#e377c2', ''],
    ['drain-pg-raw-lease-k50', 'raw lease loop k=50', '#7f7f7f', '6,4'],
    ['drain-pg-raw-rowlock-k1', 'raw row lock loop k=1', '#bcbd22', '6,4'],
    ['drain-mysql-sqlinbox-lease', 'MariaDB: sqlinbox lease', '#17becf', '2,3'],
    ['drain-sqlite-sqlinbox-lease', 'SQLite: sqlinbox lease', '#8c564b', '2,3'],
  ];
  const W = 760;
  const H = 420;
  const left = 70;
  const right = 230;
  const top = 40;
  const bottom = 50;
  const pts = series.map(([prefix, name, color, dash]) => ({
    name,
    color,
    dash,
    points: workerCounts
      .map((w, i) => {
        const e = byId.get(`${prefix}-w${w}`);
        return e && !e.failed ? { i, y: e.median } : null;
      })
      .filter(Boolean),
  }));
  const maxY = Math.max(1, ...pts.flatMap((s) => s.points.map((p) => p.y)));
  const step = 10 ** Math.floor(Math.log10(maxY));
  const top_ = Math.ceil(maxY / step) * step;
  const x = (i) => left + ((W - left - right) * (i + 0.5)) / workerCounts.length;
  const y = (v) => top + (H - top - bottom) * (1 - v / top_);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${left}" y="22" font-size="14" font-weight="bold">Drain throughput by workers, jobs/s (PostgreSQL unless marked; 2-core machine)</text>`,
  ];
  for (let v = 0; v <= top_; v += step / (top_ / step > 5 ? 1 : 2)) {
    out.push(`<line x1="${left}" x2="${W - right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`);
    out.push(
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${Math.round(v).toLocaleString('en-US')}</text>`,
    );
  }
  workerCounts.forEach((w, i) => {
    out.push(`<text x="${x(i)}" y="${H - bottom + 18}" text-anchor="middle">${w}</text>`);
  });
  out.push(
    `<text x="${(left + W - right) / 2}" y="${H - 12}" text-anchor="middle">workers (raw loops: clients)</text>`,
  );
  out.push(`<line x1="${left}" x2="${W - right}" y1="${y(0)}" y2="${y(0)}" stroke="#333"/>`);
  pts.forEach((s, k) => {
    if (s.points.length > 0) {
      const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${x(p.i).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
      out.push(
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      );
      for (const p of s.points)
        out.push(`<circle cx="${x(p.i).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    }
    const ly = top + 10 + k * 18;
    out.push(
      `<line x1="${W - right + 15}" x2="${W - right + 40}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
    );
    out.push(`<text x="${W - right + 46}" y="${ly + 4}">${s.name}${s.points.length ? '' : ' (n/a)'}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

const RAW_SQL = `The raw loops send, per client, exactly what the dialect sends (PostgreSQL as named prepared
statements, like pgbench \`-M prepared\`; MariaDB through mysql2 \`query\`; SQLite through prepared
better-sqlite3 statements), with \`k\` rows per claim statement:

- **row lock**: \`BEGIN\`; \`SELECT t.* .. ORDER BY id LIMIT k FOR UPDATE SKIP LOCKED\`; \`DELETE .. WHERE id = $1\` per
  row; \`COMMIT\` (MariaDB: \`SET TRANSACTION ISOLATION LEVEL READ COMMITTED\`, \`START TRANSACTION\` first).
- **lease**: PostgreSQL \`WITH sqlinbox_claimed AS (UPDATE .. SET locked_until = $1, attempt = attempt + 1 FROM
  (SELECT id .. WHERE locked_until IS NULL OR locked_until <= $2 ORDER BY id LIMIT k FOR UPDATE SKIP LOCKED) ..
  RETURNING t.*) SELECT ..\`; MariaDB the locking select, \`UPDATE .. WHERE id IN (..)\` and the re-read in one READ
  COMMITTED transaction; SQLite one \`UPDATE .. WHERE id IN (SELECT .. LIMIT k) RETURNING *\`. Then
  \`DELETE .. WHERE id = $1 AND locked_until = $t\` per row.
- **advisory**: the dialect's candidate select (PostgreSQL leaves out keys held in \`pg_locks\`, MariaDB keys with
  \`IS_USED_LOCK\`), then per candidate \`pg_try_advisory_lock(hashtextextended(key, 0))\` / \`GET_LOCK(name, 0)\` /
  a key map (SQLite), the take (\`UPDATE .. SET attempt = attempt + 1 .. RETURNING\`), \`DELETE\`, unlock.`;

export function writeReport(out, root) {
  const { meta, results } = out;
  const folded = results.map(fold);
  const byId = new Map(folded.map((e) => [e.id, e]));
  const v = verdicts(byId, meta.mode);
  const workerCounts = [
    ...new Set(
      folded.filter((e) => e.workload === 'drain' && !e.memory && e.kind !== 'raw').map((e) => e.workers),
    ),
  ].sort((a, b) => a - b);
  const dir = join(root, 'docs', 'benchmarks');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'throughput.svg'), svg(byId, workerCounts));

  const drains = (db) => folded.filter((e) => e.workload === 'drain' && !e.memory && e.db === db);
  const m = meta.machine;
  const ver = meta.versions;
  const md = [];
  md.push('# Benchmarks');
  md.push('');
  md.push(
    `Generated by \`pnpm bench${meta.mode === 'full' ? ' -- --full' : ''}\` (${meta.mode} mode${meta.scale !== 1 ? `, scale ${meta.scale}` : ''}, ` +
      `${meta.repetitions} repetition${meta.repetitions > 1 ? 's: median, min–max' : ''}) on ${meta.date.slice(0, 10)}, in ${meta.seconds} s. ` +
      "Every figure is in `bench/results/latest.json`; the method is BENCH.md's (shared with the team): the same tables, " +
      'payload (`{"n":1,"p":"abcdef"}`) and empty handlers for everyone, one database server busy at a time, fresh objects per case, ' +
      '`VACUUM ANALYZE` and `CHECKPOINT` before each PostgreSQL case, each timed case in a child process of its own.',
  );
  md.push('');
  md.push(
    `> **These figures come from a ${m.nproc}-core machine** (${m.cpuModel}, ${m.memoryGiB} GiB) where Node and the database ` +
      'server share the cores, and other work may run beside it. Absolute figures drift from run to run; the ratios taken within one run hold.',
  );
  md.push('');
  md.push('| | |');
  md.push('| --- | --- |');
  md.push(`| machine | ${m.nproc} cores (\`nproc\`), ${m.memoryGiB} GiB, ${m.cpuModel}, ${m.platform} |`);
  md.push(`| Node | ${ver.node} |`);
  md.push(
    `| PostgreSQL | ${ver.postgresql} (${Object.entries(meta.settings.postgresql)
      .map(([k, x]) => `${k}=${x}`)
      .join(', ')}) |`,
  );
  md.push(
    `| MariaDB | ${ver.mariadb} (${Object.entries(meta.settings.mariadb)
      .map(([k, x]) => `${k}=${x}`)
      .join(', ')}) |`,
  );
  md.push(`| SQLite | ${ver.sqlite} (better-sqlite3 ${ver['better-sqlite3']}, WAL, synchronous=NORMAL) |`);
  md.push(`| sqlinbox | ${ver.sqlinbox}${ver.commit ? ` at ${ver.commit}` : ''} |`);
  md.push(`| peers | graphile-worker ${ver['graphile-worker']}, pg-boss ${ver['pg-boss']} |`);
  md.push(`| drivers | pg ${ver.pg}, mysql2 ${ver.mysql2}, better-sqlite3 ${ver['better-sqlite3']} |`);
  md.push('');
  md.push('## The ratios');
  md.push('');
  md.push('| claim | figures | verdict |');
  md.push('| --- | --- | --- |');
  for (const x of v)
    md.push(
      `| ${x.claim} | ${x.detail} | ${x.pass === null ? 'not measured' : x.pass ? '**pass**' : '**FAIL**'} |`,
    );
  md.push('');
  md.push(
    'Where a ratio fails, the diagnosis (CPU profile, `EXPLAIN (ANALYZE, BUFFERS)`, the what-if rows below) and the change ' +
      'it points to are in the "Why" section at the end.',
  );
  md.push('');
  md.push('## W2: draining a prefilled backlog');
  md.push('');
  md.push('![throughput by workers](benchmarks/throughput.svg)');
  md.push('');
  md.push(
    'Drain time runs from the first claim (first handler start for the peers and raw loops) to the last settlement; ' +
      'start-up (broker start, schema check, first claim) is apart. The peers do not say when a settlement commits, so ' +
      'their drain ends when every handler has run and the database shows no unsettled job (polled every 2 ms). ' +
      '"rows/claim" is the rows per claim statement actually taken. Node CPU covers start-up and drain for sqlinbox, the drain for the others; server CPU is the summed run time of the server\'s processes (threads, for MariaDB) over the drain. pg-boss **keeps** completed rows (an `UPDATE` to ' +
      '`completed`) while graphile-worker and sqlinbox **delete** them, which shows in WAL bytes, dead tuples and size.',
  );
  for (const [db, title] of [
    ['pg', 'PostgreSQL'],
    ['mysql', 'MariaDB'],
    ['sqlite', 'SQLite'],
  ]) {
    md.push('');
    md.push(`### ${title}`);
    md.push('');
    md.push(drainTable(drains(db), db));
  }
  md.push('');
  md.push(
    'The **what-if** rows are not sqlinbox as shipped: they emulate, from the bench side, the engine changes recommended ' +
      'below (claiming ahead as the SQLite dialect does; settling the acks of one event-loop turn in one `DELETE`), and the raw ' +
      "lease loop settling each claim's rows in one statement. pg-boss `work()` sleeps its polling interval (0.5 s) after " +
      'every fetch whether or not it found jobs, so its backlog is capped to what it can drain in a few seconds.',
  );
  md.push('');
  md.push(RAW_SQL);
  md.push('');
  md.push(
    meta.bullmq.startsWith('run')
      ? `BullMQ's PostgreSQL backend (bullmq ${meta.bullmq.replace(/^run: bullmq /, '')}) runs on Node 20 and is in this run at its ` +
          'defaults (a Worker at `concurrency` = workers; it keeps completed jobs, as pg-boss does). It is not a dependency of the ' +
          'bench: its dependency msgpackr pulls msgpackr-extract, whose install script pnpm 12 refuses (`ERR_PNPM_IGNORED_BUILDS`) ' +
          "unless the workspace's `allowBuilds` names it, so the bench loads it from `BENCH_BULLMQ_DIR` (a directory where " +
          '`npm install bullmq@6.7.0 pg` was run) or from the workspace once installed there, and skips it otherwise.'
      : "BullMQ's PostgreSQL backend: bullmq 6.7.0 ships one (`createPostgresBackend`, PostgreSQL 13+), declares Node >= 14.18 " +
          'and runs on Node 20 here, but is **not in this run**: its dependency msgpackr pulls msgpackr-extract, whose install ' +
          "script pnpm 12 refuses (`ERR_PNPM_IGNORED_BUILDS`) unless the workspace's `allowBuilds` names it. Point " +
          '`BENCH_BULLMQ_DIR` at a directory where `npm install bullmq@6.7.0 pg` was run to include it.',
  );

  const lat = folded.filter((e) => e.workload === 'latency');
  md.push('');
  md.push('## W3: enqueue-to-handler-start latency');
  md.push('');
  md.push(
    'An open-loop producer (its own pool; each publish starts on schedule whether or not the previous one returned) enqueues ' +
      "for a fixed time; latency runs from just before the enqueue call to the handler's start, on one clock. sqlinbox's " +
      "producer is a second broker, so the consumer wakes on PostgreSQL's NOTIFY; graphile-worker wakes on its own NOTIFY; " +
      "pg-boss 10 polls (0.5 s); BullMQ's PostgreSQL backend waits on LISTEN/NOTIFY.",
  );
  md.push('');
  md.push(
    '| system | rate jobs/s | seconds | received | p50 ms | p95 ms | p99 ms | max ms | Node CPU ms | server CPU ms |',
  );
  md.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const e of lat) {
    if (e.failed)
      md.push(`| ${systemOf(e)} | ${e.rate} | ${e.seconds} | failed: ${e.failed.slice(0, 60)} | | | | | | |`);
    else
      md.push(
        `| ${systemOf(e)}, ${e.workers} workers | ${e.rate} | ${e.seconds} | ${e.received}/${e.sent} | **${n2(e.p50)}** | ${n2(e.p95)} | **${n2(e.p99)}** | ${n2(e.max)} | ${n0(e.nodeCpuMs)} | ${n0(e.serverCpuMs)} |`,
      );
  }

  const mem = folded.filter((e) => e.memory);
  md.push('');
  md.push('## W4: memory while draining a backlog');
  md.push('');
  md.push(
    "Each in a child process of its own; peak RSS sampled every 10 ms during the drain (and the process's maxRSS).",
  );
  md.push('');
  md.push('| system | backlog | workers | jobs/s | Node peak RSS MB | process maxRSS MB |');
  md.push('| --- | --- | --- | --- | --- | --- |');
  for (const e of mem)
    md.push(
      `| ${systemOf(e)} | ${n0(e.jobs)} | ${e.workers} | ${rate(e)} | **${n1(e.peakRssMB)}** | ${n1(e.maxRssMB)} |`,
    );

  const enq = folded.filter((e) => e.workload === 'enqueue');
  md.push('');
  md.push('## W1: enqueue');
  md.push('');
  md.push(
    '`broker.publish` one message at a time at 1 and 8 in flight, and `publishMany` in chunks, into an empty lease table.',
  );
  md.push('');
  md.push('| database | how | jobs | jobs/s | Node CPU ms | server CPU ms |');
  md.push('| --- | --- | --- | --- | --- | --- |');
  for (const e of enq) {
    const how = e.chunk ? `publishMany, chunks of ${n0(e.chunk)}` : `publish, ${e.concurrency} in flight`;
    md.push(`| ${e.db} | ${how} | ${n0(e.jobs)} | ${rate(e)} | ${n0(e.nodeCpuMs)} | ${n0(e.serverCpuMs)} |`);
  }

  const rec = folded.filter((e) => e.workload === 'recovery');
  md.push('');
  md.push('## W5: recovery after SIGKILL');
  md.push('');
  md.push(
    'A worker process holds one row per worker (4) in handlers that never end and is SIGKILLed; a second process, already ' +
      'subscribed and polling every 100 ms, times from the kill until every one of those rows is delivered again. The lease ' +
      "is 2 s. SQLite's advisory keys live in one process (R-DB-3), so it has no cross-process recovery to time.",
  );
  md.push('');
  md.push('| database | form | redelivered after ms | delivered twice (before the kill) |');
  md.push('| --- | --- | --- | --- |');
  for (const e of rec) {
    const figure = e.failed ? `failed: ${e.failed.slice(0, 60)}` : rate(e);
    md.push(`| ${e.db} | ${FORM[e.form]} | ${figure} | ${e.deliveredBeforeKill ?? '–'} |`);
  }
  md.push('');
  md.push('## Why');
  md.push('');
  md.push(why(byId));
  md.push('');
  writeFileSync(join(root, 'docs', 'benchmarks.md'), md.join('\n'));
  return v;
}

/**
 * The diagnosis behind the failing ratios. The mechanisms (profiles, EXPLAIN) were found once and
 * are stated as such; every jobs/s figure in it is this run's, read from the what-if rows.
 */
function why(byId) {
  const f = (id) => {
    const e = byId.get(id);
    return e && !e.failed ? e : undefined;
  };
  const js = (id) => (f(id) ? `${n0(f(id).median)} jobs/s` : 'n/a');
  const x = (a, b) => (f(a) && f(b) ? `${n2(f(a).median / f(b).median)}x` : 'n/a');
  const perJob = (id, key) =>
    f(id)?.[key] && f(id).jobs ? `${n0((f(id)[key] * 1000) / f(id).jobs)} µs` : 'n/a';
  const L = 'drain-pg-sqlinbox-lease-w32';
  const R1 = 'drain-pg-raw-lease-k1-w32';
  const R50 = 'drain-pg-raw-lease-k50-w32';
  const RB = 'drain-pg-raw-lease-batchdelete-k50-w32';
  const G = 'drain-pg-graphile-tuned-w32';
  const W = (e) => `drain-pg-sqlinbox-lease-whatif_${e.replaceAll('+', '_')}-w32`;
  const RL = 'drain-pg-sqlinbox-rowlock-w32';
  const RLP = 'drain-pg-sqlinbox-rowlock-whatif_prepared-w32';
  const RR = 'drain-pg-raw-rowlock-k1-w32';
  const SQ = 'drain-sqlite-sqlinbox-lease-w32';
  const SQR = 'drain-sqlite-raw-lease-k50-w1';
  const SQB = 'drain-sqlite-raw-lease-batchdelete-k50-w1';
  const MR = 'drain-mysql-sqlinbox-rowlock-w32';
  const MRR = 'drain-mysql-raw-rowlock-k1-w32';
  const ML = 'drain-mysql-sqlinbox-lease-w32';
  const MLR = 'drain-mysql-raw-lease-k50-w32';
  const MA = 'drain-mysql-sqlinbox-advisory-w32';
  const MAR = 'drain-mysql-raw-advisory-k50-w32';
  const lat = f('latency-pg-sqlinbox-lease-w8-r100');
  const glat = f('latency-pg-graphile-tuned-w8-r100');
  const rows = f(L)?.rowsPerClaim;
  return `How it was found: \`pnpm bench -- --only <case> --cpu-prof <case>\` writes a V8 CPU profile per child into
\`bench/results/profiles/\`; the statements were run under \`EXPLAIN (ANALYZE, BUFFERS)\` on a table left as a drain
leaves it (10,000 rows leased then deleted one transaction each, 32 rows in work); and the **what-if** rows of the
PostgreSQL table emulate each candidate change from the bench side (wrapping the dialect object and the pg client;
the packages are untouched), so each change is sized in this run before anyone makes it. (\`pg_stat_statements\` is
installed but not preloaded on this server, and the bench does not restart it.)

### PostgreSQL lease form: ${x(L, G)} graphile-worker tuned, ${x(L, R50)} the raw k=50 loop

1. **One row per claim.** The claims of the 32-worker run took ${rows ? n1(rows) : 'n/a'} row(s) each on average. The pump
   (\`packages/core/src/subscription.ts\`, \`Subscription.step\` / \`claimSize\`) starts a claim as soon as one worker is
   free, sized to the free workers, and runs several claims side by side; with fast handlers the workers free up
   one at a time, so nearly every claim is a one-row \`UPDATE .. FOR UPDATE SKIP LOCKED\` with a commit of its own:
   two commits per job where the k=50 loop pays one and a fiftieth. The raw loop itself shows the price of k=1:
   ${js(R1)} against ${js(R50)}. \`EXPLAIN (ANALYZE, BUFFERS)\` of that one-row claim: its index scan reads and filters
   out every row in work ahead of it (\`Rows Removed by Filter: 32\`, 32 buffers, 0.05 ms), and the first claim after
   a run of settlements also visits the dead index entries of the deleted rows (199 buffers, 0.43 ms) before they
   are marked dead; a one-row claim pays that for one row. The claim-ahead what-if (the SQLite dialect's
   \`claimAhead\` capability switched on for PostgreSQL) takes ${n1(f(W('claimAhead'))?.rowsPerClaim)} rows per
   claim: ${js(W('claimAhead'))}.
2. **One statement and one commit per settlement.** \`LeaseForm.settle\` (\`packages/core/src/forms/lease.ts\`) takes a
   pool connection and runs one \`DELETE .. WHERE id = $1 AND locked_until = $2\` per delivery. graphile-worker tuned
   fetches 100 jobs per statement and completes a whole tick's jobs in one (\`completeJobBatchDelay: 0\`): that is its
   ${js(G)}. The batch-settle what-if (acks of one event-loop turn in one
   \`DELETE .. USING unnest($1::bigint[], $2::timestamptz[])\`) gives ${js(W('batchSettle'))}
   (${x(W('batchSettle'), L)} the lease form as shipped, ${x(W('batchSettle'), R50)} the raw k=50 loop).
3. **Every statement parsed and planned again.** \`PgConnection.query\` (\`packages/dialect-postgres/src/pg.ts\`) sends
   text and values, i.e. pg's unnamed statement; the raw loops use named statements (pgbench's \`-M prepared\`).
   Server CPU per job: ${perJob(L, 'serverCpuMs')} for the lease form, ${perJob(R50, 'serverCpuMs')} for the raw k=50
   loop. What-if: ${js(W('prepared'))} prepared alone, ${js(W('batchSettle+prepared'))} with batch settlement.

The CPU profile of the 32-worker drain has about half its samples in \`writev\` (two statements and two pool
checkouts per job over loopback, on two cores shared with the server) and under 5% in the engine's own code: the
cost is the number of statements and commits, not JavaScript.

The 1.5x-graphile-worker target is out of reach of the statements BENCH.md lists even without a library: the raw
k=50 loop runs at ${x(R50, G)} graphile-worker tuned, and settling each claim's rows in one \`DELETE\` raises it
to ${x(RB, G)}. graphile-worker's edge is a local queue of prefetched jobs and batched completion with prepared
statements; matching it needs all three changes below, and passing it by half again needs claims that overlap
settlements (a local queue, as graphile-worker's).

**Recommended changes** (for whoever applies engine changes):
- \`packages/core/src/forms/lease.ts\`, \`LeaseForm.settle\`: queue \`finish\` plans (ack, drop) and flush them once per
  event-loop turn on one pooled connection through a new \`TableOps.settleMany(conn, settlements)\` answering the ids
  it settled (a delivery whose id is missing gets its own \`LeaseLostError\`). dialect-postgres
  (\`packages/dialect-postgres/src/table.ts\`): \`DELETE FROM t USING unnest($1::<id type>[], $2::timestamptz[]) AS
  x(id, token) WHERE t.id = x.id AND t.locked_until = x.token RETURNING t.id\` (the \`processed_at\` variant as an
  \`UPDATE .. FROM unnest(..)\`); dialect-mysql \`DELETE .. WHERE (id, locked_until) IN ((?, ?), ..)\`; dialect-sqlite
  the same with \`VALUES\`.
- \`packages/core/src/subscription.ts\`, \`Subscription.claimSize\`: for the lease form, claim for a batch, not for one
  free worker — e.g. wait until \`min(claimBatch ?? workers, workers) / 2\` workers are free while another claim or
  settlement is in flight — or set \`claimAhead: true\` in \`postgresCapabilities\`
  (\`packages/dialect-postgres/src/dialect.ts\`) so a claim refills the lease book to twice the workers.
- \`packages/dialect-postgres/src/pg.ts\`, \`PgConnection.query\`: name each distinct statement text
  (\`client.query({ name: 'sqlinbox_<n>', text, values })\`, a bounded per-process text-to-name map), so the server
  parses and plans it once per connection. The statement texts are already stable per table.

### PostgreSQL row lock form: ${x(RL, RR)} the raw k=1 loop (need 0.85x)

Same statements, same round trips (\`BEGIN\`, \`SELECT .. FOR UPDATE SKIP LOCKED LIMIT 1\`, \`DELETE\`, \`COMMIT\`), one
row per claim in both. Two differences remain. The statements are unnamed, so the server parses and plans each one:
server CPU per job ${perJob(RL, 'serverCpuMs')} against ${perJob(RR, 'serverCpuMs')} for the prepared raw loop. And
each delivery goes through the engine's path (a pool checkout for the claim, an \`AbortController\`, events, the
settlement plan) where the raw loop keeps one connection per client. The named-statement what-if ran at ${js(RLP)}
in this run, ${x(RLP, RR)} the raw loop${
    f(RLP) && f(RR) && f(RLP).median / f(RR).median >= 0.85
      ? ', which passes'
      : '; in two diagnosis runs on a quiet machine (6,000 jobs) it reached 0.86x and 0.91x (3,108 / 3,605 and 3,106 / 3,399 jobs/s), while beside other work on these two cores the gain does not show'
  }. Change: the \`PgConnection.query\` one above.

### PostgreSQL latency at 100 jobs/s: p50 ${lat ? n2(lat.p50) : 'n/a'} ms, p99 ${lat ? n2(lat.p99) : 'n/a'} ms

graphile-worker tuned in the same run: p50 ${glat ? n2(glat.p50) : 'n/a'} ms, p99 ${glat ? n2(glat.p99) : 'n/a'} ms.
Split at the publish's return: the publish took p50 ${lat ? n2(lat.publishMs?.p50) : 'n/a'} ms (the insert and then
\`SELECT pg_notify(..)\` as a second statement and second transaction: two round trips), and the pick-up (NOTIFY, the
claim and its commit, dispatch) p50 ${lat ? n2(lat.pickupMs?.p50) : 'n/a'} ms. The tail follows commits and
scheduling on two shared cores, and moves from run to run with whatever else the machine runs (p99 went from
5 ms on a quiet machine to 11 ms beside other test suites). Change: \`PgWakeup.notify\` / \`Broker.publishMany\`
(\`packages/dialect-postgres/src/pg.ts\`, \`packages/core/src/broker.ts\`): fold the notification into the insert's
statement (\`WITH sqlinbox_ins AS (INSERT .. RETURNING id), sqlinbox_n AS (SELECT pg_notify($n, '')) SELECT
sqlinbox_ins.id FROM sqlinbox_ins CROSS JOIN sqlinbox_n\`), one round trip and one transaction per publish.

### SQLite lease form: ${x(SQ, SQR)} the raw k=50 loop (need 0.5x)

The CPU profile of the drain has about half its samples in better-sqlite3's statement step: each settlement is a
\`DELETE\` in a write transaction of its own (a WAL frame and a wal-index update each), as in the raw loop; the
other half is the engine's per-delivery path (an \`AbortController\` per delivery, events, the file's write-lock
queue, Date-to-BigInt binding). A pool of two handles instead of workers + 2 changed nothing
(${js('drain-sqlite-sqlinbox-lease-whatif_twoConnections-w32')}), so it is not the per-handle page cache. Settling a
claim's rows in one statement takes the raw loop from ${js(SQR)} to ${js(SQB)}: the batch settlement above, in
dialect-sqlite (\`packages/dialect-sqlite/src/statements.ts\`, a \`settleMany\` beside \`settle\`), is the change.

### MariaDB: row lock ${x(MR, MRR)}, lease ${x(ML, MLR)}, advisory ${x(MA, MAR)} their raw loops (need 0.7x)

The lease claim runs one at a time per subscription on MySQL/MariaDB (its locking select and update share one
READ COMMITTED transaction, R-POOL-4) and took ${n1(f(ML)?.rowsPerClaim)} rows per claim at 32 workers; every
settlement is a \`DELETE\` and a redo-log flush of its own (\`innodb_flush_log_at_trx_commit=1\`), as in the raw
loop, so the claim that runs alone is what the raw loop's 32 concurrent claimers outpace. Settling each claim's
rows in one \`DELETE .. WHERE locked_until = ? AND id IN (..)\` takes the raw loop from ${js(MLR)} to
${js('drain-mysql-raw-lease-batchdelete-k50-w32')}: the batch settlement above (dialect-mysql
\`packages/dialect-mysql/src/statements.ts\`, a \`settleMany\` beside \`finish\`) is again the change. The row lock form
sends the same five statements as its raw loop (\`SET TRANSACTION ISOLATION LEVEL\`, \`START TRANSACTION\`, select,
delete, \`COMMIT\`); mysql2's \`query\` is client-side interpolated on both sides, so what remains is the engine's
per-delivery path.

### The advisory form

It passes on both servers because the raw advisory loop, for all its lack of a library, has 32 clients select the
same first candidates and fight for their locks (see its rows/claim), while the engine leaves out the keys its
own deliveries hold; the form is slow in absolute terms (several statements per job on a connection held per
delivery), by design.`;
}
