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
  const builder = pack('sql');
  const dialect = pack('dialect-sqlite');
  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  // No driver: better-sqlite3 is an optional peer, and a file name opens through node:sqlite.
  execFileSync('npm', ['install', '--no-audit', '--no-fund', core, builder, dialect], {
    cwd: app,
    stdio: 'pipe',
  });
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

test('R-KIT-1 the statement builder, packed and installed, serves a dialect written outside the repository', () => {
  const app = join(work, 'outside');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'outside', private: true, type: 'module' }),
  );
  const core = readdirSync(work).find((f) => f.startsWith('sqlinbox-core-'));
  const builder = readdirSync(work).find((f) => f.startsWith('sqlinbox-sql-'));
  if (core === undefined || builder === undefined)
    throw new Error('the tarballs of the first test are missing');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', join(work, core), join(work, builder)], {
    cwd: app,
    stdio: 'pipe',
  });
  writeFileSync(
    join(app, 'main.mjs'),
    `
import { inbox } from '@sqlinbox/core';
import { QueueSql, QueueStatements, SqlSyntax, SqlTable } from '@sqlinbox/sql';
// The syntax of a database with numbered placeholders and square-bracket identifiers.
class Outside extends SqlSyntax {
  placeholder(i) { return ':' + i; }
  ident(name) { return '[' + name + ']'; }
}
const jobs = inbox({ table: 'jobs', id: 'id', payload: 'payload', lease: 'locked_until' });
const ops = new SqlTable(new QueueStatements(new QueueSql(new Outside(), jobs)));
console.log(JSON.stringify({ claim: ops.sql.lease.claim(5, new Date(0), new Date(1000)), take: typeof ops.advisory.take }));
`,
  );
  const out = JSON.parse(execFileSync('node', ['main.mjs'], { cwd: app, encoding: 'utf8' }).trim());
  expect(out.take).toBe('function');
  expect(out.claim.sql).toContain('UPDATE [jobs] AS t SET [locked_until] = :1');
  expect(out.claim.sql).toContain('LIMIT :3');
  expect(out.claim.params).toEqual(['1970-01-01T00:00:01.000Z', '1970-01-01T00:00:00.000Z', 5]);
});
