/**
 * The outbox written in a transaction the service opened itself, on its own driver connection
 * (R-OUT-1, R-PUB-1): `pgTx(client)` and `postgresJsTx(tx)` make that transaction a `Queryable`, so
 * the outbox record commits or rolls back with the service's own row.
 */
import { Broker, outbox, type Queryable, queue, silentLogger } from '@sqlinbox/core';
import pgModule from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pg, pgTx } from '../src/pg.js';
import { postgresJs, postgresJsTx } from '../src/postgres.js';
import { adminClient, createTable, URL, uniqueName } from './support.js';

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How each driver runs a transaction of the service's own and hands it to `publish` as a Queryable. */
interface Own {
  readonly name: string;
  open(): {
    broker: Broker;
    /** Runs `fn` in the service's own transaction on the driver; rolls back when it throws. */
    inTransaction(
      fn: (tx: Queryable, raw: (sql: string) => Promise<unknown>) => Promise<void>,
    ): Promise<void>;
    end(): Promise<void>;
  };
}

const owners: Own[] = [
  {
    name: 'pg',
    open() {
      const pool = new pgModule.Pool({ connectionString: URL, max: 4 });
      const adapter = pg(pool);
      return {
        broker: new Broker(adapter, { logger: silentLogger, pollInterval: 50 }),
        async inTransaction(fn) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await fn(pgTx(client), (sql) => client.query(sql));
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK');
            throw err;
          } finally {
            client.release();
          }
        },
        async end() {
          await adapter.close();
          await pool.end();
        },
      };
    },
  },
  {
    name: 'postgres.js',
    open() {
      const sql = postgres(URL, { max: 4, onnotice: () => {} });
      const adapter = postgresJs(sql);
      return {
        broker: new Broker(adapter, { logger: silentLogger, pollInterval: 50 }),
        async inTransaction(fn) {
          await sql.begin(async (tx) => {
            await fn(postgresJsTx(tx), (text) => tx.unsafe(text));
          });
        },
        async end() {
          await adapter.close();
          await sql.end({ timeout: 5 });
        },
      };
    },
  },
];

describe.each(owners)('the outbox on the service’s own $name transaction', (own) => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
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
      processedAt: 'relayed_at',
    });
    const orders = uniqueName('ord');
    const drop = await createTable(admin, events);
    await admin.query(`CREATE TABLE ${orders} (id int PRIMARY KEY)`);
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
      await o.inTransaction(async (tx, raw) => {
        await raw(`INSERT INTO ${orders} (id) VALUES (2)`);
        await o.broker.publish(events, { order: 2 }, { tx });
      });
      await until(() => relayed.length === 1, 'the committed record relayed');
      await until(
        async () =>
          (await admin.query(`SELECT 1 FROM ${events.table} WHERE relayed_at IS NULL`)).rowCount === 0,
        'the record marked',
      );
      // A later record relayed next shows nothing else was ever there to relay.
      await o.broker.publish(events, { sentinel: true });
      await until(() => relayed.length === 2, 'the sentinel relayed');
      // The handler's return is not the ack's commit: the ack settles in a batch just after.
      await until(
        async () =>
          (await admin.query(`SELECT 1 FROM ${events.table} WHERE relayed_at IS NULL`)).rowCount === 0,
        'the sentinel marked',
      );
      expect(relayed).toEqual([{ order: 2 }, { sentinel: true }]);
      expect((await admin.query(`SELECT id FROM ${orders}`)).rows).toEqual([{ id: 2 }]);
      const rows = (await admin.query(`SELECT payload, relayed_at FROM ${events.table} ORDER BY id`)).rows;
      expect(rows.map((r) => r.payload)).toEqual([{ order: 2 }, { sentinel: true }]);
      expect(rows.every((r) => r.relayed_at instanceof Date)).toBe(true);
    } finally {
      await o.broker.shutdown({ timeout: 1_000 });
      await o.end();
      await drop();
      await admin.query(`DROP TABLE IF EXISTS ${orders}`);
    }
  });
});
