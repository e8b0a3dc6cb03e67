/**
 * The outbox written in a transaction the service opened itself, on its own driver connection
 * (R-OUT-1, R-PUB-1): `mysql2Tx(conn)` and `mariadbTx(conn)` make that transaction a `Queryable`,
 * so the outbox record commits or rolls back with the service's own row.
 */
import { Broker, outbox, type Queryable, queue, silentLogger } from '@sqlinbox/core';
import * as connector from 'mariadb';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mariadb, mariadbTx } from '../src/mariadb.js';
import { mysql2, mysql2Tx } from '../src/mysql2.js';
import { createTables, DB, openAdmin, uniqueName } from './helpers.js';

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A driver's own transaction: BEGIN on a connection of the service's pool, COMMIT, or ROLLBACK on a throw. */
interface Own {
  readonly name: string;
  open(): {
    broker: Broker;
    inTransaction(
      fn: (tx: Queryable, raw: (sql: string) => Promise<unknown>) => Promise<void>,
    ): Promise<void>;
    end(): Promise<void>;
  };
}

const owners: Own[] = [
  {
    name: 'mysql2',
    open() {
      const pool = mysql.createPool({ ...DB, connectionLimit: 4 });
      return {
        broker: new Broker(mysql2(pool), { logger: silentLogger, pollInterval: 50 }),
        async inTransaction(fn) {
          const conn = await pool.getConnection();
          try {
            await conn.beginTransaction();
            await fn(mysql2Tx(conn), (sql) => conn.query(sql));
            await conn.commit();
          } catch (err) {
            await conn.rollback();
            throw err;
          } finally {
            conn.release();
          }
        },
        end: () => pool.end(),
      };
    },
  },
  {
    name: 'mariadb',
    open() {
      const pool = connector.createPool({ ...DB, connectionLimit: 4, minimumIdle: 0 });
      return {
        broker: new Broker(mariadb(pool, { connectionLimit: 4 }), { logger: silentLogger, pollInterval: 50 }),
        async inTransaction(fn) {
          const conn = await pool.getConnection();
          try {
            await conn.beginTransaction();
            await fn(mariadbTx(conn), (sql) => conn.query(sql));
            await conn.commit();
          } catch (err) {
            await conn.rollback();
            throw err;
          } finally {
            await conn.release();
          }
        },
        end: () => pool.end(),
      };
    },
  },
];

describe.each(owners)('the outbox on the service’s own $name transaction', (own) => {
  let admin: Awaited<ReturnType<typeof openAdmin>>;
  beforeAll(async () => {
    admin = await openAdmin();
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-OUT-1 R-PUB-1 a record written in the service’s own transaction is relayed once if it commits, never if it rolls back', async () => {
    const events = outbox({
      table: uniqueName('obx'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      lease: 'locked_until',
      retryAfter: 'retry_after',
      processedAt: 'relayed_at',
    });
    const orders = uniqueName('ord');
    const drop = await createTables(admin, events);
    await admin.q(`CREATE TABLE ${orders} (id INT PRIMARY KEY)`);
    const o = own.open();
    try {
      const relayed: unknown[] = [];
      o.broker.relay(queue(events), async (m) => {
        relayed.push(m);
      });
      await o.broker.start();
      await expect(
        o.inTransaction(async (tx, raw) => {
          await raw(`INSERT INTO ${orders} (id) VALUES (1)`);
          await o.broker.publish(events, { order: 1 }, { tx });
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      // A due instant bound through the wrapper lands as UTC, as the adapter binds it.
      const notBefore = new Date(Date.now() - 1_000);
      await o.inTransaction(async (tx, raw) => {
        await raw(`INSERT INTO ${orders} (id) VALUES (2)`);
        await o.broker.publish(events, { order: 2 }, { tx, notBefore });
      });
      await until(() => relayed.length === 1, 'the committed record relayed');
      await until(
        async () => (await admin.q(`SELECT 1 FROM ${events.table} WHERE relayed_at IS NULL`)).length === 0,
        'the record marked',
      );
      await o.broker.publish(events, { sentinel: true });
      await until(() => relayed.length === 2, 'the sentinel relayed');
      // The handler's return is not the ack's commit: the ack settles in a batch just after.
      await until(
        async () => (await admin.q(`SELECT 1 FROM ${events.table} WHERE relayed_at IS NULL`)).length === 0,
        'the sentinel marked',
      );
      expect(relayed).toEqual([{ order: 2 }, { sentinel: true }]);
      expect(await admin.q(`SELECT id FROM ${orders}`)).toEqual([{ id: 2 }]);
      const rows = await admin.q(`SELECT retry_after, relayed_at FROM ${events.table} ORDER BY id`);
      expect(rows).toHaveLength(2);
      expect((rows[0]!.retry_after as Date).getTime()).toBe(notBefore.getTime());
      expect(rows.every((r) => r.relayed_at instanceof Date)).toBe(true);
    } finally {
      await o.broker.shutdown({ timeout: 1_000 });
      await o.end();
      await drop();
      await admin.q(`DROP TABLE IF EXISTS ${orders}`);
    }
  });
});
