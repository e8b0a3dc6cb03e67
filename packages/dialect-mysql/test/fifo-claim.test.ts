/**
 * A FIFO claim with a few long groups whose heads are in work: it reads the window of the oldest
 * rows and the groups after it, not every row behind the heads, counted by the session's handler
 * reads. Before, the claim's select tested the head of row after row in id order and read the
 * whole table whenever it found fewer free heads than it asked for (2.6 s a claim over 200,000
 * rows in 20 groups, 18 heads in work), and the test of each head read every row of its group.
 */
import { type AnyTable, type Connection, inbox } from '@sqlinbox/core';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mysqlDialect } from '../src/dialect.js';
import { countingSession, createTables, DB, NO_SERVER, openAdmin, uniqueName } from './helpers.js';

describe.skipIf(NO_SERVER)(
  'R-LOAD-6 a FIFO claim reads groups, not the backlog behind their heads (handler reads)',
  () => {
    let admin: Awaited<ReturnType<typeof openAdmin>>;
    let session: mysql.Connection;
    let conn: Connection;
    let reads: () => Promise<number>;
    const drops: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      admin = await openAdmin();
      ({ session, conn, reads } = await countingSession('fifo-claim'));
    });
    afterAll(async () => {
      for (const drop of drops) await drop();
      await session?.end();
      await admin?.end();
    });

    const digits = `(${Array.from({ length: 10 }, (_, i) => `SELECT ${i} AS d`).join(' UNION ALL ')})`;
    const numbers = `(SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS g FROM ${digits} a, ${digits} b, ${digits} c, ${digits} e, ${digits} f) s`;

    for (const form of ['lease', 'rowlock'] as const)
      for (const layout of ['interleaved', 'one group after another'] as const)
        for (const processedAt of [false, true])
          test(`R-LOAD-6 R-FIFO-1 20 groups of 2,000 rows (${form}, ${layout}${processedAt ? ', processed_at' : ''}), 18 heads in work: the claim takes the 2 free heads and the rows without a group, reading a bounded number of rows`, async () => {
            const name = uniqueName('fifoscan');
            const t = inbox({
              table: name,
              id: { column: 'id', generated: true },
              payload: 'payload',
              attempt: 'attempt',
              group: 'grp',
              ...(form === 'lease' ? { lease: 'locked_until' } : {}),
              ...(processedAt ? { processedAt: 'processed_at' } : {}),
            } as never) as AnyTable;
            drops.push(await createTables(admin, t));
            const group = layout === 'interleaved' ? `CONCAT('g', g % 20)` : `CONCAT('g', (g - 1) DIV 2000)`;
            await admin.q(
              `INSERT INTO ${name} (payload, grp) SELECT '{}', ${group} FROM ${numbers} WHERE g <= 40000 ORDER BY g`,
            );
            // Three rows without a group at the end: each is its own head.
            await admin.q(`INSERT INTO ${name} (payload) VALUES ('{}'), ('{}'), ('{}')`);
            if (processedAt)
              // Settled rows ahead of everything (stamped, kept): they hold no group.
              await admin.q(
                `UPDATE ${name} SET processed_at = NOW(3) WHERE id IN (SELECT m FROM (SELECT MIN(id) AS m FROM ${name} WHERE grp IS NOT NULL GROUP BY grp) x)`,
              );
            const live = processedAt ? ' AND processed_at IS NULL' : '';
            const heads = (
              await admin.q(
                `SELECT MIN(id) AS id FROM ${name} WHERE grp IS NOT NULL${live} GROUP BY grp ORDER BY MIN(id)`,
              )
            ).map((r) => Number(r.id));
            expect(heads).toHaveLength(20);
            const loose = (await admin.q(`SELECT id FROM ${name} WHERE grp IS NULL ORDER BY id`)).map((r) =>
              Number(r.id),
            );
            await admin.q(`ANALYZE TABLE ${name}`);
            const ops = mysqlDialect.prepare(t);
            const now = new Date();
            let taken: number[];
            let read: number;
            if (form === 'lease') {
              // 18 heads leased by other workers.
              await admin.q(
                `UPDATE ${name} SET locked_until = NOW(3) + INTERVAL 1 HOUR WHERE id IN (${heads.slice(0, 18).join(', ')})`,
              );
              const before = await reads();
              const rows = await ops.claimLease(conn, 100, now, new Date(now.getTime() + 3_600_000));
              read = (await reads()) - before;
              taken = rows.map((r) => Number(r.id));
            } else {
              // 18 heads held by another claim's open transaction.
              const other = await mysql.createConnection({ ...DB, timezone: 'Z' });
              try {
                await other.query('START TRANSACTION');
                await other.query(
                  `SELECT id FROM ${name} WHERE id IN (${heads.slice(0, 18).join(', ')}) FOR UPDATE`,
                );
                await session.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
                await session.query('START TRANSACTION');
                const before = await reads();
                const rows = await ops.claimLocked(conn, 100, now);
                read = (await reads()) - before;
                taken = rows.map((r) => Number(r.id));
                await session.query('ROLLBACK');
              } finally {
                await other.end();
              }
            }
            expect(taken.sort((a, b) => a - b)).toEqual([...heads.slice(18), ...loose]);
            // The old claim read every row behind the heads and probed each one's group: some 84,000
            // rows; the window of 400 rows, the 20 groups after it and the heads' tests, under 600.
            console.log(
              `R-LOAD-6 MEASURE ${form} ${layout}${processedAt ? ' processed_at' : ''}: ${read} rows read`,
            );
            expect(read, `${read} rows read`).toBeLessThan(3_000);
          });
  },
);
