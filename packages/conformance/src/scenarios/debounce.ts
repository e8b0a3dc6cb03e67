import { ConfigError, type Form, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, payloadOf, until } from '../harness.js';

/** A row's payload field `f`. */
const field = (row: Record<string, unknown> | undefined, f: string): unknown =>
  (payloadOf(row?.payload) as Record<string, unknown> | undefined)?.[f];

/** Debounce and replace by key: one unsettled row per key, rewritten until it starts. */
export function debounceScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-7 a replacing publish rewrites the unstarted row's payload and delay, and debounce delays it anew (${form})`, async () => {
    const { desc, name } = await h().create(form, { uniqueKey: true, retryAfter: true });
    const b = await h().broker();
    const later = new Date(Date.now() + 3_600_000);
    const first = await b.publish(desc, { n: 1 }, { key: 'k', notBefore: later });
    // Due at once: the delay is the publish's own, none here.
    const second = await b.publish(desc, { n: 2 }, { key: 'k', replace: true });
    expect(String(second)).toBe(String(first));
    let rows = await h().rows(name);
    expect(rows.map((r) => [String(r.id), field(r, 'n'), ms(r.retry_after)])).toEqual([
      [String(first), 2, null],
    ]);
    const before = Date.now();
    const third = await b.publish(desc, { n: 3 }, { key: 'k', debounce: '1h' });
    expect(String(third)).toBe(String(first));
    rows = await h().rows(name);
    expect(rows).toHaveLength(1);
    expect(field(rows[0], 'n')).toBe(3);
    const due = ms(rows[0]?.retry_after) ?? 0;
    expect(due).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1_000);
    // A plain keyed publish still keeps the row as it is.
    expect(String(await b.publish(desc, { n: 4 }, { key: 'k' }))).toBe(String(first));
    expect(field((await h().rows(name))[0], 'n')).toBe(3);
    // Other keys insert as before.
    const other = await b.publish(desc, { n: 5 }, { key: 'other', replace: true });
    expect(String(other)).not.toBe(String(first));
    expect(await h().rows(name)).toHaveLength(2);
  });

  test(`R-LIFE-7 8 publishers racing on one key with replace leave exactly one row, with the last payload (${form})`, async () => {
    const { desc, name } = await h().create(form, { uniqueKey: true, retryAfter: true });
    const brokers = await Promise.all(Array.from({ length: 8 }, () => h().broker({ poolSize: 2 })));
    const ROUNDS = 3;
    // Each publisher's rounds run one after another, so the last write to commit is some
    // publisher's last round: a lost or reordered replace would leave an earlier round.
    const answers = await Promise.all(
      brokers.map(async (b, p) => {
        const ids: string[] = [];
        for (let round = 0; round < ROUNDS; round++)
          ids.push(String(await b.publish(desc, { p, round }, { key: 'race', debounce: '1h' })));
        return ids;
      }),
    );
    const rows = await h().rows(name);
    expect(rows).toHaveLength(1);
    expect(new Set(answers.flat())).toEqual(new Set([String(rows[0]?.id)]));
    expect(field(rows[0], 'round')).toBe(ROUNDS - 1);
    // And the next replace is the payload the row holds.
    await brokers[3]!.publish(desc, { p: 3, round: ROUNDS }, { key: 'race', debounce: '1h' });
    expect(field((await h().rows(name))[0], 'round')).toBe(ROUNDS);
  });

  test(`R-LIFE-7 a started row is never changed: a replacing publish while its handler runs, and after its retry, answers its id and leaves it (${form})`, async () => {
    const { desc, name } = await h().create(form, { uniqueKey: true, processedAt: true });
    const b = await h().broker();
    const id = String(await b.publish(desc, { n: 1 }, { key: 'k' }));
    const seen: unknown[] = [];
    const inHandler = gate();
    const release = gate();
    b.subscribe(queue(desc), async (m) => {
      seen.push((m as { n: number }).n);
      if (seen.length > 1) return Outcome.ack();
      inHandler.open();
      await release.promise;
      return Outcome.retry();
    });
    await b.start();
    await inHandler.promise;
    const c = await h().broker();
    // The row lock form's replacing write waits for the handler's transaction, as any write to
    // the row does: let the handler settle first there.
    const replacing = c.publish(desc, { n: 2 }, { key: 'k', replace: true });
    if (form === 'rowlock') release.open();
    const answer = String(await replacing);
    if (form !== 'rowlock') {
      expect(answer).toBe(id);
      expect(field((await h().rows(name))[0], 'n')).toBe(1);
      release.open();
    }
    await until(() => seen.length >= 2, 'the second delivery');
    const settled = (r: Record<string, unknown> | undefined) =>
      r !== undefined && r.processed_at !== null && r.processed_at !== undefined;
    const original = async () => (await h().rows(name)).find((r) => String(r.id) === id);
    await until(async () => settled(await original()), 'the row settled');
    // Retried, then delivered again with the payload it started with.
    expect(seen.slice(0, 2)).toEqual([1, 1]);
    expect(field(await original(), 'n')).toBe(1);
    if (answer !== id) {
      // Only where the write waited for the row's lock past its retry and its second delivery's
      // ack: the key was free again, and the publish is a new row.
      expect(form).toBe('rowlock');
      await until(() => seen.length === 3, 'the new row delivered');
      expect(seen[2]).toBe(2);
    }
  });

  test(`R-LIFE-7 replace and debounce name what the table lacks (${form})`, async () => {
    const plain = await h().create(form, { uniqueKey: true });
    const noKey = await h().create(form, { retryAfter: true });
    const b = await h().broker();
    const refused = (p: Promise<unknown>) => expect(p).rejects.toBeInstanceOf(ConfigError);
    await refused(b.publish(noKey.desc, { n: 1 }, { key: 'k', replace: true } as never));
    await refused(b.publish(plain.desc, { n: 1 }, { replace: true }));
    await refused(b.publish(plain.desc, { n: 1 }, { key: 'k', debounce: '1s' }));
    await expect(b.publish(plain.desc, { n: 1 }, { key: 'k', debounce: '1s' })).rejects.toMatchObject({
      code: 'CONFIG',
      table: plain.name,
    });
    expect(await h().rows(plain.name)).toEqual([]);
  });
}
