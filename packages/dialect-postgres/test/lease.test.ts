import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import {
  adminClient,
  at,
  createTable,
  drivers,
  ids,
  leaseTable,
  type Opened,
  recording,
  uniqueName,
  withConn,
} from './support.js';

describe.each(drivers)('lease form on $name', (driver) => {
  let admin: pgModule.Client;
  let opened: Opened;
  beforeAll(async () => {
    admin = await adminClient();
    opened = driver.open(4);
  });
  afterAll(async () => {
    await opened.end();
    await admin.end();
  });

  async function withTable(
    extra: { group?: boolean; processedAt?: boolean },
    fn: (t: ReturnType<typeof leaseTable>) => Promise<void>,
  ) {
    const t = leaseTable(uniqueName('lease'), extra);
    const drop = await createTable(admin, t);
    try {
      await fn(t);
    } finally {
      await drop();
    }
  }

  test('R-LEASE-1 R-LEASE-2 claimLease is one statement: writes the expiry, counts the attempt, returns the rows in id order', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '{"n":1}' }, { payload: '{"n":2}' }, { payload: '{"n":3}' }]);
        const now = new Date();
        const expiry = at(30_000, now.getTime());
        const rec = recording(conn);
        const rows = await ops.claimLease(rec.conn, 2, now, expiry);
        expect(rec.statements).toHaveLength(1);
        expect(ids(rows)).toEqual([1, 2]);
        for (const r of rows) {
          expect(Number(r.attempt)).toBe(1);
          expect((r.locked_until as Date).getTime()).toBe(expiry.getTime());
        }
        // The leased rows are not due; the third is.
        const rest = await ops.claimLease(conn, 10, now, expiry);
        expect(ids(rest)).toEqual([3]);
        expect(await ops.claimLease(conn, 10, now, expiry)).toEqual([]);
        // Once the lease has ended the rows are due again, and the claim counts again.
        const later = at(31_000, now.getTime());
        const again = await ops.claimLease(conn, 10, later, at(60_000, now.getTime()));
        expect(ids(again)).toEqual([1, 2, 3]);
        expect(again.map((r) => Number(r.attempt))).toEqual([2, 2, 2]);
      });
    });
  });

  test('R-LEASE-3 the expiry is the token: a settlement with a stale token changes nothing, the current one settles', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '{}' }]);
        const t0 = Date.now();
        const first = at(1000, t0);
        const [row] = await ops.claimLease(conn, 1, new Date(t0), first);
        expect(row).toBeDefined();
        // The lease ran out; another claim took the row with its own token.
        const second = at(40_000, t0);
        const [again] = await ops.claimLease(conn, 1, at(2000, t0), second);
        expect(Number(again?.id)).toBe(Number(row?.id));
        const stale = await ops.settle(conn, { kind: 'finish', id: row?.id, token: first, now: new Date() });
        expect(stale).toBe(0);
        const ret = await ops.settle(conn, {
          kind: 'return',
          id: row?.id,
          token: first,
          now: new Date(),
          countAttempt: true,
          clearLease: true,
        });
        expect(ret).toBe(0);
        const current = await ops.settle(conn, {
          kind: 'finish',
          id: again?.id,
          token: second,
          now: new Date(),
        });
        expect(current).toBe(1);
        expect((await admin.query(`SELECT count(*)::int AS n FROM "${t.table}"`)).rows[0].n).toBe(0);
      });
    });
  });

  test('R-LEASE-3 a token returned by the driver round-trips exactly (millisecond Date)', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '{}' }]);
        const now = new Date();
        const expiry = new Date(now.getTime() + 12_345); // arbitrary milliseconds
        const [row] = await ops.claimLease(conn, 1, now, expiry);
        const token = row?.locked_until as Date;
        expect(token).toBeInstanceOf(Date);
        expect(token.getTime()).toBe(expiry.getTime());
        const moved = await ops.extendLeases(conn, [{ id: row?.id, token }], at(50_000, now.getTime()));
        expect(moved.map(Number)).toEqual([Number(row?.id)]);
      });
    });
  });

  test('R-LEASE-4 extendLeases moves, in one statement, only the leases that still hold their tokens', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '{}' }, { payload: '{}' }, { payload: '{}' }]);
        const now = new Date();
        const expiry = at(30_000, now.getTime());
        const rows = await ops.claimLease(conn, 3, now, expiry);
        expect(rows).toHaveLength(3);
        const next = at(45_000, now.getTime());
        const rec = recording(conn);
        const moved = await ops.extendLeases(
          rec.conn,
          [
            { id: rows[0]?.id, token: expiry },
            { id: rows[1]?.id, token: at(1, expiry.getTime()) }, // lost: another token
            { id: rows[2]?.id, token: expiry },
          ],
          next,
        );
        expect(rec.statements).toHaveLength(1);
        expect(moved.map(Number).sort()).toEqual([1, 3]);
        const stored = await admin.query(`SELECT id::int, locked_until FROM "${t.table}" ORDER BY id`);
        expect(stored.rows.map((r) => (r.locked_until as Date).getTime())).toEqual([
          next.getTime(),
          expiry.getTime(),
          next.getTime(),
        ]);
        expect(await ops.extendLeases(conn, [], next)).toEqual([]);
      });
    });
  });

  test('R-LEASE-2 rows waiting for retry_after are not due until then', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        const now = Date.now();
        await ops.insert(conn, [{ payload: '{}', notBefore: at(10_000, now) }, { payload: '{}' }]);
        expect(ids(await ops.claimLease(conn, 10, new Date(now), at(30_000, now)))).toEqual([2]);
        expect(ids(await ops.claimLease(conn, 10, at(10_000, now), at(40_000, now)))).toEqual([1]);
      });
    });
  });

  test('R-ROW-1 R-LEASE-1 a lease claim skips rows another transaction has locked, without waiting', async () => {
    await withTable({}, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (holder) => {
        await ops.insert(holder, [{ payload: '{}' }, { payload: '{}' }]);
        await holder.query('BEGIN');
        await holder.query(`SELECT * FROM "${t.table}" WHERE id = 1 FOR UPDATE`);
        try {
          await withConn(opened, async (conn) => {
            await conn.query(`SET lock_timeout = '2s'`);
            const started = Date.now();
            const rows = await ops.claimLease(conn, 10, new Date(), at(30_000));
            expect(Date.now() - started).toBeLessThan(1500);
            expect(ids(rows)).toEqual([2]);
            await conn.query('RESET lock_timeout');
          });
        } finally {
          await holder.query('ROLLBACK');
        }
      });
    });
  });

  test('R-FIFO-1 lease claims take group heads only, and nothing of a group while its head is leased', async () => {
    await withTable({ group: true }, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        // 1:a 2:a 3:b 4:(none) 5:(none) 6:b
        await ops.insert(conn, [
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'b' },
          { payload: '{}' },
          { payload: '{}' },
          { payload: '{}', group: 'b' },
        ]);
        const now = Date.now();
        const first = await ops.claimLease(conn, 10, new Date(now), at(30_000, now));
        expect(ids(first)).toEqual([1, 3, 4, 5]);
        expect(await ops.claimLease(conn, 10, new Date(now), at(30_000, now))).toEqual([]);
        // Settling group a's head makes its next row the head.
        expect(
          await ops.settle(conn, {
            kind: 'finish',
            id: first[0]?.id,
            token: at(30_000, now),
            now: new Date(),
          }),
        ).toBe(1);
        expect(ids(await ops.claimLease(conn, 10, new Date(now), at(30_000, now)))).toEqual([2]);
        // A returned head stays the head: group b gives its head 3 again, never 6.
        await ops.settle(conn, {
          kind: 'return',
          id: first[1]?.id,
          token: at(30_000, now),
          now: new Date(),
          countAttempt: false,
          clearLease: true,
        });
        expect(ids(await ops.claimLease(conn, 10, new Date(now), at(30_000, now)))).toEqual([3]);
      });
    });
  });

  test('R-FIFO-1 with processed_at: stamped rows no longer hold their group', async () => {
    await withTable({ group: true, processedAt: true }, async (t) => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [
          { payload: '{}', group: 'a' },
          { payload: '{}', group: 'a' },
        ]);
        const now = Date.now();
        const [head] = await ops.claimLease(conn, 10, new Date(now), at(30_000, now));
        expect(Number(head?.id)).toBe(1);
        expect(
          await ops.settle(conn, { kind: 'finish', id: head?.id, token: at(30_000, now), now: new Date() }),
        ).toBe(1);
        const row = (await admin.query(`SELECT processed_at, locked_until FROM "${t.table}" WHERE id = 1`))
          .rows[0];
        expect(row.processed_at).toBeInstanceOf(Date);
        expect(row.locked_until).toBeNull();
        expect(ids(await ops.claimLease(conn, 10, new Date(now), at(30_000, now)))).toEqual([2]);
      });
    });
  });
});
