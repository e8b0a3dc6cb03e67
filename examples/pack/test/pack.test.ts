import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'sqlinbox-pack-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

function pack(pkg: string): string {
  // pnpm pack turns `workspace:^` into the real version range, as publishing does.
  execFileSync('pnpm', ['pack', '--pack-destination', work], {
    cwd: join(root, 'packages', pkg),
    stdio: 'pipe',
  });
  const tgz = readdirSync(work).find((f) => f.startsWith(`sqlinbox-${pkg}-`) && f.endsWith('.tgz'));
  if (!tgz) throw new Error(`no tarball for ${pkg}`);
  return join(work, tgz);
}

test('R-SHAPE-2 R-RUN-2 core and dialect-sqlite, packed and installed into an empty project with no driver (node:sqlite), publish and process a message', () => {
  const core = pack('core');
  const dialect = pack('dialect-sqlite');
  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // No driver: better-sqlite3 is an optional peer, and a file name opens through node:sqlite.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', core, dialect], { cwd: app, stdio: 'pipe' });
  writeFileSync(
    join(app, 'main.mjs'),
    `
import { Broker, inbox, queue, silentLogger } from '@sqlinbox/core';
import { sqlite } from '@sqlinbox/dialect-sqlite';
const jobs = inbox({ table: 'jobs', id: { column: 'id', generated: true }, payload: 'payload',
  attempt: { column: 'attempt', generated: true }, lease: 'locked_until' });
const adapter = sqlite('./app.sqlite');
const conn = await adapter.pool.acquire();
for (const s of adapter.dialect.ddl(jobs)) await conn.query(s);
adapter.pool.release(conn);
const broker = new Broker(adapter, { logger: silentLogger, pollInterval: 20 });
const got = new Promise((resolve) => broker.subscribe(queue(jobs), async (m) => resolve(m)));
await broker.start();
await broker.publish(jobs, { hello: 'from a tarball' });
console.log(JSON.stringify(await got));
await broker.shutdown();
await adapter.close();
`,
  );
  const out = execFileSync('node', ['main.mjs'], { cwd: app, encoding: 'utf8' });
  expect(JSON.parse(out.trim())).toEqual({ hello: 'from a tarball' });
  expect(readdirSync(join(app, 'node_modules'))).not.toContain('better-sqlite3');
});
