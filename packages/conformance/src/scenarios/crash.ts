import { type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { exited, type Harness, ms, skipWithoutChild, tableInput, until } from '../harness.js';

/**
 * Crash recovery per form: a child process claims a row and is killed with SIGKILL mid-handler.
 */
export function crashScenarios(h: () => Harness, form: Form): void {
  const ids =
    form === 'rowlock'
      ? 'R-ROW-3 R-ATT-1 row lock: the row is back at once, attempt unchanged'
      : form === 'lease'
        ? 'R-LEASE-8 R-ATT-1 lease: the row is back after its lease, attempt spent'
        : 'R-ADV-7 R-ADV-2 advisory: the row is back when the session ends, attempt spent';
  test(`${ids}, after a SIGKILLed child process`, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    const { desc, name } = await h().create(form);
    const input: Record<string, unknown> = tableInput(form, name);
    const pub = await h().broker();
    await pub.publish(desc, { crash: form });
    const { child, claimed } = await h().crashChild(input, { lease: '2s' });
    const inHandler = await claimed;
    expect(inHandler.attempt).toBe(1);
    let leaseEnds = 0;
    if (form === 'lease') leaseEnds = ms((await h().rows(name))[0]!.locked_until)!;
    child.kill('SIGKILL');
    await exited(child);
    const killedAt = Date.now();

    const b = await h().broker({ lease: '30s' });
    const got: { attempt: number; at: number }[] = [];
    b.subscribe(queue(desc), async (_m, ctx) => {
      got.push({ attempt: ctx.attempt, at: Date.now() });
    });
    await b.start();
    await until(() => got.length === 1, 'the row delivered again', 15_000);
    const [again] = got;
    if (form === 'rowlock') {
      expect(again!.attempt).toBe(1); // the rollback undid nothing it had counted
      expect(again!.at - killedAt).toBeLessThan(3_000);
    } else if (form === 'lease') {
      expect(again!.attempt).toBe(2);
      expect(again!.at).toBeGreaterThanOrEqual(leaseEnds - 20);
    } else {
      expect(again!.attempt).toBe(2);
      expect(again!.at - killedAt).toBeLessThan(3_000);
    }
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });

  test(`R-FIFO-1 R-FIFO-2 a group's head held by a SIGKILLed child process runs again before the rows behind it (${form})`, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    const { desc, name } = await h().create(form, { group: true });
    const pub = await h().broker();
    for (let n = 0; n < 3; n++) await pub.publish(desc, { n }, { group: 'g' });
    const head = (await h().rows(name)).map((r) => String(r.id)).sort((a, b) => Number(a) - Number(b))[0];
    // Four workers, one group: the child holds the head alone, and is killed in its handler.
    const { child, claimed } = await h().crashChild(tableInput(form, name, { group: 'grp' }), {
      lease: '2s',
      workers: 4,
    });
    expect((await claimed).id).toBe(head);
    child.kill('SIGKILL');
    await exited(child);

    const b = await h().broker({ lease: '30s' });
    const seen: number[] = [];
    b.subscribe(queue(desc).workers(4), async (m) => {
      seen.push((m as { n: number }).n);
    });
    await b.start();
    await until(() => seen.length === 3, "the group's rows delivered", 15_000);
    expect(seen).toEqual([0, 1, 2]);
    await until(async () => (await h().rows(name)).length === 0, 'acked');
  });
}
