/**
 * The dashboard in a real browser: Debian's Chromium (`apt-get install -y chromium`) driven by
 * playwright-core, never a downloaded browser. Without Chromium the tests are skipped and the run
 * says why; under CI a missing Chromium fails the run (test/chromium.ts). It takes the
 * screenshots of docs/operations.md; with SQLINBOX_DOCS_SCREENSHOTS=1 it writes them into docs/images.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Admin, type AnyTable, Broker, Flows, Outcome, queue, silentLogger } from '@sqlinbox/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dashboard } from '../src/index.js';
import { resolveChromium } from './chromium.js';
import { createQueue, databases, mount } from './support.js';

const target = resolveChromium();
const NO_CHROMIUM = 'skip' in target ? target.skip : undefined;
if (NO_CHROMIUM !== undefined) {
  console.log(`sqlinbox test target Chromium: SKIPPED, ${NO_CHROMIUM}`);
  test.skip(`R-USER-7 the dashboard in Chromium: skipped, ${NO_CHROMIUM}`, () => {});
}
const SHOTS = join(import.meta.dirname, '..', '.vitest', 'screenshots');
const DOCS = join(import.meta.dirname, '..', '..', '..', 'docs', 'images');
const DL = { group: 'dead' } as const;

const dbs = databases();
let browser: Browser;
beforeAll(async () => {
  if (!('path' in target)) return;
  browser = await chromium.launch({ executablePath: target.path, args: ['--no-sandbox'], headless: true });
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  for (const db of dbs) db.cleanup();
});

async function shot(page: Page, name: string, docs: boolean): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  if (docs && process.env.SQLINBOX_DOCS_SCREENSHOTS === '1') {
    mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: join(DOCS, `${name}.png`), fullPage: true });
  }
}

/** A page of its own context, accepting every dialog; the dialogs it showed and the errors it threw. */
async function openPage(height: number) {
  const context = await browser.newContext({ viewport: { width: 1200, height } });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.accept();
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, dialogs, errors };
}

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const db of dbs) {
  describe.skipIf(NO_CHROMIUM !== undefined)(`the dashboard in Chromium on ${db.name}`, () => {
    test(`R-ADM-5 R-ADM-3 the page lists the queues, a dead letter is requeued by a click and then processed; an action without the CSRF token and one in read-only mode are refused (${db.name})`, async () => {
      const adapter = await db.open();
      const jobs = await createQueue(adapter);
      const idle = await createQueue(adapter);
      const workerAdapter = await db.open();
      const worker = new Broker(workerAdapter, { logger: silentLogger, pollInterval: 100 });
      const admin = new Admin(adapter);
      const queues = {
        jobs: { table: jobs.table, deadLetter: DL },
        idle: { table: idle.table, deadLetter: DL },
      };
      const ops = dashboard(admin, {
        queues,
        basePath: '/ops',
        readOnly: false,
        sampleEvery: 400,
        events: worker,
      });
      const ro = dashboard(admin, { queues, basePath: '/ro', sampleEvery: 400 });
      const server = await mount('node:http', [
        { base: '/ops', handler: ops },
        { base: '/ro', handler: ro },
      ]);
      const { context, page, dialogs, errors } = await openPage(480);
      const delivered = new Set<string>();
      try {
        const broker = new Broker(adapter, { logger: silentLogger });
        const evil = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
        const dead = [
          await broker.publish(jobs.table, { to: 'ada@example.com', html: evil }, { group: 'dead' }),
          await broker.publish(jobs.table, { to: 'grace@example.com' }, { group: 'dead' }),
          await broker.publish(jobs.table, { to: 'linus@example.com' }, { group: 'dead' }),
        ];
        await broker.publishMany(idle.table, [{ n: 1 }, { n: 2 }]);
        // A worker that fails one row (a dead letter with its error, seen through the events) and
        // handles the rest.
        worker.subscribe(
          queue(jobs.table as AnyTable)
            .maxAttempts(1)
            .deadLetter(DL)
            .pollInterval(100),
          async (m: unknown, ctx) => {
            delivered.add(String(ctx.id));
            if ((m as { fail?: boolean }).fail) throw new Error('SMTP 550: mailbox unavailable');
            await new Promise((r) => setTimeout(r, 20));
          },
        );
        await worker.start();
        const failed = await broker.publish(jobs.table, { to: 'nobody@example.com', fail: true });
        // Longer when the docs' screenshots are taken, for charts with more to show.
        const rounds = process.env.SQLINBOX_DOCS_SCREENSHOTS === '1' ? 30 : 6;
        for (let i = 0; i < rounds; i++) {
          await broker.publishMany(
            jobs.table,
            Array.from({ length: 10 + (i % 8) * 4 }, (_, n) => ({ n })),
          );
          await new Promise((r) => setTimeout(r, 450));
        }
        await until(
          async () => (await admin.get(jobs.table, failed, { deadLetter: DL }))?.state === 'dead',
          'the failing row dead-lettered',
        );

        // The overview: both queues with their counts.
        await page.goto(`${server.origin}/ops/`);
        const jobsRow = page.locator('tr[data-queue="jobs"]');
        await expect.poll(() => jobsRow.locator('[data-count="dead"]').textContent()).toBe('4');
        expect(await page.locator('tr[data-queue="idle"] [data-count="ready"]').textContent()).toBe('2');
        // The counts refresh in place, without a reload.
        await broker.publishMany(idle.table, [{ n: 3 }, { n: 4 }, { n: 5 }]);
        await expect
          .poll(() => page.locator('tr[data-queue="idle"] [data-count="ready"]').textContent(), {
            timeout: 10_000,
          })
          .toBe('5');
        await shot(page, 'dashboard-queues', true);

        // The queue's page: the dead letters, the hostile payload shown as text, the error.
        await jobsRow.getByRole('link', { name: 'jobs' }).click();
        await page.waitForURL(/\/ops\/queues\/jobs$/);
        expect(await page.locator('table.rows tbody tr').count()).toBe(4);
        expect(await page.locator(`tr[data-id="${String(dead[0])}"] .payload`).textContent()).toContain(
          '<script>window.pwned = 1</script>',
        );
        expect(await page.locator(`tr[data-id="${String(failed)}"] .error`).textContent()).toBe(
          'SMTP 550: mailbox unavailable',
        );
        expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
        expect(await page.locator('svg[aria-label="Depth"] polyline').count()).toBeGreaterThan(0);
        expect(await page.locator('svg[aria-label="Throughput"] polyline').count()).toBeGreaterThan(0);
        await shot(page, 'dashboard-dead-letters', true);

        // At a phone's 390 px: each row a block of labelled cells, nothing wider than the screen.
        await page.setViewportSize({ width: 390, height: 844 });
        expect(
          await page.evaluate(
            () =>
              (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
                .documentElement.scrollWidth,
          ),
        ).toBeLessThanOrEqual(390);
        const errorCell = page.locator(`tr[data-id="${String(failed)}"] .error`);
        const box = await errorCell.boundingBox();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(390);
        type Styles = { getComputedStyle(e: unknown, pseudo: string): { content: string } };
        const label = await errorCell.evaluate(
          (el) => (globalThis as unknown as Styles).getComputedStyle(el, '::before').content,
        );
        expect(label).toBe('"last error"');
        expect(await page.locator('table.rows thead').isVisible()).toBe(false);
        await shot(page, 'dashboard-narrow', false);
        await page.setViewportSize({ width: 1200, height: 480 });

        // Requeue by a click: the row leaves the dead list, and the worker then processes it.
        const target = String(dead[0]);
        await page.locator(`tr[data-id="${target}"]`).getByRole('button', { name: 'Requeue' }).click();
        await page.waitForURL(/done=requeued/);
        expect(await page.locator('#notice').textContent()).toBe('Requeued 1 row.');
        expect(await page.locator(`tr[data-id="${target}"]`).count()).toBe(0);
        expect(await page.locator('table.rows tbody tr').count()).toBe(3);
        await until(() => delivered.has(target), 'the requeued row delivered');
        await until(async () => (await admin.get(jobs.table, dead[0])) === null, 'the requeued row settled');

        // Without the CSRF token the same click is refused, and the row stays.
        const second = String(dead[1]);
        await page.locator(`tr[data-id="${second}"] input[name="csrf"]`).evaluateAll((inputs) => {
          for (const input of inputs) input.remove();
        });
        const [refused] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.locator(`tr[data-id="${second}"]`).getByRole('button', { name: 'Requeue' }).click(),
        ]);
        expect(refused.status()).toBe(403);
        await page.waitForLoadState();
        expect(await page.locator('#problem').textContent()).toContain('no valid CSRF token');
        expect((await admin.get(jobs.table, dead[1], { deadLetter: DL }))?.state).toBe('dead');

        // Delete asks first; accepted, the row is gone.
        await page.goto(`${server.origin}/ops/queues/jobs?state=dead`);
        await page.locator(`tr[data-id="${second}"]`).getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL(/done=deleted/);
        expect(dialogs).toEqual([`confirm: Delete dead letter ${second}?`]);
        expect(await admin.get(jobs.table, dead[1], { deadLetter: DL })).toBeNull();

        // One row by id, from the lookup form.
        await page.fill('#find-id', String(dead[2]));
        await page.getByRole('button', { name: 'Show' }).click();
        await page.waitForURL(new RegExp(`/ops/queues/jobs/rows/${String(dead[2])}$`));
        expect(await page.locator('#row-state').textContent()).toBe('dead');
        expect(await page.locator('#payload').textContent()).toContain('linus@example.com');

        // Read-only: no buttons, and a POST the page makes itself is refused.
        await page.goto(`${server.origin}/ro/queues/jobs?state=dead`);
        expect(await page.locator('table.rows tbody tr').count()).toBe(2);
        expect(await page.getByRole('button', { name: /Requeue|Delete/ }).count()).toBe(0);
        const status = await page.evaluate(async (id) => {
          const res = await fetch('/ro/queues/jobs/requeue', {
            method: 'POST',
            body: new URLSearchParams({ id, csrf: 'x' }),
          });
          return res.status;
        }, String(dead[2]));
        expect(status).toBe(403);
        expect((await admin.get(jobs.table, dead[2], { deadLetter: DL }))?.state).toBe('dead');
        await shot(page, 'dashboard-read-only', false);

        expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await server.close();
        ops.close();
        ro.close();
        await worker.shutdown();
        await jobs.drop();
        await idle.drop();
        await adapter.close();
      }
    });

    test(`R-LIFE-8 R-LIFE-2 R-LIFE-3 the queue is paused and resumed by a click, one group too, every broker hears of it; a delayed row runs now, and a delayed or running row is cancelled, by a click (${db.name})`, async () => {
      const adapter = await db.open();
      const jobs = await createQueue(adapter, { control: true });
      const workerAdapter = await db.open();
      const worker = new Broker(workerAdapter, { logger: silentLogger, pollInterval: 100 });
      const admin = new Admin(adapter);
      const queues = { jobs: { table: jobs.table, deadLetter: DL } };
      const ops = dashboard(admin, { queues, basePath: '/ops', readOnly: false, sampleEvery: 400 });
      const ro = dashboard(admin, { queues, basePath: '/ro', sampleEvery: 400 });
      const server = await mount('node:http', [
        { base: '/ops', handler: ops },
        { base: '/ro', handler: ro },
      ]);
      const { context, page, dialogs, errors } = await openPage(600);
      const delivered = new Set<string>();
      const heard: string[] = [];
      worker.on('paused', (e) => heard.push(`paused ${e.scope}${e.value === null ? '' : ` ${e.value}`}`));
      worker.on('resumed', (e) => heard.push(`resumed ${e.scope}${e.value === null ? '' : ` ${e.value}`}`));
      try {
        const broker = new Broker(adapter, { logger: silentLogger });
        // By payload: SQLite gives a deleted row's id to the next row. Row 6 runs until it is
        // told to stop.
        let stopped: unknown;
        worker.subscribe(
          queue(jobs.table as AnyTable)
            .pollInterval(100)
            .maxAttempts(5)
            .deadLetter(DL),
          async (m: unknown, ctx) => {
            const n = (m as { n: number }).n;
            delivered.add(String(n));
            if (n !== 6) return;
            await new Promise<void>((resolve) =>
              ctx.signal.addEventListener(
                'abort',
                () => {
                  stopped = ctx.signal.reason;
                  resolve();
                },
                { once: true },
              ),
            );
          },
        );
        await worker.start();
        await broker.publish(jobs.table, { n: 1 });
        await until(() => delivered.has('1'), 'a row delivered before the pause');

        // Pause: asked to confirm, kept in the database, heard by the worker's broker.
        await page.goto(`${server.origin}/ops/queues/jobs?state=ready`);
        expect(await page.locator('#paused').textContent()).toBe('running');
        await page.getByRole('button', { name: 'Pause queue' }).click();
        await page.waitForURL(/done=paused/);
        expect(dialogs).toEqual([
          'confirm: Pause jobs? No broker starts a handler of it until it is resumed.',
        ]);
        expect(await page.locator('#notice').textContent()).toMatch(/^Paused the queue/);
        expect(await page.locator('#paused').textContent()).toBe('paused');
        expect((await admin.paused(jobs.table)).queue).toBe(true);
        await until(() => heard.includes('paused queue'), "the worker's broker hearing of the pause");
        await page.goto(`${server.origin}/ops/`);
        expect(await page.locator('tr[data-queue="jobs"] [data-paused]').textContent()).toBe('paused');

        // A row published while paused waits; a click on Resume lets it run.
        await broker.publish(jobs.table, { n: 2 });
        expect(delivered.has('2')).toBe(false);
        await page.goto(`${server.origin}/ops/queues/jobs?state=ready`);
        await page.getByRole('button', { name: 'Resume queue' }).click();
        await page.waitForURL(/done=resumed/);
        expect(await page.locator('#notice').textContent()).toBe('Resumed the queue.');
        expect((await admin.paused(jobs.table)).queue).toBe(false);
        await until(() => delivered.has('2'), 'the row published while paused, delivered after the resume');

        // One FIFO group: paused from the form, listed, resumed from its own button.
        await page.fill('#pause-group', 'acme <b>corp</b>');
        await page.getByRole('button', { name: 'Pause group' }).click();
        await page.waitForURL(/done=paused/);
        expect(await page.locator('#notice').textContent()).toMatch(/^Paused group acme <b>corp<\/b>/);
        expect((await admin.paused(jobs.table)).groups).toEqual(['acme <b>corp</b>']);
        expect(await page.locator('#paused-groups li').count()).toBe(1);
        await page.goto(`${server.origin}/ops/`);
        expect(await page.locator('tr[data-queue="jobs"] [data-paused]').textContent()).toBe(
          '1 group paused',
        );
        await page.goto(`${server.origin}/ops/queues/jobs?state=ready`);
        await shot(page, 'dashboard-paused-group', false);
        await page.getByRole('button', { name: 'Resume group' }).click();
        await page.waitForURL(/done=resumed/);
        expect((await admin.paused(jobs.table)).groups).toEqual([]);
        expect(await page.locator('#paused-groups').count()).toBe(0);

        // Run now: a row delayed by an hour is made due by a click, and the worker runs it.
        const later = String(
          await broker.publish(jobs.table, { n: 3 }, { notBefore: new Date(Date.now() + 3_600_000) }),
        );
        await page.goto(`${server.origin}/ops/queues/jobs?state=delayed`);
        await page.locator(`tr[data-id="${later}"]`).getByRole('button', { name: 'Run now' }).click();
        await page.waitForURL(/done=rescheduled/);
        expect(await page.locator('#notice').textContent()).toBe('Made due now: 1 row.');
        await until(() => delivered.has('3'), 'the delayed row run now');

        // Cancel, asked to confirm: a delayed row leaves at once, to the dead letter.
        const unwanted = await broker.publish(
          jobs.table,
          { n: 5 },
          { notBefore: new Date(Date.now() + 3_600_000) },
        );
        await page.goto(`${server.origin}/ops/queues/jobs?state=delayed`);
        await page
          .locator(`tr[data-id="${String(unwanted)}"]`)
          .getByRole('button', { name: 'Cancel' })
          .click();
        await page.waitForURL(/done=cancelled/);
        expect(dialogs.at(-1)).toBe(`confirm: Cancel row ${String(unwanted)}?`);
        expect(await page.locator('#notice').textContent()).toBe('Cancelled 1 row.');
        expect((await admin.get(jobs.table, unwanted, { deadLetter: DL }))?.state).toBe('dead');
        // A running row: its handler's signal aborts, from the broker running it.
        await broker.publish(jobs.table, { n: 6 });
        await until(() => delivered.has('6'), 'row 6 running');
        await page.goto(`${server.origin}/ops/queues/jobs?state=inWork`);
        await until(async () => {
          if ((await page.locator('table.rows tbody tr').count()) === 1) return true;
          await page.reload();
          return false;
        }, 'row 6 listed in work');
        await page.locator('table.rows tbody tr').getByRole('button', { name: 'Cancel' }).click();
        await page.waitForURL(/done=cancelled/);
        expect(await page.locator('#notice').textContent()).toBe(
          "Cancelled 0 rows; 1 row in work told to stop: the handler's signal aborts within a second.",
        );
        await until(() => stopped !== undefined, "row 6's handler told to stop", 20_000);
        expect((stopped as { code?: string }).code).toBe('CANCELLED');

        // Read-only: the state is shown, no button; a POST the page makes itself is refused.
        await admin.pause(jobs.table);
        await page.goto(`${server.origin}/ro/queues/jobs?state=ready`);
        expect(await page.locator('#paused').textContent()).toBe('paused');
        expect(await page.getByRole('button', { name: /Pause|Resume|Run now|Cancel/ }).count()).toBe(0);
        const status = await page.evaluate(async () => {
          const res = await fetch('/ro/queues/jobs/resume', {
            method: 'POST',
            body: new URLSearchParams({ csrf: 'x' }),
          });
          return res.status;
        });
        expect(status).toBe(403);
        expect((await admin.paused(jobs.table)).queue).toBe(true);
        await admin.resume(jobs.table);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await server.close();
        ops.close();
        ro.close();
        await worker.shutdown();
        await jobs.drop();
        await adapter.close();
      }
    });
    test(`R-FLOW-6 R-ADM-5 a flow read from the page at a phone's 390 px: found by id, the parent waiting over a done and a pending child, each node's name, id, state and edge, linked to and from its rows (${db.name})`, async () => {
      const adapter = await db.open();
      const jobs = await createQueue(adapter, { flows: true });
      const admin = new Admin(adapter);
      const flows = new Flows(adapter);
      const dash = dashboard(admin, {
        queues: { jobs: { table: jobs.table } },
        basePath: '/ops',
        sampleEvery: 0,
      });
      const server = await mount('node:http', [{ base: '/ops', handler: dash }]);
      const { context, page, errors } = await openPage(844);
      const worker = new Broker(await db.open(), { logger: silentLogger, pollInterval: 50 });
      try {
        const ids = await flows.publish(jobs.table, {
          jobs: {
            charge: { message: { step: 'charge' } },
            'mail <b>now</b>': { message: { step: 'mail' } },
            ship: { message: { step: 'ship' }, after: ['charge', 'mail <b>now</b>'] },
          },
        });
        const [ship, charge, mail] = [String(ids.ship), String(ids.charge), String(ids['mail <b>now</b>'])];
        // The mail child is not due for an hour: pending while a worker acks the charge.
        await admin.reschedule(
          jobs.table,
          { ids: [ids['mail <b>now</b>']] },
          new Date(Date.now() + 3_600_000),
        );
        worker.subscribe(queue(jobs.table).pollInterval(50), async () => Outcome.ack({ ok: true }));
        await worker.start();
        await until(
          async () =>
            (await admin.tree(jobs.table, ids.ship)).children.some(
              (c) => c.id === charge && c.edge === 'done',
            ),
          "the charge child's edge done",
        );

        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(`${server.origin}/ops/queues/jobs?state=all`);
        await page.fill('#find-flow', ship);
        await page
          .locator('form[action="/ops/queues/jobs/flows"]')
          .getByRole('button', { name: 'Show' })
          .click();
        await page.waitForURL(new RegExp(`/ops/queues/jobs/flows/${ship}$`));

        // The tree as the page shows it: each node's name, id, state, edge and what it waits for.
        type Read = {
          name: string;
          id: string;
          state: string;
          edge: string;
          waits: string;
          children: Read[];
        };
        type El = {
          querySelector(s: string): El | null;
          querySelectorAll(s: string): Iterable<El>;
          textContent: string | null;
        };
        const tree = await page.locator('#flow > li').evaluate((root) => {
          const read = (li: El): Read => {
            const node = li.querySelector(':scope > .node')!;
            const text = (sel: string) => node.querySelector(sel)?.textContent ?? '';
            return {
              name: text('.node-name'),
              id: text('.node-id'),
              state: text('[data-node-state]'),
              edge: text('[data-node-edge]'),
              waits: text('[data-node-waits]'),
              children: [...li.querySelectorAll(':scope > ul > li')].map(read),
            };
          };
          return read(root as unknown as El);
        });
        expect(tree).toEqual({
          name: '(root)',
          id: `#${ship}`,
          state: 'waiting',
          edge: '',
          waits: 'waits for 1 child',
          children: [
            { name: 'charge', id: `#${charge}`, state: 'done', edge: 'edge done', waits: '', children: [] },
            {
              name: 'mail <b>now</b>',
              id: `#${mail}`,
              state: 'delayed',
              edge: 'edge pending',
              waits: '',
              children: [],
            },
          ],
        });
        // Read-only: no button on the page. Nothing wider than the screen.
        expect(await page.getByRole('button').count()).toBe(0);
        expect(
          await page.evaluate(
            () =>
              (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
                .documentElement.scrollWidth,
          ),
        ).toBeLessThanOrEqual(390);
        for (const node of await page.locator('#flow .node').all()) {
          const box = await node.boundingBox();
          expect(box!.x).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width).toBeLessThanOrEqual(390);
        }
        await shot(page, 'dashboard-flow', false);

        // From a node to its row, and from the row back to the flow it is a child in.
        await page
          .locator('#flow')
          .getByRole('link', { name: `#${charge}` })
          .click();
        await page.waitForURL(new RegExp(`/ops/queues/jobs/rows/${charge}$`));
        expect(await page.locator('#row-flow').textContent()).toBe(
          `child of #${ship} (as charge, edge done)`,
        );
        await page
          .locator('#row-flow')
          .getByRole('link', { name: `#${ship}` })
          .click();
        await page.waitForURL(new RegExp(`/ops/queues/jobs/flows/${ship}$`));
        await page
          .locator('#flow')
          .getByRole('link', { name: `#${ship}` })
          .click();
        await page.waitForURL(new RegExp(`/ops/queues/jobs/rows/${ship}$`));
        expect(await page.locator('#row-flow').textContent()).toBe('its flow: 2 children, waits for 1');
        expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await server.close();
        dash.close();
        await worker.shutdown();
        await jobs.drop();
        await adapter.close();
      }
    });
  });
}
