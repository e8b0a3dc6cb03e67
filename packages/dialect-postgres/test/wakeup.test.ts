import { ConfigError } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { wakeupTriggerDdl } from '../src/ddl.js';
import { escapeString, wakeupChannel } from '../src/sql.js';
import { adminClient, createTable, drivers, leaseTable, uniqueName } from './support.js';

/** Resolves once `count()` reaches `n`, or rejects after `ms`. */
async function until(count: () => number, n: number, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (count() < n) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${n} notifications, got ${count()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('wake-up channel names', () => {
  test('R-PLUS-1 the channel is sqlinbox_<table>, hashed below 64 characters', () => {
    expect(wakeupChannel('jobs')).toBe('sqlinbox_jobs');
    expect(wakeupChannel('app.jobs')).toBe('sqlinbox_app.jobs');
    const long = `${'s'.repeat(60)}.${'t'.repeat(60)}`;
    expect(wakeupChannel(long)).toMatch(/^sqlinbox_[0-9a-f]{40}$/);
    expect(wakeupChannel(long)).not.toBe(wakeupChannel(`${long.slice(0, -1)}u`));
  });
});

describe.each(drivers)('LISTEN/NOTIFY wake-up on $name', (driver) => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-PLUS-1 notify in a publish transaction wakes listeners at commit, on one connection outside the pool; unsubscribe stops it', async () => {
    const opened = driver.open(2);
    const table = uniqueName('wake');
    try {
      const { wakeup, pool } = opened.adapter;
      let a = 0;
      let b = 0;
      let other = 0;
      const stopA = await wakeup.listen(table, () => a++);
      const stopB = await wakeup.listen(table, () => b++);
      const stopOther = await wakeup.listen(`${table}_other`, () => other++);
      expect(pool.spare()).toBe(2); // the LISTEN connection is not the pool's
      const conn = await pool.acquire();
      await conn.query('BEGIN');
      await wakeup.notify(conn, table);
      await pause(150);
      expect(a).toBe(0); // not before the publisher commits
      await conn.query('COMMIT');
      await until(() => Math.min(a, b), 1);
      expect(other).toBe(0);
      // The channel is the table's: a plain pg_notify on it wakes too.
      await admin.query(`SELECT pg_notify($1, '')`, [wakeupChannel(table)]);
      await until(() => a, 2);
      await stopA();
      await wakeup.notify(conn, table);
      await until(() => b, 3);
      await pause(100);
      expect(a).toBe(2);
      pool.release(conn);
      await stopB();
      await stopOther();
    } finally {
      await opened.end();
    }
  });

  test('R-PLUS-1 a LISTEN connection the server ends is reopened; listeners are called once, then notified again', async () => {
    const opened = driver.open(2);
    const table = uniqueName('wlost');
    try {
      let woken = 0;
      const stop = await opened.adapter.wakeup.listen(table, () => woken++);
      const listener = await admin.query(
        `SELECT pid FROM pg_stat_activity WHERE query ILIKE $1 AND pid <> pg_backend_pid()`,
        [`%listen "${wakeupChannel(table)}"%`],
      );
      expect(listener.rows).toHaveLength(1);
      await admin.query('SELECT pg_terminate_backend($1)', [listener.rows[0].pid]);
      await until(() => woken, 1, 10_000); // called once after listening again
      const again = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE $1 AND pid <> pg_backend_pid()`,
        [`%listen "${wakeupChannel(table)}"%`],
      );
      expect(again.rows[0].n).toBe(1);
      await admin.query(`SELECT pg_notify($1, '')`, [wakeupChannel(table)]);
      await until(() => woken, 2);
      await stop();
    } finally {
      await opened.end();
    }
  });

  test('R-PLUS-1 wakeupTriggerDdl: rows inserted by plain SQL notify, one notification per statement', async () => {
    const opened = driver.open(2);
    const t = leaseTable(uniqueName('wtrg'));
    const drop = await createTable(admin, t);
    try {
      for (const stmt of wakeupTriggerDdl(t.table)) await admin.query(stmt);
      for (const stmt of wakeupTriggerDdl(t.table)) await admin.query(stmt); // re-runnable
      let woken = 0;
      const stop = await opened.adapter.wakeup.listen(t.table, () => woken++);
      await admin.query(`INSERT INTO "${t.table}" (payload) VALUES ('{}'), ('{}'), ('{}')`);
      await until(() => woken, 1);
      await pause(200);
      expect(woken).toBe(1);
      await admin.query(`INSERT INTO "${t.table}" (payload) VALUES ('{}')`);
      await until(() => woken, 2);
      await stop();
    } finally {
      await opened.end();
      await drop();
      // The shared trigger function goes too, unless another table's trigger still uses it.
      await admin.query('DROP FUNCTION IF EXISTS sqlinbox_wakeup()').catch(() => {});
    }
  });
});

describe('wakeupTriggerDdl under standard_conforming_strings = off', () => {
  let admin: pgModule.Client;
  beforeAll(async () => {
    admin = await adminClient();
    await admin.query('SET standard_conforming_strings = off');
  });
  afterAll(async () => {
    await admin.end();
  });

  test('R-BAD-1 a crafted table name is refused before any SQL is built; it never runs its own statement', async () => {
    const victim = uniqueName('victim');
    // Under standard_conforming_strings = off, `\'` inside '..' is a quote: a channel literal made by
    // quote doubling ends early and the rest of the name runs as SQL.
    const crafted = `w\\'); DROP TABLE ${victim}; --`;
    await admin.query(`CREATE TABLE "${victim}" (id int)`);
    await admin.query(`CREATE TABLE "${crafted.replace(/"/g, '""')}" (payload jsonb)`);
    try {
      let refused: unknown;
      try {
        for (const stmt of wakeupTriggerDdl(crafted)) await admin.query(stmt);
      } catch (err) {
        refused = err;
      }
      const { rows } = await admin.query('SELECT to_regclass($1) AS t', [`"${victim}"`]);
      expect(rows[0].t).not.toBeNull();
      expect(refused).toBeInstanceOf(ConfigError);
      expect(String((refused as Error).message)).toContain('invalid table identifier');
    } finally {
      await admin.query(`DROP TABLE IF EXISTS "${crafted.replace(/"/g, '""')}"`);
      await admin.query(`DROP TABLE IF EXISTS "${victim}"`);
      await admin.query('DROP FUNCTION IF EXISTS sqlinbox_wakeup()').catch(() => {});
    }
  });

  test('R-BAD-1 the escape-string constant of a trigger argument reads the same under either setting', async () => {
    const hostile = "a\\'b''c\\\\'); SELECT 1; --";
    for (const setting of ['off', 'on']) {
      await admin.query(`SET standard_conforming_strings = ${setting}`);
      const { rows } = await admin.query(`SELECT ${escapeString(hostile)} AS v`);
      expect(rows[0].v).toBe(hostile);
    }
    await admin.query('SET standard_conforming_strings = off');
  });

  test('R-BAD-1 the trigger installed under standard_conforming_strings = off notifies its channel', async () => {
    const [driver] = drivers;
    const opened = driver!.open(2);
    const t = leaseTable(uniqueName('wscs'));
    const drop = await createTable(admin, t);
    try {
      for (const stmt of wakeupTriggerDdl(t.table)) await admin.query(stmt);
      let woken = 0;
      const stop = await opened.adapter.wakeup.listen(t.table, () => woken++);
      await admin.query(`INSERT INTO "${t.table}" (payload) VALUES ('{}')`);
      await until(() => woken, 1);
      await stop();
    } finally {
      await opened.end();
      await drop();
      await admin.query('DROP FUNCTION IF EXISTS sqlinbox_wakeup()').catch(() => {});
    }
  });
});
