/**
 * `pnpm bench` run as a user runs it, in quick mode at a tenth of its backlogs, against the local
 * PostgreSQL and MariaDB and an SQLite file; its results file, table and chart are written into a
 * temporary folder and read back.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const PG_URL = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL =
  process.env.SQLINBOX_MYSQL_URL ??
  `mysql://root@127.0.0.1:3306/${process.env.SQLINBOX_MYSQL_DATABASE ?? 'test'}`;

interface Run {
  error?: string;
  rowsPerClaim?: number | null;
  jobsPerSec?: number;
  processed?: number;
  duplicates?: number;
  left?: number;
  sent?: number;
  received?: number;
  p50?: number;
  /** Latency: the warm-up's seconds and its jobs' latencies, reported apart. */
  warmup?: number;
  startup?: { n: number; p99: number | null };
}
interface LatencyEntry extends Entry {
  rate: number;
}
interface Window {
  t: number;
  produced: number;
  consumed: number;
  backlog: number;
  p99: number | null;
  dead?: number;
  tableMB?: number;
}
interface SustainedRun {
  error?: string;
  rate: number | null;
  windows: (Window & { stage?: 'before' | 'held' | 'after' })[];
  /** Case (d): when the REPEATABLE READ transaction was opened and committed, seconds into the run. */
  hold?: { from: number | null; to: number | null };
  summary: {
    consumedPerSec: number;
    p99: number | null;
    before?: { p99: number | null };
    during?: { p99: number | null };
    after?: { p99: number | null };
    maxBacklogHeld?: number;
    backlogBackAfter?: number | null;
  };
}
interface Entry {
  id: string;
  /** A raw loop's claim size; `engineOf` names the engine's drain whose rows per claim it is. */
  k?: number | 'engine';
  engineOf?: string;
  workload: 'drain' | 'latency' | 'enqueue' | 'recovery' | 'sustained';
  case?: 'a' | 'b' | 'c' | 'd' | 'e';
  db: 'pg' | 'mysql' | 'sqlite';
  kind: 'sqlinbox' | 'raw' | 'graphile' | 'pgboss' | 'bullmq';
  form?: 'rowlock' | 'lease' | 'advisory';
  memory?: number;
  jobs: number;
  runs: Run[];
}
interface Results {
  meta: { mode: string; scale: number };
  results: Entry[];
}

/** The benchmark's own objects: its PostgreSQL schemas and MariaDB tables, each named `bench_<pid>…`. */
async function leftovers(): Promise<string[]> {
  const pgc = new pg.Client({ connectionString: PG_URL });
  await pgc.connect();
  const my = await mysql.createConnection({ uri: MYSQL_URL });
  try {
    const { rows } = await pgc.query<{ name: string }>(
      "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'bench\\_%'",
    );
    const [tables] = await my.query<mysql.RowDataPacket[]>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'bench\\_%'",
    );
    return [...rows.map((r) => `pg:${r.name}`), ...tables.map((t) => `mysql:${String(t.name)}`)].sort();
  } finally {
    await pgc.end();
    await my.end();
  }
}

const figure = (x: number) => `**${Math.round(x).toLocaleString('en-US')}**`;
const SECTIONS = { pg: 'PostgreSQL', mysql: 'MariaDB', sqlite: 'SQLite' } as const;

describe('pnpm bench', () => {
  let dir: string;
  let before: string[];
  let results: Results;
  let table: string;
  let chart: string;
  let stdout: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlinbox-bench-check-'));
    before = await leftovers();
    const out = await promisify(execFile)(
      'pnpm',
      ['bench', '--', '--scale', '0.1', '--out', join(dir, 'results.json'), '--docs', join(dir, 'docs')],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_PG_URL: PG_URL, BENCH_MYSQL_URL: MYSQL_URL },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 840_000,
      },
    ).catch((err: Error & { stdout?: string }) => {
      // The run's own log names the case that failed: keep it in the error.
      const lines = (err.stdout ?? '').split('\n');
      const failed = lines.filter((l) => l.includes('FAILED'));
      throw new Error(`${err.message}\n${[...failed, ...lines.slice(-5)].join('\n')}`);
    });
    stdout = out.stdout;
    results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
    table = readFileSync(join(dir, 'docs', 'benchmarks.md'), 'utf8');
    chart = readFileSync(join(dir, 'docs', 'benchmarks', 'throughput.svg'), 'utf8');
  }, 900_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const drains = (db: Entry['db'], kind: Entry['kind'], form?: Entry['form']) =>
    results.results.filter(
      (e) =>
        e.workload === 'drain' && !e.memory && e.db === db && e.kind === kind && (!form || e.form === form),
    );
  /** The rows of one database's drain table: from its `### ` heading to the next heading. */
  const section = (db: Entry['db']) => {
    const at = table.indexOf(`### ${SECTIONS[db]}\n`);
    expect(at, `a drain table for ${SECTIONS[db]}`).toBeGreaterThan(-1);
    const rest = table.slice(at + 1);
    const end = rest.search(/\n#{2,3} /);
    return end === -1 ? rest : rest.slice(0, end);
  };

  it('R-PLUS-6 one quick run measures each form on PostgreSQL, MariaDB and SQLite beside its raw SQL loop, every job delivered once', () => {
    expect(results.meta.mode).toBe('quick');
    expect(results.meta.scale).toBe(0.1);
    const forms: [Entry['db'], Entry['form'][]][] = [
      ['pg', ['rowlock', 'lease', 'advisory']],
      ['mysql', ['rowlock', 'lease', 'advisory']],
      // SQLite has no row lock; its advisory keys live in one process.
      ['sqlite', ['lease', 'advisory']],
    ];
    for (const [db, list] of forms) {
      for (const form of list) {
        const ours = drains(db, 'sqlinbox', form);
        const raw = drains(db, 'raw', form);
        expect(ours.length, `sqlinbox ${db} ${form}`).toBeGreaterThan(0);
        expect(raw.length, `raw loop ${db} ${form}`).toBeGreaterThan(0);
        for (const e of [...ours, ...raw]) {
          const [run] = e.runs;
          expect(run?.error, e.id).toBeUndefined();
          expect(run?.jobsPerSec, e.id).toBeGreaterThan(0);
          expect(run?.processed, `${e.id}: jobs handled`).toBe(e.jobs);
          expect(run?.left, `${e.id}: rows left in the table`).toBe(0);
          expect(run?.duplicates ?? 0, `${e.id}: jobs handled twice`).toBe(0);
        }
      }
    }
  });

  it('R-PLUS-6 the same run measures graphile-worker and pg-boss on the same PostgreSQL', () => {
    for (const kind of ['graphile', 'pgboss'] as const) {
      const peers = drains('pg', kind);
      expect(peers.length, kind).toBeGreaterThan(1);
      for (const e of peers) {
        const [run] = e.runs;
        expect(run?.error, e.id).toBeUndefined();
        expect(run?.jobsPerSec, e.id).toBeGreaterThan(0);
        expect(run?.processed, `${e.id}: jobs handled`).toBe(e.jobs);
        expect(run?.left, `${e.id}: jobs left undone`).toBe(0);
      }
    }
    const latency = results.results.filter((e) => e.workload === 'latency');
    for (const kind of ['sqlinbox', 'raw', 'graphile', 'pgboss'] as const) {
      const e = latency.find((l) => l.kind === kind);
      expect(e, `a latency case for ${kind}`).toBeDefined();
      const [run] = e!.runs;
      expect(run?.received, e!.id).toBe(run?.sent);
      expect(run?.p50, e!.id).toBeGreaterThan(0);
      // The warm-up's jobs are counted apart, not in the percentiles.
      expect(run?.startup?.n, `${e!.id}: start-up jobs`).toBe((e as LatencyEntry).rate * run!.warmup!);
    }
  });

  it("R-PLUS-6 writes a table with every drain's measured figure and a ratio per form, and a chart of sqlinbox, the peers and the raw loops", () => {
    for (const db of ['pg', 'mysql', 'sqlite'] as const) {
      const rows = section(db);
      for (const e of results.results.filter((r) => r.workload === 'drain' && !r.memory && r.db === db)) {
        const run = e.runs[0]!;
        expect(rows, `${e.id}'s figure in the ${SECTIONS[db]} table`).toContain(figure(run.jobsPerSec!));
      }
    }
    const pgRows = section('pg');
    for (const name of [
      'sqlinbox row lock',
      'sqlinbox lease',
      'sqlinbox advisory',
      'raw row lock loop',
      'raw lease loop',
      'raw advisory loop',
      'graphile-worker tuned',
      'pg-boss',
    ])
      expect(pgRows).toContain(`| ${name}`);

    // The ratios: sqlinbox over graphile-worker and over each raw loop, from the measured figures.
    const ratios = table.slice(table.indexOf('## The ratios'), table.indexOf('## W2'));
    const jps = (id: string) => results.results.find((e) => e.id === id)!.runs[0]!.jobsPerSec!;
    const ours = jps('drain-pg-sqlinbox-lease-w32');
    const gw = jps('drain-pg-graphile-tuned-w32');
    expect(ratios).toContain(
      `${Math.round(ours).toLocaleString('en-US')} / ${Math.round(gw).toLocaleString('en-US')} jobs/s`,
    );
    for (const [db, forms] of [
      ['PostgreSQL', ['row lock', 'lease', 'advisory']],
      ['MariaDB', ['row lock', 'lease', 'advisory']],
    ] as const)
      for (const form of forms) expect(ratios).toMatch(new RegExp(`\\| ${db} ${form}[^|]*vs raw`));
    expect(stdout).toMatch(/(PASS|FAIL) {2}PostgreSQL lease, 32 workers, vs graphile-worker tuned/);

    expect(chart.startsWith('<svg')).toBe(true);
    const labels = [...chart.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    for (const name of [
      'sqlinbox lease',
      'sqlinbox row lock',
      'sqlinbox advisory',
      'graphile-worker tuned',
      'raw lease loop k=50',
      'MariaDB: sqlinbox lease',
      'SQLite: sqlinbox lease',
    ])
      expect(labels).toContain(name);
    expect(labels.some((l) => l?.startsWith('pg-boss'))).toBe(true);
    // A line per system (the eight named above at least), a point per system and worker count.
    const lines = chart.match(/<path\b/g)?.length ?? 0;
    expect(lines).toBeGreaterThanOrEqual(8);
    expect(chart.match(/<circle\b/g)?.length ?? 0).toBeGreaterThanOrEqual(lines);
  });

  it('R-LOAD-1 runs producers and consumers together on servers of its own, reporting each window and a chart per system', () => {
    const w6 = results.results.filter((e) => e.workload === 'sustained');
    const ids = w6.map((e) => e.id);
    for (const id of [
      'sustained-a-pg-sqlinbox-lease-sql',
      'sustained-a-pg-graphile-tuned',
      'sustained-a-pg-pgboss-work100burst',
      'sustained-a-mysql-sqlinbox-lease-sql',
      'sustained-a-sqlite-sqlinbox-lease-sql',
      'sustained-c-pg-sqlinbox-lease-sql',
      'sustained-d-pg-sqlinbox-lease-sql',
    ])
      expect(ids, id).toContain(id);
    for (const e of w6) {
      const run = e.runs[0] as unknown as SustainedRun;
      expect(run.error, e.id).toBeUndefined();
      expect(run.windows.length, `${e.id}: windows`).toBeGreaterThan(1);
      const produced = run.windows.reduce((a, w) => a + w.produced, 0);
      const consumed = run.windows.reduce((a, w) => a + w.consumed, 0);
      expect(produced, `${e.id}: produced`).toBeGreaterThan(0);
      expect(consumed, `${e.id}: consumed`).toBeGreaterThan(0);
      // The backlog is what was produced and not yet consumed, window by window. The producer is
      // counted after the consumers: on SQLite (a synchronous insert) no row can be consumed
      // before it is counted; on a server, a batch whose reply is still on the wire can (one batch).
      const slack = e.db === 'sqlite' ? 0 : 500;
      for (const w of run.windows) expect(w.backlog, `${e.id} at ${w.t} s`).toBeGreaterThanOrEqual(-slack);
      if (e.db === 'pg') {
        expect(
          run.windows.some((w) => (w.dead ?? 0) > 0),
          `${e.id}: dead tuples read`,
        ).toBe(true);
        expect(
          run.windows.every((w) => (w.tableMB ?? 0) > 0),
          `${e.id}: table size read`,
        ).toBe(true);
      }
    }
    const w6md = table.slice(table.indexOf('## W6'), table.indexOf('## Why'));
    expect(w6md).toContain('### (a) the sustainable rate, held');
    expect(w6md).toContain(
      '### (d) half the sustainable rate, a REPEATABLE READ transaction held in the middle',
    );
    expect(w6md).toMatch(
      /!\[PostgreSQL: sqlinbox lease \(plain-SQL producer\)\]\(benchmarks\/w6-pg-sqlinbox-lease-sql\.svg\)/,
    );
    const svg = readFileSync(join(dir, 'docs', 'benchmarks', 'w6-pg-sqlinbox-lease-sql.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline\b/g)?.length ?? 0).toBeGreaterThanOrEqual(4);
    expect(stdout).toMatch(
      /(PASS|FAIL) {2}W6 PostgreSQL sustainable rate: sqlinbox lease vs graphile-worker tuned/,
    );
  });

  it('R-LOAD-3 a REPEATABLE READ transaction held beside the queue is measured before, while and after it is held, and the queue consumes on after its commit', () => {
    const d = results.results.find((e) => e.id === 'sustained-d-pg-sqlinbox-lease-sql');
    expect(d, 'case (d) on PostgreSQL').toBeDefined();
    const run = d?.runs[0] as unknown as SustainedRun;
    expect(run.error).toBeUndefined();
    const { from, to } = run.hold ?? { from: null, to: null };
    expect(from, 'the transaction was opened').not.toBeNull();
    expect(to, 'and committed').not.toBeNull();
    expect(to as number).toBeGreaterThan(from as number);
    const stage = (s: string) => run.windows.filter((w) => w.stage === s);
    for (const s of ['before', 'held', 'after']) expect(stage(s).length, `windows ${s}`).toBeGreaterThan(0);
    // Rows published while the snapshot was held are consumed: after the commit the consumer runs on.
    expect(
      stage('after').reduce((a, w) => a + w.consumed, 0),
      'consumed after the commit',
    ).toBeGreaterThan(0);
    // The three stages' latencies and the backlog it left are reported, as figures or as "none".
    expect(typeof run.summary.maxBacklogHeld).toBe('number');
    expect(run.summary.before && run.summary.during && run.summary.after).toBeTruthy();
    expect(run.summary.backlogBackAfter === null || typeof run.summary.backlogBackAfter === 'number').toBe(
      true,
    );
    expect(stdout).toMatch(/p99 before \/ held \/ after \S+ \/ \S+ \/ \S+ ms, backlog back after/);
  });

  it('R-LOAD-4 each raw loop at the engine batch size runs at the rows per claim the engine reached in the same round, and every form is compared with it', () => {
    const limits = results.results.filter((e) => e.engineOf !== undefined);
    // PostgreSQL and MariaDB: lease and advisory; SQLite: lease.
    expect(limits.map((e) => e.id).sort()).toEqual(
      [
        'drain-mysql-raw-advisory-kengine-w32',
        'drain-mysql-raw-lease-batchdelete-kengine-w32',
        'drain-pg-raw-advisory-kengine-w32',
        'drain-pg-raw-lease-batchdelete-kengine-w32',
        'drain-sqlite-raw-lease-batchdelete-kengine-w1',
      ].sort(),
    );
    for (const e of limits) {
      const engine = results.results.find((x) => x.id === e.engineOf);
      const reached = engine?.runs.at(-1)?.rowsPerClaim;
      expect(reached, `${e.engineOf}: rows per claim`).toBeGreaterThan(0);
      const [run] = e.runs;
      expect(run?.error, e.id).toBeUndefined();
      // The loop's claim size is the engine's own, rounded (the run records the k it used).
      expect((run as Run & { k?: number }).k, e.id).toBe(Math.max(1, Math.round(reached as number)));
      expect(run?.processed, `${e.id}: jobs handled`).toBe(e.jobs);
      expect(run?.duplicates ?? 0, `${e.id}: jobs handled twice`).toBe(0);
    }
    for (const db of ['PostgreSQL', 'MariaDB'])
      for (const form of ['lease', 'advisory', 'row lock'])
        expect(stdout).toMatch(new RegExp(`(PASS|FAIL) {2}The limit: ${db} ${form}, 32 workers`));
  });

  it('R-LOAD-1 stops the servers it started and removes their data directories', () => {
    const ours = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return /sqlinbox-bench-(pg|my)-/.test(readFileSync(`/proc/${p}/cmdline`, 'utf8'));
        } catch {
          return false;
        }
      });
    expect(ours).toEqual([]);
    expect(readdirSync(tmpdir()).filter((f) => /^sqlinbox-bench-(pg|my)-/.test(f))).toEqual([]);
  });

  it('R-PLUS-6 leaves no schema or table of its own behind in PostgreSQL or MariaDB', async () => {
    expect(await leftovers()).toEqual(before);
  });
});
