/**
 * The dashboard over HTTP, mounted in node:http, Express, Fastify and Hono, against PostgreSQL and
 * SQLite: what the pages show, the actions as POST forms with their CSRF checks, read-only mode,
 * bad input, and hostile row data escaped.
 */
import {
  type Adapter,
  Admin,
  type AnyTable,
  Broker,
  Flows,
  Outcome,
  queue,
  silentLogger,
} from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dashboard } from '../src/index.js';
import { createQueue, databases, FRAMEWORKS, mount, tokens } from './support.js';

const dbs = databases();
afterAll(() => {
  for (const db of dbs) db.cleanup();
});

const DL = { group: 'dead' } as const;

/** Waits for an effect (never a speed): polls `check` until it holds. */
async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { res, body: await res.text() };
}

function post(url: string, form: Record<string, string | string[]>, headers: Record<string, string>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    redirect: 'manual',
  });
}

for (const db of dbs) {
  describe(`the dashboard on ${db.name}`, () => {
    let adapter: Adapter & { close(): Promise<void> };
    let broker: Broker;
    const drops: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      adapter = await db.open();
      broker = new Broker(adapter);
    });
    afterAll(async () => {
      for (const drop of drops) await drop();
      await adapter?.close();
    });
    const fresh = async (
      opts: { errorColumn?: boolean; record?: boolean; uniqueKey?: boolean; flows?: boolean } = {},
    ) => {
      const made = await createQueue(adapter, opts);
      drops.push(made.drop);
      return made.table;
    };

    for (const framework of FRAMEWORKS) {
      test(`R-ADM-5 R-ADM-1 R-ADM-3 mounted in ${framework}: counts and dead letters shown, read-only by default, requeue and delete as POST with a same-origin check and a CSRF token (${db.name})`, async () => {
        const table = await fresh();
        const admin = new Admin(adapter);
        const ready = await broker.publishMany(table, [{ n: 1 }, { n: 2 }]);
        await broker.publish(table, { later: true }, { notBefore: new Date(Date.now() + 3_600_000) });
        const dead = await broker.publishMany(table, [{ d: 1 }, { d: 2 }, { d: 3 }], { group: 'dead' });
        const queues = { jobs: { table, deadLetter: DL } };
        const ro = dashboard(adapter, { queues, basePath: '/ro', sampleEvery: 0 });
        const ops = dashboard(admin, { queues, basePath: '/admin/queues', readOnly: false, sampleEvery: 0 });
        const server = await mount(framework, [
          { base: '/ro', handler: ro },
          { base: '/admin/queues', handler: ops },
        ]);
        const at = (path: string) => `${server.origin}${path}`;
        const same = { origin: server.origin };
        try {
          // The overview: the queue with its counts by state.
          const home = await get(at('/ro/'));
          expect(home.res.status).toBe(200);
          expect(home.res.headers.get('content-type')).toContain('text/html');
          expect(home.res.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'/);
          expect(home.res.headers.get('x-frame-options')).toBe('DENY');
          const cookie = home.res.headers.getSetCookie().find((c) => c.startsWith('sqlinbox_csrf='));
          expect(cookie).toMatch(/HttpOnly/i);
          expect(cookie).toMatch(/SameSite=Strict/i);
          expect(cookie).toMatch(/Path=\/ro(;|$)/);
          expect(home.body).toContain('data-queue="jobs"');
          expect(home.body).toMatch(/data-count="ready">2</);
          expect(home.body).toMatch(/data-count="delayed">1</);
          expect(home.body).toMatch(/data-count="dead">3</);
          expect(home.body).toContain('read-only');
          // The base path without its slash leads to the overview; a path outside it is not the dashboard's.
          const bare = await get(at('/admin/queues'));
          expect(bare.res.status).toBe(303);
          expect(bare.res.headers.get('location')).toBe('/admin/queues/');
          expect((await get(at('/elsewhere'))).res.status).toBe(418);

          // Read-only: the dead letters are listed without buttons, and a POST is refused.
          const roDead = await get(at('/ro/queues/jobs?state=dead'));
          expect(roDead.res.status).toBe(200);
          for (const id of dead) expect(roDead.body).toContain(`data-id="${String(id)}"`);
          expect(roDead.body).not.toContain('Requeue');
          const roTokens = tokens(roDead.res, roDead.body);
          expect(roTokens.cookie).toBeDefined();
          const refused = await post(
            at('/ro/queues/jobs/requeue'),
            { csrf: roTokens.cookie!.split('=')[1]!, id: String(dead[0]) },
            { ...same, cookie: roTokens.cookie! },
          );
          expect(refused.status).toBe(403);
          expect(await refused.text()).toContain('read-only');
          expect((await admin.get(table, dead[0], { deadLetter: DL }))?.state).toBe('dead');

          // Actions enabled: each dead letter has its forms, carrying the token of the cookie.
          const page = await get(at('/admin/queues/queues/jobs?state=dead'));
          expect(page.res.status).toBe(200);
          expect(page.body).toContain('action="/admin/queues/queues/jobs/requeue"');
          const { cookie: jar, form: token } = tokens(page.res, page.body);
          expect(jar).toBeDefined();
          expect(token).toBe(jar!.split('=')[1]);
          const url = at('/admin/queues/queues/jobs/requeue');

          // No token, a forged one, a token without its cookie, another origin, no origin at all:
          // each refused, and the row stays a dead letter.
          const attempts = [
            post(url, { id: String(dead[0]) }, { ...same, cookie: jar! }),
            post(
              url,
              { id: String(dead[0]), csrf: `${token!.split('.')[0]}.forged` },
              { ...same, cookie: jar! },
            ),
            post(url, { id: String(dead[0]), csrf: token! }, same),
            post(url, { id: String(dead[0]), csrf: token! }, { origin: 'http://evil.example', cookie: jar! }),
            post(url, { id: String(dead[0]), csrf: token! }, { cookie: jar! }),
            post(
              url,
              { id: String(dead[0]), csrf: token! },
              { 'sec-fetch-site': 'cross-site', cookie: jar! },
            ),
          ];
          for (const res of await Promise.all(attempts)) {
            expect(res.status).toBe(403);
            await res.text();
          }
          // A JSON body is not a form.
          const json = await fetch(url, {
            method: 'POST',
            body: JSON.stringify({ id: dead[0], csrf: token }),
            headers: { 'content-type': 'application/json', ...same, cookie: jar! },
          });
          expect(json.status).toBe(415);
          await json.text();
          expect((await admin.get(table, dead[0], { deadLetter: DL }))?.state).toBe('dead');

          // With both: requeued, the attempt reset, and the redirect says so.
          const done = await post(
            url,
            { id: String(dead[0]), csrf: token!, state: 'dead' },
            { ...same, cookie: jar! },
          );
          expect(done.status).toBe(303);
          const location = done.headers.get('location')!;
          expect(location).toBe('/admin/queues/queues/jobs?state=dead&done=requeued&n=1&left=0');
          expect(await admin.get(table, dead[0], { deadLetter: DL })).toMatchObject({
            state: 'ready',
            attempt: 0,
          });
          const after = await get(at(location), { cookie: jar! });
          expect(after.body).toContain('Requeued 1 row.');
          expect(after.body).not.toContain(`data-id="${String(dead[0])}"`);
          expect(after.body).toContain(`data-id="${String(dead[1])}"`);

          // Delete a dead letter; a requeue of an id that is not dead is reported as left alone.
          const del = await post(
            at('/admin/queues/queues/jobs/delete'),
            { id: String(dead[1]), dead: '1', csrf: token! },
            { ...same, cookie: jar! },
          );
          expect(del.status).toBe(303);
          expect(await admin.get(table, dead[1], { deadLetter: DL })).toBeNull();
          const partial = await post(
            url,
            { id: [String(dead[2]), String(ready[0])], csrf: token! },
            { ...same, cookie: jar! },
          );
          expect(partial.headers.get('location')).toBe(
            '/admin/queues/queues/jobs?state=dead&done=requeued&n=1&left=1&why=not-dead',
          );
          const told = await get(at(partial.headers.get('location')!));
          expect(told.body).toContain('Requeued 1 row; left 1 alone (not-dead).');
          expect(await admin.stats(table, { deadLetter: DL })).toMatchObject({
            ready: 4,
            delayed: 1,
            dead: 0,
          });

          // One row by id, from the lookup form and by its URL.
          const lookup = await get(at(`/admin/queues/queues/jobs/rows?id=${String(ready[1])}`));
          expect(lookup.res.status).toBe(303);
          expect(lookup.res.headers.get('location')).toBe(
            `/admin/queues/queues/jobs/rows/${String(ready[1])}`,
          );
          const row = await get(at(lookup.res.headers.get('location')!));
          expect(row.res.status).toBe(200);
          expect(row.body).toContain('id="row-state">ready<');
          expect(row.body).toContain('&quot;n&quot;: 2');

          // Bad input: a clear answer, never a stack.
          const missing = await get(at('/admin/queues/queues/jobs/rows/987654321'));
          expect(missing.res.status).toBe(404);
          expect(missing.body).toContain(`table ${table.table}: no row with id 987654321`);
          const badState = await get(at('/admin/queues/queues/jobs?state=gone'));
          expect(badState.res.status).toBe(400);
          expect(badState.body).toContain('state must be one of');
          expect((await get(at('/admin/queues/queues/nosuch'))).res.status).toBe(404);
          expect((await get(at('/admin/queues/queues/jobs/requeue'))).res.status).toBe(405);
          const noIds = await post(url, { csrf: token! }, { ...same, cookie: jar! });
          expect(noIds.status).toBe(400);
          const big = await post(url, { csrf: token!, id: 'x'.repeat(70_000) }, { ...same, cookie: jar! });
          expect(big.status).toBe(413);
          await Promise.all([noIds.text(), big.text()]);
        } finally {
          await server.close();
          ro.close();
          ops.close();
        }
      });
    }

    test(`R-ADM-5 mounted in Express behind express.urlencoded(): the form the app parsed is the one checked (${db.name})`, async () => {
      const table = await fresh();
      const [id] = await broker.publishMany(table, [{ d: 1 }], { group: 'dead' });
      const ops = dashboard(adapter, {
        queues: { jobs: { table, deadLetter: DL } },
        basePath: '/ops',
        readOnly: false,
        sampleEvery: 0,
      });
      const server = await mount('Express+urlencoded', [{ base: '/ops', handler: ops }]);
      try {
        const page = await get(`${server.origin}/ops/queues/jobs`);
        const { cookie, form } = tokens(page.res, page.body);
        const url = `${server.origin}/ops/queues/jobs/requeue`;
        const headers = { origin: server.origin, cookie: cookie! };
        const forged = await post(url, { id: String(id), csrf: 'a.b' }, headers);
        expect(forged.status).toBe(403);
        expect((await new Admin(adapter).get(table, id, { deadLetter: DL }))?.state).toBe('dead');
        const done = await post(url, { id: String(id), csrf: form! }, headers);
        expect(done.status).toBe(303);
        expect((await new Admin(adapter).get(table, id, { deadLetter: DL }))?.state).toBe('ready');
      } finally {
        await server.close();
        ops.close();
      }
    });

    test(`R-ADM-5 hostile row data is escaped: a payload, a group, an error column and a handler's error holding markup (${db.name})`, async () => {
      const table = await fresh({ errorColumn: true });
      const evil = '</td><script>window.pwned = 1</script><img src=x onerror="alert(1)">';
      const readyId = await broker.publish(table, { html: evil }, { group: `"><script>alert(2)</script>` });
      const deadId = await broker.publish(
        table,
        { html: evil, quote: `' onmouseover='alert(3)` },
        { group: 'dead' },
      );
      const conn = await adapter.pool.acquire();
      try {
        const ph = adapter.dialect.name === 'sqlite' ? ['?', '?'] : ['$1', '$2'];
        await conn.query(`UPDATE ${table.table} SET last_error = ${ph[0]} WHERE id = ${ph[1]}`, [
          `<script>window.pwned = 4</script>`,
          deadId,
        ]);
      } finally {
        adapter.pool.release(conn);
      }
      // A handler whose error message is markup, seen through the broker's events.
      // A broker's shutdown closes its adapter: the workers get their own.
      const worker = new Broker(await db.open(), { logger: silentLogger });
      const failing = await createQueue(adapter);
      drops.push(failing.drop);
      const failed = await worker.publish(failing.table, { n: 1 });
      worker.subscribe(
        queue(failing.table as AnyTable)
          .maxAttempts(1)
          .deadLetter(DL),
        async () => {
          throw new Error('<b onclick="alert(5)">boom</b>');
        },
      );
      const dash = dashboard(adapter, {
        queues: {
          jobs: { table, deadLetter: DL, errorColumn: 'last_error' },
          '<i>failing</i>': { table: failing.table, deadLetter: DL },
        },
        readOnly: false,
        sampleEvery: 0,
        events: worker,
      });
      const server = await mount('node:http', [{ base: '', handler: dash }]);
      try {
        await worker.start();
        const admin = new Admin(adapter);
        for (let i = 0; i < 200; i++) {
          if ((await admin.get(failing.table, failed, { deadLetter: DL }))?.state === 'dead') break;
          await new Promise((r) => setTimeout(r, 50));
        }
        const pages = [
          await get(`${server.origin}/`),
          await get(`${server.origin}/queues/jobs?state=dead`),
          await get(`${server.origin}/queues/jobs?state=ready`),
          await get(`${server.origin}/queues/jobs/rows/${String(readyId)}`),
          await get(`${server.origin}/queues/jobs/rows/${String(deadId)}`),
          await get(`${server.origin}/queues/${encodeURIComponent('<i>failing</i>')}?state=dead`),
        ];
        for (const { res, body } of pages) {
          expect(res.status).toBe(200);
          // The page's own script is the only one; no row value became a tag or an attribute.
          expect(body.match(/<script/g)).toHaveLength(1);
          expect(body).not.toContain('<img');
          expect(body).not.toContain('<b ');
          expect(body).not.toContain('<i>');
          for (const tag of body.match(/<[a-zA-Z][^>]*>/g) ?? []) expect(tag).not.toMatch(/\son[a-z]+\s*=/i);
        }
        const [, deadPage, readyPage, readyRow, deadRow, failingPage] = pages.map((p) => p.body);
        expect(deadPage).toContain('&lt;script&gt;window.pwned = 4&lt;/script&gt;');
        expect(deadPage).toContain('&lt;/td&gt;&lt;script&gt;');
        expect(deadPage).toContain('&#39; onmouseover=&#39;alert(3)');
        expect(readyPage).toContain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
        expect(readyRow).toContain('&lt;img src=x onerror=\\&quot;alert(1)\\&quot;&gt;');
        expect(deadRow).toContain('&lt;script&gt;window.pwned = 4&lt;/script&gt;');
        expect(failingPage).toContain('&lt;b onclick=&quot;alert(5)&quot;&gt;boom&lt;/b&gt;');
        expect(failingPage).toContain('&lt;i&gt;failing&lt;/i&gt;');
      } finally {
        await worker.shutdown();
        await server.close();
        dash.close();
      }
    });

    test(`R-LIFE-8 the first tab shown has rows; the lag reads "unknown", never 0, where the ready rows carry no time; the row table keeps a label on every cell (${db.name})`, async () => {
      const table = await fresh();
      const empty = await fresh();
      const deadOnly = await fresh();
      await broker.publishMany(table, [{ n: 1 }, { n: 2 }]);
      await broker.publish(deadOnly, { d: 1 }, { group: 'dead' });
      const dash = dashboard(adapter, {
        queues: {
          jobs: { table, deadLetter: DL },
          empty: { table: empty, deadLetter: DL },
          deadOnly: { table: deadOnly, deadLetter: DL },
        },
        basePath: '/lag',
        sampleEvery: 0,
      });
      const server = await mount('node:http', [{ base: '/lag', handler: dash }]);
      try {
        await dash.sample();
        await new Promise((r) => setTimeout(r, 10));
        await dash.sample();
        // Ready rows published without a delay: no time to read an age from.
        const page = await get(`${server.origin}/lag/queues/jobs`);
        expect(page.body).toMatch(
          /<a href="\/lag\/queues\/jobs\?state=ready" aria-current="page">ready<\/a>/,
        );
        expect(page.body.match(/<tr data-id=/g)).toHaveLength(2);
        expect(page.body).toMatch(/data-count="oldest"><b>unknown<\/b>/);
        expect(page.body).toContain('id="lag-unknown"');
        const lag = /<svg[^>]*aria-label="Lag: oldest ready row"[\s\S]*?<\/svg>/.exec(page.body)![0];
        expect(lag).toContain('<rect class="unknown"');
        expect(lag).toContain('>unknown</text>');
        expect(lag).not.toMatch(/<polyline[^>]*s-lag/); // no line drawn at 0
        for (const label of ['id', 'state', 'attempt', 'group', 'due', 'lease', 'payload'])
          expect(page.body).toContain(`data-label="${label}"`);
        const home = await get(`${server.origin}/lag/`);
        expect(home.body).toMatch(/<tr data-queue="jobs">[\s\S]*?<td class="num" data-lag>unknown<\/td>/);
        expect(home.body).toMatch(/<tr data-queue="empty">[\s\S]*?<td class="num" data-lag>–<\/td>/);
        // Only dead letters: that tab; nothing at all: every row.
        expect((await get(`${server.origin}/lag/queues/deadOnly`)).body).toMatch(
          /state=dead" aria-current="page">dead</,
        );
        expect((await get(`${server.origin}/lag/queues/empty`)).body).toMatch(
          /state=all" aria-current="page">all</,
        );

        // A row due 5 s ago has a known age: a line, no band.
        await broker.publish(empty, { late: 1 }, { notBefore: new Date(Date.now() - 5_000) });
        await dash.sample();
        await new Promise((r) => setTimeout(r, 10));
        await dash.sample();
        const known = await get(`${server.origin}/lag/queues/empty`);
        expect(known.body).toMatch(/state=ready" aria-current="page">ready</);
        expect(known.body).toMatch(/data-count="oldest"><b>\d+(\.\d)? s<\/b>/);
        expect(known.body).not.toContain('id="lag-unknown"');
      } finally {
        await server.close();
        dash.close();
      }
    });

    test(`R-LIFE-8 the list filters by FIFO group and by unique key, keeping the filter across tabs and pages (${db.name})`, async () => {
      const table = await fresh({ uniqueKey: true });
      const plain = await fresh();
      const inA: unknown[] = [];
      for (let i = 0; i < 3; i++) {
        inA.push(await broker.publish(table, { n: i }, { group: 'a<b>', key: `a-${i}` } as never));
        await broker.publish(table, { n: i }, { group: 'other', key: `o-${i}` } as never);
      }
      const dash = dashboard(adapter, {
        queues: { jobs: { table, deadLetter: DL }, plain: { table: plain, deadLetter: DL } },
        basePath: '/filter',
        sampleEvery: 0,
        pageSize: 2,
      });
      const server = await mount('node:http', [{ base: '/filter', handler: dash }]);
      try {
        const base = `${server.origin}/filter/queues/jobs`;
        const first = await get(`${base}?state=ready&in_group=${encodeURIComponent('a<b>')}`);
        expect(first.res.status).toBe(200);
        // The group's value is escaped in the form and kept, encoded, in the next page's link.
        expect(first.body).toContain('name="in_group" maxlength="255" value="a&lt;b&gt;"');
        const rows = (body: string) => [...body.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);
        expect(rows(first.body)).toEqual(inA.slice(0, 2).map(String));
        const next = /<a rel="next" href="([^"]+)"/.exec(first.body)![1]!.replaceAll('&amp;', '&');
        expect(next).toContain('in_group=a%3Cb%3E');
        const second = await get(`${server.origin}${next}`);
        expect(rows(second.body)).toEqual(inA.slice(2).map(String));
        expect(first.body).toMatch(/href="\/filter\/queues\/jobs\?state=all&amp;in_group=a%3Cb%3E"/);
        const byKey = await get(`${base}?state=all&key=o-1`);
        expect(rows(byKey.body)).toHaveLength(1);
        const none = await get(`${base}?state=all&key=missing`);
        expect(none.body).toContain('No all rows that match the filter.');
        // A table without a unique key column: no key filter, and a clear 400 for one in the URL.
        const refused = await get(`${server.origin}/filter/queues/plain?key=x`);
        expect(refused.res.status).toBe(400);
        expect(refused.body).toContain('has no unique key column to filter by');
      } finally {
        await server.close();
        dash.close();
      }
    });

    test(`R-LIFE-8 pause, resume and run now answer a clear 400 where the table cannot do them, and a run now by id makes rows due (${db.name})`, async () => {
      const table = await fresh();
      const admin = new Admin(adapter);
      const later = await broker.publish(
        table,
        { later: true },
        { notBefore: new Date(Date.now() + 3_600_000) },
      );
      const ready = await broker.publish(table, { now: true });
      const dash = dashboard(admin, {
        queues: { jobs: { table, deadLetter: DL } },
        readOnly: false,
        sampleEvery: 0,
      });
      const server = await mount('node:http', [{ base: '', handler: dash }]);
      try {
        const page = await get(`${server.origin}/queues/jobs?state=delayed`);
        const { cookie, form } = tokens(page.res, page.body);
        // A table without a control table shows no pause button, and refuses a pause by hand.
        expect(page.body).not.toContain('Pause queue');
        expect(page.body).toContain('Run now');
        const headers = { cookie: cookie!, origin: server.origin };
        for (const [action, fields, message] of [
          ['pause', {}, 'declares no control table: add control: true'],
          ['resume', { group: 'acme' }, 'declares no control table'],
          ['run-now', { all: '1' }, 'rows are run now by id only'],
          ['run-now', {}, 'say which rows'],
        ] as const) {
          const res = await post(
            `${server.origin}/queues/jobs/${action}`,
            { csrf: form!, ...fields },
            headers,
          );
          expect(res.status, action).toBe(400);
          expect(await res.text(), action).toContain(message);
        }
        // Run now of a ready row and a delayed one: both are due now, the delayed one ready.
        const skipped = await post(
          `${server.origin}/queues/jobs/run-now`,
          { csrf: form!, id: [String(ready), String(later)], state: 'delayed' },
          headers,
        );
        expect(skipped.status).toBe(303);
        expect(skipped.headers.get('location')).toMatch(
          /done=rescheduled&n=2&left=0|done=rescheduled&n=1&left=1/,
        );
        expect((await admin.get(table, later))?.state).toBe('ready');
      } finally {
        await server.close();
        dash.close();
      }
    });

    test(`R-LIFE-1 R-LIFE-8 a dead row's failure record: its class and error, when it was made and when it died, on the list and the row's page (${db.name})`, async () => {
      const table = await fresh({ record: true });
      // A broker of its own adapter: its shutdown closes that adapter.
      const worker = new Broker(await db.open(), { logger: silentLogger, pollInterval: 50 });
      class MailboxError extends Error {
        override name = 'MailboxError';
      }
      const died = new Promise<unknown>((resolve) => worker.on('deadLettered', (e) => resolve(e.id)));
      worker.subscribe(queue(table).maxAttempts(1).deadLetter(DL), async () => {
        throw new MailboxError('SMTP 550: <b>mailbox</b> unavailable');
      });
      const id = await broker.publish(table, { to: 'nobody@example.com' });
      await worker.start();
      expect(String(await died)).toBe(String(id));
      await worker.shutdown();
      const dash = dashboard(adapter, { queues: { jobs: { table, deadLetter: DL } }, sampleEvery: 0 });
      const server = await mount('node:http', [{ base: '', handler: dash }]);
      try {
        const list = await get(`${server.origin}/queues/jobs?state=dead`);
        expect(list.res.status).toBe(200);
        expect(list.body).toContain('<th>created</th>');
        expect(list.body).toContain('<th>failed</th>');
        expect(list.body).toContain(
          '<td class="error" data-label="last error">MailboxError: SMTP 550: &lt;b&gt;mailbox&lt;/b&gt; unavailable</td>',
        );
        const row = await get(`${server.origin}/queues/jobs/rows/${String(id)}`);
        expect(row.body).toMatch(/<dd id="row-created">\d{4}-\d\d-\d\d/);
        expect(row.body).toMatch(/<dd id="row-failed">\d{4}-\d\d-\d\d/);
        expect(row.body).toContain('title="from the failure record"');
      } finally {
        await server.close();
        dash.close();
      }
    });

    test(`R-LIFE-8 a login of the dashboard's own: basic authentication or a bearer token on every request, refused with 401 otherwise (${db.name})`, async () => {
      const table = await fresh();
      const queues = { jobs: { table, deadLetter: DL } };
      const token = 'tok-0123456789abcdef';
      const dash = dashboard(adapter, {
        queues,
        basePath: '/locked',
        sampleEvery: 0,
        credentials: { user: 'ops', password: 's3cret', token },
      });
      const onlyToken = dashboard(adapter, {
        queues,
        basePath: '/token',
        sampleEvery: 0,
        credentials: { token },
      });
      const server = await mount('Hono', [
        { base: '/locked', handler: dash },
        { base: '/token', handler: onlyToken },
      ]);
      const basic = (user: string, pass: string) => ({
        authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
      });
      try {
        const none = await get(`${server.origin}/locked/`);
        expect(none.res.status).toBe(401);
        expect(none.res.headers.get('www-authenticate')).toBe('Basic realm="sqlinbox", charset="UTF-8"');
        expect(none.res.headers.get('set-cookie')).toBeNull();
        expect((await get(`${server.origin}/locked/`, basic('ops', 'wrong'))).res.status).toBe(401);
        expect((await get(`${server.origin}/locked/`, basic('other', 's3cret'))).res.status).toBe(401);
        expect((await get(`${server.origin}/locked/`, basic('ops', 's3cret'))).res.status).toBe(200);
        expect(
          (await get(`${server.origin}/locked/api/stats`, { authorization: `Bearer ${token}` })).res.status,
        ).toBe(200);
        expect((await get(`${server.origin}/token/`, basic('ops', 's3cret'))).res.status).toBe(401);
        const bearerOnly = await get(`${server.origin}/token/`);
        expect(bearerOnly.res.headers.get('www-authenticate')).toBe('Bearer realm="sqlinbox"');
        expect((await get(`${server.origin}/token/`, { authorization: `bearer ${token}` })).res.status).toBe(
          200,
        );
      } finally {
        await server.close();
        dash.close();
        onlyToken.close();
      }
      for (const credentials of [
        { user: 'ops' },
        { password: 'x' },
        {},
        { token: 'short' },
        { user: 'a:b', password: 'p' },
      ]) {
        expect(() => dashboard(adapter, { queues, sampleEvery: 0, credentials })).toThrow(
          /dashboard credentials/,
        );
      }
    });

    test(`R-FLOW-6 R-ADM-5 the flow page: a parent over a done and a pending child, as a tree with each job's name, id, state, edge and what the parent waits for; its rows link to it; read-only; a missing id is a 404 that says so (${db.name})`, async () => {
      const table = await fresh({ flows: true });
      const plain = await fresh();
      const admin = new Admin(adapter);
      const flows = new Flows(adapter);
      const hostile = 'mail <i onclick="alert(1)">now</i>';
      const ids = await flows.publish(table, {
        jobs: {
          charge: { message: { step: 'charge' } },
          [hostile]: { message: { step: 'mail' } },
          ship: { message: { step: 'ship' }, after: ['charge', hostile] },
        },
      });
      const [ship, charge, mail] = [String(ids.ship), String(ids.charge), String(ids[hostile])];
      // The mail child is not due for an hour: it stays pending while a worker acks the charge.
      await admin.reschedule(table, { ids: [ids[hostile]] }, new Date(Date.now() + 3_600_000));
      const worker = new Broker(await db.open(), { logger: silentLogger, pollInterval: 50 });
      worker.subscribe(queue(table).pollInterval(50), async () => Outcome.ack({ ok: true }));
      await worker.start();
      try {
        await until(
          async () =>
            (await admin.tree(table, ids.ship)).children.some((c) => c.id === charge && c.edge === 'done'),
          "the charge child's edge done",
        );
      } finally {
        await worker.shutdown();
      }
      const plainId = String(await broker.publish(table, { step: 'alone' }));
      const dash = dashboard(adapter, {
        queues: { jobs: { table }, plain: { table: plain } },
        readOnly: false,
        sampleEvery: 0,
      });
      const server = await mount('node:http', [{ base: '', handler: dash }]);
      const at = (path: string) => `${server.origin}${path}`;
      try {
        const tree = await get(at(`/queues/jobs/flows/${ship}`));
        expect(tree.res.status).toBe(200);
        const b = tree.body;
        // The parent: the root, waiting, one child still to settle.
        expect(b).toMatch(
          new RegExp(
            `<li data-node="${ship}" data-state="waiting"><div class="node"><b class="node-name">\\(root\\)</b> <a class="node-id" href="/queues/jobs/rows/${ship}">#${ship}</a> <span class="state state-waiting" data-node-state>waiting</span> <span class="waits" data-node-waits>waits for 1 child</span>`,
          ),
        );
        // Its children in name order: the done one, then the pending one (its name escaped).
        const done = b.indexOf(`<li data-node="${charge}" data-state="done" data-edge="done">`);
        const pending = b.indexOf(`<li data-node="${mail}" data-state="delayed" data-edge="pending">`);
        expect(done).toBeGreaterThan(b.indexOf(`data-node="${ship}"`));
        expect(pending).toBeGreaterThan(done);
        expect(b.slice(done, pending)).toContain('<b class="node-name">charge</b>');
        expect(b.slice(done, pending)).toContain('edge done');
        expect(b.slice(pending)).toContain('mail &lt;i onclick=&quot;alert(1)&quot;&gt;now&lt;/i&gt;');
        expect(b.slice(pending)).toContain('edge pending');
        expect(b).not.toContain('<i ');
        // Read-only, whatever the dashboard's mode: no form posts from the flow page.
        expect(b).not.toContain('method="post"');

        // From a child: its own node, and the parent it runs before, linked.
        const up = await get(at(`/queues/jobs/flows/${mail}`));
        expect(up.res.status).toBe(200);
        expect(up.body).toContain(
          `<a href="/queues/jobs/flows/${ship}" data-parent="${ship}">#${ship}</a> (as mail`,
        );

        // The rows link to the flow: the parent to its tree, the child to its parent's.
        const parentRow = await get(at(`/queues/jobs/rows/${ship}`));
        expect(parentRow.body).toContain(
          `<a href="/queues/jobs/flows/${ship}">its flow: 2 children</a>, waits for 1`,
        );
        const childRow = await get(at(`/queues/jobs/rows/${charge}`));
        expect(childRow.body).toContain(
          `child of <a href="/queues/jobs/flows/${ship}">#${ship}</a> (as charge, edge done)`,
        );
        expect((await get(at(`/queues/jobs/rows/${plainId}`))).body).not.toContain('id="row-flow"');

        // A search by id from the queue's page.
        const queuePage = await get(at('/queues/jobs'));
        expect(queuePage.body).toContain('action="/queues/jobs/flows"');
        const found = await get(at(`/queues/jobs/flows?id=${ship}`));
        expect(found.res.status).toBe(303);
        expect(found.res.headers.get('location')).toBe(`/queues/jobs/flows/${ship}`);

        // A missing id, a row in no flow, a queue without flows: 404, each saying why.
        const missing = await get(at('/queues/jobs/flows/987654321'));
        expect(missing.res.status).toBe(404);
        expect(missing.body).toContain(
          `table ${table.table}: no row with id 987654321, and no flow names it`,
        );
        const alone = await get(at(`/queues/jobs/flows/${plainId}`));
        expect(alone.res.status).toBe(404);
        expect(alone.body).toContain(`row ${plainId} is in no flow`);
        const none = await get(at('/queues/plain/flows/1'));
        expect(none.res.status).toBe(404);
        expect(none.body).toContain('the queue plain keeps no flows');
        expect((await get(at('/queues/plain'))).body).not.toContain('/flows');
      } finally {
        await server.close();
        dash.close();
      }
    });

    test(`R-ADM-5 R-ADM-1 the charts: depth and lag sampled in memory at an interval, throughput counted from the brokers' events (${db.name})`, async () => {
      const table = await fresh();
      const worker = new Broker(await db.open(), { logger: silentLogger });
      const dash = dashboard(adapter, {
        queues: { jobs: { table, deadLetter: DL } },
        basePath: '/events',
        sampleEvery: 0,
        events: worker,
      });
      const quiet = dashboard(adapter, {
        queues: { jobs: { table, deadLetter: DL } },
        basePath: '/quiet',
        sampleEvery: 0,
      });
      const server = await mount('Express', [
        { base: '/events', handler: dash },
        { base: '/quiet', handler: quiet },
      ]);
      try {
        await broker.publishMany(table, [{ n: 1 }, { n: 2 }, { n: 3 }]);
        await broker.publish(table, { d: 1 }, { group: 'dead' });
        // A reading spans the time since the last one; a zero span has no rate (a point, not a line).
        await new Promise((r) => setTimeout(r, 10));
        await dash.sample();
        let handled = 0;
        worker.subscribe(queue(table).maxAttempts(1).deadLetter(DL), async (m: unknown) => {
          handled++;
          if ((m as { n: number }).n === 3) throw new Error('three fails');
        });
        await worker.start();
        for (let i = 0; i < 200 && handled < 3; i++) await new Promise((r) => setTimeout(r, 25));
        await worker.shutdown();
        await dash.sample();

        const api = JSON.parse((await get(`${server.origin}/events/api/stats`)).body);
        const samples = api.queues.jobs.samples as {
          stats: { ready: number; dead: number };
          settled: Record<string, number>;
        }[];
        expect(samples).toHaveLength(2);
        expect(samples[0]!.stats).toMatchObject({ ready: 3, dead: 1 });
        expect(samples[1]!.stats).toMatchObject({ ready: 0, dead: 2 });
        expect(samples[1]!.settled).toEqual({ done: 2, retried: 0, dead: 1 });
        expect(api.counting).toBe(true);

        const page = await get(`${server.origin}/events/queues/jobs`);
        expect(page.body).toContain('aria-label="Depth"');
        expect(page.body).toContain('aria-label="Lag: oldest ready row"');
        expect(page.body).toContain('aria-label="Throughput"');
        expect(page.body).toMatch(/<polyline class="line s-ready" data-series="ready" points="[\d., ]+"/);
        expect(page.body).toMatch(/<polyline class="line s-done" data-series="done" points="[\d., ]+"/);
        // The dead letter's error, remembered from the event.
        expect(page.body).toContain('three fails');
        const home = await get(`${server.origin}/events/`);
        expect(home.body).toContain('done / min');

        // Without events: no throughput chart, and it says how to get one.
        const bare = await get(`${server.origin}/quiet/queues/jobs`);
        expect(bare.body).not.toContain('aria-label="Throughput"');
        expect(bare.body).toContain('the <code>events</code> option');
        expect(bare.body).toContain('no readings yet');
      } finally {
        await server.close();
        dash.close();
        quiet.close();
      }
    });
  });
}

test('R-ADM-5 a base path that could break out of its links is refused when the dashboard is made', () => {
  const table = { table: 'jobs' } as unknown as AnyTable;
  for (const basePath of ['admin', '/admin/', '/a b', '/"x', '//evil.example']) {
    expect(() => dashboard({} as never, { queues: { jobs: { table } }, basePath })).toThrow(/basePath/);
  }
});
