/**
 * The command line as a user runs it: the built bin (`pnpm build` first) in a child process,
 * against PostgreSQL, MariaDB and SQLite. `SQLINBOX_PG_URL` and `SQLINBOX_MYSQL_DATABASE` choose
 * the databases (default `test`).
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin, type AnyTable, Broker, Flows, inbox, queue, silentLogger } from '@sqlinbox/core';
import { afterAll, describe, expect, test } from 'vitest';
import { openUrl } from '../src/index.js';

const BIN = fileURLToPath(new URL('../dist/bin.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const targets = [
  { name: 'PostgreSQL', url: process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  { name: 'MariaDB', url: `mariadb://root@127.0.0.1:3306/${process.env.SQLINBOX_MYSQL_DATABASE ?? 'test'}` },
  { name: 'SQLite', url: `sqlite:${join(dir, 'cli.db')}` },
];
writeFileSync(join(dir, 'cli.db'), '');

/** Runs the bin; answers its exit code, stdout and stderr. */
function sqlinbox(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      'node',
      [BIN, ...args],
      { env: { ...process.env, SQLINBOX_URL: '', ...env } },
      (error, out, err) => {
        resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), out, err });
      },
    );
  });
}

/** Creates a queue's tables from what `sqlinbox ddl --json` prints for `flags`. */
async function applyDdl(
  url: string,
  flags: readonly string[],
  conn: { query(sql: string): Promise<unknown> },
) {
  const ddl = await sqlinbox(['ddl', '--url', url, ...flags, '--json']);
  expect(ddl.code, ddl.err).toBe(0);
  for (const stmt of JSON.parse(ddl.out) as string[]) await conn.query(stmt);
}

/**
 * Starts `sqlinbox dashboard` (the args after `dashboard`, or all of them when they name it) and
 * answers the URL it prints, its line, and `stop()`, which sends SIGTERM and answers the exit code.
 */
async function serveDashboard(args: string[], env: Record<string, string> = {}) {
  const argv = args[0] === 'dashboard' ? args : ['dashboard', ...args];
  const child = spawn('node', [BIN, ...argv], { env: { ...process.env, SQLINBOX_URL: '', ...env } });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const found = out.split('\n').find((l) => l.startsWith('sqlinbox dashboard on '));
      if (found) resolve(found);
    });
    void exited.then((code) => reject(new Error(`exited early with ${code}: ${err}`)));
  });
  const url = /on (http:\/\/\S+?)\/ /.exec(line)![1]!;
  return {
    url,
    line,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

for (const target of targets) {
  describe(`sqlinbox on ${target.name}`, () => {
    test(`R-FLOW-3 R-ADM-4 ddl prints a queue's per-key concurrency: the key column and its (key, lease) index (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const config = join(dir, `${name}.json`);
      const queue = {
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        lease: 'locked_until',
        concurrency: { key: 'account', limit: 2 },
      };
      writeFileSync(config, JSON.stringify({ url: target.url, queues: { [name]: queue } }));
      const out = await sqlinbox(['ddl', '--config', config, '--json']);
      expect(out.code).toBe(0);
      const stmts = JSON.parse(out.out) as string[];
      expect(stmts[0]).toMatch(/account/);
      expect(stmts.some((st) => /concurrency/.test(st) && /account.*locked_until/.test(st))).toBe(true);
      const bad = await sqlinbox(['ddl', '--config', config.replace('.json', '-bad.json'), '--json']);
      expect(bad.code).not.toBe(0);
      writeFileSync(
        config,
        JSON.stringify({
          url: target.url,
          queues: { [name]: { ...queue, concurrency: { key: 'account', limit: 0 } } },
        }),
      );
      const zero = await sqlinbox(['ddl', '--config', config, '--json']);
      expect(zero.code).not.toBe(0);
      expect(zero.err).toContain('concurrency limit 0');
    });

    test(`R-FLOW-5 ddl --schedules prints the tick table of schedules too (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const ticks = `${name}_ticks`;
      const flags = ['--table', name, '--lease', 'locked_until'];
      const adapter = await openUrl(target.url);
      const conn = await adapter.pool.acquire();
      try {
        const plain = JSON.parse(
          (await sqlinbox(['ddl', '--url', target.url, ...flags, '--json'])).out,
        ) as string[];
        const withTicks = await sqlinbox([
          'ddl',
          '--url',
          target.url,
          ...flags,
          '--schedules',
          ticks,
          '--json',
        ]);
        expect(withTicks.code).toBe(0);
        const stmts = JSON.parse(withTicks.out) as string[];
        expect(stmts.slice(0, plain.length)).toEqual(plain);
        expect(stmts.slice(plain.length).join('\n')).toContain(ticks);
        const byDefault = JSON.parse(
          (await sqlinbox(['ddl', '--url', target.url, ...flags, '--schedules', '--json'])).out,
        ) as string[];
        expect(byDefault.slice(plain.length).join('\n')).toContain('sqlinbox_schedules');
        for (const stmt of stmts) await conn.query(stmt);
        // The tick table's primary key (name, tick): a second record of one tick is refused.
        const at = new Date('2026-01-01T00:00:00.000Z');
        const table = inbox({
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          lease: 'locked_until',
        });
        const ops = adapter.dialect.prepare(table);
        expect(await ops.schedules!.recordTick(conn, ticks, 'nightly', at)).toBe(true);
        expect(await ops.schedules!.recordTick(conn, ticks, 'nightly', at)).toBe(false);
        expect(await ops.schedules!.recordTick(conn, ticks, 'hourly', at)).toBe(true);
        expect((await ops.schedules!.lastTick(conn, ticks, 'nightly'))?.toISOString()).toBe(at.toISOString());
        expect(await ops.schedules!.pruneTicks(conn, ticks, 'nightly', new Date(at.getTime() + 1))).toBe(1);
        expect(await ops.schedules!.lastTick(conn, ticks, 'nightly')).toBeNull();
        const bad = await sqlinbox(['ddl', '--url', target.url, ...flags, '--schedules', 'no;table']);
        expect(bad.code).not.toBe(0);
      } finally {
        await conn.query(`DROP TABLE IF EXISTS ${ticks}`).catch(() => undefined);
        await conn.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
        adapter.pool.release(conn);
        await adapter.close();
      }
    });

    test(`R-ADM-4 ddl, stats, dead list, requeue and purge, show; --json and exit codes (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const flags = [
        '--table',
        name,
        '--lease',
        'locked_until',
        '--retry-after',
        'retry_after',
        '--group',
        'grp',
      ];
      const dl = [...flags, '--dead-letter-group', 'dead'];
      const adapter = await openUrl(target.url);
      const conn = await adapter.pool.acquire();
      try {
        await applyDdl(target.url, flags, conn);

        const table = inbox({
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          attempt: { column: 'attempt', generated: true },
          lease: 'locked_until',
          retryAfter: 'retry_after',
          group: 'grp',
        }) as AnyTable;
        const broker = new Broker(adapter);
        const ready = await broker.publishMany(table, [{ n: 1 }, { n: 2 }]);
        await broker.publish(table, { later: true }, { notBefore: new Date(Date.now() + 3_600_000) });
        const dead = await broker.publishMany(table, [{ d: 1 }, { d: 2 }, { d: 3 }], { group: 'dead' });

        const stats = await sqlinbox(['stats', '--json', ...dl], { SQLINBOX_URL: target.url });
        expect(stats.code).toBe(0);
        expect(JSON.parse(stats.out)[name]).toMatchObject({ ready: 2, delayed: 1, inWork: 0, dead: 3 });
        const text = await sqlinbox(['stats', ...dl], { SQLINBOX_URL: target.url });
        expect(text.out).toContain(`${name}: ready=2 delayed=1 inWork=0 dead=3`);

        const list = await sqlinbox(['dead', 'list', '--json', '--limit', '2', '--url', target.url, ...dl]);
        expect(list.code).toBe(0);
        const page = JSON.parse(list.out);
        expect(page.rows.map((r: { id: unknown }) => String(r.id))).toEqual(dead.slice(0, 2).map(String));
        expect(String(page.next)).toBe(String(dead[1]));
        const rest = await sqlinbox([
          'dead',
          'list',
          '--json',
          '--after',
          String(page.next),
          '--url',
          target.url,
          ...dl,
        ]);
        expect(JSON.parse(rest.out).rows.map((r: { id: unknown }) => String(r.id))).toEqual([
          String(dead[2]),
        ]);

        const requeue = await sqlinbox([
          'dead',
          'requeue',
          String(dead[0]),
          '--to-group',
          'orders',
          '--json',
          '--url',
          target.url,
          ...dl,
        ]);
        expect(requeue.code).toBe(0);
        expect(JSON.parse(requeue.out).changed.map(String)).toEqual([String(dead[0])]);
        const show = await sqlinbox(['show', String(dead[0]), '--json', '--url', target.url, ...dl]);
        expect(show.code).toBe(0);
        expect(JSON.parse(show.out)).toMatchObject({ state: 'ready', attempt: 0, group: 'orders' });

        // Some ids left alone: exit 3, and each one said.
        const partial = await sqlinbox([
          'dead',
          'requeue',
          String(dead[1]),
          '987654321',
          '--json',
          '--url',
          target.url,
          ...dl,
        ]);
        expect(partial.code).toBe(3);
        expect(JSON.parse(partial.out).skipped).toEqual([{ id: 987654321, reason: 'not-found' }]);

        const purge = await sqlinbox(['dead', 'purge', '--all', '--url', target.url, ...dl]);
        expect(purge.code).toBe(0);
        expect(purge.out).toContain('purged 1 row(s)');
        const after = JSON.parse((await sqlinbox(['stats', '--json', '--url', target.url, ...dl])).out)[name];
        expect(after).toMatchObject({ ready: 4, delayed: 1, dead: 0 });
        expect(ready).toHaveLength(2);

        const missing = await sqlinbox(['show', '987654321', '--url', target.url, ...dl]);
        expect(missing.code).toBe(1);
        expect(missing.err).toContain('no row with id 987654321');

        // A config file names the same queue.
        const config = join(dir, `${name}.json`);
        writeFileSync(
          config,
          JSON.stringify({
            url: target.url,
            queues: {
              jobs: {
                table: name,
                id: { column: 'id', generated: true },
                payload: 'payload',
                attempt: { column: 'attempt', generated: true },
                lease: 'locked_until',
                retryAfter: 'retry_after',
                group: 'grp',
                deadLetter: { group: 'dead' },
              },
            },
          }),
        );
        const viaConfig = await sqlinbox(['stats', '--json', '--config', config]);
        expect(viaConfig.code).toBe(0);
        expect(JSON.parse(viaConfig.out).jobs).toMatchObject({ ready: 4, delayed: 1, dead: 0 });
      } finally {
        await conn.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
        adapter.pool.release(conn);
        await adapter.close();
      }
    });

    test(`R-LIFE-1 a dead row's failure record, its error and class and when it was made and died, in show and dead list, as text and JSON (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const flags = [
        '--table',
        name,
        '--lease',
        'locked_until',
        '--group',
        'grp',
        '--last-error',
        'last_error',
        '--error-class',
        'error_class',
        '--failed-at',
        'failed_at',
        '--created-at',
        'created_at',
      ];
      const dl = [...flags, '--dead-letter-group', 'dead'];
      const adapter = await openUrl(target.url);
      const conn = await adapter.pool.acquire();
      // A broker of its own adapter: its shutdown closes that adapter (and would wait for `conn`).
      const broker = new Broker(await openUrl(target.url), { logger: silentLogger, pollInterval: 50 });
      try {
        await applyDdl(target.url, flags, conn);
        const table = inbox({
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          attempt: { column: 'attempt', generated: true },
          lease: 'locked_until',
          group: 'grp',
          lastError: 'last_error',
          errorClass: 'error_class',
          failedAt: 'failed_at',
          createdAt: 'created_at',
        }) as AnyTable;
        class MailboxError extends Error {
          override name = 'MailboxError';
        }
        const died = new Promise<unknown>((resolve) => broker.on('deadLettered', (e) => resolve(e.id)));
        broker.subscribe(queue(table).maxAttempts(1).deadLetter({ group: 'dead' }), async () => {
          throw new MailboxError('SMTP 550: mailbox unavailable');
        });
        const id = await broker.publish(table, { to: 'nobody@example.com' });
        await broker.start();
        expect(String(await died)).toBe(String(id));
        await broker.shutdown();

        const show = await sqlinbox(['show', String(id), '--json', '--url', target.url, ...dl]);
        expect(show.code).toBe(0);
        const row = JSON.parse(show.out) as Record<string, string | null>;
        expect(row).toMatchObject({
          state: 'dead',
          lastError: 'SMTP 550: mailbox unavailable',
          errorClass: 'MailboxError',
        });
        // Both times read back as instants of today (the database's clock and the host's).
        for (const k of ['createdAt', 'failedAt']) {
          expect(Math.abs(Date.parse(row[k] ?? '') - Date.now()), k).toBeLessThan(86_400_000);
        }
        const line = await sqlinbox(['show', String(id), '--url', target.url, ...dl]);
        expect(line.out).toContain('error="MailboxError: SMTP 550: mailbox unavailable"');
        expect(line.out).toMatch(/ created=\d{4}-\d\d-\d\dT.* failed=\d{4}-\d\d-\d\dT/);
        const list = await sqlinbox(['dead', 'list', '--json', '--url', target.url, ...dl]);
        expect(list.code).toBe(0);
        expect(JSON.parse(list.out).rows).toMatchObject([
          { id: row.id, lastError: 'SMTP 550: mailbox unavailable', errorClass: 'MailboxError' },
        ]);
      } finally {
        await broker.shutdown().catch(() => undefined);
        await conn.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
        adapter.pool.release(conn);
        await adapter.close();
      }
    });

    test(`R-LIFE-2 R-LIFE-3 pause, resume and cancel from the command line, through the queue's control table (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const control = `${name}_ctl`;
      const queueConfig = {
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        attempt: { column: 'attempt', generated: true },
        lease: 'locked_until',
        retryAfter: 'retry_after',
        group: 'grp',
        control: { table: control },
      };
      const config = join(dir, `${name}.json`);
      writeFileSync(
        config,
        JSON.stringify({
          url: target.url,
          queues: { jobs: { ...queueConfig, deadLetter: { group: 'dead' } } },
        }),
      );
      const table = inbox(queueConfig as never) as AnyTable;
      const adapter = await openUrl(target.url);
      const conn = await adapter.pool.acquire();
      try {
        for (const stmt of adapter.dialect.ddl(table)) await conn.query(stmt);
        const broker = new Broker(adapter, { logger: silentLogger });
        const [ready, later] = [
          await broker.publish(table, { n: 1 }),
          await broker.publish(table, { n: 2 }, { notBefore: new Date(Date.now() + 3_600_000) }),
        ];

        const paused = await sqlinbox(['pause', '--config', config]);
        expect(paused.code, paused.err).toBe(0);
        expect(paused.out.trim()).toBe(`${name}: paused=queue`);
        const group = await sqlinbox(['pause', 'acme', '--json', '--config', config]);
        expect(JSON.parse(group.out)).toEqual({ queue: true, groups: ['acme'] });
        const resumed = await sqlinbox(['resume', '--json', '--config', config]);
        expect(JSON.parse(resumed.out)).toEqual({ queue: false, groups: ['acme'] });
        await sqlinbox(['resume', 'acme', '--config', config]);
        expect(await new Admin(adapter).paused(table)).toEqual({ queue: false, groups: [] });

        // Cancel: the ready row leaves to the dead letter at once; an unknown id is left alone (exit 3).
        const partial = await sqlinbox(['cancel', String(ready), '987654321', '--json', '--config', config]);
        expect(partial.code).toBe(3);
        expect(JSON.parse(partial.out)).toEqual({
          changed: [ready],
          signalled: [],
          skipped: [{ id: 987654321, reason: 'not-found' }],
        });
        expect((await new Admin(adapter).get(table, ready, { deadLetter: { group: 'dead' } }))?.state).toBe(
          'dead',
        );
        const text = await sqlinbox([
          'cancel',
          String(later),
          '--reason',
          'order withdrawn',
          '--config',
          config,
        ]);
        expect(text.code, text.err).toBe(0);
        expect(text.out.trim()).toBe(`cancelled 1 row(s): ${String(later)}`);
        const help = await sqlinbox(['cancel', '--help']);
        expect(help.out).toContain('--reason');
      } finally {
        for (const t of [name, control]) await conn.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
        adapter.pool.release(conn);
        await adapter.close();
      }
    });

    test(`R-ADM-4 R-ADM-5 R-LIFE-8 dashboard serves the queues until stopped, read-only unless --actions; actions or an address beyond loopback only with a login (basic or bearer) (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const flags = [
        '--table',
        name,
        '--lease',
        'locked_until',
        '--group',
        'grp',
        '--dead-letter-group',
        'dead',
      ];
      const adapter = await openUrl(target.url);
      const conn = await adapter.pool.acquire();
      try {
        const ddl = await sqlinbox(['ddl', '--url', target.url, ...flags, '--json']);
        for (const stmt of JSON.parse(ddl.out) as string[]) await conn.query(stmt);
        const table = inbox({
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          attempt: { column: 'attempt', generated: true },
          lease: 'locked_until',
          group: 'grp',
        }) as AnyTable;
        const broker = new Broker(adapter);
        await broker.publish(table, { n: 1 });
        const dead = await broker.publishMany(table, [{ d: 1 }, { d: 2 }], { group: 'dead' });

        const ro = await serveDashboard(['--url', target.url, ...flags, '--port', '0']);
        expect(ro.line).toContain('(read-only;');
        const home = await fetch(`${ro.url}/`);
        const body = await home.text();
        expect(home.status).toBe(200);
        expect(body).toContain(`data-queue="${name}"`);
        expect(body).toMatch(/data-count="ready">1</);
        expect(body).toMatch(/data-count="dead">2</);
        const refused = await fetch(`${ro.url}/queues/${name}/requeue`, {
          method: 'POST',
          headers: { origin: new URL(ro.url).origin, 'content-type': 'application/x-www-form-urlencoded' },
          body: `id=${String(dead[0])}`,
        });
        expect(refused.status).toBe(403);
        expect(await ro.stop()).toBe(0);

        // Actions, or an address beyond this machine, need a login: refused without one, saying how.
        for (const extra of [['--actions'], ['--host', '0.0.0.0']]) {
          const refusedStart = await sqlinbox([
            'dashboard',
            '--url',
            target.url,
            ...flags,
            '--port',
            '0',
            ...extra,
          ]);
          expect(refusedStart.code).toBe(2);
          expect(refusedStart.err).toContain('refuses to start without a login');
          expect(refusedStart.err).toContain('SQLINBOX_DASHBOARD_USER and SQLINBOX_DASHBOARD_PASSWORD');
          expect(refusedStart.err).toContain('SQLINBOX_DASHBOARD_TOKEN');
        }
        const halfLogin = await sqlinbox(['dashboard', '--url', target.url, ...flags, '--actions'], {
          SQLINBOX_DASHBOARD_USER: 'ops',
        });
        expect(halfLogin.code).toBe(2);
        expect(halfLogin.err).toContain('together');

        const token = 'a-token-of-sixteen-or-more';
        const ops = await serveDashboard(
          ['dashboard', '--port', '0', '--actions', '--base-path', '/queues', ...flags],
          {
            SQLINBOX_URL: target.url,
            SQLINBOX_DASHBOARD_USER: 'ops',
            SQLINBOX_DASHBOARD_PASSWORD: 'pa:ss wörd',
            SQLINBOX_DASHBOARD_TOKEN: token,
          },
        );
        expect(ops.line).toContain('login: basic or bearer token');
        expect(ops.url).toMatch(/\/queues$/);
        const basic = `Basic ${Buffer.from('ops:pa:ss wörd').toString('base64')}`;
        const anonymous = await fetch(`${ops.url}/`);
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="sqlinbox"/);
        const wrong = await fetch(`${ops.url}/`, {
          headers: { authorization: `Basic ${Buffer.from('ops:nope').toString('base64')}` },
        });
        expect(wrong.status).toBe(401);
        expect((await fetch(`${ops.url}/`, { headers: { authorization: `Bearer ${token}x` } })).status).toBe(
          401,
        );
        const viaToken = await fetch(`${ops.url}/api/stats`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(viaToken.status).toBe(200);
        expect(JSON.parse(await viaToken.text()).queues[name].stats).toMatchObject({ dead: 2 });
        const page = await fetch(`${ops.url}/queues/${name}?state=dead`, {
          headers: { authorization: basic },
        });
        const html = await page.text();
        const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
        const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
        const done = await fetch(`${ops.url}/queues/${name}/requeue`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            authorization: basic,
            origin: new URL(ops.url).origin,
            cookie,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ id: String(dead[0]), csrf }),
        });
        expect(done.status).toBe(303);
        expect(await ops.stop()).toBe(0);
        const stats = await sqlinbox(['stats', '--json', '--url', target.url, ...flags]);
        expect(JSON.parse(stats.out)[name]).toMatchObject({ ready: 2, dead: 1 });

        const badPort = await sqlinbox(['dashboard', '--url', target.url, ...flags, '--port', '70000']);
        expect(badPort.code).toBe(2);
        expect(badPort.err).toContain('--port takes a port number');
      } finally {
        await conn.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
        adapter.pool.release(conn);
        await adapter.close();
      }
    });

    test(`R-ADM-4 clear errors: a bad URL, an unknown table, a missing column (${target.name})`, async () => {
      const name = `cli_${randomBytes(4).toString('hex')}`;
      const bad = await sqlinbox(['stats', '--url', 'nosuch://x', '--table', name]);
      expect(bad.code).toBe(2);
      expect(bad.err).toContain('cannot read the URL');
      const none = await sqlinbox(['stats', '--table', name]);
      expect(none.code).toBe(2);
      expect(none.err).toContain('SQLINBOX_URL');

      const unknown = await sqlinbox([
        'stats',
        '--url',
        target.url,
        '--table',
        name,
        '--lease',
        'locked_until',
      ]);
      expect(unknown.code).toBe(1);
      expect(unknown.err).toContain(`table ${name}: no such table`);

      const adapter = await openUrl(target.url);
      const conn = await adapter.pool.acquire();
      try {
        const ddl = await sqlinbox([
          'ddl',
          '--url',
          target.url,
          '--table',
          name,
          '--lease',
          'locked_until',
          '--json',
        ]);
        for (const stmt of JSON.parse(ddl.out) as string[]) await conn.query(stmt);
        const column = await sqlinbox([
          'stats',
          '--url',
          target.url,
          '--table',
          name,
          '--lease',
          'lease_col',
        ]);
        expect(column.code).toBe(1);
        expect(column.err).toContain(`table ${name}, column lease_col: the lease column is missing`);
      } finally {
        await conn.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
        adapter.pool.release(conn);
        await adapter.close();
      }
    });
  });
}

test('R-ADM-4 stats --watch prints the counts again every interval until stopped (SQLite)', async () => {
  const url = `sqlite:${join(dir, 'watch.db')}`;
  writeFileSync(join(dir, 'watch.db'), '');
  const name = `cli_${randomBytes(4).toString('hex')}`;
  const adapter = await openUrl(url);
  const conn = await adapter.pool.acquire();
  try {
    const ddl = await sqlinbox(['ddl', '--url', url, '--table', name, '--lease', 'locked_until', '--json']);
    for (const stmt of JSON.parse(ddl.out) as string[]) await conn.query(stmt);
    const child = spawn('node', [
      BIN,
      'stats',
      '--json',
      '--watch',
      '0.2',
      '--url',
      url,
      '--table',
      name,
      '--lease',
      'locked_until',
    ]);
    const docs: unknown[] = [];
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') docs.push(JSON.parse(line));
        if (docs.length >= 3) resolve();
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    child.kill('SIGTERM');
    expect(docs.slice(0, 3)).toEqual(
      Array.from({ length: 3 }, () => ({ [name]: expect.objectContaining({ ready: 0, dead: 0 }) })),
    );
  } finally {
    await conn.query(`DROP TABLE IF EXISTS ${name}`).catch(() => undefined);
    adapter.pool.release(conn);
    await adapter.close();
  }
});

describe('what a new user meets first', () => {
  test('R-USER-1 --version prints the package version; every command has a description in its help', async () => {
    const { version } = JSON.parse(
      (await import('node:fs')).readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    const v = await sqlinbox(['--version']);
    expect(v.code).toBe(0);
    expect(v.out).toContain(`sqlinbox/${version}`);
    const all = await sqlinbox(['--help']);
    expect(all.code).toBe(0);
    const commands = ['ddl', 'stats', 'dead', 'show', 'dashboard'];
    for (const command of commands) {
      const listed = all.out.split('\n').find((l) => l.trimStart().startsWith(`${command} `));
      expect(listed, command).toMatch(/\S+\s{2,}\S+/);
      const one = await sqlinbox([command, '--help']);
      expect(one.code, command).toBe(0);
      const lines = one.out.split('\n');
      const at = lines.indexOf('Description:');
      expect(at, `${command} --help has a description`).toBeGreaterThan(0);
      expect(lines[at + 1]!.trim().length, command).toBeGreaterThan(20);
    }
  });

  test('R-USER-4 a config file without "id", with a typo or a wrong type says which key and how to fix it', async () => {
    const write = (name: string, value: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(value));
      return path;
    };
    const noId = write('no-id.json', { queues: { jobs: { table: 'jobs' } } });
    const r1 = await sqlinbox(['ddl', '--config', noId, '--url', 'sqlite:./none.db']);
    expect(r1.code).toBe(2);
    expect(r1.err).toContain(`the config file ${noId}, queue "jobs": "id" is missing`);
    expect(r1.err).toContain('"id": { "column": "id", "generated": true }');
    expect(r1.err).not.toContain('Cannot read properties');

    const typo = write('typo.json', { queues: { jobs: { table: 'jobs', id: 'id', leese: 'locked_until' } } });
    const r2 = await sqlinbox(['stats', '--config', typo]);
    expect(r2.code).toBe(2);
    expect(r2.err).toContain('queue "jobs", unknown key "leese" (did you mean "lease"?)');

    const top = write('top.json', { urls: 'postgres://x/y', queues: {} });
    const r3 = await sqlinbox(['stats', '--config', top]);
    expect(r3.err).toContain('unknown key "urls" (did you mean "url"?)');

    const wrong = write('wrong.json', { queues: { jobs: { table: 'jobs', id: 'id', lease: 30 } } });
    const r4 = await sqlinbox(['stats', '--config', wrong]);
    expect(r4.code).toBe(2);
    expect(r4.err).toContain('"lease" must be a column name (got 30)');
  });

  test('R-USER-4 a connection string that is no URL is refused with an example, never tried as a host', async () => {
    const r = await sqlinbox(['stats', '--table', 'jobs', '--url', 'postgres://not a url']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      '"postgres://not a url" is not a connection string: it cannot be parsed as a URL',
    );
    expect(r.err).toContain('postgres://user:password@localhost:5432/app');
    expect(r.err).not.toContain('ENOTFOUND');
    const m = await sqlinbox(['stats', '--table', 'jobs', '--url', 'mysql://root:hunter2@bad host/x']);
    expect(m.code).toBe(2);
    expect(m.err).toContain('mysql://root:***@bad host/x');
    expect(m.err).not.toContain('hunter2');
  });
});

test('R-USER-3 ddl --dialect prints the DDL without a database: no URL, no SQLite file', async () => {
  const { postgresDialect } = await import('@sqlinbox/dialect-postgres');
  const { mysqlDialect } = await import('@sqlinbox/dialect-mysql');
  const { sqliteDialect } = await import('@sqlinbox/dialect-sqlite');
  const table = inbox({
    table: 'jobs',
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    payload: 'payload',
    lease: 'locked_until',
  });
  for (const [name, dialect] of [
    ['postgres', postgresDialect],
    ['mariadb', mysqlDialect],
    ['sqlite', sqliteDialect],
  ] as const) {
    const r = await sqlinbox([
      'ddl',
      '--dialect',
      name,
      '--table',
      'jobs',
      '--lease',
      'locked_until',
      '--json',
    ]);
    expect(r.code, `${name}: ${r.err}`).toBe(0);
    expect(JSON.parse(r.out)).toEqual(dialect.ddl(table as AnyTable, {}));
  }
  const bad = await sqlinbox(['ddl', '--dialect', 'oracle', '--table', 'jobs']);
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('unknown --dialect oracle: use postgres, mysql (or mariadb) or sqlite');
});

test('R-FLOW-6 flow <id> prints a flow as a tree: each job under its parent with its state, its edge and what a parent waits for; --json; a missing id exits 1 (SQLite)', async () => {
  const name = `flow_${randomBytes(4).toString('hex')}`;
  const url = `sqlite:${join(dir, 'cli.db')}`;
  const queueConfig = {
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    lease: 'locked_until',
    retryAfter: 'retry_after',
    processedAt: 'processed_at',
    flows: { table: `${name}_flow` },
  };
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ url, queues: { orders: queueConfig } }));
  const table = inbox(queueConfig as never) as AnyTable;
  const tables = [name, `${name}_flow`, `${name}_flow_parent`];
  const adapter = await openUrl(url);
  const conn = await adapter.pool.acquire();
  try {
    for (const stmt of adapter.dialect.ddl(table)) await conn.query(stmt);
    adapter.pool.release(conn);
    const ids = await new Flows(adapter).publish(table, {
      jobs: {
        charge: { message: { step: 'charge' } },
        mail: { message: { step: 'mail' } },
        ship: { message: { step: 'ship' }, after: ['charge', 'mail'] },
      },
    });
    // The charge runs and acks; the mail and the ship wait.
    const broker = new Broker(adapter, { logger: silentLogger });
    const done = new Promise<void>((resolve) => {
      broker.on('settled', (e) => {
        if (String(e.id) === String(ids.charge)) resolve();
      });
    });
    broker.subscribe(queue(table).workers(1), async (m: { step: string }) => {
      if (m.step !== 'charge') await new Promise<never>(() => {});
    });
    await broker.start();
    await done;
    await broker.shutdown({ timeout: 100 });

    const text = await sqlinbox(['flow', String(ids.ship), '--config', config]);
    expect(text.code, text.err).toBe(0);
    const lines = text.out.trimEnd().split('\n');
    expect(lines[0]).toBe(`(root)  #${String(ids.ship)}  waiting  waiting-for=1`);
    expect(lines[1]).toBe(`  charge  #${String(ids.charge)}  done  edge=done`);
    expect(lines[2]).toMatch(new RegExp(`^  mail  #${String(ids.mail)}  (ready|inWork)  edge=pending$`));
    expect(lines).toHaveLength(3);

    const asJson = await sqlinbox(['flow', String(ids.ship), '--json', '--config', config]);
    const tree = JSON.parse(asJson.out);
    expect(tree).toMatchObject({ id: String(ids.ship), state: 'waiting', pending: 1 });
    expect(tree.children.map((c: { name: string; edge: string }) => [c.name, c.edge])).toEqual([
      ['charge', 'done'],
      ['mail', 'pending'],
    ]);

    // The same from flags alone; an id no row has is a failure (exit 1), shown as missing.
    const flags = ['--url', url, '--table', name, '--lease', 'locked_until', '--retry-after', 'retry_after'];
    const byFlags = await sqlinbox([
      'flow',
      String(ids.ship),
      ...flags,
      '--processed-at',
      'processed_at',
      '--flows',
      `${name}_flow`,
    ]);
    expect(byFlags.out).toBe(text.out);
    const missing = await sqlinbox(['flow', '987654321', '--config', config]);
    expect(missing.code).toBe(1);
    expect(missing.out.trim()).toBe('(root)  #987654321  missing');
  } finally {
    const c = await adapter.pool.acquire();
    for (const t of tables) await c.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    adapter.pool.release(c);
    await adapter.close();
  }
});

test('R-USER-3 R-FLOW-6 R-FLOW-7 migrate from a config file creates the flow tables and the steps table a queue declares (SQLite)', async () => {
  const name = `mig_${randomBytes(4).toString('hex')}`;
  const url = `sqlite:${join(dir, 'cli.db')}`;
  const config = join(dir, `${name}.json`);
  const tables = [name, `${name}_flow`, `${name}_flow_parent`, `${name}_steps`];
  writeFileSync(
    config,
    JSON.stringify({
      queues: {
        jobs: {
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          lease: 'locked_until',
          retryAfter: 'retry_after',
          flows: { table: `${name}_flow` },
          steps: { table: `${name}_steps` },
        },
      },
    }),
  );
  const adapter = await openUrl(url);
  const conn = await adapter.pool.acquire();
  try {
    const r = await sqlinbox(['migrate', '--url', url, '--config', config]);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim()).toMatch(new RegExp(`^${name}: version (\\d+) applied$`));
    for (const t of tables) expect(await adapter.dialect.describeTable(conn, t), t).not.toBeNull();
  } finally {
    for (const t of tables) await conn.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    await conn.query(`DELETE FROM sqlinbox_migrations WHERE target = '${name}'`).catch(() => undefined);
    adapter.pool.release(conn);
    await adapter.close();
  }
});

for (const target of targets) {
  test(`R-USER-3 two deploys run sqlinbox migrate at once: one applies, the other waits and finds it recorded; a dry run prints the SQL (${target.name})`, async () => {
    const name = `mig_${randomBytes(4).toString('hex')}`;
    const args = [
      '--url',
      target.url,
      '--table',
      name,
      '--lease',
      'locked_until',
      '--dead-letter-table',
      `${name}_dead`,
    ];
    const adapter = await openUrl(target.url);
    const conn = await adapter.pool.acquire();
    try {
      const dry = await sqlinbox(['migrate', '--dry-run', ...args]);
      expect(dry.code, dry.err).toBe(0);
      expect(dry.out).toMatch(new RegExp(`^-- ${name}: version \\d+, not applied yet$`, 'm'));
      expect(dry.out).toContain(`${name}_dead`);
      const [a, b] = await Promise.all([sqlinbox(['migrate', ...args]), sqlinbox(['migrate', ...args])]);
      expect([a.code, b.code], a.err + b.err).toEqual([0, 0]);
      const lines = [a.out.trim(), b.out.trim()].sort();
      expect(lines[0]).toMatch(new RegExp(`^${name}: version (\\d+) applied$`));
      expect(lines[1]).toMatch(new RegExp(`^${name}: version (\\d+) was applied already$`));
      const version = /version (\d+)/.exec(lines[0]!)![1];
      const recorded = await conn.query<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM sqlinbox_migrations WHERE target = '${name}'`,
      );
      expect(Number(recorded.rows[0]!.n)).toBe(1);
      // The tables are there: a row goes in and comes out.
      await conn.query(`INSERT INTO ${name} (payload) VALUES ('{}')`);
      expect((await conn.query(`SELECT * FROM ${name}_dead`)).rows).toEqual([]);
      const again = await sqlinbox(['migrate', '--dry-run', ...args]);
      expect(again.out.trim()).toBe(`-- ${name}: version ${version}, applied`);
    } finally {
      for (const t of [name, `${name}_dead`])
        await conn.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
      await conn.query(`DELETE FROM sqlinbox_migrations WHERE target = '${name}'`).catch(() => undefined);
      const left = await conn
        .query<{ n: unknown }>('SELECT COUNT(*) AS n FROM sqlinbox_migrations')
        .catch(() => null);
      if (left !== null && Number(left.rows[0]!.n) === 0) await conn.query('DROP TABLE sqlinbox_migrations');
      adapter.pool.release(conn);
      await adapter.close();
    }
  });
}
