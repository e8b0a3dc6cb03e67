/**
 * A FIFO claim right after a group's head settles offers the row its last read saw behind that
 * head, without reading the window of the oldest rows again; the locking select's head test still
 * decides. The hints themselves (pure logic) are tested with a clock of the test's own.
 */
import { type AnyTable, type Connection, inbox, type Row } from '@sqlinbox/core';
import type mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mysqlDialect } from '../src/dialect.js';
import { FifoHints } from '../src/fifo-hints.js';
import { countingSession, createTables, NO_SERVER, openAdmin, uniqueName } from './helpers.js';

describe('R-LOAD-6 FIFO hints (pure logic)', () => {
  const rows = (...spec: [number, string, boolean][]) => spec.map(([id, group, due]) => ({ id, group, due }));

  test('R-LOAD-6 each remembered group offers its oldest row not taken; a group whose first rows are in work offers the row behind them', () => {
    const hints = new FifoHints(250, () => 0);
    hints.remember(rows([1, 'a', false], [2, 'b', true], [3, 'a', true], [4, 'b', true], [5, 'a', true]));
    expect(hints.candidates()).toEqual([
      { id: 2, group: 'b' },
      { id: 3, group: 'a' },
    ]);
    hints.took(
      [
        { id: 2, group: 'b' },
        { id: 3, group: 'a' },
      ],
      [3, 2],
      8,
    );
    expect(hints.candidates()).toEqual([
      { id: 4, group: 'b' },
      { id: 5, group: 'a' },
    ]);
  });

  test('R-LOAD-6 R-FIFO-1 a claim over hints that takes fewer rows than it could drops them all: the next claim reads', () => {
    const hints = new FifoHints(250, () => 0);
    hints.remember(rows([1, 'a', true], [2, 'a', true], [3, 'b', true], [4, 'b', true]));
    const offered = hints.candidates()!;
    hints.took(offered, [1], 8); // b's row was not its group's head, or another claim holds it
    expect(hints.candidates()).toBeUndefined();
  });

  test('R-LOAD-6 a claim over hints limited to n rows that takes n keeps the rest; a read claim that takes fewer keeps them too', () => {
    const hints = new FifoHints(250, () => 0);
    hints.remember(rows([1, 'a', true], [2, 'b', true], [3, 'a', true], [4, 'b', true]));
    // A read's candidates: one of them held by another process, not taken.
    hints.took(
      [
        { id: 1, group: 'a' },
        { id: 2, group: 'b' },
      ],
      [1],
      8,
    );
    const offered = hints.candidates()!;
    expect(offered).toEqual([
      { id: 3, group: 'a' },
      { id: 2, group: 'b' },
    ]);
    hints.took(offered, [2], 1);
    expect(hints.candidates()).toEqual([
      { id: 3, group: 'a' },
      { id: 4, group: 'b' },
    ]);
  });

  test('R-LOAD-6 R-FIFO-1 asked for settled groups (the lease form), hints offer a group only once this subscription settled the row ahead of it', () => {
    const hints = new FifoHints(250, () => 0);
    // a's head is in work; b's head is due.
    hints.remember(rows([1, 'a', false], [2, 'b', true], [3, 'a', true], [4, 'b', true]));
    expect(hints.candidates(true)).toEqual([{ id: 2, group: 'b' }]);
    hints.took([{ id: 2, group: 'b' }], [2], 8);
    // b's offered row is behind row 2, now in work; a's behind row 1: nothing to offer.
    expect(hints.candidates(true)).toBeUndefined();
    expect(hints.candidates()).toEqual([
      { id: 4, group: 'b' },
      { id: 3, group: 'a' },
    ]);
    hints.took([], [], 8);
    hints.settled([2]);
    expect(hints.candidates(true)).toEqual([{ id: 4, group: 'b' }]);
    hints.took([], [], 8);
    hints.settled([99, 1]);
    expect(hints.candidates(true)).toEqual([
      { id: 4, group: 'b' },
      { id: 3, group: 'a' },
    ]);
  });

  test('R-LOAD-6 hints older than their age, or all taken, are dropped: the next claim reads the window and finds new groups', () => {
    let now = 0;
    const hints = new FifoHints(250, () => now);
    hints.remember(rows([1, 'a', true], [2, 'a', true]));
    now = 251;
    expect(hints.candidates()).toBeUndefined();
    hints.remember(rows([1, 'a', true]));
    hints.took([{ id: 1, group: 'a' }], [1], 8);
    expect(hints.candidates()).toBeUndefined();
  });
});

describe.skipIf(NO_SERVER)(
  'R-LOAD-6 a FIFO claim after a settlement offers the next row without a read',
  () => {
    let admin: Awaited<ReturnType<typeof openAdmin>>;
    let session: mysql.Connection;
    let raw: Connection;
    const drops: (() => Promise<void>)[] = [];
    beforeAll(async () => {
      admin = await openAdmin();
      ({ session, conn: raw } = await countingSession('fifo-hints'));
    });
    afterAll(async () => {
      for (const drop of drops) await drop();
      await session?.end();
      await admin?.end();
    });

    for (const form of ['lease', 'rowlock'] as const)
      test(`R-LOAD-6 R-FIFO-1 one group (${form}): the claim after the head settles takes the next row with no window read; while the head is in work nothing is taken`, async () => {
        const name = uniqueName('fifohint');
        const t = inbox({
          table: name,
          id: { column: 'id', generated: true },
          payload: 'payload',
          attempt: 'attempt',
          group: 'grp',
          ...(form === 'lease' ? { lease: 'locked_until' } : {}),
        } as never) as AnyTable;
        drops.push(await createTables(admin, t));
        await admin.q(
          `INSERT INTO ${name} (payload, grp) VALUES ${Array(100).fill("('{}', 'g')").join(', ')}`,
        );
        const ids = (await admin.q(`SELECT id FROM ${name} ORDER BY id`)).map((r) => Number(r.id));
        const sent: string[] = [];
        const conn: Connection = {
          id: raw.id,
          query: <R = Row>(sql: string, params?: readonly unknown[]) => {
            sent.push(sql);
            return raw.query<R>(sql, params);
          },
        };
        const ops = mysqlDialect.prepare(t);
        const windowReads = () => sent.filter((s) => s.includes('sqlinbox_part')).length;
        const expiry = new Map<number, Date>();
        const claim = async (): Promise<number[]> => {
          const now = new Date();
          if (form === 'lease') {
            const until = new Date(now.getTime() + 60_000);
            const rows = await ops.claimLease(conn, 8, now, until);
            for (const r of rows) expiry.set(Number(r.id), until);
            return rows.map((r) => Number(r.id));
          }
          await session.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
          await session.query('START TRANSACTION');
          return (await ops.claimLocked(conn, 8, now)).map((r) => Number(r.id));
        };
        // Lease: this subscription's own ack. Row lock: the
        // delivery's transaction ends with its settlement (here a delete and COMMIT).
        const settle = async (id: number) => {
          // The engine acks a FIFO row alone (settle) or in a batch (settleMany): both are told.
          const ack = { kind: 'finish' as const, id, token: expiry.get(id)!, now: new Date() };
          if (form === 'lease' && id === ids[1]) expect(await ops.settle(conn, ack)).toBe(1);
          else if (form === 'lease') expect(await ops.batch!.settleMany(conn, [ack])).toEqual([id]);
          else {
            await session.query(`DELETE FROM ${name} WHERE id = ?`, [id]);
            await session.query('COMMIT');
          }
        };
        expect(await claim()).toEqual([ids[0]]);
        const reads = windowReads(); // the window, and the groups after it (the claim was short)
        expect(reads).toBeGreaterThan(0);
        // Lease: while the head is in work, its group is not offered: the claim reads, takes nothing.
        if (form === 'lease') {
          expect(await claim()).toEqual([]);
          expect(windowReads()).toBeGreaterThan(reads);
        }
        const before = windowReads();
        await settle(ids[0]!);
        // Offered from the read before, the head test passed: no window read.
        expect(await claim()).toEqual([ids[1]]);
        expect(windowReads()).toBe(before);
        await settle(ids[1]!);
        expect(await claim()).toEqual([ids[2]]);
        expect(windowReads()).toBe(before);
        // The head stays in work: the offered row is not its group's head. The claim reads at once
        // (a hint may be stale), and finds the head in work: nothing is taken.
        if (form === 'rowlock') {
          // The head's lock belongs to a delivery's transaction: hold it on another session.
          await session.query('ROLLBACK');
          const other = await openAdmin();
          try {
            await other.q('START TRANSACTION');
            await other.q(`SELECT id FROM ${name} WHERE id = ? FOR UPDATE`, [ids[2]]);
            expect(await claim()).toEqual([]);
            await session.query('ROLLBACK');
            expect(windowReads()).toBeGreaterThan(before);
            // Another process settles the head: the hint this broker holds for it is stale.
            await other.q(`DELETE FROM ${name} WHERE id = ?`, [ids[2]]);
            await other.q('COMMIT');
          } finally {
            await other.end();
          }
        } else {
          expect(await claim()).toEqual([]);
          expect(windowReads()).toBeGreaterThan(before);
          // Another process settles the head: this subscription never hears of it, and the group
          // is found by the next read.
          await admin.q(`DELETE FROM ${name} WHERE id = ?`, [ids[2]]);
        }
        expect(await claim()).toEqual([ids[3]]);
        if (form === 'rowlock') await session.query('ROLLBACK');
        const left = (await admin.q(`SELECT id FROM ${name} ORDER BY id`)).map((r) => Number(r.id));
        expect(left).toEqual(ids.slice(3));
      });
  },
);
