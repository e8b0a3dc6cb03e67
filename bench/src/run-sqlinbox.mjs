/**
 * sqlinbox in a child process: drain a prefilled table (W2, W4), the open-loop latency run (W3),
 * enqueue (W1), and the worker that W5 kills.
 */
import { Broker, Flows, Outcome, queue, silentLogger } from '@sqlinbox/core';
import { payload } from './config.mjs';
import { cpuMeter, ledger, now, openLoop, rssSampler, sleep, until } from './measure.mjs';
import { describe, openAdapter } from './tables.mjs';

/**
 * Counts the claim statements and the rows they took, and the settlement statements and the rows
 * they settled, by wrapping the dialect's `prepare` (the engine itself is untouched): rows per
 * claim and rows per settlement statement are what the batch sizes really were.
 */
export function instrument(adapter) {
  const stats = { claims: 0, rows: 0, empty: 0, wasted: 0, settleStatements: 0, settledRows: 0 };
  const dialect = adapter.dialect;
  const wrapped = Object.create(dialect);
  wrapped.prepare = (t, opts) => {
    const ops = dialect.prepare(t, opts);
    const w = Object.create(ops);
    const count = (rows) => {
      stats.claims++;
      stats.rows += rows.length;
      if (rows.length === 0) stats.empty++;
      return rows;
    };
    w.claimLease = async (...a) => count(await ops.claimLease(...a));
    w.claimLocked = async (...a) => count(await ops.claimLocked(...a));
    w.advisory = {
      ...ops.advisory,
      candidates: async (...a) => count(await ops.advisory.candidates(...a)),
      take: async (...a) => {
        const row = await ops.advisory.take(...a);
        if (row === null) stats.wasted++;
        return row;
      },
      ...(ops.advisory.lockAndTake
        ? {
            lockAndTake: async (...a) => {
              const r = await ops.advisory.lockAndTake(...a);
              if (r.locked && r.row === null) stats.wasted++;
              return r;
            },
          }
        : {}),
    };
    w.settle = (conn, s) => {
      stats.settleStatements++;
      stats.settledRows++;
      return ops.settle(conn, s);
    };
    if (ops.batch !== undefined) {
      w.batch = {
        settleMany: (conn, list) => {
          stats.settleStatements++;
          stats.settledRows += list.length;
          return ops.batch.settleMany(conn, list);
        },
        // Batched retries (the failure path), where the dialect has them.
        ...(ops.batch.returnMany === undefined
          ? {}
          : {
              returnMany: (conn, list) => {
                stats.settleStatements++;
                stats.settledRows += list.length;
                return ops.batch.returnMany(conn, list);
              },
            }),
      };
    }
    return w;
  };
  return { adapter: { ...adapter, dialect: wrapped }, stats };
}

function subscription(spec, table) {
  let q = queue(table).workers(spec.workers);
  if (spec.claimBatch !== undefined) q = q.claimBatch(spec.claimBatch);
  if (spec.prefetch !== undefined) q = q.prefetch(spec.prefetch);
  if (spec.lease !== undefined) q = q.lease(spec.lease);
  if (spec.flow === 'failonce') q = q.backoff(false);
  return q;
}

/** W2/W4: drain `spec.jobs` prefilled rows; start-up and drain timed apart. */
export async function drain(spec) {
  const { adapter: raw, close } = await openAdapter(spec.db, spec.workers + 2, spec.file);
  const { adapter, stats } = instrument(raw);
  const table = describe(spec.db, spec.form, spec.flow);
  const broker = new Broker(adapter, { logger: silentLogger, pollInterval: spec.pollInterval ?? 200 });
  const done = ledger(spec.jobs);
  // FIFO tables: row n is in group n % groups; a row started before an earlier row of its group is
  // out of order.
  const lastOf = new Map();
  let outOfOrder = 0;
  let first = 0;
  let last = 0;
  let settled = 0;
  broker.on('claimed', () => {
    if (first === 0) first = now();
  });
  // The failure path: a row is done at its ack (its first settlement is the failed delivery's retry).
  const failOnce = spec.flow === 'failonce';
  let failures = 0;
  broker.on('settled', (e) => {
    last = now();
    if (!failOnce || e.outcome === 'ack') settled++;
    else if (e.error !== undefined) failures++;
  });
  // The fan-in (docs/flows.md): a child acks its n as its result; the parent reads every child's.
  const flows = spec.flow === 'fanin' ? new Flows(adapter) : undefined;
  let childrenRead = 0;
  broker.subscribe(subscription(spec, table), async (m, ctx) => {
    if (failOnce && ctx.attempt === 1) throw new Error(`row ${m.n} fails its first delivery`);
    done.mark(m.n);
    if (flows !== undefined) {
      if (!m.parent) return Outcome.ack({ n: m.n });
      const kids = await flows.children(table, ctx.id);
      childrenRead = kids.filter((k) => k.state === 'done' && k.result?.n !== undefined).length;
      return Outcome.ack({ children: childrenRead });
    }
    if (spec.groups) {
      const g = m.n % spec.groups;
      if (m.n < (lastOf.get(g) ?? 0)) outOfOrder++;
      lastOf.set(g, m.n);
    }
  });
  const rss = rssSampler();
  // CPU from the start: a synchronous driver (SQLite) may drain before a timer fires.
  const cpu = cpuMeter(spec.db, { alloc: !spec.memory });
  const t0 = now();
  await broker.start();
  await until(() => settled >= spec.jobs, 2);
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await broker.shutdown({ timeout: 5000 });
  await close();
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
    ...(spec.groups ? { outOfOrder } : {}),
    ...(flows !== undefined ? { childrenRead } : {}),
    ...(failOnce ? { failures } : {}),
    claims: stats.claims,
    rowsPerClaim: stats.claims ? stats.rows / stats.claims : null,
    emptyClaims: stats.empty,
    wastedTakes: stats.wasted,
    settleStatements: stats.settleStatements,
    rowsPerSettle: stats.settleStatements ? stats.settledRows / stats.settleStatements : null,
  };
}

/**
 * W3: a producer broker (its own pool, no subscription) publishes at `spec.rate` jobs/s for
 * `spec.seconds`, open loop: each publish starts on schedule whether or not the previous one has
 * returned. The consumer broker wakes on PostgreSQL's NOTIFY (another broker's publish), elsewhere
 * on its poll. Latency is enqueue (just before `publish`) to handler start, on one clock.
 */
export async function latency(spec) {
  const consumer = await openAdapter(spec.db, spec.workers + 2, spec.file);
  const { adapter, stats } = instrument(consumer.adapter);
  // The producer's pool as graphile-worker's WorkerUtils (pg's default 10): at 1,000 jobs/s each
  // publish's commit waits on the disk's flush, and 4 connections queued the publishes behind it.
  const producer = await openAdapter(spec.db, 10, spec.file);
  const table = describe(spec.db, spec.form, spec.flow);
  const broker = new Broker(adapter, {
    logger: silentLogger,
    pollInterval: spec.pollInterval ?? 1000,
  });
  const pub = new Broker(producer.adapter, { logger: silentLogger });
  const loop = openLoop(spec);
  broker.subscribe(subscription(spec, table), async (m) => loop.started(m));
  await broker.start();
  await pub.start();
  await sleep(200);
  const rss = rssSampler();
  const cpu = cpuMeter(spec.db);
  await loop.run((m) => pub.publish(table, m));
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await broker.shutdown({ timeout: 2000 });
  await pub.shutdown();
  await consumer.close();
  await producer.close();
  return {
    ...loop.result(),
    ...usage,
    peakRssMB,
    claims: stats.claims,
    emptyClaims: stats.empty,
    rowsPerClaim: stats.claims ? stats.rows / stats.claims : null,
  };
}

/**
 * W1: `spec.jobs` publishes into an empty table, one message per `publish` at `spec.concurrency`
 * in flight, or `publishMany` in chunks of `spec.chunk` (with `spec.keys`, a distinct key each).
 */
export async function enqueue(spec) {
  const { adapter, close } = await openAdapter(spec.db, (spec.concurrency ?? 1) + 2, spec.file);
  const table = describe(spec.db, spec.form, spec.flow);
  const broker = new Broker(adapter, { logger: silentLogger });
  const rss = rssSampler();
  const cpu = cpuMeter(spec.db);
  const t0 = now();
  if (spec.chunk !== undefined) {
    for (let i = 0; i < spec.jobs; i += spec.chunk) {
      const n = Math.min(spec.chunk, spec.jobs - i);
      const messages = Array.from({ length: n }, (_, j) => payload(i + j + 1));
      // The keyed table's publish with a distinct key per message.
      if (spec.keys) await broker.publishMany(table, messages, { key: (m) => `k${m.n}` });
      else await broker.publishMany(table, messages);
    }
  } else {
    let next = 1;
    const lane = async () => {
      while (next <= spec.jobs) await broker.publish(table, payload(next++));
    };
    await Promise.all(Array.from({ length: spec.concurrency }, lane));
  }
  const ms = now() - t0;
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await broker.shutdown();
  await close();
  return { ms, jobsPerSec: spec.jobs / (ms / 1000), ...usage, peakRssMB };
}

/**
 * W5, the victim: claims with handlers that never end, tells the parent once every worker holds a
 * row, and waits to be SIGKILLed.
 */
export async function victim(spec, control) {
  const { adapter } = await openAdapter(spec.db, spec.workers + 2, spec.file);
  const table = describe(spec.db, spec.form, spec.flow);
  const broker = new Broker(adapter, { logger: silentLogger, pollInterval: 100 });
  let held = 0;
  broker.subscribe(subscription(spec, table), async () => {
    if (++held === spec.workers) control.send({ type: 'holding' });
    await new Promise(() => {});
  });
  await broker.start();
  await new Promise(() => {});
}

/**
 * W5, the rescuer: a second process already subscribed (polling every 100 ms) when the victim is
 * killed; answers how long after the kill every row the victim held was delivered again.
 */
export async function rescue(spec, control) {
  const { adapter, close } = await openAdapter(spec.db, spec.workers + 2, spec.file);
  const table = describe(spec.db, spec.form, spec.flow);
  const broker = new Broker(adapter, { logger: silentLogger, pollInterval: 100 });
  const at = [];
  broker.subscribe(subscription(spec, table), async () => {
    at.push(Date.now());
  });
  await broker.start();
  control.send({ type: 'ready' });
  const killedAt = await control.next('killed').then((m) => m.at);
  await until(() => at.length >= spec.jobs, 5, 120_000);
  await broker.shutdown({ timeout: 2000 });
  await close();
  // A row delivered here before the kill was delivered twice: that would be a bug.
  return {
    redeliveredMs: Math.max(...at) - killedAt,
    deliveredBeforeKill: at.filter((t) => t < killedAt).length,
  };
}
