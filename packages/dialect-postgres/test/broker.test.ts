import { type AnyTable, Broker, inbox, queue, silentLogger } from '@sqlinbox/core';
import pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ddl, wakeupTriggerDdl } from '../src/ddl.js';
import { pg } from '../src/pg.js';
import { wakeupChannel } from '../src/sql.js';
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

  /**
   * The wake-up tests' two brokers on the table `t` (created here): a consumer and a producer,
   * each on a pool of its own, neither polling for a minute. `close()` shuts both down, ends their
   * pools and drops the table.
   */
  async function twoBrokers(t: AnyTable, producerSize: number) {
    const drop = await createTable(admin, t);
    const consumer = driver.open(3);
    const producer = driver.open(producerSize);
    const sub = new Broker(consumer.adapter, { logger: silentLogger, pollInterval: 60_000 });
    const pub = new Broker(producer.adapter, { logger: silentLogger, pollInterval: 60_000 });
    const close = async () => {
      await sub.shutdown({ timeout: 1000 });
      await pub.shutdown({ timeout: 1000 });
      await consumer.end();
      await producer.end();
      await drop();
    };
    return { sub, pub, close };
  }

  test('R-PLUS-1 a publish from another broker (another pool) wakes an idle subscription long before its poll', async () => {
    const t = inbox({
      table: uniqueName('wkb'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
    });
    const { sub, pub, close } = await twoBrokers(t, 3);
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
      await close();
    }
  });

  test('R-PLUS-1 publishes side by side from one broker take turns to notify, and every row still wakes an idle subscription of another broker long before its poll', async () => {
    const t = inbox({
      table: uniqueName('wkc'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
    });
    const { sub, pub, close } = await twoBrokers(t, 8);
    // Counts the notifications the server delivers on the table's channel.
    const listener = await adminClient();
    let notifications = 0;
    listener.on('notification', () => notifications++);
    await listener.query(`LISTEN "${wakeupChannel(t.table)}"`);
    try {
      const got: number[] = [];
      sub.subscribe(queue(t), async (m) => {
        got.push((m as { n: number }).n);
      });
      await sub.start();
      await new Promise((r) => setTimeout(r, 200));
      const rounds = 3;
      const each = 40;
      for (let r = 0; r < rounds; r++) {
        // Side by side: while one publish's notifying commit is in flight, the others insert quietly.
        await Promise.all(Array.from({ length: each }, (_, i) => pub.publish(t, { n: r * each + i })));
        // Nothing polls for a minute: the rows of the last quiet publishes come through the
        // notification owed to them.
        await until(() => got.length === (r + 1) * each, `round ${r + 1}'s deliveries`, 10_000);
      }
      expect(got.sort((a, b) => a - b)).toEqual(Array.from({ length: rounds * each }, (_, i) => i));
      await until(() => notifications >= rounds, 'the notifications');
      expect(notifications).toBeLessThan(rounds * each);
    } finally {
      await listener.end();
      await close();
    }
  });

  test('R-PLUS-1 a publish that inserted quietly beside a notifying one, and committed after it, gets a notification of its own', async () => {
    const t = inbox({
      table: uniqueName('wko'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      uniqueKey: 'job_key',
    });
    const { sub, pub, close } = await twoBrokers(t, 4);
    // Two open transactions hold the keys the publishes want: each publish's insert waits on one.
    const holdLoud = await adminClient();
    const holdQuiet = await adminClient();
    const hold = async (c: pgModule.Client, key: string) => {
      await c.query('BEGIN');
      await c.query(`INSERT INTO "${t.table}" (payload, job_key) VALUES ('{}', $1)`, [key]);
    };
    const waiting = async () =>
      Number(
        (
          await admin.query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
            [`%${t.table}%`],
          )
        ).rows[0].n,
      );
    try {
      const got: string[] = [];
      sub.subscribe(queue(t), async (m) => {
        got.push((m as { p: string }).p);
      });
      await sub.start();
      await new Promise((r) => setTimeout(r, 200));
      await hold(holdLoud, 'loud');
      await hold(holdQuiet, 'quiet');
      const blocked = async (n: number) => {
        for (let i = 0; (await waiting()) < n; i++) {
          if (i > 500) throw new Error('a publish never waited on its held key');
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      // The first publish notifies in its insert; the second starts while it is in flight: quiet.
      const loud = pub.publish(t, { p: 'loud' }, { key: 'loud' });
      await blocked(1);
      const quiet = pub.publish(t, { p: 'quiet' }, { key: 'quiet' });
      await blocked(2);
      await holdLoud.query('ROLLBACK');
      await loud;
      await until(() => got.length === 1, 'the notifying publish');
      // The subscription has claimed and found nothing more: the quiet row commits only now.
      await new Promise((r) => setTimeout(r, 200));
      await holdQuiet.query('ROLLBACK');
      await quiet;
      await until(() => got.length === 2, 'the quiet publish (nothing polls for a minute)');
      expect(got).toEqual(['loud', 'quiet']);
    } finally {
      await holdLoud.end();
      await holdQuiet.end();
      await close();
    }
  });

  test('R-LOAD-5 R-PLUS-1 on a table from the default ddl(), a row inserted by plain SQL wakes an idle subscription that polls once a minute', async () => {
    const t = inbox({
      table: uniqueName('wkd'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
    });
    // createTable runs ddl(t) as printed, nothing added.
    const drop = await createTable(admin, t);
    const consumer = driver.open(3);
    const sub = new Broker(consumer.adapter, { logger: silentLogger, pollInterval: 60_000 });
    try {
      const got: unknown[] = [];
      sub.subscribe(queue(t), async (m) => {
        got.push(m);
      });
      await sub.start();
      // The first claim (at start) found nothing; the next poll is a minute away.
      await new Promise((r) => setTimeout(r, 200));
      await admin.query(`INSERT INTO "${t.table}" (payload) VALUES ('{"plain":true}'), ('{"plain":2}')`);
      await until(() => got.length === 2, 'the deliveries, well before the next poll', 10_000);
      expect(got).toEqual([{ plain: true }, { plain: 2 }]);
    } finally {
      await sub.shutdown({ timeout: 1000 });
      await consumer.end();
      await drop();
    }
  });

  test('R-PLUS-1 R-PUB-2 with the trigger installed on a table made without it, a row inserted by plain SQL wakes an idle subscription', async () => {
    const t = inbox({
      table: uniqueName('wkt'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
    });
    for (const stmt of ddl(t, { wakeupTrigger: false })) await admin.query(stmt);
    const drop = async () => {
      await admin.query(`DROP TABLE IF EXISTS "${t.table}"`);
    };
    expect(
      (await admin.query('SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = $1::regclass', [t.table]))
        .rows[0].n,
    ).toBe(0);
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
      // The trigger function is shared by every table ddl() printed it for: it stays.
      await drop();
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
