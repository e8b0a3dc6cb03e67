import { Broker, type EventMap, inbox, queue, silentLogger } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { quoteTable } from '../src/sql.js';
import { adminClient, createTable, drivers, uniqueName } from './support.js';

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.each(drivers)('events over the $name adapter', (driver) => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-PLUS-3 a claim the server refuses (the table renamed away) emits claimError with the driver error; claiming resumes once the table is back', async () => {
    const t = inbox({
      table: uniqueName('evc'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
    });
    const away = `${t.table}_away`;
    const drop = await createTable(admin, t);
    const opened = driver.open(3);
    const broker = new Broker(opened.adapter, { logger: silentLogger, pollInterval: '20ms' });
    try {
      const errors: EventMap['claimError'][] = [];
      broker.on('claimError', (e) => errors.push(e));
      const got: unknown[] = [];
      broker.subscribe(queue(t), async (m) => {
        got.push(m);
      });
      await broker.start();
      await admin.query(`ALTER TABLE ${quoteTable(t.table)} RENAME TO ${quoteTable(away)}`);
      await until(() => errors.length > 0, 'a claim error');
      await admin.query(`ALTER TABLE ${quoteTable(away)} RENAME TO ${quoteTable(t.table)}`);
      expect(errors[0]!.table).toBe(t.table);
      expect(errors[0]!.error).toBeInstanceOf(Error);
      expect((errors[0]!.error as Error).message).toMatch(/does not exist/);
      await broker.publish(t, { after: 'rename' });
      await until(() => got.length === 1, 'a delivery once the table is back', 40_000);
      expect(got).toEqual([{ after: 'rename' }]);
    } finally {
      await broker.shutdown({ timeout: 1000 });
      await opened.end();
      await admin.query(`DROP TABLE IF EXISTS ${quoteTable(away)}`);
      await drop();
    }
  });
});
