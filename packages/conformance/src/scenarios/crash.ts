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
}
