/**
 * R-HOUSE-5 Each claim form's transitions, as pure logic: the statements answer what a script
 * says (see scripted.ts), and the tests read the states a row moves through. What the database
 * does with those statements stays proven by the conformance suite.
 */
import { describe, expect, test } from 'vitest';
import { TRANSITIONS as ADVISORY, AdvisoryForm } from '../src/forms/advisory.js';
import { type Held, type HeldState, moveHeld } from '../src/forms/form.js';
import { TRANSITIONS as LEASE, LeaseForm } from '../src/forms/lease.js';
import { TRANSITIONS as ROW_LOCK, RowLockForm } from '../src/forms/row-lock.js';
import { TRANSITIONS as ROW_LOCK_BATCH, RowLockBatchForm } from '../src/forms/row-lock-batch.js';
import { ClosedError, inbox, LeaseLostError, SettlementError } from '../src/index.js';
import type { Plan } from '../src/outcome.js';
import { formContext, row, scripted } from './scripted.js';

const ACK: Plan = { kind: 'finish', outcome: 'ack' };
const RETRY: Plan = { kind: 'return', outcome: 'retry', retryAfter: undefined };

const rowLockTable = inbox({ table: 'jobs', id: 'id', payload: 'payload', attempt: 'attempt' });
const leaseTable = inbox({
  table: 'jobs',
  id: 'id',
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
});
const advisoryTable = inbox({
  table: 'jobs',
  id: 'id',
  payload: 'payload',
  attempt: 'attempt',
  advisory: 'jobs-{id}',
});

/** A claim as the pump makes it: it first takes the claim's room in the budget. */
function claim(
  form: { claim(n: number): Promise<Held[]> },
  ctx: { budget: { tryTakeForClaim(): boolean; claimDone(): void } },
  n: number,
) {
  expect(ctx.budget.tryTakeForClaim()).toBe(true);
  return form.claim(n).finally(() => ctx.budget.claimDone());
}

describe('R-HOUSE-5 the transitions of a held row', () => {
  test("R-HOUSE-5 moveHeld moves a row only along its form's transitions; any other move throws", () => {
    const h = { id: 7, state: 'in_work' } as Held;
    moveHeld(ROW_LOCK, 'jobs', h, 'settling');
    expect(h.state).toBe('settling');
    moveHeld(ROW_LOCK, 'jobs', h, 'settled');
    expect(() => moveHeld(ROW_LOCK, 'jobs', h, 'in_work')).toThrow(/cannot move from settled to in_work/);
    expect(() => moveHeld(ROW_LOCK, 'jobs', { id: 8, state: 'in_work' } as Held, 'lost')).toThrow(/row 8/);
    expect(h.state).toBe('settled');
  });

  test('R-HOUSE-5 only the lease form loses a row; settled, released and lost are final in every form', () => {
    const finals: HeldState[] = ['settled', 'released', 'lost'];
    for (const t of [ROW_LOCK, ROW_LOCK_BATCH, ADVISORY, LEASE]) {
      for (const s of finals) expect(t[s]).toBeUndefined();
      expect(t.in_work).toContain('settling');
      expect(t.in_work).toContain('released');
    }
    expect(LEASE.in_work).toContain('lost');
    expect(LEASE.settling).toContain('lost');
    for (const t of [ROW_LOCK, ROW_LOCK_BATCH, ADVISORY])
      expect([...t.in_work!, ...t.settling!]).not.toContain('lost');
  });
});

describe('R-HOUSE-5 row lock form', () => {
  test('R-HOUSE-5 claimed in_work with its connection; settling then settled by statement and COMMIT', async () => {
    const s = scripted({ claimLocked: [[row(1)]] });
    const ctx = formContext(rowLockTable, s);
    const form = new RowLockForm(ctx);
    const [h] = await claim(form, ctx, 4);
    expect(h!.state).toBe('in_work');
    expect(h!.conn).toBeDefined();
    expect(ctx.budget.held).toBe(1);
    await form.settle(h!, ACK);
    expect(h!.state).toBe('settled');
    expect(s.calls).toEqual(['begin@c1', 'claimLocked@c1', 'settle@c1', 'commit@c1']);
    expect(h!.conn).toBeUndefined();
    expect(ctx.budget.held).toBe(0);
    expect(s.pool.out).toBe(0);
    // A settled row settles no more.
    await expect(form.settle(h!, ACK)).rejects.toBeInstanceOf(ClosedError);
  });

  test('R-HOUSE-5 an empty claim rolls back and holds nothing', async () => {
    const s = scripted();
    const ctx = formContext(rowLockTable, s);
    expect(await claim(new RowLockForm(ctx), ctx, 1)).toEqual([]);
    expect(s.calls).toEqual(['begin@c1', 'claimLocked@c1', 'rollback@c1']);
    expect(ctx.budget.held).toBe(0);
  });

  test('R-HOUSE-5 a failing statement: settling then released, the error a SettlementError', async () => {
    const s = scripted({ claimLocked: [[row(1)]], settle: [new Error('boom')] });
    const ctx = formContext(rowLockTable, s);
    const form = new RowLockForm(ctx);
    const [h] = await claim(form, ctx, 1);
    await expect(form.settle(h!, RETRY)).rejects.toBeInstanceOf(SettlementError);
    expect(h!.state).toBe('released');
    expect(s.calls.at(-1)).toBe('rollback@c1');
  });

  test('R-HOUSE-5 dropped: in_work to released by a rollback; a second drop changes nothing', async () => {
    const s = scripted({ claimLocked: [[row(1)]] });
    const ctx = formContext(rowLockTable, s);
    const form = new RowLockForm(ctx);
    const [h] = await claim(form, ctx, 1);
    await form.drop(h!);
    expect(h!.state).toBe('released');
    await form.drop(h!);
    expect(s.calls).toEqual(['begin@c1', 'claimLocked@c1', 'rollback@c1']);
    expect(await form.closeHeld(h!)).toBe('kept');
  });
});

describe('R-HOUSE-5 row lock batch form', () => {
  test('R-HOUSE-5 each row settles behind a savepoint; the batch commits once no row is in work', async () => {
    const s = scripted({ claimLocked: [[row(1), row(2), row(3)]], settle: [1, new Error('refused')] });
    const ctx = formContext(rowLockTable, s);
    const form = new RowLockBatchForm(ctx);
    const [a, b, c] = await claim(form, ctx, 3);
    expect([a, b, c].map((h) => h!.state)).toEqual(['in_work', 'in_work', 'in_work']);
    await form.settle(a!, ACK);
    expect(a!.state).toBe('settled');
    await expect(form.settle(b!, ACK)).rejects.toBeInstanceOf(SettlementError);
    expect(b!.state).toBe('released');
    expect(s.calls).not.toContain('commit@c1');
    await form.drop(c!);
    expect(c!.state).toBe('released');
    expect(s.calls).toEqual([
      'begin@c1',
      'claimLocked@c1',
      'savepoint@c1',
      'settle@c1',
      'savepoint@c1',
      'settle@c1',
      'rollbackToSavepoint@c1',
      'commit@c1',
    ]);
    expect(ctx.budget.held).toBe(0);
  });
});

describe('R-HOUSE-5 lease form', () => {
  test('R-HOUSE-5 claimed in_work with its token and no connection; an ack that still holds the token settles', async () => {
    const s = scripted({ claimLease: [[row(1, { attempt: 1 })]], settle: [1] });
    const ctx = formContext(leaseTable, s);
    const form = new LeaseForm(
      ctx,
      () => {},
      () => {},
    );
    const [h] = await claim(form, ctx, 1);
    expect(h!.state).toBe('in_work');
    expect(h!.conn).toBeUndefined();
    expect(h!.token).toBeInstanceOf(Date);
    expect(h!.attempt).toBe(1); // the claim counted it: the row reads 1 on its first delivery
    expect(form.booked).toBe(1);
    await form.settle(h!, ACK);
    expect(h!.state).toBe('settled');
    expect(form.booked).toBe(0);
    expect(s.settlements[0]).toMatchObject({ kind: 'finish', id: 1, token: h!.token });
    await form.stop();
  });

  test('R-HOUSE-5 a settlement that changes no row: settling then lost, a LeaseLostError', async () => {
    const s = scripted({ claimLease: [[row(1)]], settle: [0] });
    const ctx = formContext(leaseTable, s);
    const form = new LeaseForm(
      ctx,
      () => {},
      () => {},
    );
    const [h] = await claim(form, ctx, 1);
    await expect(form.settle(h!, RETRY)).rejects.toBeInstanceOf(LeaseLostError);
    expect(h!.state).toBe('lost');
    await form.stop();
  });

  test('R-HOUSE-5 a failing statement: settling then released (the lease runs out), a SettlementError', async () => {
    const s = scripted({ claimLease: [[row(1)]], settle: [new Error('gone')] });
    const ctx = formContext(leaseTable, s);
    const form = new LeaseForm(
      ctx,
      () => {},
      () => {},
    );
    const [h] = await claim(form, ctx, 1);
    await expect(form.settle(h!, RETRY)).rejects.toBeInstanceOf(SettlementError);
    expect(h!.state).toBe('released');
    await form.stop();
  });

  test('R-HOUSE-5 batched acks: each row in the batch moves settling to settled, or lost where its token is gone', async () => {
    const s = scripted({ claimLease: [[row(1), row(2)]], settleMany: [[1]] }, { batch: true });
    const ctx = formContext(leaseTable, s);
    const form = new LeaseForm(
      ctx,
      () => {},
      () => {},
    );
    const [a, b] = await claim(form, ctx, 2);
    const ends = new Map<unknown, Error | undefined>();
    const done = new Promise<void>((resolve) => {
      const waiter = (id: unknown) => ({
        batchSettled: (err: Error | undefined) => {
          ends.set(id, err);
          if (ends.size === 2) resolve();
        },
      });
      expect(form.settleBatched!(a!, ACK, waiter(1))).toBe(true);
      expect(form.settleBatched!(b!, ACK, waiter(2))).toBe(true);
    });
    expect([a!.state, b!.state]).toEqual(['settling', 'settling']);
    await done;
    expect(a!.state).toBe('settled');
    expect(b!.state).toBe('lost');
    expect(ends.get(1)).toBeUndefined();
    expect(ends.get(2)).toBeInstanceOf(LeaseLostError);
    expect(s.calls.filter((c) => c.startsWith('settleMany'))).toHaveLength(1);
    // A retry is never batched.
    s.answer('claimLease', [row(3)]);
    const [c] = await claim(form, ctx, 1);
    expect(form.settleBatched!(c!, RETRY, { batchSettled: () => {} })).toBe(false);
    expect(c!.state).toBe('in_work');
    await form.stop();
  });

  test('R-HOUSE-5 dropped: in_work to released, its lease cleared at once and the attempt taken back where undelivered', async () => {
    const s = scripted({ claimLease: [[row(1)]] });
    const ctx = formContext(leaseTable, s);
    const form = new LeaseForm(
      ctx,
      () => {},
      () => {},
    );
    const [h] = await claim(form, ctx, 1);
    await form.drop(h!, true);
    expect(h!.state).toBe('released');
    expect(s.settlements[0]).toMatchObject({ kind: 'return', id: 1, clearLease: true, uncountAttempt: true });
    expect(await form.closeHeld(h!)).toBe('kept');
    await form.stop();
  });

  test("R-HOUSE-5 an extension that does not move a row's lease: in_work to lost, and the form says so", async () => {
    const s = scripted({ claimLease: [[row(1), row(2)]], extendLeases: [[2]] });
    const ctx = formContext(leaseTable, s, { leaseMs: 40 });
    let lost!: (h: Held) => void;
    let extended!: (n: number) => void;
    const found = new Promise<Held>((resolve) => (lost = resolve));
    const moved = new Promise<number>((resolve) => (extended = resolve));
    const form = new LeaseForm(
      ctx,
      (h) => lost(h),
      (n) => extended(n),
    );
    const [a, b] = await claim(form, ctx, 2);
    // The first extension, half a lease on, moves row 2's lease and not row 1's.
    const h = await found;
    expect(h).toBe(a);
    expect(a!.state).toBe('lost');
    expect(b!.state).toBe('in_work');
    expect(await moved).toBe(1);
    expect(form.booked).toBe(1);
    await form.stop();
  });
});

describe('R-HOUSE-5 advisory form', () => {
  test('R-HOUSE-5 a candidate whose key locks and whose row is taken is in_work on its connection; settled, the lock goes back', async () => {
    const s = scripted({ candidates: [[{ key: 'jobs-1', id: 1 }]], take: [row(1, { attempt: 1 })] });
    const ctx = formContext(advisoryTable, s);
    const form = new AdvisoryForm(ctx);
    const [h] = await claim(form, ctx, 1);
    expect(h!.state).toBe('in_work');
    expect(h!.key).toBe('jobs-1');
    expect(ctx.budget.held).toBe(1);
    await form.settle(h!, ACK);
    expect(h!.state).toBe('settled');
    expect(s.calls).toEqual(['candidates@c1', 'lock@c1', 'take@c1', 'settle@c1', 'unlock@c1']);
    await form.drained();
    expect(ctx.budget.held).toBe(0);
    expect(s.pool.out).toBe(0);
  });

  test('R-HOUSE-5 a key another holder has is passed over: no row', async () => {
    const s = scripted({ candidates: [[{ key: 'jobs-1', id: 1 }]], lock: [false] });
    const ctx = formContext(advisoryTable, s);
    expect(await claim(new AdvisoryForm(ctx), ctx, 1)).toEqual([]);
    expect(ctx.budget.held).toBe(0);
  });

  test('R-HOUSE-5 a failing statement: settling then released, the lock still let go', async () => {
    const s = scripted({
      candidates: [[{ key: 'jobs-1', id: 1 }]],
      take: [row(1)],
      settle: [new Error('no')],
    });
    const ctx = formContext(advisoryTable, s);
    const form = new AdvisoryForm(ctx);
    const [h] = await claim(form, ctx, 1);
    await expect(form.settle(h!, ACK)).rejects.toBeInstanceOf(SettlementError);
    expect(h!.state).toBe('released');
    expect(s.calls.at(-1)).toBe('unlock@c1');
  });

  test('R-HOUSE-5 dropped: in_work to released; drained() waits for the background release', async () => {
    const s = scripted({ candidates: [[{ key: 'jobs-1', id: 1 }]], take: [row(1)] });
    const ctx = formContext(advisoryTable, s);
    const form = new AdvisoryForm(ctx);
    const [h] = await claim(form, ctx, 1);
    await form.drop(h!);
    expect(h!.state).toBe('released');
    await form.drained();
    expect(s.calls.at(-1)).toBe('unlock@c1');
    expect(ctx.budget.held).toBe(0);
  });
});
