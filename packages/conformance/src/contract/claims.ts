import type { Connection, Insert, Row, TableOps } from '@sqlinbox/core';
import { describe, expect } from 'vitest';
import { type ContractContext, check, DEAD, HOUR, idsOf, msg, rowIds, view } from './bench.js';
import { clockRows, dueRows, fifoRows, MANY_SKIPPED, manySkipped, priorityRows } from './fixtures.js';

/** One row lock claim in a transaction of its own, rolled back after. */
async function claimLockedOnce(
  conn: Connection,
  ops: TableOps,
  dialect: { begin(c: Connection, o: object): Promise<void>; rollback(c: Connection): Promise<void> },
  n: number,
  now: Date | null,
): Promise<Row[]> {
  await dialect.begin(conn, {});
  try {
    return await ops.claimLocked(conn, n, now);
  } finally {
    await dialect.rollback(conn);
  }
}

/** `claimLocked`: the row lock form's claim, inside the transaction the engine opened. */
export function claimLockedContract(c: ContractContext): void {
  const b = c.b;
  const form = 'rowlock';
  describe('claimLocked', () => {
    check(
      c,
      'claimLocked R-ROW-1 R-ATT-1 takes up to n due rows in claim order and counts nothing',
      { form },
      async () => {
        const t = await b().table(form);
        const ids = await b().insert(t, [msg(1), msg(2), msg(3)]);
        const rows = await b().use((conn) => claimLockedOnce(conn, t.ops, b().dialect, 2, b().now));
        expect(rowIds(rows)).toEqual(idsOf(ids.slice(0, 2)));
        expect(rows.map((r) => Number(r.attempt))).toEqual([0, 0]);
        expect((await b().rows(t.name)).map((r) => Number(r.attempt))).toEqual([0, 0, 0]);
      },
    );

    check(
      c,
      'claimLocked R-ROW-1 R-ROW-3 R-ROW-5 R-TX-6 passes over rows another open transaction holds, without waiting, at every isolation level the dialect takes; a rollback frees them at once',
      { form, connections: true },
      async () => {
        const t = await b().table(form);
        const [r1, r2, r3] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        const d = b().dialect;
        const holder = await b().conn();
        await d.begin(holder, {});
        expect(rowIds(await t.ops.claimLocked(holder, 1, b().now))).toEqual(idsOf([r1]));
        const other = await b().conn();
        for (const isolation of [undefined, ...c.caps.isolationLevels]) {
          await d.begin(other, isolation === undefined ? {} : { isolation });
          const rows = await t.ops.claimLocked(other, 10, b().now);
          await d.rollback(other);
          expect(rowIds(rows), `at ${isolation ?? 'the default level'}`).toEqual(idsOf([r2, r3]));
        }
        await d.rollback(holder);
        b().release(holder);
        expect(rowIds(await claimLockedOnce(other, t.ops, d, 10, b().now))).toEqual(idsOf([r1, r2, r3]));
        b().release(other);
      },
    );

    check(
      c,
      'claimLocked R-ROW-1 R-DLQ-2 R-OUT-1 takes only due rows: retry_after reached, unsettled, out of the dead-letter group, not excluded',
      { form },
      async () => {
        const { ops, due } = await dueRows(b(), form);
        const rows = await b().use((conn) => claimLockedOnce(conn, ops, b().dialect, 10, b().now));
        expect(rowIds(rows)).toEqual(idsOf(due));
      },
    );

    check(
      c,
      `claimLocked R-OUT-1 passes over ${MANY_SKIPPED} skipped ids in one statement, within the database's parameter limit`,
      { form },
      async () => {
        const { ops, kept } = await manySkipped(b(), form);
        const rows = await b().use((conn) => claimLockedOnce(conn, ops, b().dialect, 10, b().now));
        expect(rowIds(rows)).toEqual(idsOf([kept]));
      },
    );

    check(c, 'claimLocked R-DESC-5 with now null reads the database clock', { form }, async () => {
      const { t, past } = await clockRows(b(), form);
      const rows = await b().use((conn) => claimLockedOnce(conn, t.ops, b().dialect, 10, null));
      expect(rowIds(rows)).toEqual(idsOf([past]));
    });

    check(
      c,
      'claimLocked R-FIFO-1 takes group heads only; a stamped head lets the next row of its group in',
      { form },
      async () => {
        const { t, a1, a2, b1, heads } = await fifoRows(b(), form);
        const d = b().dialect;
        expect(rowIds(await b().use((conn) => claimLockedOnce(conn, t.ops, d, 10, b().now)))).toEqual(
          idsOf(heads),
        );
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: a1, now: b().now }));
        const rows = await b().use((conn) => claimLockedOnce(conn, t.ops, d, 10, b().now));
        expect(rowIds(rows)).toEqual(idsOf([a2, b1, ...heads.slice(2)]));
      },
    );

    check(c, 'claimLocked R-FLOW-1 takes the highest priority first, then by id', { form }, async () => {
      const { t, order } = await priorityRows(b(), form);
      const d = b().dialect;
      expect(rowIds(await b().use((conn) => claimLockedOnce(conn, t.ops, d, 2, b().now)))).toEqual(
        idsOf(order.slice(0, 2)),
      );
      expect(rowIds(await b().use((conn) => claimLockedOnce(conn, t.ops, d, 10, b().now)))).toEqual(
        idsOf(order),
      );
    });
  });
}

/** `claimLease`: the lease form's claim, committed on its own. */
export function claimLeaseContract(c: ContractContext): void {
  const b = c.b;
  const form = 'lease';
  describe('claimLease', () => {
    check(
      c,
      'claimLease R-LEASE-1 R-ATT-1 writes the expiry, counts the attempt and commits at once; answers the rows after the update',
      { form },
      async () => {
        const t = await b().table(form);
        const [r1, r2, r3] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        const expiry = b().at(30_000);
        const rows = await b().use((conn) => t.ops.claimLease(conn, 2, b().now, expiry));
        expect(rowIds(rows)).toEqual(idsOf([r1, r2]));
        for (const row of rows) {
          expect(Number(row.attempt)).toBe(1);
          expect(view(row)?.locked_until).toBe(expiry.getTime());
        }
        // Read on another connection: the claim has committed.
        expect(
          (await b().rows(t.name)).map((r) => [String(r.id), Number(r.attempt), view(r)?.locked_until]),
        ).toEqual([
          [String(r1), 1, expiry.getTime()],
          [String(r2), 1, expiry.getTime()],
          [String(r3), 0, null],
        ]);
      },
    );

    check(
      c,
      'claimLease R-LEASE-2 R-LEASE-8 passes over a live lease and takes an ended one again (ended at now included), counting the attempt',
      { form },
      async () => {
        const t = await b().table(form);
        const [r1] = await b().insert(t, [msg(1)]);
        const first = b().at(30_000);
        await b().use((conn) => t.ops.claimLease(conn, 10, b().now, first));
        const live = await b().use((conn) => t.ops.claimLease(conn, 10, b().at(29_999), b().at(60_000)));
        expect(live).toEqual([]);
        const second = b().at(60_000);
        const again = await b().use((conn) => t.ops.claimLease(conn, 10, first, second));
        expect(rowIds(again)).toEqual(idsOf([r1]));
        expect(Number(again[0]!.attempt)).toBe(2);
        expect(view(await b().row(t.name, r1))).toMatchObject({ attempt: 2, locked_until: second.getTime() });
      },
    );

    check(
      c,
      'claimLease R-LEASE-1 R-DLQ-2 R-OUT-1 takes only due rows: retry_after reached, unsettled, out of the dead-letter group, not excluded',
      { form },
      async () => {
        const { ops, due } = await dueRows(b(), form);
        const rows = await b().use((conn) => ops.claimLease(conn, 10, b().now, b().at(30_000)));
        expect(rowIds(rows)).toEqual(idsOf(due));
      },
    );

    check(
      c,
      `claimLease R-OUT-1 passes over ${MANY_SKIPPED} skipped ids in one statement, within the database's parameter limit`,
      { form },
      async () => {
        const { ops, kept } = await manySkipped(b(), form);
        const rows = await b().use((conn) => ops.claimLease(conn, 10, b().now, b().at(30_000)));
        expect(rowIds(rows)).toEqual(idsOf([kept]));
      },
    );

    check(
      c,
      'claimLease R-FIFO-1 takes group heads only; a leased head holds its group until it is settled',
      { form },
      async () => {
        const { t, a1, a2, heads } = await fifoRows(b(), form);
        const expiry = b().at(30_000);
        const rows = await b().use((conn) => t.ops.claimLease(conn, 10, b().now, expiry));
        expect(rowIds(rows)).toEqual(idsOf(heads));
        expect(await b().use((conn) => t.ops.claimLease(conn, 10, b().now, expiry))).toEqual([]);
        const settled = await b().use((conn) =>
          t.ops.settle(conn, { kind: 'finish', id: a1, token: expiry, now: b().now }),
        );
        expect(settled).toBe(1);
        const next = await b().use((conn) => t.ops.claimLease(conn, 10, b().now, expiry));
        expect(rowIds(next)).toEqual(idsOf([a2]));
      },
    );

    check(
      c,
      'claimLease R-FLOW-1 takes the highest priority first, then by id, and answers the rows in that order',
      { form },
      async () => {
        const { t, order } = await priorityRows(b(), form);
        const first = await b().use((conn) => t.ops.claimLease(conn, 2, b().now, b().at(30_000)));
        expect(rowIds(first)).toEqual(idsOf(order.slice(0, 2)));
        const rest = await b().use((conn) => t.ops.claimLease(conn, 10, b().now, b().at(30_000)));
        expect(rowIds(rest)).toEqual(idsOf(order.slice(2)));
      },
    );
  });
}

/** `claimLeaseByKey`: the lease form's claim under per-key concurrency (limit 2 on column `ckey`). */
export function claimLeaseByKeyContract(c: ContractContext): void {
  const b = c.b;
  const form = 'lease';
  const method = 'claimLeaseByKey';
  const claim = (ops: TableOps, n: number, now: Date, expiry: Date) =>
    b().use((conn) => ops.concurrency!.claimLease(conn, n, now, expiry));
  describe('claimLeaseByKey', () => {
    check(
      c,
      'claimLeaseByKey R-FLOW-3 R-ATT-1 takes at most the limit of each key less its rows in work, in claim order; a NULL key has no limit; a lease ended frees its slot',
      { form, method },
      async () => {
        const t = await b().table(form, { concurrency: 2, priority: true });
        const k = (ckey: string | null, priority = 0) =>
          msg(0, { priority, columns: ckey === null ? {} : { ckey } });
        const [a1, a2, a3, b1, n1, n2, n3, a4] = await b().insert(t, [
          k('a'),
          k('a'),
          k('a'),
          k('b'),
          k(null),
          k(null),
          k(null),
          k('a', 9),
        ]);
        const token = b().at(30_000);
        // Of key a: the priority-9 row, then the oldest; then b1 and the rows without a key.
        const first = await claim(t.ops, 10, b().now, token);
        expect(rowIds(first)).toEqual(idsOf([a4, a1, b1, n1, n2, n3]));
        expect(first.map((r) => Number(r.attempt))).toEqual([1, 1, 1, 1, 1, 1]);
        // Key a has 2 in work: nothing more of it, whatever n.
        expect(await claim(t.ops, 10, b().now, token)).toEqual([]);
        // One of a's settled: one slot of a frees, taken by the oldest of a.
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: a4, token, now: b().now }));
        expect(rowIds(await claim(t.ops, 10, b().now, token))).toEqual(idsOf([a2]));
        // Past the token every lease has ended and holds no slot: the same rows again, a3 still third of a.
        const later = b().at(31_000);
        const again = await claim(t.ops, 10, later, b().at(60_000));
        expect(rowIds(again)).toEqual(idsOf([a1, a2, b1, n1, n2, n3]));
        expect(rowIds(again)).not.toContain(idsOf([a3])[0]);
      },
    );

    check(
      c,
      'claimLeaseByKey R-FLOW-3 a full key passes its turn: the backlog of one key ahead of the others does not hold them back',
      { form, method },
      async () => {
        const t = await b().table(form, { concurrency: 2 });
        const k = (ckey: string) => msg(0, { columns: { ckey } });
        const ids = await b().insert(t, [
          ...Array.from({ length: 10 }, () => k('a')),
          k('b'),
          k('b'),
          k('c'),
          k('c'),
        ]);
        const token = b().at(30_000);
        // Two claims of 4 take key a's first two rows and every row of b and c, none twice and
        // none of a beyond its limit; how they split between the two is the dialect's: a claim
        // may fill itself from the other keys at once (PostgreSQL, MySQL: 1, 2, 11, 12 then 13,
        // 14) or take the front first (1, 2 then 11 to 14).
        const first = rowIds(await claim(t.ops, 4, b().now, token));
        const second = rowIds(await claim(t.ops, 4, b().now, token));
        expect(first.length).toBeLessThanOrEqual(4);
        expect(first).toEqual(expect.arrayContaining(idsOf(ids.slice(0, 2))));
        expect([...first, ...second].sort()).toEqual(
          idsOf([...ids.slice(0, 2), ...ids.slice(10, 14)]).sort(),
        );
        expect(await claim(t.ops, 4, b().now, token)).toEqual([]);
      },
    );

    check(
      c,
      'claimLeaseByKey R-FLOW-3 R-DLQ-2 takes only due rows (retry_after reached, out of the dead-letter group), and a dead row holds no slot',
      { form, method },
      async () => {
        const t = await b().table(form, { concurrency: 2, retryAfter: true, group: true });
        const ops = b().prepare(t, { deadLetter: { group: DEAD } });
        const k = (extra: Omit<Insert, 'payload'>) => msg(0, { ...extra, columns: { ckey: 'a' } });
        const [dead, later, a1, a2, a3] = await b().insert(t, [
          k({ group: DEAD }),
          k({ notBefore: b().at(HOUR) }),
          k({}),
          k({}),
          k({}),
        ]);
        const token = b().at(30_000);
        // The dead row holds a live lease (as a claim would write before a move), yet takes no slot.
        await b().use((conn) => t.ops.claimLease(conn, 1, b().now, token));
        const rows = await claim(ops, 10, b().now, token);
        expect(rowIds(rows)).toEqual(idsOf([a1, a2]));
        expect(rowIds(rows)).not.toContain(idsOf([later])[0]);
        void dead;
        void a3;
      },
    );
  });
}

/** `extendLeases`: moves leases that still hold their tokens. */
export function extendLeasesContract(c: ContractContext): void {
  const b = c.b;
  const form = 'lease';
  describe('extendLeases', () => {
    check(
      c,
      'extendLeases R-LEASE-4 R-LEASE-3 moves every lease still holding its token and answers those ids; a stale token moves nothing and its id is absent',
      { form },
      async () => {
        const t = await b().table(form);
        const [r1, r2, r3] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        const token = b().at(30_000);
        await b().use((conn) => t.ops.claimLease(conn, 10, b().now, token));
        const later = b().at(45_000);
        const stale = new Date(token.getTime() - 1);
        const moved = await b().use((conn) =>
          t.ops.extendLeases(
            conn,
            [
              { id: r1, token },
              { id: r2, token: stale },
              { id: r3, token },
            ],
            later,
          ),
        );
        expect(idsOf(moved).sort()).toEqual(idsOf([r1, r3]).sort());
        expect((await b().rows(t.name)).map((r) => view(r)?.locked_until)).toEqual([
          later.getTime(),
          token.getTime(),
          later.getTime(),
        ]);
        // The old token of a moved lease is stale now: a settlement with it changes nothing.
        const old = await b().use((conn) =>
          t.ops.settle(conn, { kind: 'finish', id: r1, token, now: b().now }),
        );
        expect(old).toBe(0);
        expect(await b().row(t.name, r1)).toBeDefined();
      },
    );

    check(
      c,
      'extendLeases R-LEASE-4 R-LEASE-6 a settled row is not moved and its id is absent; no leases answer none',
      { form },
      async () => {
        const t = await b().table(form);
        const [r1, r2] = await b().insert(t, [msg(1), msg(2)]);
        const token = b().at(30_000);
        await b().use((conn) => t.ops.claimLease(conn, 10, b().now, token));
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: r1, token, now: b().now }));
        const later = b().at(45_000);
        const moved = await b().use((conn) =>
          t.ops.extendLeases(
            conn,
            [
              { id: r1, token },
              { id: r2, token },
            ],
            later,
          ),
        );
        expect(idsOf(moved)).toEqual(idsOf([r2]));
        expect(await b().use((conn) => t.ops.extendLeases(conn, [], later))).toEqual([]);
      },
    );
  });
}
