/**
 * R-OPS-8 under real killed sessions: fresh worker processes (scripts/kill-loop-worker.mjs, the
 * built dist/: run `pnpm build` first) each run a broker while every session they open in their
 * first 1.5 s is ended with pg_terminate_backend (picked by database and application_name). Each
 * must stay alive and settle rows once the kills stop. The full measure is
 * `node scripts/kill-loop.mjs --n 100`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { skipWithoutServer } from '@sqlinbox/conformance';
import { expect, test } from 'vitest';

skipWithoutServer('SQLINBOX_PG_SKIP');

const script = fileURLToPath(new URL('../../../scripts/kill-loop.mjs', import.meta.url));

async function loop(driver: string, n: number, extra: string[] = []) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [script, '--drivers', driver, '--n', String(n), '--json', ...extra],
    { env: process.env, timeout: 170_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    workers: number;
    crashed: number;
    stalled: number;
    ok: number;
    kills: number;
    crashes: Record<string, number>;
    stalls: { worker: number; leased: number }[];
  };
}

for (const [driver, extra] of [
  ['pg', []],
  ['pg', ['--bare']],
  ['postgres.js', []],
] as const) {
  // Side by side: each loop ends only the sessions of its own workers (application_name names the
  // loop's process and the worker) and uses a table of its own.
  test.concurrent(`R-OPS-8 fresh ${driver}${extra.length ? ' (no pool error listener)' : ''} worker processes whose sessions are killed at checkout neither crash nor stall`, async () => {
    const r = await loop(driver, 10, [...extra]);
    expect(r.kills).toBeGreaterThan(0);
    expect(r.crashes).toEqual({});
    expect({ crashed: r.crashed, stalled: r.stalled, ok: r.ok, stalls: r.stalls }).toEqual({
      crashed: 0,
      stalled: 0,
      ok: 10,
      stalls: [],
    });
  }, 180_000);
}
