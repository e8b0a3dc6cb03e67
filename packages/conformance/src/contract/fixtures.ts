import type { Form, TableOps } from '@sqlinbox/core';
import { type Bench, DEAD, HOUR, msg, type OpsTable } from './bench.js';

/**
 * Rows of every kind a claim must pass over, beside two it must take (SPEC's due condition, the
 * same in every claim): `retry_after` in the future; dead-lettered (in the dead-letter group the
 * statements were prepared with); settled (`processed_at` stamped); an id in `exclude`. Due:
 * a plain row and one whose `retry_after` has passed.
 */
export interface DueRows {
  readonly t: OpsTable;
  /** The statements prepared with the dead-letter group and the excluded id. */
  readonly ops: TableOps;
  /** Due, in claim order. */
  readonly due: unknown[];
  /** Not due, by why. */
  readonly notDue: { later: unknown; dead: unknown; done: unknown; excluded: unknown };
}

export async function dueRows(b: Bench, form: Form): Promise<DueRows> {
  const t = await b.table(form, { retryAfter: true, processedAt: true, group: true });
  const [plain, later, earlier, dead, done, excluded] = await b.insert(t, [
    msg(1),
    msg(2, { notBefore: b.at(HOUR) }),
    msg(3, { notBefore: b.at(-HOUR) }),
    msg(4, { group: DEAD }),
    msg(5),
    msg(6),
  ]);
  const changed = await b.use((conn) => t.ops.settle(conn, { kind: 'finish', id: done, now: b.now }));
  if (changed !== 1) throw new Error(`settle (finish) answered ${changed} for the row to stamp, not 1`);
  const ops = b.prepare(t, { deadLetter: { group: DEAD }, exclude: new Set([excluded]) });
  return { t, ops, due: [plain, earlier], notDue: { later, dead, done, excluded } };
}

/** How many ids the skipped-ids tests pass over: past every database's parameter limit of one statement bar one. */
export const MANY_SKIPPED = 5_000;

/**
 * Three rows and statements that skip {@link MANY_SKIPPED} ids: the first two rows' and ids no row
 * has. The claim takes the third row only.
 */
export async function manySkipped(
  b: Bench,
  form: Form,
): Promise<{ t: OpsTable; ops: TableOps; kept: unknown; skipped: unknown[] }> {
  const t = await b.table(form, {});
  const [s1, s2, kept] = await b.insert(t, [msg(1), msg(2), msg(3)]);
  const absent = Array.from({ length: MANY_SKIPPED - 2 }, (_, i) => 900_000_000 + i);
  const ops = b.prepare(t, { exclude: new Set<unknown>([s1, s2, ...absent]) });
  return { t, ops, kept, skipped: [s1, s2] };
}

/**
 * A FIFO table (group column, settled rows stamped): groups `a` (two rows) and `b` (one), and two
 * rows without a group, which stand alone. The heads, in claim order: a1, b1, n1, n2.
 */
export interface FifoRows {
  readonly t: OpsTable;
  readonly a1: unknown;
  readonly a2: unknown;
  readonly b1: unknown;
  readonly heads: unknown[];
}

export async function fifoRows(b: Bench, form: Form): Promise<FifoRows> {
  const t = await b.table(form, { group: true, processedAt: true });
  const [a1, a2, b1, n1, n2] = await b.insert(t, [
    msg(1, { group: 'a' }),
    msg(2, { group: 'a' }),
    msg(3, { group: 'b' }),
    msg(4),
    msg(5),
  ]);
  return { t, a1, a2, b1, heads: [a1, b1, n1, n2] };
}

/** A table with a priority column: rows of priority 0, 5, 1, 5; claim order 2, 4, 3, 1. */
export async function priorityRows(b: Bench, form: Form): Promise<{ t: OpsTable; order: unknown[] }> {
  const t = await b.table(form, { priority: true });
  const [p0, p5, p1, p5b] = await b.insert(t, [
    msg(1, { priority: 0 }),
    msg(2, { priority: 5 }),
    msg(3, { priority: 1 }),
    msg(4, { priority: 5 }),
  ]);
  return { t, order: [p5, p5b, p1, p0] };
}

/** A table whose rows are not due before an hour from now or were due an hour ago, for the database clock. */
export async function clockRows(
  b: Bench,
  form: Form,
): Promise<{ t: OpsTable; past: unknown; future: unknown }> {
  const t = await b.table(form, { retryAfter: true });
  const [future, past] = await b.insert(t, [
    msg(1, { notBefore: b.at(HOUR) }),
    msg(2, { notBefore: b.at(-HOUR) }),
  ]);
  return { t, past, future };
}
