import { describe, expect } from 'vitest';
import { type ContractContext, check, idsOf, rowIds } from './bench.js';
import { fifoRows } from './fixtures.js';

/**
 * The FIFO guard across two connections: while one connection's claim holds a group's head,
 * a claim on another connection takes no row of that group, and other groups' heads go on.
 */
export function fifoGuardContract(c: ContractContext): void {
  const b = c.b;
  const needs = { connections: true, fifoGuard: true } as const;
  const noOwn: ReadonlySet<string> = new Set();

  describe('fifoGuard', () => {
    check(
      c,
      'fifoGuard R-FIFO-1 R-FIFO-2 R-ROW-2 a claim on another connection takes no row of a group whose head an open transaction holds, even once the holder has settled the head and not yet committed (rowlock form)',
      { form: 'rowlock', ...needs },
      async () => {
        const { t, a1, a2, b1, heads } = await fifoRows(b(), 'rowlock');
        const [, , n1, n2] = heads;
        const d = b().dialect;
        const holder = await b().conn();
        await d.begin(holder, {});
        expect(rowIds(await t.ops.claimLocked(holder, 1, b().now))).toEqual(idsOf([a1]));
        const other = await b().conn();
        const claimOther = async () => {
          await d.begin(other, {});
          const rows = await t.ops.claimLocked(other, 10, b().now);
          await d.rollback(other);
          return rowIds(rows);
        };
        expect(await claimOther()).toEqual(idsOf([b1, n1, n2]));
        // The holder settles its head inside its transaction: the group stays held until it commits.
        expect(await t.ops.settle(holder, { kind: 'finish', id: a1, now: b().now })).toBe(1);
        expect(await claimOther()).toEqual(idsOf([b1, n1, n2]));
        await d.commit(holder);
        b().release(holder);
        expect(await claimOther()).toEqual(idsOf([a2, b1, n1, n2]));
        b().release(other);
      },
    );

    check(
      c,
      'fifoGuard R-FIFO-1 R-FIFO-2 a lease claim on another connection takes no row of a group whose head is leased, and the next row once the head is settled (lease form)',
      { form: 'lease', ...needs },
      async () => {
        const { t, a1, a2, b1, heads } = await fifoRows(b(), 'lease');
        const token = b().at(30_000);
        const one = await b().conn();
        const two = await b().conn();
        expect(rowIds(await t.ops.claimLease(one, 1, b().now, token))).toEqual(idsOf([a1]));
        expect(rowIds(await t.ops.claimLease(two, 10, b().now, token))).toEqual(
          idsOf([b1, ...heads.slice(2)]),
        );
        expect(await t.ops.claimLease(two, 10, b().now, token)).toEqual([]);
        expect(await t.ops.settle(one, { kind: 'finish', id: a1, token, now: b().now })).toBe(1);
        expect(rowIds(await t.ops.claimLease(two, 10, b().now, token))).toEqual(idsOf([a2]));
        b().release(one);
        b().release(two);
      },
    );

    check(
      c,
      'fifoGuard R-FIFO-1 R-OPS-7 another connection is offered no row behind a head in work and cannot take one, until the head is settled (advisory form)',
      { form: 'advisory', ...needs },
      async () => {
        const { t, a1, a2 } = await fifoRows(b(), 'advisory');
        const key = `${t.name}-${a1}`;
        const one = await b().conn();
        const two = await b().conn();
        expect(await t.ops.advisory.lock(one, key)).toBe(true);
        expect(await t.ops.advisory.take(one, a1, b().now)).not.toBeNull();
        const offered = await t.ops.advisory.candidates(two, 10, b().now, noOwn);
        expect(idsOf(offered.map((x) => x.id))).not.toContain(String(a2));
        // The head itself may be offered (a database that cannot see other sessions' keys), never taken.
        expect(await t.ops.advisory.lock(two, key)).toBe(false);
        expect(await t.ops.advisory.take(two, a2, b().now)).toBeNull();
        expect(await t.ops.settle(one, { kind: 'finish', id: a1, now: b().now })).toBe(1);
        expect(await t.ops.advisory.unlock(one, key)).toBe(true);
        expect(await t.ops.advisory.take(two, a2, b().now)).not.toBeNull();
        b().release(one);
        b().release(two);
      },
    );
  });
}
