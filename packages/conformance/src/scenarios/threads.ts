import { threadId } from 'node:worker_threads';
import { type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { childModuleOf, type Harness, skipWithoutChild, until } from '../harness.js';
import { threadHandlerUrl } from '../thread-url.js';

/**
 * Handlers on worker threads. Each thread opens its own pool through the target's
 * `childModule`, so every target runs this with nothing more to supply; a target without one (a
 * database inside one process) skips it, saying why.
 */
export function threadScenarios(h: () => Harness, form: Form): void {
  test(`R-POOL-9 handlers on threads with their own pools: every row finishes once, outcomes honored, a thread that exits loses no row (${form})`, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    const { desc, name } = await h().create(form);
    const b = await h().broker({ poolSize: 4 });
    const settled: { id: string; outcome: string; plan: string }[] = [];
    b.on('settled', (e) => settled.push({ id: String(e.id), outcome: e.outcome, plan: e.plan }));
    b.subscribe(
      queue(desc)
        .workers(4)
        .onThreads({
          threads: 2,
          connections: 1,
          handler: threadHandlerUrl(),
          data: { childModule: childModuleOf(h().target) },
        }),
    );
    await b.start();
    const finished = () => settled.filter((s) => s.plan === 'finish').length;
    const first = (
      await b.publishMany(desc, [
        { kind: 'retry' },
        { kind: 'drop' },
        ...Array.from({ length: 6 }, () => ({ kind: 'ok' })),
      ])
    ).map(String);
    const [retry, dropped] = first;
    await until(() => finished() === first.length, 'the first rows to finish', 30_000);
    expect(settled.filter((s) => s.id === retry).map((s) => s.plan)).toEqual(['return', 'finish']);
    expect(settled.filter((s) => s.id === dropped)).toEqual([
      { id: dropped, outcome: 'drop', plan: 'finish' },
    ]);

    // Then a row whose handler ends its thread: it and any row in flight there come back. (Ids can
    // repeat once the table is empty, on SQLite: the second batch is counted on its own.)
    for (const id of first) expect(settled.filter((s) => s.id === id && s.plan === 'finish')).toHaveLength(1);
    settled.length = 0;
    const second = (
      await b.publishMany(desc, [{ kind: 'exit' }, ...Array.from({ length: 6 }, () => ({ kind: 'ok' }))])
    ).map(String);
    await until(() => finished() === second.length, 'every row to finish', 30_000);
    await until(async () => (await h().rows(name)).length === 0, 'the queue to drain', 30_000);
    for (const id of second)
      expect(settled.filter((s) => s.id === id && s.plan === 'finish')).toHaveLength(1);
    expect(settled.filter((s) => s.id === second[0]).map((s) => s.plan)[0]).toBe('return');
    expect(h().logger.has('error', 'a handler thread ended')).toBe(true);

    // Every handler ran on a worker thread, through a connection of that thread's own pool.
    const handled = h().logger.entries.filter((e) => e.msg === 'thread handled');
    expect(new Set(handled.map((e) => String(e.fields?.id)))).toEqual(new Set([...first, ...second]));
    for (const e of handled) {
      expect(e.fields?.threadId).not.toBe(threadId);
      expect(typeof e.fields?.connection).toBe('string');
    }
    const closed = await b.shutdown();
    expect(closed.threadConnectionsClosed).toBe(2);
  });
}
