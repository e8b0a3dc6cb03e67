import { Broker, inbox, queue, silentLogger } from '@sqlinbox/core';
import pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { wakeupTriggerDdl } from '../src/ddl.js';
import { pg } from '../src/pg.js';
import { adminClient, createTable, drivers, uniqueName } from './support.js';

/** Resolves once `check()` holds, or rejects after `ms`. */
async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.each(drivers)('the engine over the $name adapter', (driver) => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-PLUS-1 a publish from another broker (another pool) wakes an idle subscription long before its poll', async () => {
    const t = inbox({
      table: uniqueName('wkb'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
    });
    const drop = await createTable(admin, t);
    const consumer = driver.open(3);
    const producer = driver.open(3);
    const sub = new Broker(consumer.adapter, { logger: silentLogger, pollInterval: 60_000 });
    const pub = new Broker(producer.adapter, { logger: silentLogger, pollInterval: 60_000 });
    try {
      const got: unknown[] = [];
      sub.subscribe(queue(t), async (m) => {
        got.push(m);
      });
      await sub.start();
      await new Promise((r) => setTimeout(r, 200)); // the first (empty) claim is behind us
      const started = Date.now();
      await pub.publish(t, { hello: 'world' });
      await until(() => got.length === 1, 'the delivery');
      expect(Date.now() - started).toBeLessThan(2000);
      expect(got).toEqual([{ hello: 'world' }]);
    } finally {
      await sub.shutdown({ timeout: 1000 });
      await pub.shutdown({ timeout: 1000 });
      await consumer.end();
      await producer.end();
      await drop();
    }
  });

  test('R-PLUS-1 R-PUB-2 with the trigger installed, a row inserted by plain SQL wakes an idle subscription', async () => {
    const t = inbox({
      table: uniqueName('wkt'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
    });
    const drop = await createTable(admin, t);
    for (const stmt of wakeupTriggerDdl(t.table)) await admin.query(stmt);
    const consumer = driver.open(3);
    const sub = new Broker(consumer.adapter, { logger: silentLogger, pollInterval: 60_000 });
    try {
      const got: unknown[] = [];
      sub.subscribe(queue(t), async (m) => {
        got.push(m);
      });
      await sub.start();
      await new Promise((r) => setTimeout(r, 200));
      await admin.query(`INSERT INTO "${t.table}" (payload) VALUES ('{"plain":true}')`);
      await until(() => got.length === 1, 'the delivery');
      expect(got).toEqual([{ plain: true }]);
    } finally {
      await sub.shutdown({ timeout: 1000 });
      await consumer.end();
      await drop();
      await admin.query('DROP FUNCTION IF EXISTS sqlinbox_wakeup()').catch(() => {});
    }
  });
});

describe('types', () => {
  test('R-DESC-4 a read_uncommitted table is a type error on a PostgreSQL broker; the other levels are not', () => {
    const broker = new Broker(pg(new pgModule.Pool({ max: 2 })), { logger: silentLogger });
    const dirty = inbox({ table: 'dirty', id: 'id', payload: 'payload', isolation: 'read_uncommitted' });
    const clean = inbox({ table: 'clean', id: 'id', payload: 'payload', isolation: 'serializable' });
    // Only compiled, never run: subscribing needs no server, but nothing here should start.
    const typeChecks = () => {
      // @ts-expect-error PostgreSQL runs read_uncommitted as read_committed, so the dialect does not offer it
      broker.subscribe(queue(dirty), async () => {});
      broker.subscribe(queue(clean), async () => {});
    };
    expect(typeof typeChecks).toBe('function');
  });
});
