/**
 * One key with 50,000 ready rows beside 500 small keys, under per-key concurrency: a claim reads
 * a bounded number of rows, whether the hot key is open (a slot free) or full, counted by the
 * session's handler reads. Before, a claim read every index entry of the hot key to count its
 * rows in work, and every ready row of a full key ahead of the others.
 */
import { type AnyTable, type Connection, inbox } from '@sqlinbox/core';
import type mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mysqlDialect } from '../src/dialect.js';
import { countingSession, createTables, NO_SERVER, openAdmin, uniqueName } from './helpers.js';

describe.skipIf(NO_SERVER)('R-CLUS-4 a hot key beside many small keys (handler reads)', () => {
  let admin: Awaited<ReturnType<typeof openAdmin>>;
  let session: mysql.Connection;
  let conn: Connection;
  let reads: () => Promise<number>;
  const drops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    admin = await openAdmin();
    ({ session, conn, reads } = await countingSession('hot-key'));
  });
  afterAll(async () => {
    for (const drop of drops) await drop();
    await session.end();
    await admin.end();
  });

  test('R-CLUS-4 the per-key claim reads a bounded number of rows, the hot key open or full', async () => {
    const name = uniqueName('hot');
    const t = inbox({
      table: name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      concurrency: { key: 'account', limit: 2 },
    } as never) as AnyTable;
    drops.push(await createTables(admin, t));
    // 55,000 rows in one statement: the first 50,000 of key 'hot', then 10 of each of 500 keys.
    const digits = `(${Array.from({ length: 10 }, (_, i) => `SELECT ${i} AS d`).join(' UNION ALL ')})`;
    await admin.q(
      `INSERT INTO ${name} (payload, account) SELECT '{}', IF(g <= 50000, 'hot', CONCAT('k', g % 500)) FROM` +
        ` (SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS g FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f) s` +
        ' WHERE g <= 55000 ORDER BY g',
    );
    await admin.q(`ANALYZE TABLE ${name}`);
    const ops = mysqlDialect.prepare(t);
    const claim = async () => {
      const before = await reads();
      const now = new Date();
      const rows = await ops.concurrency!.claimLease(conn, 10, now, new Date(now.getTime() + 3_600_000));
      return { read: (await reads()) - before, claimed: rows.map((r) => String(r.account)) };
    };

    // The hot key has one row in work: one more of it is taken, and nine rows of other keys.
    await admin.q(`UPDATE ${name} SET locked_until = NOW(3) + INTERVAL 1 HOUR WHERE id = 1`);
    const open = await claim();
    expect(open.claimed).toHaveLength(10);
    expect(open.claimed.filter((k) => k === 'hot')).toHaveLength(1);
    expect(open.read).toBeLessThan(3_000);

    // The hot key is full now: none of its 49,998 ready rows is read; ten rows of other keys are taken.
    const full = await claim();
    expect(full.claimed).toHaveLength(10);
    expect(full.claimed).not.toContain('hot');
    expect(full.read).toBeLessThan(3_000);
    console.log('R-CLUS-4 MEASURE rows read', open.read, full.read);
  });
});
