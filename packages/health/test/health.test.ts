import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker, inbox, queue, silentLogger } from '@sqlinbox/core';
import { pg } from '@sqlinbox/dialect-postgres/pg';
import { type SqliteAdapter, sqlite } from '@sqlinbox/dialect-sqlite';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { brokerHealth, type HealthReport } from '../src/index.js';

const describeJobs = (table: string) =>
  inbox({
    table,
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    lease: 'locked_until',
    payload: 'payload',
  });
const jobs = describeJobs('jobs');
const other = describeJobs('other');

let dir: string;
let adapter: SqliteAdapter;
let server: Server | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sqlinbox-health-'));
  adapter = sqlite({ filename: join(dir, 'health.db'), connections: 4 });
  const conn = await adapter.pool.acquire();
  for (const t of [jobs, other]) for (const sql of adapter.dialect.ddl(t)) await conn.query(sql);
  adapter.pool.release(conn);
});
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  await adapter.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Serves the handler on a free port; answers the status and the JSON of a GET. */
async function get(
  handler: (req: never, res: never) => void,
): Promise<{ status: number; body: HealthReport }> {
  server ??= createServer(handler as never);
  if (!server.listening) await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/health`);
  return { status: res.status, body: (await res.json()) as HealthReport };
}

describe('the health check of a broker', () => {
  test('R-USER-6 not started, then running and connected, then the age of the last claim; 503 before start and 200 after', async () => {
    const broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms' });
    const health = brokerHealth(broker);
    let handled = 0;
    broker.subscribe(queue(jobs), async () => {
      handled += 1;
    });

    const before = await health.check();
    expect(before).toMatchObject({ ok: false, state: 'new', connected: true });
    expect(before.tables).toEqual([
      {
        table: 'jobs',
        lastClaimAt: null,
        lastClaimAgeMs: null,
        lastClaimError: null,
        ready: null,
        stalled: false,
      },
    ]);
    expect((await get(health.handler)).status).toBe(503);

    await broker.start();
    const running = await get(health.handler);
    expect(running.status).toBe(200);
    expect(running.body).toMatchObject({
      ok: true,
      state: 'running',
      connected: true,
      server: adapter.server,
    });
    expect(running.body.latencyMs).toBeGreaterThanOrEqual(0);

    await broker.publish(jobs, { n: 1 });
    await until(() => handled === 1, 'the row handled');
    const after = await health.check();
    const t = after.tables.find((x) => x.table === 'jobs')!;
    expect(Date.parse(t.lastClaimAt!)).toBeLessThanOrEqual(Date.now());
    expect(t.lastClaimAgeMs).toBeGreaterThanOrEqual(0);
    expect(t.lastClaimAgeMs).toBeLessThan(10_000);

    await broker.shutdown();
    expect(await health.check()).toMatchObject({ ok: false, state: 'closed', connected: false });
    health.close();
  });

  test('R-USER-6 a watched table whose ready rows wait past stalledAfter with no claim fails the check', async () => {
    const broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms' });
    const health = brokerHealth(broker, { stalledAfter: '100ms', queues: [jobs, other] });
    // The same watch with a bound no run reaches: a ready row alone fails nothing.
    const patient = brokerHealth(broker, { stalledAfter: '1h', queues: [jobs, other] });
    try {
      broker.subscribe(queue(jobs), async () => {});
      await broker.start();
      // Nothing consumes `other`: its row waits.
      await broker.publish(other, { n: 1 });
      const waiting = await patient.check();
      expect(waiting.ok).toBe(true);
      expect(waiting.tables.find((x) => x.table === 'other')).toMatchObject({ ready: 1, stalled: false });
      await until(async () => !(await health.check()).ok, 'the check to fail on the waiting row');
      const stalled = await get(health.handler);
      expect(stalled.status).toBe(503);
      expect(stalled.body.tables.find((x) => x.table === 'other')).toMatchObject({ ready: 1, stalled: true });
      expect(stalled.body.tables.find((x) => x.table === 'jobs')).toMatchObject({ ready: 0, stalled: false });
    } finally {
      health.close();
      patient.close();
      await broker.shutdown();
    }
  });

  test('R-USER-6 a database that does not answer: not connected, its error, 503 (PostgreSQL on a closed port)', async () => {
    const broker = new Broker(pg({ connectionString: 'postgres://postgres@127.0.0.1:1/none' }), {
      logger: silentLogger,
    });
    const health = brokerHealth(broker, { timeout: '2s' });
    const { status, body } = await get(health.handler);
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, connected: false, server: 'postgres://127.0.0.1:1/none' });
    expect(body.error).toMatch(/ECONNREFUSED|connect/);
    health.close();
    await broker.shutdown();
  });
});
