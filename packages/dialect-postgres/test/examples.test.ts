import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipWithoutServer } from '@sqlinbox/conformance';
import pgModule from 'pg';
import { afterAll, expect, test } from 'vitest';

skipWithoutServer('SQLINBOX_PG_SKIP');

/**
 * The README's examples run as scripts (child processes on the built packages) exit by
 * themselves after `broker.shutdown()`: the adapter closes its LISTEN client and, where it made
 * the pool, the pool.
 */

const here = dirname(fileURLToPath(import.meta.url));
const URL = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = new pgModule.Pool({ connectionString: URL, max: 1 });
const tables: string[] = [];
afterAll(async () => {
  for (const t of tables) await admin.query(`DROP TABLE IF EXISTS ${t}`);
  await admin.end();
});

/** Runs an example; answers its exit code, its output, and whether it outlived its shutdown by 5 s. */
async function runExample(
  file: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; hung: boolean }> {
  const child = spawn(process.execPath, [file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let hung = false;
  let hangTimer: NodeJS.Timeout | undefined;
  const onOutput = (d: Buffer) => {
    out += d.toString();
    if (hangTimer === undefined && out.includes('shut down')) {
      hangTimer = setTimeout(() => {
        hung = true;
        child.kill('SIGKILL');
      }, 5_000);
    }
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const cap = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearTimeout(cap);
  clearTimeout(hangTimer);
  return { code, out, hung };
}

test.each([
  ['pg', 'readme-pg.mjs'],
  ['postgres.js', 'readme-postgres.mjs'],
  ['pg, a pool of the caller', 'readme-pg-own-pool.mjs'],
])('R-OPS-2 the README example on %s exits by itself within 5 s of shutdown()', async (_driver, file) => {
  const table = `sqi_example_${randomBytes(4).toString('hex')}`;
  tables.push(table);
  const { code, out, hung } = await runExample(resolve(here, 'examples', file), {
    SQLINBOX_EXAMPLE_TABLE: table,
    SQLINBOX_PG_URL: URL,
  });
  expect(out).toContain('handled {"id":42}');
  expect(out).toContain('shut down {"locksReleased":0,"connectionsClosed":0}');
  expect(hung, out).toBe(false);
  expect(code, out).toBe(0);
  expect((await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(0);
});
