import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { afterAll, expect, test } from 'vitest';
import { DB } from './helpers.js';

/**
 * The README's examples run as scripts (child processes on the built packages) exit by
 * themselves after `broker.shutdown()`: the adapter made the pool and ends it.
 */

const here = dirname(fileURLToPath(import.meta.url));
const admin = mysql.createPool({ ...DB, connectionLimit: 1 });
const tables: string[] = [];
afterAll(async () => {
  for (const t of tables) await admin.query(`DROP TABLE IF EXISTS ${t}`);
  await admin.end();
});

test.each([
  ['mysql2', 'readme-mysql2.mjs'],
  ['mariadb', 'readme-mariadb.mjs'],
])('R-OPS-2 the README example on %s exits by itself within 5 s of shutdown()', async (_driver, file) => {
  const table = `sqi_example_${randomBytes(4).toString('hex')}`;
  tables.push(table);
  const child = spawn(process.execPath, [resolve(here, 'examples', file)], {
    env: { ...process.env, SQLINBOX_EXAMPLE_TABLE: table, SQLINBOX_MYSQL_DATABASE: DB.database },
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
  child.stderr.on('data', onOutput);
  const cap = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  clearTimeout(cap);
  clearTimeout(hangTimer);
  expect(out).toContain('handled {"id":42}');
  expect(out).toContain('shut down {"locksReleased":0,"connectionsClosed":0}');
  expect(hung, out).toBe(false);
  expect(code, out).toBe(0);
  const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM ${table}`);
  expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
});
