/**
 * W6, sustained load: producers and consumers at once, in processes of their own, on servers of the
 * benchmark's own with stock settings (servers.mjs; SQLite a file), sampled every window:
 * produced, consumed, backlog, enqueue-to-start p50/p99, dead tuples, table and index size, the
 * oldest snapshot's age (PostgreSQL) or InnoDB's history list length (MariaDB), WAL bytes, CPU of
 * the producer, the consumers and the server.
 *
 * The cases (BENCH.md W6, issue 31):
 *   a  the sustainable rate: the highest fixed rate the system holds with a bounded backlog, found
 *      by a short search (doubling, then halving the interval), then held for the case length;
 *   b  a fixed rate at half of it;
 *   c  overload: the producer flat out until the backlog passes the target (5 million rows in full
 *      mode); the consumed rate at a tenth of the target and at the target;
 *   d  (b) with a REPEATABLE READ transaction held open in the middle (120 s in full mode);
 *   e  a hot key: one key with 50,000 ready rows beside 500 small keys, per-key concurrency 1,
 *      the small keys produced at (b)'s rate.
 */
import { fork } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as hdr from 'hdr-histogram-js';
import { BOSS_SCHEMA, GW_SCHEMA, PG_SCHEMA, RUN, sqliteFile } from './config.mjs';
import { histogram } from './run-sustained.mjs';
import { serverTreeCpuMs, startMariadb, startPostgres } from './servers.mjs';
import { describeSustained, HOT_KEY_COLUMN, tableName } from './tables.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Case lengths and sizes per mode; `opts` (the command line) may override the case length. */
export function sustainedSettings(mode, opts = {}) {
  const full = mode === 'full';
  const seconds = opts.seconds ?? (full ? 600 : 4);
  return {
    seconds,
    window: opts.window ?? (full ? 10 : 1),
    searchStep: full ? 15 : 1.5,
    searchSettle: full ? 5 : 1,
    searchSteps: full ? 8 : 3,
    drainTimeout: full ? 120 : 10,
    overloadTarget: opts.overloadTarget ?? (full ? 5_000_000 : 300_000),
    overloadCap: full ? 3600 : 25,
    holdSeconds: full ? 120 : Math.max(2, Math.round(seconds / 3)),
    // In full mode the hold starts after the first minute and leaves 5 minutes after it ends.
    holdAt: full ? Math.min(180, Math.max(60, seconds - 120 - 300)) : Math.round(seconds / 3),
    hotRows: full ? 50_000 : 2_000,
    hotKeys: full ? 500 : 50,
  };
}

/** A first guess of each system's sustainable rate, where the search starts (jobs/s). */
function guess(spec) {
  if (spec.kind === 'pgboss') return 1000;
  if (spec.kind === 'graphile') return 2000;
  if (spec.db === 'sqlite') return 2000;
  if (spec.form === 'advisory') return 500;
  if (spec.form === 'rowlock') return 2000;
  return 4000;
}

/** The system a case runs: its id without the case letter. */
export const systemOf = (spec) => spec.id.replace(/^sustained-([a-e])-/, '');

// ---------------------------------------------------------------------------------------------
// Children

function forkChild(spec, env) {
  const proc = fork(join(here, 'child.mjs'), [], {
    env: { ...process.env, ...env, BENCH_SPEC: JSON.stringify(spec), BENCH_RUN: RUN },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = [];
  let failed;
  const done = new Promise((resolve, reject) => {
    proc.on('message', (m) => {
      if (m.type === 'result') resolve(m.result);
      else if (m.type === 'error') {
        failed = new Error(`${spec.role}: ${m.message}`);
        reject(failed);
      } else {
        const i = waiting.findIndex((w) => w.type === m.type);
        if (i >= 0) waiting.splice(i, 1)[0].resolve(m);
      }
    });
    proc.on('exit', (code, signal) => {
      const err = failed ?? new Error(`${spec.role} exited (${code ?? signal})`);
      for (const w of waiting.splice(0)) w.reject(err);
      reject(err);
    });
  });
  done.catch(() => {});
  return {
    proc,
    done,
    send: (m) => proc.connected && proc.send(m),
    next: (type, ms = 120_000) =>
      new Promise((resolve, reject) => {
        if (failed) return reject(failed);
        const timer = setTimeout(() => reject(new Error(`${spec.role}: no '${type}' in ${ms} ms`)), ms);
        waiting.push({
          type,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Tables on the W6 servers

async function prepare(spec, ctx, settings) {
  const T = tableName(spec.db);
  if (spec.db === 'pg') {
    const q = ctx.pg;
    if (spec.kind === 'sqlinbox') {
      await q(`DROP SCHEMA IF EXISTS "${PG_SCHEMA}" CASCADE`);
      await q(`CREATE SCHEMA "${PG_SCHEMA}"`);
      const { createPostgresDialect, wakeupTriggerDdl } = await import('@sqlinbox/dialect-postgres');
      let statements = createPostgresDialect().ddl(describeSustained(spec));
      // `--w6-stock-table`: the table without ddl()'s storage parameters, to show what they buy.
      if (ctx.stockTable) statements = statements.map((s) => s.replace(/\) WITH \([^)]*\)$/, ')'));
      // Plain-SQL producers wake the consumers through the trigger, where ddl() does not print it yet.
      if (!statements.some((s) => s.includes('sqlinbox_wakeup'))) statements.push(...wakeupTriggerDdl(T));
      for (const s of statements) await q(s);
      if (spec.keys)
        await q(
          `INSERT INTO "${PG_SCHEMA}".jobs (payload, ${HOT_KEY_COLUMN}) SELECT jsonb_build_object('n', -g, 'p', 'abcdef', 't', 0, 'k', 'hot'), 'hot' FROM generate_series(1, $1::int) g`,
          [settings.hotRows],
        );
    } else if (spec.kind === 'graphile') {
      await q(`DROP SCHEMA IF EXISTS "${GW_SCHEMA}" CASCADE`);
      const { Logger, makeWorkerUtils } = await import('graphile-worker');
      const utils = await makeWorkerUtils({
        connectionString: ctx.pgServer.url,
        schema: GW_SCHEMA,
        logger: new Logger(() => () => {}),
      });
      await utils.migrate();
      if (spec.keys)
        for (let i = 0; i < settings.hotRows; i += 5000)
          await utils.addJobs(
            Array.from({ length: Math.min(5000, settings.hotRows - i) }, (_, j) => ({
              identifier: 'bench',
              payload: { n: -(i + j + 1), p: 'abcdef', t: 0, k: 'hot' },
              queueName: 'hot',
            })),
          );
      await utils.release();
    } else if (spec.kind === 'pgboss') {
      await q(`DROP SCHEMA IF EXISTS "${BOSS_SCHEMA}" CASCADE`);
      const { PgBoss } = await import('pg-boss');
      const boss = new PgBoss({
        connectionString: ctx.pgServer.url,
        schema: BOSS_SCHEMA,
        migrate: true,
        supervise: false,
        schedule: false,
      });
      boss.on('error', () => {});
      await boss.start();
      await boss.createQueue('bench', { notify: true });
      await boss.stop({ graceful: false, wait: true, close: true, timeout: 2000 });
    }
    const schema = schemaOf(spec);
    const { rows } = await q('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema]);
    for (const r of rows) await q(`VACUUM ANALYZE "${schema}"."${r.tablename}"`);
    await q('CHECKPOINT');
  } else if (spec.db === 'mysql') {
    const { mysqlDialect } = await import('@sqlinbox/dialect-mysql');
    await ctx.my(`DROP TABLE IF EXISTS \`${T}\``);
    for (const s of mysqlDialect.ddl(describeSustained(spec))) await ctx.my(s);
    if (spec.keys)
      await ctx.my(
        `INSERT INTO \`${T}\` (payload, ${HOT_KEY_COLUMN}) SELECT JSON_OBJECT('n', -seq, 'p', 'abcdef', 't', 0, 'k', 'hot'), 'hot' FROM seq_1_to_${settings.hotRows}`,
      );
  } else {
    const { sqliteDialect } = await import('@sqlinbox/dialect-sqlite');
    const { default: Database } = await import('better-sqlite3');
    removeSqlite(spec.file);
    const db = new Database(sqliteFile(spec.file));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    for (const s of sqliteDialect.ddl(describeSustained(spec))) db.exec(s);
    db.close();
  }
}

const schemaOf = (spec) =>
  spec.kind === 'graphile' ? GW_SCHEMA : spec.kind === 'pgboss' ? BOSS_SCHEMA : PG_SCHEMA;

function removeSqlite(file) {
  for (const ext of ['', '-wal', '-shm']) rmSync(sqliteFile(file) + ext, { force: true });
}

async function drop(spec, ctx) {
  if (spec.db === 'pg') await ctx.pg(`DROP SCHEMA IF EXISTS "${schemaOf(spec)}" CASCADE`);
  else if (spec.db === 'mysql') await ctx.my(`DROP TABLE IF EXISTS \`${tableName('mysql')}\``);
  else removeSqlite(spec.file);
}

/**
 * What a claim's scan costs now: the lease (or row lock) claim's select of the next 300 due rows in
 * claim order, without its locks (it takes nothing from the consumers), under EXPLAIN ANALYZE:
 * its time, the buffers it touched and the scan it ran. A claim that walks dead or leased rows at
 * the head of the table shows here as buffers per row.
 */
async function claimProbe(spec, ctx) {
  const T = `"${PG_SCHEMA}".jobs`;
  const due = spec.form === 'lease' ? ' WHERE (q.locked_until IS NULL OR q.locked_until <= now())' : '';
  const { rows } = await ctx.pg(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT q.id FROM ${T} q${due} ORDER BY q.id LIMIT 300`,
  );
  const plan = rows[0]['QUERY PLAN'][0].Plan;
  const scan = plan.Plans?.[0] ?? plan;
  return {
    ms: Math.round(plan['Actual Total Time'] * 100) / 100,
    buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
    scan: scan['Node Type'],
    removed: scan['Rows Removed by Filter'] ?? 0,
  };
}

/** What the server says of the case's tables now. */
async function serverFigures(spec, ctx) {
  if (spec.db === 'pg') {
    const s = (
      await ctx.pg(
        `SELECT coalesce(sum(n_dead_tup), 0)::int8 AS dead, coalesce(sum(n_live_tup), 0)::int8 AS live,
                coalesce(sum(pg_table_size(relid)), 0)::int8 AS tbytes, coalesce(sum(pg_indexes_size(relid)), 0)::int8 AS ibytes,
                coalesce(sum(autovacuum_count), 0)::int8 AS av, coalesce(sum(n_tup_upd), 0)::int8 AS upd,
                coalesce(sum(n_tup_hot_upd), 0)::int8 AS hot,
                (SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity) AS xmin,
                pg_current_wal_lsn()::text AS lsn
           FROM pg_stat_user_tables WHERE schemaname = $1`,
        [schemaOf(spec)],
      )
    ).rows[0];
    return {
      ...(spec.kind === 'sqlinbox' ? { probe: await claimProbe(spec, ctx) } : {}),
      dead: Number(s.dead),
      live: Number(s.live),
      tableMB: Number(s.tbytes) / 2 ** 20,
      indexMB: Number(s.ibytes) / 2 ** 20,
      autovacuums: Number(s.av),
      updates: Number(s.upd),
      hotUpdates: Number(s.hot),
      xminAge: Number(s.xmin),
      lsn: s.lsn,
    };
  }
  if (spec.db === 'mysql') {
    const [t] = await ctx.my(
      'SELECT DATA_LENGTH AS d, INDEX_LENGTH AS i, DATA_FREE AS f FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
      [tableName('mysql')],
    );
    const [h] = await ctx.my(
      "SELECT `COUNT` AS n FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'",
    );
    return {
      tableMB: Number(t?.d ?? 0) / 2 ** 20,
      indexMB: Number(t?.i ?? 0) / 2 ** 20,
      freeMB: Number(t?.f ?? 0) / 2 ** 20,
      historyLength: Number(h?.n ?? 0),
    };
  }
  const size = (p) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  const f = sqliteFile(spec.file);
  return { tableMB: size(f) / 2 ** 20, walMB: size(`${f}-wal`) / 2 ** 20 };
}

// ---------------------------------------------------------------------------------------------
// One case

const ms = (us) => Math.round(us / 10) / 100;
const pctOf = (h, p) => (h.totalCount === 0 ? null : ms(h.getValueAtPercentile(p)));

/** Runs one W6 case: its processes, its phases, its windows; answers the result. */
async function runOne(spec, ctx, settings, log) {
  await prepare(spec, ctx, settings);
  const env = {
    ...(ctx.pgServer ? { BENCH_PG_URL: ctx.pgServer.url } : {}),
    ...(ctx.myServer ? { BENCH_MYSQL_URL: ctx.myServer.url } : {}),
  };
  const consumers = Array.from({ length: spec.consumers ?? 1 }, (_, i) =>
    forkChild({ ...spec, role: 'consumer', index: i }, env),
  );
  const producer = forkChild(
    { ...spec, role: 'producer', keys: spec.keys ? settings.hotKeys : undefined },
    env,
  );
  const all = [producer, ...consumers];
  try {
    await Promise.all(all.map((c) => c.next('ready')));
    return await phases(spec, ctx, settings, log, producer, consumers);
  } finally {
    for (const c of all) c.send({ type: 'stop' });
    await Promise.all(all.map((c) => Promise.race([c.done.catch(() => {}), sleep(20_000)])));
    for (const c of all) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await drop(spec, ctx).catch(() => {});
  }
}

async function phases(spec, ctx, settings, log, producer, consumers) {
  const serverPid = spec.db === 'pg' ? ctx.pgServer.pid : spec.db === 'mysql' ? ctx.myServer.pid : undefined;
  const t0 = Date.now();
  let backlog = spec.keys ? settings.hotRows : 0;
  let lastAt = Date.now();
  let lastServerCpu = serverPid ? serverTreeCpuMs(serverPid) : 0;
  let lastLsn = null;
  let stage;
  const windows = [];
  /** A window: every child's counts since the last, the server's figures now. */
  const sample = async (record = true) => {
    // The consumers answer first, the producer after: every row a consumer counted was committed
    // before the producer counts, so the backlog is not pushed below zero by rows produced and
    // consumed between the children's answers (on a loaded machine a consumer answering 100 ms
    // late counted rows the producer had left for the next window: -83 at 800/s).
    for (const c of consumers) c.send({ type: 'sample' });
    const cs = await Promise.all(consumers.map((c) => c.next('sample')));
    producer.send({ type: 'sample' });
    const p = await producer.next('sample');
    const at = Date.now();
    const secs = (at - lastAt) / 1000;
    lastAt = at;
    const h = histogram();
    let consumed = 0;
    let consumerCpu = 0;
    let claims = 0;
    let claimed = 0;
    let hot = 0;
    for (const c of cs) {
      consumed += c.consumed;
      consumerCpu += c.cpuMs;
      claims += c.claims ?? 0;
      claimed += c.claimedRows ?? 0;
      hot += c.hot ?? 0;
      h.add(hdr.decodeFromCompressedBase64(c.hist));
    }
    backlog += p.produced - consumed;
    const server = await serverFigures(spec, ctx);
    let walMB;
    if (server.lsn !== undefined) {
      if (lastLsn !== null)
        walMB =
          Number(
            (await ctx.pg('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn) AS d', [server.lsn, lastLsn]))
              .rows[0].d,
          ) /
          2 ** 20;
      lastLsn = server.lsn;
      delete server.lsn;
    }
    const serverCpu = serverPid ? serverTreeCpuMs(serverPid) : 0;
    const w = {
      t: Math.round((at - t0) / 100) / 10,
      secs: Math.round(secs * 100) / 100,
      produced: p.produced,
      consumed,
      producedPerSec: Math.round(p.produced / secs),
      consumedPerSec: Math.round(consumed / secs),
      backlog,
      p50: pctOf(h, 50),
      p99: pctOf(h, 99),
      ...(claims ? { rowsPerClaim: Math.round((claimed / claims) * 10) / 10 } : {}),
      ...(spec.keys ? { hotConsumed: hot } : {}),
      ...server,
      ...(walMB !== undefined ? { walMB: Math.round(walMB * 10) / 10 } : {}),
      producerCpuMs: p.cpuMs,
      consumerCpuMs: consumerCpu,
      serverCpuMs: serverPid ? serverCpu - lastServerCpu : null,
      ...(stage ? { stage } : {}),
    };
    lastServerCpu = serverCpu;
    for (const k of ['tableMB', 'indexMB', 'freeMB', 'walMB'])
      if (typeof w[k] === 'number') w[k] = Math.round(w[k] * 10) / 10;
    w.hist = h;
    if (record) windows.push(w);
    return w;
  };
  const setRate = (rate) => producer.send({ type: 'rate', rate: rate === Infinity ? null : rate });
  /** Samples every window for `seconds`, calling `each` (which may end the phase by answering true). */
  const run = async (seconds, each = () => false) => {
    const start = Date.now();
    for (let k = 1; ; k++) {
      // Overload moves fast (a flat-out producer fills millions of rows in a minute): 2 s windows.
      const window = spec.case === 'c' ? Math.min(settings.window, 2) : settings.window;
      const due = start + k * window * 1000;
      await sleep(Math.max(0, due - Date.now()));
      const w = await sample();
      if ((await each(w)) === true || Date.now() - start >= seconds * 1000 - 50) return;
    }
  };
  /** Lets the backlog drain (producer stopped) until it is small, or `limit` seconds run out. */
  const drain = async (small, limit = settings.drainTimeout) => {
    setRate(0);
    const start = Date.now();
    while (backlog > small && Date.now() - start < limit * 1000) {
      await sleep(500);
      await sample(false);
    }
  };
  /** The short search for the highest rate held with a bounded backlog. */
  const search = async () => {
    const fixed = ctx.rates[systemOf(spec)];
    if (fixed !== undefined) return { rate: fixed, steps: [], given: true };
    const steps = [];
    let r = guess(spec);
    let good = 0;
    let bad = Infinity;
    const retried = new Set();
    for (let i = 0; i < settings.searchSteps; i++) {
      setRate(r);
      // A settling stretch first (a consumer that polls picks up a second later), then the step.
      await sleep(settings.searchSettle * 1000);
      await sample(false);
      const before = backlog;
      let produced = 0;
      let consumed = 0;
      const start = Date.now();
      await sleep(settings.searchStep * 1000);
      const w = await sample(false);
      produced += w.produced;
      consumed += w.consumed;
      const secs = (Date.now() - start) / 1000;
      const keptUp = produced >= 0.95 * r * secs;
      // Bounded: the consumers fell behind the producer by at most 5% of what it produced plus a
      // second's worth (a consumer that polls holds up to a poll interval of rows), and the
      // backlog is at most 2 s of work.
      const bounded =
        backlog - before <= Math.max(0.05 * produced + r, 50) && backlog <= Math.max(2 * r, 100);
      const holds = keptUp && bounded;
      steps.push({
        rate: r,
        produced: Math.round(produced / secs),
        consumed: Math.round(consumed / secs),
        backlog,
        holds,
      });
      log(
        `    search ${systemOf(spec)}: ${r}/s -> produced ${Math.round(produced / secs)}/s, consumed ${Math.round(consumed / secs)}/s, backlog ${backlog}${holds ? '' : ' (not held)'}`,
      );
      if (holds) good = r;
      else {
        await drain(Math.max(50, good * 0.2));
        // A rate that fails once is tried again after the drain (a checkpoint or a vacuum can stall
        // one step); failing twice, it is out of reach. Only then does the consumers' own rate in
        // the failed step bound what they can hold.
        if (!retried.has(r)) {
          retried.add(r);
          continue;
        }
        bad = Math.min(r, keptUp ? Math.max(consumed / secs, good) : r);
      }
      if (bad !== Infinity && bad - good <= 0.08 * bad) break;
      r = bad === Infinity ? r * 2 : Math.round(good > 0 ? (good + bad) / 2 : bad / 2);
      r = Math.max(10, Math.round(r / 10) * 10);
    }
    if (good === 0) good = Math.max(10, Math.round(r / 10) * 10);
    return { rate: good, steps };
  };
  const capacity = async () => {
    const key = systemOf(spec);
    if (ctx.capacity.has(key)) return ctx.capacity.get(key);
    const found = await search();
    ctx.capacity.set(key, found);
    await drain(Math.max(50, found.rate * 0.1));
    return found;
  };

  const out = { case: spec.case };
  if (spec.case === 'a') {
    const found = await capacity();
    out.search = found;
    // A searched rate that the hold shows out of reach (the backlog grows past 2 s of work: the
    // short steps miss what only minutes of bloat and vacuum bring) is held again at 0.8 of it,
    // once; the failed hold is kept as `unheld`, its windows dropped. A rate given is held as given.
    let rate = found.rate;
    for (let attempt = 0; ; attempt++) {
      out.rate = rate;
      log(`    holding ${rate}/s for ${settings.seconds} s`);
      setRate(rate);
      const from = windows.length;
      await run(settings.seconds);
      const held = windows.slice(from);
      const maxBacklog = Math.max(0, ...held.map((w) => w.backlog));
      if (found.given || attempt >= 1 || maxBacklog <= Math.max(2 * rate, 100)) break;
      const consumed = held.reduce((a, w) => a + w.consumed, 0) / held.reduce((a, w) => a + w.secs, 0);
      out.unheld = [...(out.unheld ?? []), { rate, maxBacklog, consumedPerSec: Math.round(consumed) }];
      log(`    ${rate}/s not held (backlog ${maxBacklog}): again at ${Math.round(rate * 0.8)}/s`);
      windows.splice(from);
      // The second hold starts from a drained table as the first did: a failed 10-minute hold can
      // leave millions of rows, more than the search's drain time clears (graphile-worker tuned
      // began its second hold 82,000 rows behind).
      const drained = Math.max(50, rate * 0.1);
      await drain(drained, 5 * settings.drainTimeout);
      if (backlog > drained) log(`    still ${backlog} rows behind after the drain`);
      out.unheld.at(-1).leftBehind = backlog;
      rate = Math.max(10, Math.round((rate * 0.8) / 10) * 10);
    }
  } else if (spec.case === 'b' || spec.case === 'e') {
    const found = await capacity();
    out.rate = Math.max(10, Math.round(found.rate / 2));
    setRate(out.rate);
    await run(settings.seconds);
  } else if (spec.case === 'd') {
    const found = await capacity();
    out.rate = Math.max(10, Math.round(found.rate / 2));
    setRate(out.rate);
    const holdAt = settings.holdAt;
    const holdEnd = holdAt + settings.holdSeconds;
    let snapshot;
    const begin = Date.now();
    out.hold = { from: null, to: null };
    stage = 'before';
    await run(settings.seconds, async () => {
      const s = (Date.now() - begin) / 1000;
      if (!snapshot && out.hold.to === null && s >= holdAt - 0.01) {
        snapshot = await openSnapshot(spec, ctx);
        stage = 'held';
        out.hold.from = Math.round((Date.now() - t0) / 100) / 10;
      } else if (snapshot && s >= holdEnd - 0.01) {
        await snapshot.close();
        snapshot = undefined;
        stage = 'after';
        out.hold.to = Math.round((Date.now() - t0) / 100) / 10;
      }
      return false;
    });
    if (snapshot) {
      await snapshot.close();
      out.hold.to = Math.round((Date.now() - t0) / 100) / 10;
    }
  } else if (spec.case === 'c') {
    // Flat out: every producer connection inserts batches of 500 back to back, on the same two
    // cores as the consumer and the server (each one's CPU is in the windows).
    out.rate = null;
    setRate(Infinity);
    out.target = settings.overloadTarget;
    await run(settings.overloadCap, (w) => w.backlog >= settings.overloadTarget);
    setRate(0);
  }
  out.windows = windows;
  out.summary = summarize(out, settings);
  for (const w of windows) delete w.hist;
  return out;
}

/** A REPEATABLE READ transaction that has read the queue table once and stays open until `close()`. */
async function openSnapshot(spec, ctx) {
  if (spec.db === 'pg') {
    const { default: pgLib } = await import('pg');
    const c = new pgLib.Client({ connectionString: ctx.pgServer.url });
    await c.connect();
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const { rows } = await c.query(
      'SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY n_live_tup DESC LIMIT 1',
      [schemaOf(spec)],
    );
    if (rows[0]) await c.query(`SELECT count(*) FROM "${schemaOf(spec)}"."${rows[0].relname}"`);
    return {
      close: async () => {
        await c.query('COMMIT');
        await c.end();
      },
    };
  }
  if (spec.db === 'mysql') {
    const { default: mysql } = await import('mysql2/promise');
    const c = await mysql.createConnection({ uri: ctx.myServer.url });
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await c.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    await c.query(`SELECT count(*) FROM \`${tableName('mysql')}\``);
    return {
      close: async () => {
        await c.query('COMMIT');
        await c.end();
      },
    };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(sqliteFile(spec.file));
  db.exec('BEGIN');
  db.prepare(`SELECT count(*) FROM "${tableName('sqlite')}"`).get();
  return {
    close: async () => {
      db.exec('COMMIT');
      db.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Summaries

const r0 = (x) => (x === null || x === undefined ? null : Math.round(x));
const r2 = (x) => (x === null || x === undefined ? null : Math.round(x * 100) / 100);

/** Latency over a set of windows: their histograms merged. */
function merged(ws) {
  const h = histogram();
  for (const w of ws) h.add(w.hist);
  return { p50: pctOf(h, 50), p99: pctOf(h, 99), n: h.totalCount };
}

/** The consumed rate over the windows that cover seconds [from, to) of the phase. */
function rateOver(ws, from, to) {
  const sel = ws.filter((w) => w.t - w.secs >= from - 0.01 && w.t <= to + 0.01);
  const secs = sel.reduce((a, w) => a + w.secs, 0);
  return secs === 0 ? null : sel.reduce((a, w) => a + w.consumed, 0) / secs;
}

export function summarize(out, settings) {
  const ws = out.windows;
  if (ws.length === 0) return {};
  const size = (w) => (w.tableMB ?? 0) + (w.indexMB ?? 0);
  const first = ws[0].t - ws[0].secs;
  const last = ws[ws.length - 1].t;
  const s = {
    windows: ws.length,
    seconds: Math.round(last - first),
    consumedPerSec: r0(ws.reduce((a, w) => a + w.consumed, 0) / ws.reduce((a, w) => a + w.secs, 0)),
    producedPerSec: r0(ws.reduce((a, w) => a + w.produced, 0) / ws.reduce((a, w) => a + w.secs, 0)),
    maxBacklog: Math.max(...ws.map((w) => w.backlog)),
    endBacklog: ws[ws.length - 1].backlog,
    ...merged(ws),
    maxDead: Math.max(...ws.map((w) => w.dead ?? 0)),
    maxXminAge: Math.max(...ws.map((w) => w.xminAge ?? 0)),
    maxHistoryLength: Math.max(...ws.map((w) => w.historyLength ?? 0)),
    // The first window apart: the consumer meets the producer's first rows at its idle poll (the
    // poll interval where nothing wakes it), not at the pace it keeps while rows come.
    startup: merged(ws.slice(0, 1)),
    steady: ws.length > 1 ? merged(ws.slice(1)) : null,
  };
  if (out.case === 'a' || out.case === 'b' || out.case === 'e') {
    // First and last minute (full mode), or first and last sixth of a shorter run.
    const span = Math.max(settings.window, Math.min(60, (last - first) / 6));
    s.firstMinute = r0(rateOver(ws, first, first + span));
    s.lastMinute = r0(rateOver(ws, last - span, last));
    s.lastOverFirst = s.firstMinute ? r2(s.lastMinute / s.firstMinute) : null;
    const afterFirst = ws.find((w) => w.t >= first + span) ?? ws[0];
    s.sizeAfterFirstMB = r2(size(afterFirst));
    s.sizeEndMB = r2(size(ws[ws.length - 1]));
    s.sizeEndOverFirst = s.sizeAfterFirstMB ? r2(s.sizeEndMB / s.sizeAfterFirstMB) : null;
  }
  if (out.case === 'c') {
    const at = (mark) => {
      const i = ws.findIndex((w) => w.backlog >= mark);
      if (i < 0) return null;
      // The window that crossed the mark and the one after it, where there is one.
      const sel = ws.slice(i, i + 2);
      return {
        backlog: sel[0].backlog,
        consumedPerSec: r0(sel.reduce((a, w) => a + w.consumed, 0) / sel.reduce((a, w) => a + w.secs, 0)),
        t: sel[0].t,
      };
    };
    s.target = out.target;
    s.atTenth = at(out.target / 10);
    s.atTarget = at(out.target);
    s.ratio = s.atTenth && s.atTarget ? r2(s.atTarget.consumedPerSec / s.atTenth.consumedPerSec) : null;
    s.reachedTarget = s.maxBacklog >= out.target;
  }
  if (out.case === 'd' && out.hold?.from !== null) {
    const { from, to } = out.hold;
    const before = ws.filter((w) => w.stage === 'before');
    const during = ws.filter((w) => w.stage === 'held');
    const after = ws.filter((w) => w.stage === 'after');
    const steadyBacklog = before.length
      ? [...before.map((w) => w.backlog)].sort((a, b) => a - b)[Math.floor(before.length / 2)]
      : 0;
    // The dead rows' level before the hold: the highest count of the windows before it. Autovacuum
    // saws the count between a few thousand and its threshold's worth once a naptime, so the last
    // window alone may sit just after a vacuum (8,264 in one run, against 924,145 the window
    // before), a level the table is not back under until a vacuum happens to end a window.
    const deadBefore = Math.max(0, ...before.map((w) => w.dead ?? w.historyLength ?? 0));
    // Back for good: the first window of the last stretch of steady windows after the commit (a
    // stall after a first recovery counts, as a claim plan that flips at the next vacuum does).
    const steady = (w) => w.backlog <= Math.max(2 * steadyBacklog, (out.rate ?? 0) * 0.05, 20);
    const backAt = after[after.findLastIndex((w) => !steady(w)) + 1];
    const deadKey =
      ws[0].dead !== undefined ? 'dead' : ws[0].historyLength !== undefined ? 'historyLength' : undefined;
    const deadAt = deadKey ? after.find((w) => w[deadKey] <= deadBefore) : undefined;
    Object.assign(s, {
      holdFrom: from,
      holdTo: to,
      // The latency before the hold leaves out the first window (the `startup` above).
      before: merged(before.filter((w) => w !== ws[0])),
      during: merged(during),
      after: merged(after),
      steadyBacklog,
      maxBacklogHeld: Math.max(0, ...during.map((w) => w.backlog)),
      backlogBackAfter: backAt ? r2(backAt.t - to) : null,
      deadBefore,
      deadMaxHeld: deadKey ? Math.max(0, ...during.concat(after).map((w) => w[deadKey])) : null,
      deadBackAfter: deadAt ? r2(deadAt.t - to) : null,
      sizeBeforeMB: before.length ? r2(size(before[before.length - 1])) : null,
      sizeMaxMB: r2(Math.max(...ws.map(size))),
    });
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// The run

/**
 * Runs the W6 entries (each `{ ...spec, runs: [] }`), starting the servers they need and stopping
 * them after; `save()` is called after each case. `opts`: `{ mode, seconds, rates }`.
 */
export async function runSustained(entries, opts, log, save) {
  const settings = sustainedSettings(opts.mode, opts);
  const ctx = { rates: opts.rates ?? {}, capacity: new Map(), stockTable: opts.stockTable === true };
  const need = (db) => entries.some((e) => e.db === db);
  const stops = [];
  let failed = 0;
  try {
    if (need('pg')) {
      ctx.pgServer = await startPostgres();
      stops.push(() => ctx.pgServer.stop());
      const { default: pgLib } = await import('pg');
      const admin = new pgLib.Client({ connectionString: ctx.pgServer.url });
      await admin.connect();
      stops.unshift(() => admin.end());
      ctx.pg = (sql, params) => admin.query(sql, params);
      log(
        `  W6: PostgreSQL ${ctx.pgServer.version} of the bench's own at ${ctx.pgServer.url} (initdb, stock settings)`,
      );
    }
    if (need('mysql')) {
      ctx.myServer = await startMariadb();
      stops.push(() => ctx.myServer.stop());
      const { default: mysql } = await import('mysql2/promise');
      const admin = await mysql.createConnection({ uri: ctx.myServer.url });
      stops.unshift(() => admin.end());
      ctx.my = async (sql, params) => (await admin.query(sql, params))[0];
      log(`  W6: MariaDB ${ctx.myServer.version} of the bench's own at ${ctx.myServer.url} (stock settings)`);
    }
    const servers = {
      ...(ctx.pgServer ? { postgresql: await pgSettings(ctx) } : {}),
      ...(ctx.myServer ? { mariadb: await mySettings(ctx) } : {}),
    };
    for (const entry of entries) {
      const { runs, ...spec } = entry;
      const t = Date.now();
      try {
        const result = await runOne(spec, ctx, settings, log);
        result.servers = servers;
        // Settings changed for a diagnosis: the run is then not on stock settings.
        if (process.env.BENCH_PG_OPTIONS) result.pgOptions = process.env.BENCH_PG_OPTIONS;
        result.date = new Date(t).toISOString();
        result.commit = opts.commit ?? null;
        result.node = process.version;
        if (ctx.stockTable) result.stockTable = true;
        result.settings = settings;
        runs.push(result);
        log(`  ${spec.id}: ${line(result)} (${Math.round((Date.now() - t) / 1000)} s)`);
      } catch (err) {
        failed++;
        runs.push({
          error: String(err.message ?? err)
            .split('\n')
            .slice(0, 3)
            .join(' '),
        });
        log(`  ${spec.id}: FAILED ${runs[runs.length - 1].error}`);
      }
      save();
    }
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
  return failed;
}

async function pgSettings(ctx) {
  const names = [
    'server_version',
    'autovacuum',
    'shared_buffers',
    'synchronous_commit',
    'max_wal_size',
    'autovacuum_vacuum_scale_factor',
    'autovacuum_naptime',
  ];
  const { rows } = await ctx.pg('SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)', [names]);
  return Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]));
}

async function mySettings(ctx) {
  const rows = await ctx.my(
    "SHOW VARIABLES WHERE Variable_name IN ('version', 'innodb_buffer_pool_size', 'innodb_flush_log_at_trx_commit', 'transaction_isolation', 'innodb_purge_threads')",
  );
  return Object.fromEntries(rows.map((r) => [r.Variable_name, r.Value]));
}

/** One line for the log. */
export function line(r) {
  const s = r.summary ?? {};
  const base = `${r.case === 'c' ? 'producer' : 'rate'} ${r.rate ?? 'flat out'}, consumed ${s.consumedPerSec}/s, p50 ${s.p50} ms, p99 ${s.p99} ms, max backlog ${s.maxBacklog}`;
  if (r.case === 'c')
    return `${base}; at ${s.atTenth?.backlog ?? '-'}: ${s.atTenth?.consumedPerSec ?? '-'}/s, at ${s.atTarget?.backlog ?? '-'}: ${s.atTarget?.consumedPerSec ?? '-'}/s (${s.ratio ?? '-'}x)`;
  if (r.case === 'd')
    return `${base}; p99 before / held / after ${s.before?.p99} / ${s.during?.p99} / ${s.after?.p99} ms, backlog back after ${s.backlogBackAfter ?? '-'} s, dead back after ${s.deadBackAfter ?? '-'} s`;
  return `${base}; last/first minute ${s.lastOverFirst}x, size ${s.sizeAfterFirstMB} -> ${s.sizeEndMB} MB`;
}
