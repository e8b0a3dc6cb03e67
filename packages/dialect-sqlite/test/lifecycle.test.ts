import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryLogger } from '@sqlinbox/conformance';
import { Broker, ConnectionError, inbox, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { sqlite } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));

const jobs = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  attempt: { column: 'attempt', generated: true },
  lease: 'locked_until',
  payload: 'payload',
});

test('R-OPS-2 the README example on better-sqlite3 exits by itself within 5 s of shutdown()', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-example-'));
  try {
    const child = spawn(process.execPath, [resolve(here, 'examples', 'readme-sqlite.mjs')], {
      env: { ...process.env, SQLINBOX_EXAMPLE_FILE: join(dir, 'app.db') },
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('R-BAD-8 start() on a database file that cannot be opened rejects with a ConnectionError naming the file; ready rejects with it', async () => {
  const file = join(tmpdir(), 'sqlinbox-no-such-dir', 'nested', 'app.db');
  const logger = new MemoryLogger();
  const broker = new Broker(sqlite(file), { logger });
  const ready = broker.subscribe(queue(jobs), async () => {}).ready;
  const err = await broker.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectionError);
  expect(err).toMatchObject({ code: 'CONNECTION', server: `sqlite:${file}` });
  expect((err as Error).cause).toBeDefined();
  await expect(ready).rejects.toBe(err);
  expect(logger.has('error', 'cannot reach the database')).toBe(true);
  await broker.shutdown();
});
