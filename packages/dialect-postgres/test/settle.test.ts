import { type AnyTable, inbox } from '@sqlinbox/core';
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
  rowlockTable,
  uniqueName,
  withConn,
} from './support.js';

describe.each(drivers)('settle, insert and stats on $name', (driver) => {
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

  async function withTable(t: AnyTable, fn: () => Promise<void>, deadLetterTable?: string) {
    const drop = await createTable(admin, t, deadLetterTable);
    try {
      await fn();
    } finally {
      await drop();
    }
  }

  const count = async (table: string) =>
    (await admin.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n as number;

  test('R-SET-1 finish deletes the row, or stamps processed_at (clearing the lease) where the table has it', async () => {
    const plain = leaseTable(uniqueName('fin'));
    await withTable(plain, async () => {
      const ops = postgresDialect.prepare(plain);
      await withConn(opened, async (conn) => {
        const [id] = await ops.insert(conn, [{ payload: '{}' }]);
        expect(await ops.settle(conn, { kind: 'finish', id, now: new Date() })).toBe(1);
        expect(await count(plain.table)).toBe(0);
        expect(await ops.settle(conn, { kind: 'finish', id, now: new Date() })).toBe(0);
      });
    });
    const stamped = leaseTable(uniqueName('fin'), { processedAt: true });
    await withTable(stamped, async () => {
      const ops = postgresDialect.prepare(stamped);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '{}' }]);
        const now = new Date();
        const [row] = await ops.claimLease(conn, 1, now, at(30_000, now.getTime()));
        const settledAt = new Date(now.getTime() + 5);
        expect(
          await ops.settle(conn, {
            kind: 'finish',
            id: row?.id,
            token: at(30_000, now.getTime()),
            now: settledAt,
          }),
        ).toBe(1);
        const stored = (await admin.query(`SELECT processed_at, locked_until FROM "${stamped.table}"`))
          .rows[0];
        expect((stored.processed_at as Date).getTime()).toBe(settledAt.getTime());
        expect(stored.locked_until).toBeNull();
        expect(await ops.claimLease(conn, 1, at(60_000, now.getTime()), at(90_000, now.getTime()))).toEqual(
          [],
        );
      });
    });
  });

  test('R-SET-1 return counts the attempt, sets retry_after and clears the lease as asked; with nothing to write it only finds the row', async () => {
    const t = leaseTable(uniqueName('ret'));
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '{}' }]);
        const now = new Date();
        const token = at(30_000, now.getTime());
        const [row] = await ops.claimLease(conn, 1, now, token);
        const later = at(10_000, now.getTime());
        expect(
          await ops.settle(conn, {
            kind: 'return',
            id: row?.id,
            token,
            now,
            countAttempt: true,
            retryAfter: later,
            clearLease: true,
          }),
        ).toBe(1);
        const stored = (await admin.query(`SELECT attempt, retry_after, locked_until FROM "${t.table}"`))
          .rows[0];
        expect(stored.attempt).toBe(2); // 0, counted by the claim, counted again
        expect((stored.retry_after as Date).getTime()).toBe(later.getTime());
        expect(stored.locked_until).toBeNull();
        const rec = recording(conn);
        expect(
          await ops.settle(rec.conn, {
            kind: 'return',
            id: row?.id,
            now,
            countAttempt: false,
            clearLease: false,
          }),
        ).toBe(1);
        expect(rec.statements[0]).toMatch(/^SELECT 1/);
        expect(
          await ops.settle(conn, { kind: 'return', id: -1, now, countAttempt: true, clearLease: true }),
        ).toBe(0);
      });
    });
  });

  test('R-DLQ-2 dead letter to a group is one UPDATE of the row group (lease cleared); claims and heads skip it; stats count it', async () => {
    const t = leaseTable(uniqueName('dlg'), { group: true });
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t, { deadLetter: { group: 'dead' } });
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [
          { payload: '{}', group: 'g' },
          { payload: '{}', group: 'g' },
        ]);
        const now = new Date();
        const token = at(30_000, now.getTime());
        const [head] = await ops.claimLease(conn, 10, now, token);
        expect(Number(head?.id)).toBe(1);
        const rec = recording(conn);
        const moved = await ops.settle(rec.conn, {
          kind: 'deadLetter',
          id: head?.id,
          token,
          now,
          target: { group: 'dead' },
          inTransaction: false,
        });
        expect(moved).toBe(1);
        expect(rec.statements).toHaveLength(1);
        expect(rec.statements[0]).toMatch(/^UPDATE/);
        const stored = (await admin.query(`SELECT grp, locked_until FROM "${t.table}" WHERE id = 1`)).rows[0];
        expect(stored).toEqual({ grp: 'dead', locked_until: null });
        // The dead row never comes back, and its old group moves on.
        expect(ids(await ops.claimLease(conn, 10, now, token))).toEqual([2]);
        expect(await ops.claimLease(conn, 10, at(60_000, now.getTime()), at(90_000, now.getTime()))).toEqual([
          expect.objectContaining({ grp: 'g' }),
        ]);
        const stats = await ops.stats(conn, at(100_000, now.getTime()));
        expect(stats.dead).toBe(1);
      });
    });
  });

  test('R-DLQ-2 dead letter to a table is one statement (WITH moved AS (DELETE ..) INSERT .. SELECT); a lost token moves nothing', async () => {
    const t = rowlockTable(uniqueName('dlt'));
    const dlq = uniqueName('dlt_dead');
    await withTable(
      t,
      async () => {
        const ops = postgresDialect.prepare(t, { deadLetter: { table: dlq } });
        await withConn(opened, async (conn) => {
          const [id] = await ops.insert(conn, [{ payload: '{"poison":true}', notBefore: at(-1000) }]);
          await ops.insert(conn, [{ payload: '{}' }]);
          await postgresDialect.begin(conn, {});
          const rec = recording(conn);
          const moved = await ops.settle(rec.conn, {
            kind: 'deadLetter',
            id,
            now: new Date(),
            target: { table: dlq },
            inTransaction: true,
          });
          expect(moved).toBe(1);
          expect(rec.statements).toHaveLength(1);
          expect(rec.statements[0]).toMatch(
            /^WITH sqlinbox_moved AS \(DELETE .* INSERT INTO .* SELECT \* FROM sqlinbox_moved$/,
          );
          await postgresDialect.commit(conn);
          expect(await count(t.table)).toBe(1);
          const dead = (await admin.query(`SELECT id::int, payload, attempt FROM "${dlq}"`)).rows;
          expect(dead).toEqual([{ id: Number(id), payload: { poison: true }, attempt: 0 }]);
          expect((await ops.stats(conn, new Date())).dead).toBe(1);
        });
      },
      dlq,
    );
    const lt = leaseTable(uniqueName('dlt'));
    const ldlq = uniqueName('dlt_dead');
    await withTable(
      lt,
      async () => {
        const ops = postgresDialect.prepare(lt, { deadLetter: { table: ldlq } });
        await withConn(opened, async (conn) => {
          await ops.insert(conn, [{ payload: '{}' }]);
          const now = new Date();
          const [row] = await ops.claimLease(conn, 1, now, at(30_000, now.getTime()));
          const lost = await ops.settle(conn, {
            kind: 'deadLetter',
            id: row?.id,
            token: at(29_999, now.getTime()),
            now,
            target: { table: ldlq },
            inTransaction: false,
          });
          expect(lost).toBe(0);
          expect(await count(lt.table)).toBe(1);
          expect(await count(ldlq)).toBe(0);
        });
      },
      ldlq,
    );
  });

  test('R-PUB-1 insert writes many messages in one statement and answers their ids in order', async () => {
    const t = inbox({
      table: uniqueName('ins'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      retryAfter: 'retry_after',
      group: 'grp',
      partitionKey: 'pkey',
      columns: ['account'],
    }) as AnyTable;
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        const notBefore = at(5000);
        const rec = recording(conn);
        const got = await ops.insert(rec.conn, [
          { payload: '{"n":1}', group: 'a', partitionKey: 'p1', columns: { account: 'acct-1' } },
          { payload: '{"n":2}', notBefore },
          { payload: '{"n":3}', columns: { account: 'acct-3' } },
        ]);
        expect(rec.statements).toHaveLength(1);
        expect(got.map(Number)).toEqual([1, 2, 3]);
        const stored = await admin.query(
          `SELECT id::int, payload, attempt, retry_after, grp, pkey, account FROM "${t.table}" ORDER BY id`,
        );
        expect(stored.rows).toEqual([
          {
            id: 1,
            payload: { n: 1 },
            attempt: 0,
            retry_after: null,
            grp: 'a',
            pkey: 'p1',
            account: 'acct-1',
          },
          {
            id: 2,
            payload: { n: 2 },
            attempt: 0,
            retry_after: notBefore,
            grp: null,
            pkey: null,
            account: null,
          },
          {
            id: 3,
            payload: { n: 3 },
            attempt: 0,
            retry_after: null,
            grp: null,
            pkey: null,
            account: 'acct-3',
          },
        ]);
        expect(await ops.insert(conn, [])).toEqual([]);
      });
    });
  });

  test('R-FLOW-2 a keyed insert longer than one statement answers every id in message order: a held key its holder, a key repeated in the batch the first one, all held keys read in one select', async () => {
    const t = inbox({
      table: uniqueName('keyed'),
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      uniqueKey: 'job_key',
    }) as AnyTable;
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t);
      await withConn(opened, async (conn) => {
        const [held] = await ops.insert(conn, [{ payload: '{}', key: 'k-held' }]);
        // Three columns a message: more than 3,333 messages take a second INSERT.
        const messages = Array.from({ length: 4000 }, (_, i) => ({ payload: `{"n":${i}}`, key: `k-${i}` }));
        messages[10] = { payload: '{}', key: 'k-held' };
        messages[3900] = { payload: '{}', key: 'k-5' };
        const rec = recording(conn);
        const got = (await ops.insert(rec.conn, messages)).map(Number);
        expect(rec.statements.map((s) => s.split(' ')[0])).toEqual(['WITH', 'WITH', 'SELECT']);
        expect(got).toHaveLength(4000);
        expect(got[10]).toBe(Number(held));
        expect(got[3900]).toBe(got[5]);
        const stored = await admin.query(`SELECT id::int, job_key FROM "${t.table}"`);
        const byKey = new Map(stored.rows.map((r) => [r.job_key as string, r.id as number]));
        expect(stored.rows).toHaveLength(3999);
        expect(got).toEqual(messages.map((m) => byKey.get(m.key)));
      });
    });
  });

  test('R-PUB-1 insert: text and bytes payloads, an id the caller gives, a generated attempt', async () => {
    const bytes = inbox({
      table: uniqueName('insb'),
      id: 'id',
      payload: { column: 'payload', type: 'bytes' },
      attempt: { column: 'attempt', generated: true },
    }) as AnyTable;
    await withTable(bytes, async () => {
      const ops = postgresDialect.prepare(bytes);
      await withConn(opened, async (conn) => {
        const got = await ops.insert(conn, [
          { payload: Buffer.from([0, 1, 2, 255]), columns: { id: 42 } },
          { payload: new Uint8Array([7]), columns: { id: 7 } },
        ]);
        expect(got.map(Number)).toEqual([42, 7]);
        const stored = await admin.query(
          `SELECT id::int, payload, attempt FROM "${bytes.table}" ORDER BY id DESC`,
        );
        expect(stored.rows).toEqual([
          { id: 42, payload: Buffer.from([0, 1, 2, 255]), attempt: 0 },
          { id: 7, payload: Buffer.from([7]), attempt: 0 },
        ]);
      });
    });
    const text = inbox({
      table: uniqueName('inst'),
      id: { column: 'id', generated: true },
      payload: { column: 'payload', type: 'text' },
    }) as AnyTable;
    await withTable(text, async () => {
      const ops = postgresDialect.prepare(text);
      await withConn(opened, async (conn) => {
        await ops.insert(conn, [{ payload: '"quoted" {not json}' }]);
        expect((await admin.query(`SELECT payload FROM "${text.table}"`)).rows[0].payload).toBe(
          '"quoted" {not json}',
        );
      });
    });
  });

  test('R-PLUS-3 stats counts ready, delayed, in work (leases) and dead', async () => {
    const t = leaseTable(uniqueName('stats'), { group: true, processedAt: true });
    await withTable(t, async () => {
      const ops = postgresDialect.prepare(t, { deadLetter: { group: 'dead' } });
      await withConn(opened, async (conn) => {
        const now = Date.now();
        await ops.insert(conn, [
          { payload: '{}' }, // ready, then leased
          { payload: '{}' }, // ready
          { payload: '{}', notBefore: at(60_000, now) }, // delayed
          { payload: '{}', group: 'dead' }, // dead
          { payload: '{}' }, // processed
        ]);
        await ops.settle(conn, { kind: 'finish', id: 5, now: new Date(now) });
        await ops.claimLease(conn, 1, new Date(now), at(30_000, now));
        expect(await ops.stats(conn, new Date(now))).toEqual({ ready: 1, delayed: 1, inWork: 1, dead: 1 });
        expect(await ops.stats(conn, at(61_000, now))).toEqual({ ready: 3, delayed: 0, inWork: 0, dead: 1 });
      });
    });
  });
});
