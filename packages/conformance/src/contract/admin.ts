import type { Connection, Form, Row } from '@sqlinbox/core';
import { describe, expect } from 'vitest';
import {
  type Bench,
  type ContractContext,
  check,
  DEAD,
  HOUR,
  idsOf,
  mainForm,
  msg,
  type OpsTable,
  rowIds,
  view,
} from './bench.js';

/**
 * A table of every state the admin API reads, prepared with the dead-letter group: in work (the
 * lease form's only), ready (one of group `g`), delayed, dead, done (stamped), ready again.
 */
async function stateRows(b: Bench, form: Form) {
  const t = await b.table(
    form,
    { retryAfter: true, processedAt: true, group: true },
    { deadLetter: { group: DEAD } },
  );
  const [w] = await b.insert(t, [msg(0)]);
  if (form === 'lease') await b.use((conn) => t.ops.claimLease(conn, 1, b.now, b.at(30_000)));
  const [r, d, x, y, r2] = await b.insert(t, [
    msg(1, { group: 'g' }),
    msg(2, { notBefore: b.at(HOUR) }),
    msg(3, { group: DEAD }),
    msg(4),
    msg(5),
  ]);
  await b.use((conn) => t.ops.settle(conn, { kind: 'finish', id: y, now: b.now }));
  return { t, w, r, d, x, y, r2 };
}

/** Runs `fn` in a transaction the test opens (the admin API's), committed after. */
async function inTransaction<T>(b: Bench, fn: (conn: Connection) => Promise<T>): Promise<T> {
  return b.use(async (conn) => {
    await b.dialect.begin(conn, {});
    try {
      const out = await fn(conn);
      await b.dialect.commit(conn);
      return out;
    } catch (err) {
      await b.dialect.rollback(conn).catch(() => {});
      throw err;
    }
  });
}

/** Makes rows dead the way the engine does: an attempt counted and a retry_after set, then the dead letter. */
async function kill(
  b: Bench,
  t: OpsTable,
  ids: readonly unknown[],
  target: { group: string } | { table: string },
) {
  for (const id of ids) {
    await b.use(async (conn) => {
      await t.ops.settle(conn, {
        kind: 'return',
        id,
        now: b.now,
        countAttempt: true,
        retryAfter: b.at(HOUR),
        clearLease: true,
      });
      const n = await t.ops.settle(conn, {
        kind: 'deadLetter',
        id,
        now: b.now,
        target,
        inTransaction: false,
      });
      if (n !== 1) throw new Error(`settle (deadLetter) answered ${n}, not 1`);
    });
  }
}

/** The admin API's statements, where the dialect has them: `list`, `pick`, `requeue`, `remove`, `reschedule`. */
export function adminContract(c: ContractContext): void {
  const b = c.b;
  const form = mainForm(c);
  const states = (rows: Row[]) => rows.map((row) => [String(row.id), row.sqlinbox_state]);

  describe('list', () => {
    check(
      c,
      `list R-ADM-2 rows of a state in id order, each with sqlinbox_state, paged with after and limit, or by ids (${form} form)`,
      { form, method: 'list' },
      async () => {
        const { t, w, r, d, x, y, r2 } = await stateRows(b(), form);
        const list = t.ops.admin!.list.bind(t.ops.admin);
        const now = b().now;
        const all = await b().use((conn) => list(conn, { state: 'all', limit: 100, now }));
        const inWork = form === 'lease' ? 'inWork' : 'ready';
        expect(states(all)).toEqual(
          [
            [w, inWork],
            [r, 'ready'],
            [d, 'delayed'],
            [x, 'dead'],
            [y, 'done'],
            [r2, 'ready'],
          ].map(([id, s]) => [String(id), s]),
        );
        const of = async (state: 'ready' | 'delayed' | 'dead' | 'done' | 'inWork') =>
          rowIds(await b().use((conn) => list(conn, { state, limit: 100, now })));
        expect(await of('ready')).toEqual(idsOf(form === 'lease' ? [r, r2] : [w, r, r2]));
        expect(await of('delayed')).toEqual(idsOf([d]));
        expect(await of('dead')).toEqual(idsOf([x]));
        expect(await of('done')).toEqual(idsOf([y]));
        expect(await of('inWork')).toEqual(form === 'lease' ? idsOf([w]) : []);
        const page = await b().use((conn) => list(conn, { state: 'all', after: r, limit: 2, now }));
        expect(rowIds(page)).toEqual(idsOf([d, x]));
        const some = await b().use((conn) => list(conn, { state: 'all', ids: [r2, x], limit: 100, now }));
        expect(rowIds(some)).toEqual(idsOf([x, r2]));
      },
    );
  });

  describe('pick', () => {
    check(
      c,
      `pick R-ADM-3 live rows (a running lease left out) or dead ones, by ids and by group, in the caller's transaction (${form} form)`,
      { form, method: 'pick' },
      async () => {
        const { t, w, r, d, x, r2 } = await stateRows(b(), form);
        const now = b().now;
        const picked = await inTransaction(b(), async (conn) => ({
          live: rowIds(await t.ops.admin!.pick(conn, { dead: false, now })),
          dead: rowIds(await t.ops.admin!.pick(conn, { dead: true, now })),
          ids: rowIds(await t.ops.admin!.pick(conn, { dead: false, ids: [r2, x, w], now })),
          group: rowIds(await t.ops.admin!.pick(conn, { dead: false, group: 'g', now })),
        }));
        expect(picked).toEqual({
          live: idsOf(form === 'lease' ? [r, d, r2] : [w, r, d, r2]),
          dead: idsOf([x]),
          ids: idsOf(form === 'lease' ? [r2] : [w, r2]),
          group: idsOf([r]),
        });
      },
    );

    check(
      c,
      `pick R-ADM-3 leaves out rows another transaction holds, without waiting (${form} form)`,
      { form, method: 'pick', rowLocks: true, connections: true },
      async () => {
        const t = await b().table(form);
        const [r1, r2] = await b().insert(t, [msg(1), msg(2)]);
        const d = b().dialect;
        const holder = await b().conn();
        await d.begin(holder, {});
        expect(rowIds(await t.ops.admin!.pick(holder, { dead: false, ids: [r1], now: b().now }))).toEqual(
          idsOf([r1]),
        );
        const other = await inTransaction(b(), (conn) =>
          t.ops.admin!.pick(conn, { dead: false, now: b().now }),
        );
        expect(rowIds(other)).toEqual(idsOf([r2]));
        await d.rollback(holder);
        b().release(holder);
      },
    );
  });

  describe('requeue', () => {
    check(
      c,
      `requeue R-ADM-3 R-DLQ-2 puts picked rows of the dead-letter group back in the group asked, attempt 0, retry_after and lease cleared (${form} form)`,
      { form, method: ['pick', 'requeue'] },
      async () => {
        const t = await b().table(form, { retryAfter: true, group: true }, { deadLetter: { group: DEAD } });
        const [x1, x2, live] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        await kill(b(), t, [x1, x2], { group: DEAD });
        expect(view(await b().row(t.name, x1))).toMatchObject({ grp: DEAD, attempt: 1 });
        const moved = await inTransaction(b(), async (conn) => {
          const dead = rowIds(await t.ops.admin!.pick(conn, { dead: true, now: b().now }));
          expect(dead).toEqual(idsOf([x1, x2]));
          return [
            ...(await t.ops.admin!.requeue(conn, [x1], { toGroup: 'g2' })),
            ...(await t.ops.admin!.requeue(conn, [x2], { toGroup: null })),
          ];
        });
        expect(idsOf(moved)).toEqual(idsOf([x1, x2]));
        const rows = (await b().rows(t.name)).map(view);
        expect(rows.map((row) => [row?.id, row?.grp, row?.attempt, row?.retry_after])).toEqual([
          [String(x1), 'g2', 0, null],
          [String(x2), null, 0, null],
          [String(live), null, 0, null],
        ]);
      },
    );

    check(
      c,
      `requeue R-ADM-2 R-ADM-3 R-DLQ-2 moves picked rows of the dead-letter table back into the queue, reset; list reads them as dead there first (${form} form)`,
      { form, method: ['pick', 'requeue'] },
      async () => {
        const t0 = await b().table(form, { retryAfter: true, deadLetterTable: true });
        const t = { ...t0, ops: b().prepare(t0, { deadLetter: { table: t0.dlq! } }) };
        const [x1, x2, live] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        await kill(b(), t, [x1, x2], { table: t.dlq! });
        if (t.ops.admin !== undefined) {
          const dead = await b().use((conn) =>
            t.ops.admin!.list(conn, { state: 'dead', limit: 100, now: b().now }),
          );
          expect(states(dead)).toEqual([
            [String(x1), 'dead'],
            [String(x2), 'dead'],
          ]);
        }
        const moved = await inTransaction(b(), async (conn) => {
          const dead = rowIds(await t.ops.admin!.pick(conn, { dead: true, now: b().now }));
          expect(dead).toEqual(idsOf([x1, x2]));
          return t.ops.admin!.requeue(
            conn,
            dead.map((id) => [x1, x2].find((v) => String(v) === id)),
            { toGroup: null },
          );
        });
        expect(idsOf(moved).sort()).toEqual(idsOf([x1, x2]).sort());
        expect(await b().rows(t.dlq!)).toEqual([]);
        const rows = (await b().rows(t.name)).map(view);
        expect(rows.map((row) => [row?.id, row?.payload, row?.attempt, row?.retry_after])).toEqual([
          [String(x1), { n: 1 }, 0, null],
          [String(x2), { n: 2 }, 0, null],
          [String(live), { n: 3 }, 0, null],
        ]);
      },
    );
  });

  describe('remove', () => {
    check(
      c,
      `remove R-ADM-3 deletes picked live rows, and dead ones from the dead-letter table (${form} form)`,
      { form, method: ['pick', 'remove'] },
      async () => {
        const t0 = await b().table(form, { deadLetterTable: true });
        const t = { ...t0, ops: b().prepare(t0, { deadLetter: { table: t0.dlq! } }) };
        const [r1, r2, r3] = await b().insert(t, [msg(1), msg(2), msg(3)]);
        await kill(b(), t, [r3], { table: t.dlq! });
        const removed = await inTransaction(b(), async (conn) => {
          const live = await t.ops.admin!.pick(conn, { dead: false, ids: [r1], now: b().now });
          const dead = await t.ops.admin!.pick(conn, { dead: true, now: b().now });
          return {
            live: idsOf(
              await t.ops.admin!.remove(
                conn,
                live.map((row) => row.id),
                { dead: false },
              ),
            ),
            dead: idsOf(
              await t.ops.admin!.remove(
                conn,
                dead.map((row) => row.id),
                { dead: true },
              ),
            ),
          };
        });
        expect(removed).toEqual({ live: idsOf([r1]), dead: idsOf([r3]) });
        expect(rowIds(await b().rows(t.name))).toEqual(idsOf([r2]));
        expect(await b().rows(t.dlq!)).toEqual([]);
      },
    );
  });

  describe('reschedule', () => {
    check(
      c,
      `reschedule R-ADM-3 sets retry_after of picked live rows (${form} form)`,
      { form, method: ['pick', 'reschedule'] },
      async () => {
        const t = await b().table(form, { retryAfter: true });
        const [r1, r2] = await b().insert(t, [msg(1), msg(2)]);
        const at = b().at(HOUR);
        const moved = await inTransaction(b(), async (conn) => {
          const picked = await t.ops.admin!.pick(conn, { dead: false, ids: [r1], now: b().now });
          return t.ops.admin!.reschedule(
            conn,
            picked.map((row) => row.id),
            at,
          );
        });
        expect(idsOf(moved)).toEqual(idsOf([r1]));
        expect((await b().rows(t.name)).map((row) => view(row)?.retry_after)).toEqual([at.getTime(), null]);
        expect(view(await b().row(t.name, r2))?.retry_after).toBeNull();
        expect(await b().use((conn) => t.ops.stats(conn, b().now))).toMatchObject({ ready: 1, delayed: 1 });
      },
    );
  });
}
