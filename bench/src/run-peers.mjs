/**
 * The peers in a child process, on the same PostgreSQL: graphile-worker 0.18 (defaults, and tuned
 * as its performance docs say), pg-boss 12 (`work()` at batchSize 1 and 100 polling every 0.5 s,
 * `work()` at batchSize 100 with `burstWhenBatchFull`, and a `fetch`/`complete` loop) and BullMQ 6's
 * PostgreSQL backend (`createPostgresBackend`) at its defaults.
 *
 * The peers settle after the handler returns and none tells when its settlement committed
 * (graphile-worker does not await `completeJob`; pg-boss completes after its handler), so the drain
 * ends when the handlers have all run AND the database shows no unsettled job, polled every 2 ms.
 */

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Logger, makeWorkerUtils, run } from 'graphile-worker';
import pgLib from 'pg';
import { PgBoss } from 'pg-boss';
import { BOSS_SCHEMA, BULL_SCHEMA, GW_SCHEMA, PG_URL } from './config.mjs';
import { cpuMeter, ledger, now, openLoop, rssSampler, sleep, until } from './measure.mjs';

const silent = new Logger(() => () => {});
export const QUEUE = 'bench';

/** graphile-worker's options: its defaults but for `concurrency`, or tuned for throughput. */
export function graphileOptions(variant, workers) {
  const base = {
    connectionString: PG_URL,
    schema: GW_SCHEMA,
    concurrency: workers,
    noHandleSignals: true,
    logger: silent,
  };
  if (variant === 'default') return base;
  return {
    ...base,
    maxPoolSize: workers + 2,
    preset: { worker: { localQueue: { size: 100 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  };
}

async function unsettled(client, sql, params = []) {
  const r = await client.query(sql, params);
  return Number(r.rows[0].n);
}

/** W2 for graphile-worker. */
async function graphileDrain(spec) {
  const done = ledger(spec.jobs);
  let first = 0;
  const rss = rssSampler();
  const t0 = now();
  let cpu;
  const runner = await run({
    ...graphileOptions(spec.variant, spec.workers),
    taskList: {
      [QUEUE]: async (p) => {
        if (first === 0) {
          first = now();
          cpu = cpuMeter('pg', { alloc: !spec.memory });
        }
        done.mark(p.n);
      },
    },
  });
  const probe = new pgLib.Client({ connectionString: PG_URL });
  await probe.connect();
  await until(() => done.count + done.duplicates >= spec.jobs, 2);
  await until(
    async () => (await unsettled(probe, `SELECT count(*) AS n FROM "${GW_SCHEMA}"._private_jobs`)) === 0,
    2,
  );
  const last = now();
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await runner.stop();
  await probe.end();
  const drainMs = last - first;
  return {
    startupMs: first - t0,
    drainMs,
    jobsPerSec: spec.jobs / (drainMs / 1000),
    ...usage,
    peakRssMB,
    heapAtPeak: rss.heap(),
    processed: done.count,
    duplicates: done.duplicates,
  };
}

/**
 * pg-boss's constructor options: no maintenance or scheduling in the timed process, the schema made
 * beforehand; `listen` opens pg-boss 12's LISTEN connection (the latency run's consumer).
 */
export function bossOptions(workers, listen = false) {
  return {
    connectionString: PG_URL,
    schema: BOSS_SCHEMA,
    max: workers + 2,
    supervise: false,
    schedule: false,
    migrate: false,
    ...(listen ? { useListenNotify: true } : {}),
  };
}

/**
 * pg-boss's `work()` options for `spec.workers` workers (pg-boss 12's `localConcurrency`: that many
 * fetch loops in one call): batchSize `spec.batch`, polling every 0.5 s (its floor), and for the
 * burst variant `burstWhenBatchFull` (a full batch fetches again at once), the option its docs give
 * for draining a backlog.
 */
export function bossWorkOptions(spec) {
  return {
    batchSize: spec.batch,
    pollingIntervalSeconds: 0.5,
    localConcurrency: spec.workers,
    ...(spec.variant.endsWith('burst') ? { burstWhenBatchFull: true } : {}),
  };
}

/** W2 for pg-boss: `work()` per worker at `spec.batch`, or `fetch`/`complete` loops. */
async function bossDrain(spec) {
  const done = ledger(spec.jobs);
  let first = 0;
  let cpu;
  const rss = rssSampler();
  const t0 = now();
  const boss = new PgBoss(bossOptions(spec.workers));
  boss.on('error', () => {});
  await boss.start();
  const mark = (jobs) => {
    if (first === 0 && jobs.length > 0) {
      first = now();
      cpu = cpuMeter('pg', { alloc: !spec.memory });
    }
    for (const j of jobs) done.mark(j.data.n);
  };
  if (spec.variant.startsWith('fetch')) {
    const loop = async () => {
      for (;;) {
        const jobs = await boss.fetch(QUEUE, { batchSize: spec.batch });
        if (jobs.length === 0) return;
        mark(jobs);
        await boss.complete(
          QUEUE,
          jobs.map((j) => j.id),
        );
      }
    };
    await Promise.all(Array.from({ length: spec.workers }, loop));
  } else {
    await boss.work(QUEUE, bossWorkOptions(spec), async (jobs) => mark(jobs));
  }
  const probe = new pgLib.Client({ connectionString: PG_URL });
  await probe.connect();
  await until(() => done.count + done.duplicates >= spec.jobs, 2);
  await until(
    async () =>
      (await unsettled(
        probe,
        `SELECT count(*) AS n FROM "${BOSS_SCHEMA}".job WHERE name = $1 AND state < 'completed'`,
        [QUEUE],
      )) === 0,
    2,
  );
  const last = now();
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await boss.stop({ graceful: false, wait: true, close: true, timeout: 2000 });
  await probe.end();
  const drainMs = last - first;
  return {
    startupMs: first - t0,
    drainMs,
    jobsPerSec: spec.jobs / (drainMs / 1000),
    ...usage,
    peakRssMB,
    heapAtPeak: rss.heap(),
    processed: done.count,
    duplicates: done.duplicates,
  };
}

/**
 * BullMQ (6.x ships a PostgreSQL backend, `createPostgresBackend`): from the workspace (a bench
 * dependency; msgpackr-extract's install script stays off, its prebuilt binary loads without it), or
 * from a copy installed elsewhere with npm, named by BENCH_BULLMQ_DIR. Null where neither loads.
 */
export async function loadBullmq() {
  try {
    if (process.env.BENCH_BULLMQ_DIR)
      return createRequire(join(process.env.BENCH_BULLMQ_DIR, 'noop.js'))('bullmq');
    return await import('bullmq');
  } catch {
    return null;
  }
}

/** BullMQ's connection: its own schema, migrated on first use. Its defaults otherwise (it keeps completed jobs). */
export const bullConnection = () => ({ connectionString: PG_URL, schema: BULL_SCHEMA, migrate: true });

/** W2 for BullMQ: a Worker at `concurrency` = workers, its defaults otherwise. */
async function bullDrain(spec) {
  const bull = await loadBullmq();
  const done = ledger(spec.jobs);
  let first = 0;
  let cpu;
  const rss = rssSampler();
  const t0 = now();
  let childrenRead;
  const worker = new bull.Worker(
    QUEUE,
    async (job) => {
      if (first === 0) {
        first = now();
        cpu = cpuMeter('pg', { alloc: !spec.memory });
      }
      done.mark(job.data.n);
      // The fan-in's parent (FlowProducer): reads every child's return value.
      if (job.data.parent) {
        childrenRead = Object.values(await job.getChildrenValues()).filter((v) => v?.n !== undefined).length;
        return { children: childrenRead };
      }
      return spec.flow === 'fanin' ? { n: job.data.n } : undefined;
    },
    { connection: bullConnection(), concurrency: spec.workers },
    bull.createPostgresBackend,
  );
  worker.on('error', () => {});
  const probe = new pgLib.Client({ connectionString: PG_URL });
  await probe.connect();
  await until(() => done.count + done.duplicates >= spec.jobs, 2);
  await until(
    async () =>
      (await unsettled(
        probe,
        `SELECT count(*) AS n FROM "${BULL_SCHEMA}".job WHERE state NOT IN ('completed', 'failed')`,
      )) === 0,
    2,
  );
  const last = now();
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await worker.close();
  await probe.end();
  const drainMs = last - first;
  return {
    startupMs: first - t0,
    drainMs,
    jobsPerSec: spec.jobs / (drainMs / 1000),
    ...usage,
    peakRssMB,
    heapAtPeak: rss.heap(),
    processed: done.count,
    duplicates: done.duplicates,
    ...(childrenRead === undefined ? {} : { childrenRead }),
  };
}

export async function drain(spec) {
  if (spec.kind === 'graphile') return graphileDrain(spec);
  if (spec.kind === 'pgboss') return bossDrain(spec);
  if (spec.kind === 'bullmq') return bullDrain(spec);
  throw new Error(`no peer ${spec.kind}`);
}

/** W3 for the peers: the same open-loop producer, through each library's own enqueue. */
export async function latency(spec) {
  const loop = openLoop(spec);
  const handle = (p) => loop.started(p);
  let stop;
  let produce;
  let closeProducer;
  if (spec.kind === 'graphile') {
    const runner = await run({
      ...graphileOptions(spec.variant, spec.workers),
      taskList: { [QUEUE]: async (p) => handle(p) },
    });
    const utils = await makeWorkerUtils({ connectionString: PG_URL, schema: GW_SCHEMA, logger: silent });
    produce = (p) => utils.addJob(QUEUE, p);
    stop = () => runner.stop();
    closeProducer = () => utils.release();
  } else if (spec.kind === 'bullmq') {
    const bull = await loadBullmq();
    const worker = new bull.Worker(
      QUEUE,
      async (job) => handle(job.data),
      { connection: bullConnection(), concurrency: spec.workers },
      bull.createPostgresBackend,
    );
    worker.on('error', () => {});
    const queue = new bull.Queue(QUEUE, { connection: bullConnection() }, bull.createPostgresBackend);
    produce = (p) => queue.add('job', p);
    stop = () => worker.close();
    closeProducer = () => queue.close();
  } else {
    // pg-boss 12 wakes its workers on NOTIFY where the queue has `notify` (see setup.mjs) and the
    // instance listens; its polling stays as the backstop.
    const boss = new PgBoss(bossOptions(spec.workers, true));
    boss.on('error', () => {});
    await boss.start();
    await boss.work(QUEUE, bossWorkOptions(spec), async (jobs) => {
      for (const j of jobs) handle(j.data);
    });
    // A pool of 10, as every producer here (graphile-worker's WorkerUtils: pg's default).
    const producer = new PgBoss({ ...bossOptions(8) });
    producer.on('error', () => {});
    await producer.start();
    produce = (p) => producer.send(QUEUE, p);
    stop = () => boss.stop({ graceful: false, wait: true, close: true, timeout: 2000 });
    closeProducer = () => producer.stop({ graceful: false, wait: true, close: true, timeout: 2000 });
  }
  await sleep(300);
  const rss = rssSampler();
  const cpu = cpuMeter('pg');
  await loop.run(produce);
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await stop();
  await closeProducer();
  return { ...loop.result(), ...usage, peakRssMB };
}
