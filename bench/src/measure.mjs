/**
 * What every runner measures the same way: peak RSS sampled through the timed section, CPU of Node
 * and of the database server around it, and a check that each job ran exactly once.
 */
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { payload } from './config.mjs';
import { machineTicks, SERVER_PROCESSES, serverCpuMs, stealPct } from './sys.mjs';

export const now = () => performance.now();

/**
 * Samples RSS every 10 ms until stopped; `stop()` answers the highest seen in MB, `heap()` the V8
 * heap at that moment: the young generation's reserved size (new space, which V8 grows with a
 * sustained allocation rate), the old generation's, and the live heap.
 */
export function rssSampler() {
  let peak = process.memoryUsage.rss();
  let atPeak = heapNow();
  const timer = setInterval(() => {
    const r = process.memoryUsage.rss();
    if (r > peak) {
      peak = r;
      atPeak = heapNow();
    }
  }, 10);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const r = process.memoryUsage.rss();
      if (r > peak) peak = r;
      return Math.round((peak / 2 ** 20) * 10) / 10;
    },
    heap: () => atPeak,
  };
}

function heapNow() {
  const mb = (x) => Math.round((x / 2 ** 20) * 10) / 10;
  const space = (name) => v8.getHeapSpaceStatistics().find((s) => s.space_name === name)?.space_size ?? 0;
  return {
    newSpaceMB: mb(space('new_space')),
    oldSpaceMB: mb(space('old_space')),
    heapUsedMB: mb(process.memoryUsage().heapUsed),
  };
}

/**
 * Bytes this process allocates on the JS heap over a section, estimated by V8's sampling heap
 * profiler (one sample per 64 KiB allocated on average), counting the objects garbage collected
 * meanwhile too: an estimate of every allocation, not of what stays live. The inspector answers
 * synchronously on the main thread. Null where the profiler cannot start.
 */
function allocSampler() {
  let session;
  try {
    session = new Session();
    session.connect();
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 65536,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  } catch {
    return { stop: () => null };
  }
  return {
    stop() {
      let bytes = null;
      session.post('HeapProfiler.stopSampling', (err, r) => {
        if (!err) bytes = r.profile.samples.reduce((sum, x) => sum + x.size, 0);
      });
      session.disconnect();
      return bytes;
    },
  };
}

/**
 * CPU of this process and of the database server over a section, and the bytes Node allocated
 * (null with `alloc: false`). The memory cases (W4) measure without the allocation sampler: the
 * samples it keeps grow with the allocations, which is with the backlog, and its RSS is the
 * instrument's, not the system's (a 200,000-row drain peaked 6-9 MB higher with it).
 */
export function cpuMeter(db, { alloc: sampled = true } = {}) {
  const names = SERVER_PROCESSES[db] ?? [];
  const alloc = sampled ? allocSampler() : { stop: () => null };
  const node0 = process.cpuUsage();
  const server0 = names.length ? serverCpuMs(names) : 0;
  const ticks0 = machineTicks();
  return {
    stop() {
      const node = process.cpuUsage(node0);
      return {
        nodeCpuMs: Math.round((node.user + node.system) / 1000),
        serverCpuMs: names.length ? serverCpuMs(names) - server0 : null,
        allocBytes: alloc.stop(),
        stealPct: stealPct(ticks0, machineTicks()),
      };
    },
  };
}

/** Counts each job number once; `duplicates` counts the second deliveries. */
export function ledger(jobs) {
  const seen = new Uint8Array(jobs + 1);
  let count = 0;
  let duplicates = 0;
  return {
    mark(n) {
      if (n >= 1 && n <= jobs && seen[n] === 0) {
        seen[n] = 1;
        count++;
      } else duplicates++;
    },
    get count() {
      return count;
    },
    get duplicates() {
      return duplicates;
    },
  };
}

/** Resolves when `cond()` holds, checking every `ms`; rejects after `timeoutMs`. */
export async function until(cond, ms = 2, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, ms));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** p50/p95/p99/max of a list of numbers (ms), rounded to 0.01. */
export function percentiles(values) {
  if (values.length === 0) return { n: 0, p50: null, p95: null, p99: null, max: null };
  const s = Float64Array.from(values).sort();
  const at = (q) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
  const r = (x) => Math.round(x * 100) / 100;
  return { n: s.length, p50: r(at(0.5)), p95: r(at(0.95)), p99: r(at(0.99)), max: r(s[s.length - 1]) };
}

/**
 * W3's producer and what it measures, the same for every system: `run(publish)` calls
 * `publish(message)` `rate * (warmup + seconds)` times open loop, each on schedule whether or not
 * earlier ones returned, the message carrying its number `n` and `t`, the time just before the
 * call; the consumer calls `started(message)` as its handler starts. `result()` folds the
 * latencies of the `seconds` after the warm-up: enqueue to start, and split at the publish's
 * return, the publish and the pick-up. The first `warmup` seconds' jobs (both sides' connections
 * opening, the JIT compiling) are start-up, reported apart as `startup` (BENCH.md's rule for
 * drains: start-up reported apart).
 */
export function openLoop(spec) {
  const warm = Math.round(spec.rate * (spec.warmup ?? 0));
  const total = warm + Math.round(spec.rate * spec.seconds);
  const published = new Float64Array(total + 1);
  const sent = new Float64Array(total + 1);
  const lat = [];
  const startup = [];
  const starts = [];
  let received = 0;
  return {
    started(m) {
      const at = performance.timeOrigin + now();
      received++;
      if (m.n <= warm) {
        startup.push(at - m.t);
        return;
      }
      lat.push(at - m.t);
      starts.push([m.n, at]);
    },
    async run(publish) {
      const start = now();
      const inflight = new Set();
      for (let i = 1; i <= total; i++) {
        const due = start + ((i - 1) * 1000) / spec.rate;
        const wait = due - now();
        if (wait > 1) await sleep(wait);
        sent[i] = performance.timeOrigin + now();
        const p = publish({ ...payload(i), t: sent[i] }).then(() => {
          published[i] = performance.timeOrigin + now();
        });
        inflight.add(p);
        p.finally(() => inflight.delete(p));
      }
      await Promise.all(inflight);
      await until(() => received >= total, 5, 30_000).catch(() => {});
    },
    result() {
      const pickup = starts.filter(([n]) => published[n] > 0).map(([n, at]) => at - published[n]);
      const publish = [...published.subarray(warm + 1)]
        .map((at, i) => at - sent[warm + i + 1])
        .filter((x) => x > -1e9 && x < 1e9);
      return {
        ...percentiles(lat),
        ...(warm > 0 ? { warmup: spec.warmup, startup: percentiles(startup) } : {}),
        sent: total - warm,
        received: lat.length,
        publishMs: percentiles(publish),
        pickupMs: percentiles(pickup),
      };
    },
  };
}
