import { type Capabilities, ConfigError, type Form, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, payloadOf, until } from '../harness.js';

/** Dead letter at maxAttempts, group and table variants. */
export function deadLetterScenarios(h: () => Harness, form: Form, _caps: Capabilities): void {
  test(`R-DLQ-1 R-DLQ-2 at maxAttempts a retry moves the row to the dead-letter table, with a warning (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    const attempts: number[] = [];
    b.subscribe(queue(desc).maxAttempts(3).deadLetter({ table: dlq! }), async (_m, ctx) => {
      attempts.push(ctx.attempt);
      return Outcome.retry();
    });
    await b.start();
    await b.publish(desc, { dead: 'table' });
    await until(async () => (await h().rows(dlq!)).length === 1, 'row in the dead-letter table');
    expect(attempts).toEqual([1, 2, 3]);
    expect(await h().rows(name)).toHaveLength(0);
    const [moved] = await h().rows(dlq!);
    expect(payloadOf(moved!.payload)).toEqual({ dead: 'table' });
    expect(h().logger.has('warn', 'reached the limit of 3')).toBe(true);
  });

  test(`R-BAD-2 a dead-letter table that is not an identifier is refused where the queue is built, by ddl() and by stats (${form})`, async () => {
    const { desc } = await h().create(form);
    const adapter = await h().open();
    const b = await h().broker();
    for (const bad of ['a.', '.', 'a.b.c', 'a\u0000b', '', 'x"; DROP TABLE y; --', 'x`]; DROP TABLE y; --']) {
      const why = JSON.stringify(bad);
      expect(() => queue(desc).deadLetter({ table: bad }), why).toThrow(ConfigError);
      expect(() => adapter.dialect.ddl(desc, { deadLetterTable: bad }), why).toThrow(ConfigError);
      await expect(b.stats(desc, { deadLetter: { table: bad } }), why).rejects.toThrow(ConfigError);
    }
    // The refusal names the queue table and the bad identifier.
    expect(() => queue(desc).deadLetter({ table: 'a.b.c' })).toThrow(
      new RegExp(`${desc.table}: invalid dead-letter table identifier "a\\.b\\.c"`),
    );
  });

  test(`R-DLQ-1 maxAttempts(1) moves a row at its first failure (${form})`, async () => {
    const { desc, dlq } = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    let calls = 0;
    b.subscribe(queue(desc).maxAttempts(1).deadLetter({ table: dlq! }), async () => {
      calls++;
      throw new Error('fails once, and that is the limit');
    });
    await b.start();
    await b.publish(desc, { once: true });
    await until(async () => (await h().rows(dlq!)).length === 1, 'moved at once');
    expect(calls).toBe(1);
  });

  test(`R-DLQ-2 in a table with groups the dead letter is a group: one UPDATE of the row's group (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true });
    const b = await h().broker();
    const seen: unknown[] = [];
    b.subscribe(queue(desc).maxAttempts(2).deadLetter({ group: 'dead' }), async (m) => {
      seen.push(m);
      return Outcome.retryAfter(0);
    });
    await b.start();
    await b.publish(desc, { g: 1 }, { group: 'orders-1' });
    await until(async () => (await h().rows(name))[0]?.grp === 'dead', 'group set to dead');
    expect(seen).toHaveLength(2);
    // A dead-lettered row is not claimed again.
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(2);
    const stats = await b.stats(desc, { deadLetter: { group: 'dead' } });
    expect(stats.dead).toBe(1);
    expect(stats.ready).toBe(0);
  });

  test(`R-SET-4 a payload that cannot be decoded is dead-lettered where a dead letter is configured (${form})`, async () => {
    const { desc, name, dlq } = await h().create(form, { deadLetterTable: true });
    const b = await h().broker();
    let handled = 0;
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: () => ({ issues: [{ message: 'never valid' }] }),
      },
    };
    b.subscribe(queue(desc).schema(schema).maxAttempts(5).deadLetter({ table: dlq! }), async () => {
      handled++;
    });
    await b.start();
    await h().insertPlain(name, '{"bad":true}');
    await until(async () => (await h().rows(dlq!)).length === 1, 'moved to the dead letter');
    expect(handled).toBe(0);
    expect(await h().rows(name)).toHaveLength(0);
  });
}
