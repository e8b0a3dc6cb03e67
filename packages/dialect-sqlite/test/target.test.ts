import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import type { ConformanceTarget } from '@sqlinbox/conformance';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { SQLITE_FILE_ENV, sqliteTarget } from './target.js';

let target: ConformanceTarget;
beforeEach(() => {
  target = sqliteTarget();
});
afterEach(async () => {
  await target.close?.();
});

test('the conformance target opens adapters on its own file and runs admin SQL beside them', async () => {
  expect(target.killSession).toBeUndefined();
  expect(target.advisoryLocksHeld).toBeUndefined();
  await target.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  await target.exec('INSERT INTO t (v) VALUES (?)', ['a']);
  const adapter = await target.open({ poolSize: 3 });
  expect(adapter.pool.size).toBe(3);
  const conn = await adapter.pool.acquire();
  expect((await conn.query('SELECT v FROM t')).rows).toEqual([{ v: 'a' }]);
  // An admin write waits for an adapter's open transaction rather than failing busy.
  await conn.query('BEGIN IMMEDIATE');
  const write = target.exec('UPDATE t SET v = ? RETURNING v', ['b']);
  await conn.query('COMMIT');
  expect(await write).toEqual([{ v: 'b' }]);
  adapter.pool.release(conn);
  await adapter.close();
});

test('R-DB-1 the target passes serverVersion through to checkServer', async () => {
  const adapter = await target.open({ serverVersion: '3.30.0' });
  const conn = await adapter.pool.acquire();
  await expect(adapter.dialect.checkServer(conn)).rejects.toMatchObject({ code: 'SERVER_TOO_OLD' });
  adapter.pool.release(conn);
  await adapter.close();
});

test('the child module opens the same file in another process, named by the environment', async () => {
  await target.open();
  const file = process.env[SQLITE_FILE_ENV];
  await target.exec('CREATE TABLE from_parent (id INTEGER PRIMARY KEY)');
  expect(file !== undefined && existsSync(file)).toBe(true);
  const script = `
    const { default: open } = await import(${JSON.stringify(target.childModule)});
    const adapter = await open();
    const conn = await adapter.pool.acquire();
    const { rows } = await conn.query("SELECT name FROM sqlite_master WHERE name = 'from_parent'");
    adapter.pool.release(conn);
    await adapter.close();
    console.log(JSON.stringify(rows));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: process.env,
  });
  expect(JSON.parse(stdout)).toEqual([{ name: 'from_parent' }]);
});
