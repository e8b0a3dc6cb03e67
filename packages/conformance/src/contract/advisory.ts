import type { Connection } from '@sqlinbox/core';
import { describe, expect } from 'vitest';
import { until } from '../harness.js';
import { type ContractContext, check, idsOf, msg, view } from './bench.js';
import { clockRows, dueRows, fifoRows, MANY_SKIPPED, manySkipped, priorityRows } from './fixtures.js';

/** The advisory form's statements: `candidates`, `lock`, `unlock`, `take`. */
export function advisoryContract(c: ContractContext): void {
  const b = c.b;
  const form = 'advisory';
  const noOwn: ReadonlySet<string> = new Set();

  describe('advisory.candidates', () => {
    check(
      c,
      "advisory.candidates R-ADV-1 R-DESC-3 up to n due rows in claim order, each with its key rendered as keyOf() renders it (a NULL column as '')",
      { form },
      async () => {
        const t = await b().table(form, { columns: ['tenant'], key: `k-{tenant}:{id}` });
        const [r1, r2, r3] = await b().insert(t, [
          msg(1, { columns: { tenant: 'a' } }),
          msg(2),
          msg(3, { columns: { tenant: 'b' } }),
        ]);
        const all = await b().use((conn) => t.ops.advisory.candidates(conn, 10, b().now, noOwn));
        expect(all.map((x) => [String(x.id), x.key])).toEqual([
          [String(r1), `k-a:${r1}`],
          [String(r2), `k-:${r2}`],
          [String(r3), `k-b:${r3}`],
        ]);
        const two = await b().use((conn) => t.ops.advisory.candidates(conn, 2, b().now, noOwn));
        expect(idsOf(two.map((x) => x.id))).toEqual(idsOf([r1, r2]));
      },
    );

    check(
      c,
      'advisory.candidates R-ADV-1 R-ADV-10 leaves out every row whose key is in own',
      { form },
      async () => {
        const t = await b().table(form, { columns: ['tenant'], key: 'k-{tenant}' });
        const [a1, a2, b1, c1] = await b().insert(t, [
          msg(1, { columns: { tenant: 'a' } }),
          msg(2, { columns: { tenant: 'a' } }),
          msg(3, { columns: { tenant: 'b' } }),
          msg(4, { columns: { tenant: 'c' } }),
        ]);
        const all = await b().use((conn) => t.ops.advisory.candidates(conn, 10, b().now, noOwn));
        expect(all.map((x) => [String(x.id), x.key])).toEqual([
          [String(a1), 'k-a'],
          [String(a2), 'k-a'],
          [String(b1), 'k-b'],
          [String(c1), 'k-c'],
        ]);
        const rest = await b().use((conn) =>
          t.ops.advisory.candidates(conn, 10, b().now, new Set(['k-a', 'k-c'])),
        );
        expect(rest.map((x) => [String(x.id), x.key])).toEqual([[String(b1), 'k-b']]);
      },
    );

    check(
      c,
      'advisory.candidates R-ADV-1 R-DLQ-2 R-OUT-1 offers only due rows: retry_after reached, unsettled, out of the dead-letter group, not excluded',
      { form },
      async () => {
        const { ops, due } = await dueRows(b(), form);
        const found = await b().use((conn) => ops.advisory.candidates(conn, 10, b().now, noOwn));
        expect(idsOf(found.map((x) => x.id))).toEqual(idsOf(due));
      },
    );

    check(
      c,
      `advisory.candidates R-OUT-1 passes over ${MANY_SKIPPED} skipped ids in one statement, within the database's parameter limit`,
      { form },
      async () => {
        const { ops, kept } = await manySkipped(b(), form);
        const found = await b().use((conn) => ops.advisory.candidates(conn, 10, b().now, noOwn));
        expect(idsOf(found.map((x) => x.id))).toEqual(idsOf([kept]));
      },
    );

    check(c, 'advisory.candidates R-DESC-5 with now null reads the database clock', { form }, async () => {
      const { t, past } = await clockRows(b(), form);
      const found = await b().use((conn) => t.ops.advisory.candidates(conn, 10, null, noOwn));
      expect(idsOf(found.map((x) => x.id))).toEqual(idsOf([past]));
    });

    check(c, 'advisory.candidates R-FIFO-1 offers group heads only', { form }, async () => {
      const { t, heads } = await fifoRows(b(), form);
      const found = await b().use((conn) => t.ops.advisory.candidates(conn, 10, b().now, noOwn));
      expect(idsOf(found.map((x) => x.id))).toEqual(idsOf(heads));
    });

    check(c, 'advisory.candidates R-FLOW-1 the highest priority first, then by id', { form }, async () => {
      const { t, order } = await priorityRows(b(), form);
      const found = await b().use((conn) => t.ops.advisory.candidates(conn, 10, b().now, noOwn));
      expect(idsOf(found.map((x) => x.id))).toEqual(idsOf(order));
    });
  });

  describe('advisory.lock', () => {
    check(
      c,
      'advisory.lock R-ADV-1 takes a free key at once and refuses, without waiting, a key another session holds',
      { form },
      async () => {
        const t = await b().table(form);
        const a = t.ops.advisory;
        const lock = (conn: Connection, k: string) => a.lock(conn, k);
        const unlock = (conn: Connection, k: string) => a.unlock(conn, k);
        const key = `${t.name}-lock`;
        const one = await b().conn();
        const two = await b().conn();
        expect(await lock(one, key)).toBe(true);
        expect(await lock(two, key)).toBe(false);
        expect(await lock(two, `${key}-other`)).toBe(true);
        expect(await unlock(one, key)).toBe(true);
        expect(await lock(two, key)).toBe(true);
        expect(await unlock(two, key)).toBe(true);
        expect(await unlock(two, `${key}-other`)).toBe(true);
        b().release(one);
        b().release(two);
      },
    );

    check(
      c,
      "advisory.lock R-ADV-4 a key belongs to the database, not to its table: one key through two tables' statements is one lock",
      { form },
      async () => {
        const x = await b().table(form);
        const y = await b().table(form);
        const key = `${x.name}-shared`;
        const one = await b().conn();
        const two = await b().conn();
        expect(await x.ops.advisory.lock(one, key)).toBe(true);
        expect(await y.ops.advisory.lock(two, key)).toBe(false);
        expect(await x.ops.advisory.unlock(one, key)).toBe(true);
        expect(await y.ops.advisory.lock(two, key)).toBe(true);
        expect(await y.ops.advisory.unlock(two, key)).toBe(true);
        b().release(one);
        b().release(two);
      },
    );

    check(
      c,
      "advisory.lock R-ADV-6 R-ADV-7 a session's keys come free when its connection is destroyed",
      { form },
      async () => {
        const t = await b().table(form);
        const key = `${t.name}-session`;
        const one = await b().conn();
        const two = await b().conn();
        expect(await t.ops.advisory.lock(one, key)).toBe(true);
        expect(await t.ops.advisory.lock(two, key)).toBe(false);
        await b().destroy(one);
        // The server ends the session a moment after the client closes it.
        await until(() => t.ops.advisory.lock(two, key), 'the key free after its session ended', 5_000);
        expect(await t.ops.advisory.unlock(two, key)).toBe(true);
        b().release(two);
      },
    );
  });

  describe('advisory.unlock', () => {
    check(
      c,
      'advisory.unlock R-ADV-5 R-ADV-10 answers true where this session held the key, and false, without throwing, where it did not or another session does',
      { form },
      async () => {
        const t = await b().table(form);
        const a = t.ops.advisory;
        const lock = (conn: Connection, k: string) => a.lock(conn, k);
        const unlock = (conn: Connection, k: string) => a.unlock(conn, k);
        const key = `${t.name}-unlock`;
        const one = await b().conn();
        const two = await b().conn();
        expect(await unlock(one, key)).toBe(false);
        expect(await lock(one, key)).toBe(true);
        expect(await unlock(two, key)).toBe(false);
        expect(await lock(two, key)).toBe(false); // still the first session's
        expect(await unlock(one, key)).toBe(true);
        expect(await unlock(one, key)).toBe(false);
        b().release(one);
        b().release(two);
      },
    );
  });

  describe('advisory.take', () => {
    check(
      c,
      'advisory.take R-ADV-1 R-ADV-2 R-ATT-1 counts the attempt of a due row and answers the row after the count, committed at once; after a settle it answers null',
      { form },
      async () => {
        const t = await b().table(form);
        const [r1] = await b().insert(t, [msg(1)]);
        const row = await b().use((conn) => t.ops.advisory.take(conn, r1, b().now));
        expect(view(row ?? undefined)).toMatchObject({ id: String(r1), attempt: 1, payload: { n: 1 } });
        expect(view(await b().row(t.name, r1))?.attempt).toBe(1); // read on another connection
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: r1, now: b().now }));
        expect(await b().use((conn) => t.ops.advisory.take(conn, r1, b().now))).toBeNull();
      },
    );

    check(
      c,
      'advisory.take R-ADV-1 R-DLQ-2 R-OUT-1 answers null for a row not due: retry_after ahead, settled, dead-lettered, excluded',
      { form },
      async () => {
        const { t, ops, due, notDue } = await dueRows(b(), form);
        for (const [why, id] of Object.entries(notDue)) {
          expect(await b().use((conn) => ops.advisory.take(conn, id, b().now)), why).toBeNull();
        }
        const taken = await b().use((conn) => ops.advisory.take(conn, due[0], b().now));
        expect(view(taken ?? undefined)?.id).toBe(String(due[0]));
        // Nothing passed over was counted.
        for (const id of Object.values(notDue)) expect(view(await b().row(t.name, id))?.attempt).toBe(0);
      },
    );

    check(
      c,
      'advisory.take R-OPS-7 R-FIFO-1 re-checks the FIFO head: null for a row behind its head, the row once the head is settled',
      { form },
      async () => {
        const { t, a1, a2 } = await fifoRows(b(), form);
        expect(await b().use((conn) => t.ops.advisory.take(conn, a2, b().now))).toBeNull();
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: a1, now: b().now }));
        const row = await b().use((conn) => t.ops.advisory.take(conn, a2, b().now));
        expect(view(row ?? undefined)).toMatchObject({ id: String(a2), attempt: 1 });
      },
    );

    check(c, 'advisory.take R-DESC-5 with now null reads the database clock', { form }, async () => {
      const { t, past, future } = await clockRows(b(), form);
      expect(await b().use((conn) => t.ops.advisory.take(conn, future, null))).toBeNull();
      const row = await b().use((conn) => t.ops.advisory.take(conn, past, null));
      expect(view(row ?? undefined)?.id).toBe(String(past));
    });

    check(
      c,
      'advisory.take R-ADV-1 on a table without an attempt column answers the due row as it stands',
      { form },
      async () => {
        const t = await b().table(form, { attempt: 'none' });
        const [r1] = await b().insert(t, [msg(1)]);
        const row = await b().use((conn) => t.ops.advisory.take(conn, r1, b().now));
        expect(view(row ?? undefined)).toMatchObject({ id: String(r1), payload: { n: 1 } });
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: r1, now: b().now }));
        expect(await b().use((conn) => t.ops.advisory.take(conn, r1, b().now))).toBeNull();
      },
    );
  });
}
