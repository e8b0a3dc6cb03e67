/**
 * W6's processes: a producer and the consumers, each a child of its own (sustained.mjs forks them
 * with the W6 server's URL in BENCH_PG_URL / BENCH_MYSQL_URL, so config.mjs and tables.mjs point
 * there). The orchestrator sends `rate` (jobs/s; `Infinity`: flat out), `sample` (answer the counts
 * since the last sample) and `stop`.
 *
 * Every job carries `t`, the time (ms since the epoch, fractional) just before the statement that
 * inserts it is sent; a consumer records enqueue-to-start (its handler's start less `t`, on the
 * machine's one clock) in an HDR histogram, sent back encoded with each sample so the orchestrator
 * can merge the consumers' and the windows'.
 */
import { performance } from 'node:perf_hooks';
import * as hdr from 'hdr-histogram-js';
import { GW_SCHEMA, MYSQL_URL, PG_URL, sqliteFile } from './config.mjs';
import { QUEUE } from './run-peers.mjs';
import { describeSustained, tableName } from './tables.mjs';

const epochMs = () => performance.timeOrigin + performance.now();
export const histogram = () =>
  hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 2,
  });

/** The rows one insert carries at most; flat out, each connection inserts batches of this size. */
const MAX_BATCH = 500;
/** The producer's connections: inserts in flight at once. */
const PRODUCER_CONNECTIONS = 4;

/** The hot-key case: the small keys' names, `k0`..`k{n-1}`. */
const keyOf = (spec, n) => (spec.keys ? `k${n % spec.keys}` : undefined);

/**
 * How a producer inserts a batch of payloads, per system and producer kind: `sql` a plain INSERT
 * of the batch in one statement (another service writing rows), `publish` the library's batch
 * publish (sqlinbox `publishMany`, graphile-worker `addJobs`, pg-boss `insert`).
 */
async function inserter(spec) {
  const T = tableName(spec.db);
  if (spec.kind === 'graphile') {
    const { makeWorkerUtils, Logger } = await import('graphile-worker');
    const utils = await makeWorkerUtils({
      connectionString: PG_URL,
      schema: GW_SCHEMA,
      logger: new Logger(() => () => {}),
    });
    return {
      insert: (batch) =>
        utils.addJobs(
          batch.map((p) => ({
            identifier: QUEUE,
            payload: p,
            ...(p.k ? { queueName: p.k } : {}),
          })),
        ),
      close: () => utils.release(),
    };
  }
  if (spec.kind === 'pgboss') {
    const { PgBoss } = await import('pg-boss');
    const { bossOptions } = await import('./run-peers.mjs');
    const boss = new PgBoss({ ...bossOptions(PRODUCER_CONNECTIONS) });
    boss.on('error', () => {});
    await boss.start();
    return {
      insert: (batch) =>
        boss.insert(
          QUEUE,
          batch.map((d) => ({ data: d })),
        ),
      close: () => boss.stop({ graceful: false, wait: true, close: true, timeout: 2000 }),
    };
  }
  if (spec.producer === 'publish') {
    const { Broker, silentLogger } = await import('@sqlinbox/core');
    const { openAdapter } = await import('./tables.mjs');
    const { adapter, close } = await openAdapter(spec.db, PRODUCER_CONNECTIONS, spec.file);
    const broker = new Broker(adapter, { logger: silentLogger });
    const table = describeSustained(spec);
    await broker.start();
    return {
      insert: (batch) =>
        spec.keys
          ? Promise.all(batch.map((p) => broker.publish(table, p, { columns: { job_key: p.k } })))
          : broker.publishMany(table, batch),
      close: async () => {
        await broker.shutdown();
        await close();
      },
    };
  }
  if (spec.db === 'pg') {
    const { default: pgLib } = await import('pg');
    const pool = new pgLib.Pool({ connectionString: PG_URL, max: PRODUCER_CONNECTIONS });
    const table = `"${T.split('.').join('"."')}"`;
    const text = spec.keys
      ? `INSERT INTO ${table} (payload, job_key) SELECT x, x->>'k' FROM jsonb_array_elements($1::jsonb) x`
      : `INSERT INTO ${table} (payload) SELECT x FROM jsonb_array_elements($1::jsonb) x`;
    return {
      insert: (batch) => pool.query({ name: 'produce', text, values: [JSON.stringify(batch)] }),
      close: () => pool.end(),
    };
  }
  if (spec.db === 'mysql') {
    const { default: mysql } = await import('mysql2/promise');
    const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: PRODUCER_CONNECTIONS });
    return {
      insert: (batch) =>
        spec.keys
          ? pool.query(`INSERT INTO \`${T}\` (payload, job_key) VALUES ?`, [
              batch.map((p) => [JSON.stringify(p), p.k]),
            ])
          : pool.query(`INSERT INTO \`${T}\` (payload) VALUES ?`, [batch.map((p) => [JSON.stringify(p)])]),
      close: () => pool.end(),
    };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(sqliteFile(spec.file), { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const st = db.prepare(`INSERT INTO "${T}" (payload) SELECT value FROM json_each(?)`);
  return {
    // Synchronous: one insert at a time, in this process, as a service on SQLite would.
    insert: async (batch) => st.run(JSON.stringify(batch)),
    close: async () => db.close(),
  };
}

/**
 * The producer: at `rate` jobs/s, open loop, a batch every 5 ms of the jobs due since the last
 * (at most {@link MAX_BATCH}), on whichever of its connections is free; jobs due while every
 * connection is busy wait for the next free one, so a producer that cannot keep up shows as
 * produced < rate. Flat out (`Infinity`), every connection inserts batches of {@link MAX_BATCH}
 * back to back.
 */
export async function producer(spec, control) {
  const ins = await inserter(spec);
  const connections = spec.db === 'sqlite' ? 1 : PRODUCER_CONNECTIONS;
  let rate = 0;
  let anchor = performance.now();
  let issued = 0;
  let n = spec.firstN ?? 0;
  let produced = 0;
  let free = connections;
  let stopped = false;
  let failure;
  let cpu0 = process.cpuUsage();
  const batchOf = (size) => {
    const t = epochMs();
    return Array.from({ length: size }, () => {
      n++;
      const k = keyOf(spec, n);
      return k === undefined ? { n, p: 'abcdef', t } : { n, p: 'abcdef', t, k };
    });
  };
  const send = (size) => {
    free--;
    issued += size;
    ins
      .insert(batchOf(size))
      .then(() => {
        produced += size;
      })
      .catch((err) => {
        failure ??= err;
      })
      .finally(() => {
        free++;
      });
  };
  control.on('rate', (m) => {
    rate = m.rate === null ? Infinity : m.rate;
    anchor = performance.now();
    issued = 0;
  });
  control.on('sample', () => {
    const cpu = process.cpuUsage(cpu0);
    cpu0 = process.cpuUsage();
    const owed = Number.isFinite(rate)
      ? Math.max(0, Math.floor((rate * (performance.now() - anchor)) / 1000) - issued)
      : 0;
    control.send({ type: 'sample', produced, owed, cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
    produced = 0;
  });
  control.send({ type: 'ready' });
  const stop = control.next('stop').then(() => {
    stopped = true;
  });
  while (!stopped) {
    if (failure) throw failure;
    if (rate === Infinity) {
      while (free > 0) send(MAX_BATCH);
    } else if (rate > 0) {
      const due = Math.floor((rate * (performance.now() - anchor)) / 1000) - issued;
      // A stretch the producer fell behind in is not made up in one burst larger than a batch.
      let left = due;
      while (left > 0 && free > 0) {
        const size = Math.min(left, MAX_BATCH);
        send(size);
        left -= size;
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await stop;
  while (free < connections) await new Promise((r) => setTimeout(r, 5));
  await ins.close();
  return { produced };
}

/** A consumer's tally: jobs started since the last sample and their latencies. */
function tally() {
  const h = histogram();
  let consumed = 0;
  let hot = 0;
  let cpu0 = process.cpuUsage();
  return {
    started(payload) {
      consumed++;
      // The hot key's rows were there before the clock started: counted, not timed.
      if (payload.k === 'hot') {
        hot++;
        return;
      }
      const us = Math.round((epochMs() - payload.t) * 1000);
      h.recordValue(Math.max(1, Math.min(us, 3_600_000_000)));
    },
    sample(extra = {}) {
      const cpu = process.cpuUsage(cpu0);
      cpu0 = process.cpuUsage();
      const out = {
        type: 'sample',
        consumed,
        hot,
        hist: hdr.encodeIntoCompressedBase64(h),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        rssMB: Math.round(process.memoryUsage.rss() / 2 ** 20),
        ...extra,
      };
      consumed = 0;
      hot = 0;
      h.reset();
      return out;
    },
  };
}

/** The consumer: the system's worker at `spec.workers`, its settings as W6 names them. */
export async function consumer(spec, control) {
  const t = tally();
  let stop;
  let extra = () => ({});
  if (spec.kind === 'sqlinbox') {
    const { Broker, queue, silentLogger } = await import('@sqlinbox/core');
    const { openAdapter } = await import('./tables.mjs');
    const { instrument } = await import('./run-sqlinbox.mjs');
    const opened = await openAdapter(spec.db, spec.workers + 2, spec.file);
    const { adapter, stats } = instrument(opened.adapter);
    const broker = new Broker(adapter, { logger: silentLogger });
    broker.subscribe(queue(describeSustained(spec)).workers(spec.workers), async (m) => t.started(m));
    await broker.start();
    let last = { ...stats };
    extra = () => {
      const d = {
        claims: stats.claims - last.claims,
        claimedRows: stats.rows - last.rows,
        emptyClaims: stats.empty - last.empty,
        settleStatements: stats.settleStatements - last.settleStatements,
        settledRows: stats.settledRows - last.settledRows,
      };
      last = { ...stats };
      return d;
    };
    stop = async () => {
      await broker.shutdown({ timeout: 5000 });
      await opened.close();
    };
  } else if (spec.kind === 'graphile') {
    const { run } = await import('graphile-worker');
    const { graphileOptions } = await import('./run-peers.mjs');
    const runner = await run({
      ...graphileOptions(spec.variant ?? 'tuned', spec.workers),
      taskList: { [QUEUE]: async (p) => t.started(p) },
    });
    stop = () => runner.stop();
  } else if (spec.kind === 'pgboss') {
    const { PgBoss } = await import('pg-boss');
    const { bossOptions } = await import('./run-peers.mjs');
    // Its maintenance on, as pg-boss runs by default; NOTIFY on (the queue is made with `notify`).
    const boss = new PgBoss({ ...bossOptions(spec.workers, true), supervise: true });
    boss.on('error', () => {});
    await boss.start();
    await boss.work(
      QUEUE,
      {
        batchSize: spec.batch ?? 100,
        pollingIntervalSeconds: 0.5,
        localConcurrency: spec.workers,
        burstWhenBatchFull: true,
      },
      async (jobs) => {
        for (const j of jobs) t.started(j.data);
      },
    );
    stop = () => boss.stop({ graceful: false, wait: true, close: true, timeout: 5000 });
  } else throw new Error(`no W6 consumer for ${spec.kind}`);
  control.on('sample', () => control.send(t.sample(extra())));
  control.send({ type: 'ready' });
  await control.next('stop');
  await stop();
  return {};
}
