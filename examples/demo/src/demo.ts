/**
 * A small real service on an embedded SQLite file, no server to install and nothing to compile:
 * Node's built-in node:sqlite is the driver (R-PLUS-5, R-RUN-2).
 *
 * It publishes a few thousand jobs, processes them with several workers (some fail once and are
 * retried, a few always fail and are dead-lettered at the attempt limit), shows a live progress
 * bar, and prints a summary: processed, retried, dead-lettered, lost (must be 0), throughput.
 *
 *   pnpm demo                 # 3000 jobs, 8 workers
 *   pnpm demo -- --jobs 10000 --workers 16
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Broker, inbox, Outcome, queue, silentLogger } from '@sqlinbox/core';
import { sqlite } from '@sqlinbox/dialect-sqlite';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '3000' },
    workers: { type: 'string', default: '8' },
    file: { type: 'string', default: join(tmpdir(), `sqlinbox-demo-${process.pid}.sqlite`) },
  },
});
const JOBS = Number(values.jobs);
const WORKERS = Number(values.workers);
const FILE = values.file!;

interface Thumbnail {
  image: number;
  /** Fails on its first attempt, then succeeds: a retried job. */
  flaky: boolean;
  /** Always fails: dead-lettered at the third attempt. */
  broken: boolean;
}

const thumbnails = inbox({
  table: 'thumbnails',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
});

async function main(): Promise<void> {
  const adapter = sqlite({ filename: FILE, connections: 4 });
  const setup = await adapter.pool.acquire();
  for (const stmt of adapter.dialect.ddl(thumbnails, { deadLetterTable: 'thumbnails_dead' }))
    await setup.query(stmt);
  await setup.query('CREATE TABLE IF NOT EXISTS done (job INTEGER PRIMARY KEY)');
  adapter.pool.release(setup);

  const broker = new Broker(adapter, { logger: silentLogger, lease: '10s', pollInterval: 100 });
  let processed = 0;
  let retried = 0;
  let deadLettered = 0;
  broker.on('deadLettered', () => deadLettered++);

  broker.subscribe(
    queue(thumbnails).workers(WORKERS).maxAttempts(3).deadLetter({ table: 'thumbnails_dead' }),
    async (job, ctx) => {
      const t = job as Thumbnail;
      await new Promise((r) => setTimeout(r, Math.random() * 2)); // "render"
      if (t.broken || (t.flaky && ctx.attempt === 1)) {
        retried++;
        return Outcome.retry();
      }
      // A ledger with one row per job: a second delivery of a settled job would fail here.
      const conn = await adapter.pool.acquire();
      try {
        await conn.query('INSERT INTO done (job) VALUES (?)', [t.image]);
      } finally {
        adapter.pool.release(conn);
      }
      processed++;
      return Outcome.ack();
    },
  );

  const publishStart = Date.now();
  const jobs: Thumbnail[] = Array.from({ length: JOBS }, (_, image) => ({
    image,
    flaky: image % 20 === 7,
    broken: image % 150 === 3,
  }));
  for (let i = 0; i < jobs.length; i += 500) await broker.publishMany(thumbnails, jobs.slice(i, i + 500));
  const publishMs = Date.now() - publishStart;

  const start = Date.now();
  await broker.start();
  const expectedDead = jobs.filter((j) => j.broken).length;
  let last = 0;
  let lastChange = Date.now();
  while (processed + deadLettered < JOBS && Date.now() - lastChange < 30_000) {
    const now = processed + deadLettered;
    if (now !== last) [last, lastChange] = [now, Date.now()];
    progress(now, JOBS, start);
    await new Promise((r) => setTimeout(r, 100));
  }
  progress(JOBS, JOBS, start);
  const drainMs = Date.now() - start;
  // shutdown() ends the pool the adapter made from the file name: the summary reads the file anew.
  await broker.shutdown();

  const reader = sqlite({ filename: FILE, connections: 1 });
  const conn = await reader.pool.acquire();
  const count = async (sql: string) => Number((await conn.query<{ n: number }>(sql)).rows[0]!.n);
  const sqliteVersion = String((await conn.query<{ v: string }>('SELECT sqlite_version() AS v')).rows[0]!.v);
  const left = await count('SELECT COUNT(*) AS n FROM thumbnails');
  const dead = await count('SELECT COUNT(*) AS n FROM thumbnails_dead');
  const done = await count('SELECT COUNT(*) AS n FROM done');
  reader.pool.release(conn);
  await reader.close();
  rmSync(FILE, { force: true });
  for (const ext of ['-wal', '-shm']) rmSync(FILE + ext, { force: true });

  const lost = JOBS - done - dead - left;
  process.stdout.write('\n');
  const rows: [string, string][] = [
    ['driver', `node:sqlite (SQLite ${sqliteVersion}, Node ${process.version})`],
    ['published', `${JOBS} (in ${publishMs} ms)`],
    ['processed', String(done)],
    ['retried', String(retried)],
    ['dead-lettered', `${dead} (expected ${expectedDead})`],
    ['left in queue', String(left)],
    ['lost', String(lost)],
    ['throughput', `${Math.round((JOBS / drainMs) * 1000)} jobs/s with ${WORKERS} workers (${drainMs} ms)`],
  ];
  for (const [k, v] of rows) process.stdout.write(`${k.padEnd(14)} ${v}\n`);
  if (lost !== 0 || left !== 0 || dead !== expectedDead || done !== JOBS - expectedDead) process.exitCode = 1;
}

function progress(done: number, total: number, start: number): void {
  const width = 40;
  const filled = Math.round((done / total) * width);
  const rate = Math.round((done / Math.max(1, Date.now() - start)) * 1000);
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${rate} jobs/s`;
  if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
  else if (done === total || done % 1000 < 50) process.stdout.write(`${line}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
