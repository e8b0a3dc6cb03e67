import { Broker, type EventMap, inbox, queue, silentLogger } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type SqliteAdapter, sqlite } from '../src/index.js';
import { type TestDb, tempDb } from './helpers.js';

/** Typed events where SQLite differs: rows claimed ahead wait in the lease book (R-POOL-6). */

const jobs = inbox({
  table: 'ev_jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
});

let db: TestDb;
let adapter: SqliteAdapter;
let broker: Broker<'lease' | 'advisory', never>;
beforeEach(async () => {
  db = tempDb();
  await db.create(jobs);
  adapter = sqlite({ filename: db.file, connections: 4 });
  broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms', lease: '30s' });
});
afterEach(async () => {
  await broker.shutdown({ timeout: 0 }).catch(() => undefined);
  await adapter.close();
  await db.cleanup(); // the file, and its tables with it
});

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('events on SQLite', () => {
  test('R-PLUS-3 R-POOL-6 rows claimed ahead and still waiting for a worker are released (reason stopped) at shutdown; deliveries in work keep their leases', async () => {
    const released: EventMap['released'][] = [];
    const claimed: EventMap['claimed'][] = [];
    broker.on('released', (e) => released.push(e));
    broker.on('claimed', (e) => claimed.push(e));
    const settled: EventMap['settled'][] = [];
    broker.on('settled', (e) => settled.push(e));
    const held = new Set<string>();
    let finish!: () => void;
    const hold = new Promise<void>((r) => {
      finish = r;
    });
    broker.subscribe(queue(jobs).workers(2), async (m: { i: number }, ctx) => {
      // The first finishes at once, so the next claim takes a row per worker seen for one free worker.
      if (m.i === 0) return;
      held.add(String(ctx.id));
      await hold;
    });
    await broker.publishMany(
      jobs,
      Array.from({ length: 6 }, (_, i) => ({ i })),
    );
    await broker.start();
    await until(() => held.size === 2 && claimed.length > 3, 'two handlers holding and a row waiting');
    // The first row's handler has returned, but its batched ack commits a moment later, and a
    // shutdown with no timeout does not wait for it: wait for it here, or its lease may still stand.
    await until(() => settled.length === 1, 'the first row acked');
    await broker.shutdown({ timeout: 0 });

    expect(released.length).toBeGreaterThan(0);
    for (const e of released) {
      expect(e).toMatchObject({ table: 'ev_jobs', attempt: 1, reason: 'stopped' });
      expect(held.has(String(e.id))).toBe(false);
    }
    const rows = await db.exec('SELECT id, locked_until FROM ev_jobs ORDER BY id');
    const leased = rows.filter((r) => r.locked_until !== null).map((r) => String(r.id));
    // Released rows are back in the queue at once; the two in work keep their leases (R-LEASE-9).
    expect(leased.sort()).toEqual([...held].sort());
    for (const e of released)
      expect(rows.find((r) => String(r.id) === String(e.id))?.locked_until).toBeNull();
    finish();
  });
});
