/**
 * The machine, the versions, and CPU time read from /proc: the Node process's own through
 * `process.cpuUsage()`, the database server's as the summed utime + stime of its processes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/**
 * CPU milliseconds used so far by every process whose name is one of `names`: the run time of
 * /proc/<pid>/schedstat (nanoseconds; the 10 ms ticks of /proc/<pid>/stat round a short-lived
 * backend's CPU down to nothing), summed over its threads. A thread that ends between two readings loses its share.
 */
export function serverCpuMs(names) {
  let ns = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (!names.includes(comm)) continue;
      // Every thread's (mariadbd serves each connection on a thread of its own).
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      }
    } catch {
      // the process ended meanwhile
    }
  }
  return Math.round(ns / 1e6);
}

/**
 * The machine's CPU ticks from /proc/stat's first line: all of them, and the steal (time a virtual
 * machine's cores waited for the host). A case run while the host was busy elsewhere shows it.
 */
export function machineTicks() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return null; // not Linux
  }
}

/** The share of the machine's CPU time stolen by the host between two {@link machineTicks}. */
export function stealPct(a, b) {
  if (a === null || b === null || b.total <= a.total) return null;
  return Math.round((1000 * (b.steal - a.steal)) / (b.total - a.total)) / 10;
}

export const SERVER_PROCESSES = { pg: ['postgres'], mysql: ['mariadbd', 'mysqld'], sqlite: [] };

/** nproc, memory and CPU model. */
export function machine() {
  const list = cpus();
  return {
    nproc: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    cpuModel: list[0]?.model?.trim() ?? 'unknown',
    platform: `${process.platform} ${process.arch}`,
  };
}
