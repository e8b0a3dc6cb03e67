import { describe, expect } from 'vitest';
import { type ContractContext, check, DEAD, HOUR, idsOf, mainForm, msg, view } from './bench.js';

/** `insert` (every optional column) and `stats` (every state, every form). */
export function insertContract(c: ContractContext): void {
  const b = c.b;
  const form = mainForm(c);

  describe('insert', () => {
    check(
      c,
      `insert R-PUB-1 R-DESC-1 answers the ids in message order and stores payload, group, partition key, not-before time and extra columns, attempt 0 (${form} form)`,
      { form },
      async () => {
        const t = await b().table(form, {
          group: true,
          partitionKey: true,
          retryAfter: true,
          columns: ['tenant'],
        });
        const notBefore = b().at(60_000);
        const ids = await b().insert(t, [
          msg(1, { group: 'g1', partitionKey: 'p1', notBefore, columns: { tenant: 't1' } }),
          msg(2),
          msg(3, { group: 'g2' }),
        ]);
        expect(ids).toHaveLength(3);
        expect(new Set(idsOf(ids)).size).toBe(3);
        const rows = (await b().rows(t.name)).map(view);
        expect(rows.map((r) => r?.id)).toEqual(idsOf(ids));
        expect(rows[0]).toMatchObject({
          payload: { n: 1 },
          grp: 'g1',
          pkey: 'p1',
          retry_after: notBefore.getTime(),
          tenant: 't1',
          attempt: 0,
        });
        expect(rows[1]).toMatchObject({
          payload: { n: 2 },
          grp: null,
          pkey: null,
          retry_after: null,
          tenant: null,
          attempt: 0,
        });
        expect(rows[2]).toMatchObject({ payload: { n: 3 }, grp: 'g2' });
        const [one] = await b().insert(t, [msg(4)]);
        expect(view(await b().row(t.name, one))?.payload).toEqual({ n: 4 });
      },
    );

    check(
      c,
      `insert R-FLOW-1 writes the priority; a message without one takes the column's default, 0 (${form} form)`,
      { form },
      async () => {
        const t = await b().table(form, { priority: true });
        const [high] = await b().insert(t, [msg(1, { priority: 5 })]);
        const [plain] = await b().insert(t, [msg(2)]);
        expect(view(await b().row(t.name, high))?.priority).toBe(5);
        expect(view(await b().row(t.name, plain))?.priority).toBe(0);
      },
    );

    check(
      c,
      `insert R-FLOW-1 R-PUB-1 one call of messages with and without a priority: each without one takes the column's default, 0 (${form} form)`,
      { form },
      async () => {
        const t = await b().table(form, { priority: true });
        const [high, plain, low] = await b().insert(t, [
          msg(1, { priority: 5 }),
          msg(2),
          msg(3, { priority: -1 }),
        ]);
        expect((await b().rows(t.name)).map((r) => [String(r.id), view(r)?.priority])).toEqual([
          [String(high), 5],
          [String(plain), 0],
          [String(low), -1],
        ]);
      },
    );

    check(
      c,
      `insert R-FLOW-2 a key an unsettled row (or an earlier message of the call) holds inserts nothing and answers the holder's id; a settled row's key is free again (${form} form)`,
      { form },
      async () => {
        // Settled rows stamped: the key is free once the holder is stamped.
        const t = await b().table(form, { uniqueKey: true, processedAt: true });
        const ids = await b().insert(t, [
          msg(1, { key: 'k1' }),
          msg(2, { key: 'k1' }),
          msg(3, { key: 'k2' }),
          msg(4),
        ]);
        expect(String(ids[1])).toBe(String(ids[0]));
        expect(new Set(idsOf(ids)).size).toBe(3);
        expect((await b().rows(t.name)).map((r) => view(r)?.payload)).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
        expect(idsOf(await b().insert(t, [msg(5, { key: 'k1' })]))).toEqual(idsOf([ids[0]]));
        await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: ids[0], now: b().now }));
        const [again] = await b().insert(t, [msg(6, { key: 'k1' })]);
        expect(String(again)).not.toBe(String(ids[0]));
        expect(view(await b().row(t.name, again))).toMatchObject({ payload: { n: 6 }, job_key: 'k1' });

        // Settled rows deleted: the key is free once the holder is gone.
        const d = await b().table(form, { uniqueKey: true });
        const [first] = await b().insert(d, [msg(1, { key: 'k1' })]);
        expect(idsOf(await b().insert(d, [msg(2, { key: 'k1' })]))).toEqual(idsOf([first]));
        await b().use((conn) => d.ops.settle(conn, { kind: 'finish', id: first, now: b().now }));
        // (A generated id may come round again once its row is gone: SQLite reuses the largest rowid.)
        const [next] = await b().insert(d, [msg(3, { key: 'k1' })]);
        expect((await b().rows(d.name)).map((r) => [String(r.id), view(r)?.payload])).toEqual([
          [String(next), { n: 3 }],
        ]);
      },
    );

    check(
      c,
      `insert R-DESC-1 R-FLOW-2 a given id (not generated) is stored and answered, keyed messages included; a given attempt column is written 0 (${form} form)`,
      { form },
      async () => {
        const t = await b().table(form, { givenId: true, attempt: 'given', uniqueKey: true });
        const ids = await b().insert(t, [
          msg(1, { columns: { id: 101 }, key: 'k' }),
          msg(2, { columns: { id: 7 } }),
          msg(3, { columns: { id: 9 }, key: 'k' }),
        ]);
        expect(idsOf(ids)).toEqual(['101', '7', '101']);
        expect((await b().rows(t.name)).map((r) => [String(r.id), Number(r.attempt)])).toEqual([
          ['7', 0],
          ['101', 0],
        ]);
        expect(idsOf(await b().insert(t, [msg(4, { columns: { id: 12 } })]))).toEqual(['12']);
      },
    );
  });
}

export function statsContract(c: ContractContext): void {
  const b = c.b;

  describe('stats', () => {
    for (const form of ['rowlock', 'lease', 'advisory'] as const) {
      check(
        c,
        `stats R-PLUS-3 R-ADM-1 counts ready, delayed, in work and dead rows; a settled row is in none (${form} form)`,
        { form },
        async () => {
          const t = await b().table(
            form,
            { retryAfter: true, processedAt: true, group: true },
            { deadLetter: { group: DEAD } },
          );
          // The row in work first, so a lease claim of one row takes it.
          await b().insert(t, [msg(0)]);
          if (form === 'lease') await b().use((conn) => t.ops.claimLease(conn, 1, b().now, b().at(30_000)));
          const ids = await b().insert(t, [
            msg(1),
            msg(2, { notBefore: b().at(-HOUR) }),
            msg(3, { notBefore: b().at(HOUR) }),
            msg(4, { notBefore: b().at(2 * HOUR) }),
            msg(5, { group: DEAD }),
            msg(6),
          ]);
          await b().use((conn) => t.ops.settle(conn, { kind: 'finish', id: ids[5], now: b().now }));
          const stats = await b().use((conn) => t.ops.stats(conn, b().now));
          expect(stats).toMatchObject(
            form === 'lease'
              ? { ready: 2, delayed: 2, inWork: 1, dead: 1 }
              : { ready: 3, delayed: 2, inWork: 0, dead: 1 },
          );
        },
      );

      check(
        c,
        `stats R-ADM-1 with inWork: the rows the form holds in work, as far as the database can see them, and the oldest ready row's age (${form} form)`,
        { form, ...(form === 'rowlock' ? { connections: true } : {}) },
        async () => {
          const t = await b().table(form, { retryAfter: true });
          const [w] = await b().insert(t, [msg(0)]);
          await b().insert(t, [
            msg(1),
            msg(2, { notBefore: b().at(-60_000) }),
            msg(3, { notBefore: b().at(HOUR) }),
          ]);
          const holder = await b().conn();
          if (form === 'lease') await t.ops.claimLease(holder, 1, b().now, b().at(30_000));
          if (form === 'rowlock') {
            await b().dialect.begin(holder, {});
            await t.ops.claimLocked(holder, 1, b().now);
          }
          if (form === 'advisory') expect(await t.ops.advisory.lock(holder, `${t.name}-${w}`)).toBe(true);
          const stats = await b().use((conn) => t.ops.stats(conn, b().now, { inWork: true }));
          const seen = { rowlock: 'locks', lease: 'lease', advisory: 'keys' }[form];
          // The advisory form may not see other sessions' keys: then it says 'none' and counts them ready.
          if (form === 'advisory' && stats.inWorkSeen === 'none') {
            expect(stats).toMatchObject({ ready: 3, delayed: 1, inWork: 0, dead: 0 });
          } else {
            expect(stats).toMatchObject({ ready: 2, delayed: 1, inWork: 1, dead: 0, inWorkSeen: seen });
          }
          expect(stats.oldestReadyAgeMs).toBe(60_000);
          if (form === 'rowlock') await b().dialect.rollback(holder);
          if (form === 'advisory') await t.ops.advisory.unlock(holder, `${t.name}-${w}`);
          b().release(holder);
        },
      );
    }

    check(
      c,
      `stats R-DLQ-2 counts the dead-letter table's rows as dead (${mainForm(c)} form)`,
      { form: mainForm(c) },
      async () => {
        const form = mainForm(c);
        const t = await b().table(form, { deadLetterTable: true });
        const ops = b().prepare(t, { deadLetter: { table: t.dlq! } });
        const [r1, r2] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        for (const id of [r1, r2]) {
          const moved = await b().use((conn) =>
            ops.settle(conn, {
              kind: 'deadLetter',
              id,
              now: b().now,
              target: { table: t.dlq! },
              inTransaction: false,
            }),
          );
          expect(moved).toBe(1);
        }
        expect(await b().use((conn) => ops.stats(conn, b().now))).toMatchObject({ ready: 1, dead: 2 });
      },
    );
  });
}
