import type { Form, Settlement } from '@sqlinbox/core';
import { describe, expect } from 'vitest';
import { type Bench, type ContractContext, check, DEAD, idsOf, msg, type OpsTable, view } from './bench.js';

/**
 * Rows ready to settle the way each form holds them: in the lease form claimed (attempt 1, the
 * lease `token`); in the others as inserted (attempt 0, no token).
 */
async function held(b: Bench, t: OpsTable, form: Form, n: number) {
  const ids = await b.insert(
    t,
    Array.from({ length: n }, (_, i) => msg(i + 1)),
  );
  const token = form === 'lease' ? b.at(30_000) : undefined;
  if (token !== undefined) {
    const claimed = await b.use((conn) => t.ops.claimLease(conn, n, b.now, token));
    if (claimed.length !== n) throw new Error(`claimLease took ${claimed.length} rows of ${n}`);
  }
  return { ids, token, attempt: form === 'lease' ? 1 : 0, lease: token?.getTime() ?? undefined };
}

/** The settlement's token field as the engine writes it: absent where there is no token. */
const tok = (token: Date | undefined): { token?: Date } => (token === undefined ? {} : { token });

/** A token that is not the row's: a millisecond before the real one. */
const wrong = (token: Date) => new Date(token.getTime() - 1);

/** `settle` in every form (tokens in the lease form), and `settleMany` where the dialect has it. */
export function settleContract(c: ContractContext): void {
  const b = c.b;
  const settle = (t: OpsTable, s: Settlement) => b().use((conn) => t.ops.settle(conn, s));

  describe('settle', () => {
    for (const form of ['rowlock', 'lease', 'advisory'] as const) {
      const tokens = form === 'lease' ? ' R-LEASE-3 with the token; a wrong token changes nothing' : '';

      check(
        c,
        `settle R-SET-1 R-SET-2${tokens}: finish deletes the row and answers 1, then 0 once it is gone; without a token, whatever the lease holds (${form} form)`,
        { form },
        async () => {
          const t = await b().table(form);
          const { ids, token, lease } = await held(b(), t, form, 3);
          const [r1, r2, r3] = ids;
          if (token !== undefined) {
            expect(await settle(t, { kind: 'finish', id: r2, token: wrong(token), now: b().now })).toBe(0);
            expect(view(await b().row(t.name, r2))?.locked_until).toBe(lease);
          }
          expect(await settle(t, { kind: 'finish', id: r1, ...tok(token), now: b().now })).toBe(1);
          expect(await b().row(t.name, r1)).toBeUndefined();
          expect(await settle(t, { kind: 'finish', id: r1, ...tok(token), now: b().now })).toBe(0);
          // Without a token the row is settled whatever its lease holds.
          expect(await settle(t, { kind: 'finish', id: r3, now: b().now })).toBe(1);
          expect(idsOf((await b().rows(t.name)).map((r) => r.id))).toEqual(idsOf([r2]));
        },
      );

      check(
        c,
        `settle R-SET-1${tokens}: finish stamps processed_at with now instead where the table has it, clearing the lease (${form} form)`,
        { form },
        async () => {
          const t = await b().table(form, { processedAt: true });
          const { ids, token, lease } = await held(b(), t, form, 2);
          const [r1, r2] = ids;
          const now = b().at(1_000);
          expect(await settle(t, { kind: 'finish', id: r1, ...tok(token), now })).toBe(1);
          const stamped = view(await b().row(t.name, r1));
          expect(stamped?.processed_at).toBe(now.getTime());
          if (token !== undefined) {
            expect(stamped?.locked_until).toBeNull();
            expect(await settle(t, { kind: 'finish', id: r2, token: wrong(token), now })).toBe(0);
            expect(view(await b().row(t.name, r2))).toMatchObject({
              processed_at: null,
              locked_until: lease,
            });
          }
        },
      );

      check(
        c,
        `settle R-SET-1 R-ATT-1${tokens}: return counts the attempt only when asked, sets retry_after when given, clears the lease only when asked (${form} form)`,
        { form },
        async () => {
          const t = await b().table(form, { retryAfter: true });
          const { ids, token, attempt, lease } = await held(b(), t, form, 4);
          const [r1, r2, r3, r4] = ids;
          const later = b().at(60_000);
          const ret = (id: unknown, o: { countAttempt: boolean; clearLease: boolean; retryAfter?: Date }) =>
            settle(t, { kind: 'return', id, ...tok(token), now: b().now, ...o });
          expect(await ret(r1, { countAttempt: true, retryAfter: later, clearLease: true })).toBe(1);
          expect(await ret(r2, { countAttempt: false, clearLease: true })).toBe(1);
          expect(await ret(r3, { countAttempt: true, clearLease: false })).toBe(1);
          const cleared = token === undefined ? undefined : null;
          expect(view(await b().row(t.name, r1))).toMatchObject({
            attempt: attempt + 1,
            retry_after: later.getTime(),
            ...(token === undefined ? {} : { locked_until: cleared }),
          });
          expect(view(await b().row(t.name, r2))).toMatchObject({
            attempt,
            retry_after: null,
            ...(token === undefined ? {} : { locked_until: cleared }),
          });
          expect(view(await b().row(t.name, r3))).toMatchObject({
            attempt: attempt + 1,
            retry_after: null,
            ...(token === undefined ? {} : { locked_until: lease }),
          });
          if (token !== undefined) {
            const lost = await settle(t, {
              kind: 'return',
              id: r4,
              token: wrong(token),
              now: b().now,
              countAttempt: true,
              retryAfter: later,
              clearLease: true,
            });
            expect(lost).toBe(0);
          } else {
            await settle(t, { kind: 'finish', id: r4, now: b().now });
            expect(await ret(r4, { countAttempt: true, retryAfter: later, clearLease: true })).toBe(0);
          }
          if (token !== undefined)
            expect(view(await b().row(t.name, r4))).toMatchObject({
              attempt,
              retry_after: null,
              locked_until: lease,
            });
        },
      );

      check(
        c,
        `settle R-DLQ-1 R-DLQ-2${tokens}: deadLetter to a group is one update of the row's group, clearing the lease (${form} form)`,
        { form },
        async () => {
          const t = await b().table(form, { group: true });
          const { ids, token, lease } = await held(b(), t, form, 2);
          const [r1, r2] = ids;
          const dead = (id: unknown, token: Date | undefined) =>
            settle(t, {
              kind: 'deadLetter',
              id,
              ...tok(token),
              now: b().now,
              target: { group: DEAD },
              inTransaction: false,
            });
          expect(await dead(r1, token)).toBe(1);
          expect(view(await b().row(t.name, r1))).toMatchObject({
            grp: DEAD,
            ...(token === undefined ? {} : { locked_until: null }),
          });
          if (token !== undefined) {
            expect(await dead(r2, wrong(token))).toBe(0);
            expect(view(await b().row(t.name, r2))).toMatchObject({ grp: null, locked_until: lease });
          } else {
            await settle(t, { kind: 'finish', id: r2, now: b().now });
            expect(await dead(r2, undefined)).toBe(0);
          }
        },
      );

      check(
        c,
        `settle R-DLQ-1 R-DLQ-2${tokens}: deadLetter to a table moves the row with its columns, in a transaction of its own or the caller's (${form} form)`,
        { form },
        async () => {
          const t = await b().table(form, { deadLetterTable: true });
          const dlq = t.dlq!;
          const { ids, token, attempt } = await held(b(), t, form, 3);
          const [r1, r2, r3] = ids;
          const dead = (id: unknown, token: Date | undefined, inTransaction: boolean): Settlement => ({
            kind: 'deadLetter',
            id,
            ...tok(token),
            now: b().now,
            target: { table: dlq },
            inTransaction,
          });
          expect(await settle(t, dead(r1, token, false))).toBe(1);
          const moved = await b().use(async (conn) => {
            await b().dialect.begin(conn, {});
            const n = await t.ops.settle(conn, dead(r2, token, true));
            await b().dialect.commit(conn);
            return n;
          });
          expect(moved).toBe(1);
          if (token !== undefined) {
            expect(await settle(t, dead(r3, wrong(token), false))).toBe(0);
          } else {
            await settle(t, { kind: 'finish', id: r3, now: b().now });
            expect(await settle(t, dead(r3, undefined, false))).toBe(0);
          }
          expect(idsOf((await b().rows(t.name)).map((r) => r.id))).toEqual(
            token === undefined ? [] : idsOf([r3]),
          );
          const inDlq = (await b().rows(dlq)).map(view);
          expect(inDlq.map((r) => [r?.id, r?.payload, r?.attempt])).toEqual([
            [String(r1), { n: 1 }, attempt],
            [String(r2), { n: 2 }, attempt],
          ]);
        },
      );
    }
  });

  describe('settleMany', () => {
    const form = 'lease';
    check(
      c,
      'settleMany R-LEASE-3 R-SET-1 finishes every row still holding its token in one call and answers those ids; a lost token leaves its row',
      { form, method: 'settleMany' },
      async () => {
        const t = await b().table(form);
        const { ids, token } = await held(b(), t, form, 3);
        const [r1, r2, r3] = ids;
        const now = b().now;
        const done = await b().use((conn) =>
          t.ops.batch!.settleMany(conn, [
            { kind: 'finish', id: r1, token: token!, now },
            { kind: 'finish', id: r2, token: wrong(token!), now },
            { kind: 'finish', id: r3, token: token!, now },
          ]),
        );
        expect(idsOf(done).sort()).toEqual(idsOf([r1, r3]).sort());
        expect(idsOf((await b().rows(t.name)).map((r) => r.id))).toEqual(idsOf([r2]));
        expect(await b().use((conn) => t.ops.batch!.settleMany(conn, []))).toEqual([]);
        // One settlement alone answers the same way (a dialect may settle it in a statement of its own).
        const one = (tk: Date) =>
          b().use((conn) => t.ops.batch!.settleMany(conn, [{ kind: 'finish', id: r2, token: tk, now }]));
        expect(await one(wrong(token!))).toEqual([]);
        expect(idsOf((await b().rows(t.name)).map((r) => r.id))).toEqual(idsOf([r2]));
        expect(idsOf(await one(token!))).toEqual(idsOf([r2]));
        expect(await b().rows(t.name)).toHaveLength(0);
      },
    );

    check(
      c,
      'settleMany R-SET-1 stamps processed_at with now instead where the table has it, clearing the leases',
      { form, method: 'settleMany' },
      async () => {
        const t = await b().table(form, { processedAt: true });
        const { ids, token } = await held(b(), t, form, 2);
        const now = b().at(1_000);
        const done = await b().use((conn) =>
          t.ops.batch!.settleMany(
            conn,
            ids.map((id) => ({ kind: 'finish', id, token: token!, now }) as const),
          ),
        );
        expect(idsOf(done).sort()).toEqual(idsOf(ids).sort());
        for (const row of await b().rows(t.name))
          expect(view(row)).toMatchObject({ processed_at: now.getTime(), locked_until: null });
      },
    );
  });
}
