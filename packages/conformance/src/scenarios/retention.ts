import { type EventMap, type Form, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, payloadOf, until } from '../harness.js';

type Msg = { kind: 'ok' | 'bad' | 'hold'; n: number };

/** Forty days ago: older than every retention below. */
const OLD = () => new Date(Date.now() - 40 * 86_400_000);

const ids = (rows: readonly Record<string, unknown>[], pick: (m: Msg) => boolean) =>
  rows.filter((r) => pick(payloadOf(r.payload) as Msg)).map((r) => Number(r.id));

/**
 * Retention: settled rows older than the setting are deleted by the subscribing brokers in
 * bounded batches, one broker at a time; unsettled rows never. Rows are aged through the database:
 * published with a `notBefore` forty days back, so their `retry_after` holds an old instant in
 * the dialect's own type, which an UPDATE copies into `processed_at` or `dead_at` of the same row.
 */
export function retentionScenarios(h: () => Harness, form: Form): void {
  test(`R-LIFE-5 old processed rows and old dead letters (group and table) are pruned in batches; recent and unsettled rows stay (${form})`, async () => {
    const retention = { processed: '1d', dead: '30d', deadAt: 'dead_at', every: 200, batchSize: 3 } as const;
    const grouped = await h().create(form, { retryAfter: true, processedAt: true, group: true, retention });
    const tabled = await h().create(form, {
      retryAfter: true,
      deadLetterTable: true,
      retention: { dead: '30d', deadAt: 'dead_at', every: 200, batchSize: 2 },
    });
    const b = await h().broker();
    const pruned: EventMap['pruned'][] = [];
    b.on('pruned', (e) => pruned.push(e));
    const holding = gate();
    const release = gate();
    b.subscribe(
      queue(grouped.desc).workers(1).maxAttempts(1).deadLetter({ group: 'dead' }),
      async (m: Msg) => {
        if (m.kind === 'bad') throw new Error('fails');
        if (m.kind === 'hold') {
          holding.open();
          await release.promise;
        }
      },
    );
    b.subscribe(queue(tabled.desc).maxAttempts(1).deadLetter({ table: tabled.dlq! }), async () => {
      throw new Error('fails');
    });
    await b.start();
    const old = { notBefore: OLD() };
    // The grouped table: 7 old and 3 recent processed rows, 3 old and 1 recent dead letters.
    for (let n = 0; n < 10; n++) await b.publish(grouped.desc, { kind: 'ok', n }, n < 7 ? old : {});
    for (let n = 10; n < 14; n++) await b.publish(grouped.desc, { kind: 'bad', n }, n < 13 ? old : {});
    // The tabled queue: 5 old and 1 recent dead letters.
    for (let n = 0; n < 6; n++) await b.publish(tabled.desc, { kind: 'bad', n }, n < 5 ? old : {});
    const g = grouped.name;
    await until(async () => {
      const rows = await h().rows(g);
      return (
        rows.filter((r) => r.processed_at !== null).length === 10 &&
        rows.filter((r) => r.grp === 'dead').length === 4
      );
    }, 'ten rows processed and four dead');
    await until(async () => (await h().rows(tabled.dlq!)).length === 6, 'six rows in the dead-letter table');
    // Age in one statement each, while no row is in work: the old processed rows by their stamp,
    // the old dead letters by their death.
    const settled = await h().rows(g);
    const aged = ids(settled, (m) => m.kind === 'ok' && m.n < 7);
    const agedDead = ids(settled, (m) => m.kind === 'bad' && m.n < 13);
    await h().target.exec(`UPDATE ${g} SET processed_at = retry_after WHERE id IN (${aged.join(', ')})`);
    await h().target.exec(`UPDATE ${g} SET dead_at = retry_after WHERE id IN (${agedDead.join(', ')})`);
    const dlqRows = await h().rows(tabled.dlq!);
    const oldDlq = ids(dlqRows, (m) => m.n < 5);
    await h().target.exec(
      `UPDATE ${tabled.dlq} SET dead_at = retry_after WHERE id IN (${oldDlq.join(', ')})`,
    );
    // Unsettled rows: one in work (its handler held), two ready behind it, two delayed.
    await b.publish(grouped.desc, { kind: 'hold', n: 20 }, old);
    await holding.promise;
    for (const n of [21, 22]) await b.publish(grouped.desc, { kind: 'ok', n }, old);
    for (const n of [23, 24])
      await b.publish(grouped.desc, { kind: 'ok', n }, { notBefore: new Date(Date.now() + 3_600_000) });
    // The ready rows' death column aged too: they are not dead letters, so it must not matter.
    // Not in the row lock form: there MariaDB's UPDATE may scan past the in-work row and wait for
    // its lock until the handler ends (the dead-letter condition is the same SQL in every form).
    if (form !== 'rowlock') {
      const ready = ids(await h().rows(g), (m) => m.n === 21 || m.n === 22);
      await h().target.exec(`UPDATE ${g} SET dead_at = retry_after WHERE id IN (${ready.join(', ')})`);
    }
    // Two more turns with the unsettled rows there (one record in the tick table per turn).
    const turns = async () =>
      Number(
        (
          await h().target.exec(`SELECT COUNT(*) AS n FROM sqlinbox_schedules WHERE name = 'retention:${g}'`)
        )[0]?.n,
      );
    const turnsBefore = await turns();
    await until(async () => (await turns()) >= turnsBefore + 2, 'two more retention turns');
    // Every unsettled row stays: in work, ready (with an old death column), delayed.
    const unsettled = async () =>
      (await h().rows(g))
        .map((r) => (payloadOf(r.payload) as Msg).n)
        .filter((n) => n >= 20)
        .sort();
    expect(await unsettled()).toEqual([20, 21, 22, 23, 24]);
    // The handler ends: a prune passes over rows another transaction holds (the row lock form's
    // claim on MariaDB holds rows besides its own), and takes them at a later turn.
    release.open();

    const sum = (table: string, kind: 'processed' | 'dead', what: 'count' | 'batches') =>
      pruned.filter((e) => e.table === table && e.kind === kind).reduce((a, e) => a + e[what], 0);
    await until(
      () =>
        sum(g, 'processed', 'count') === 7 &&
        sum(g, 'dead', 'count') === 3 &&
        sum(tabled.name, 'dead', 'count') === 5,
      'the old rows pruned',
    );
    // Bounded: 3 rows a statement, so 7 rows took at least 3 statements (5 at 2 a statement, 3).
    expect(sum(g, 'processed', 'batches')).toBeGreaterThanOrEqual(3);
    expect(sum(g, 'dead', 'batches')).toBeGreaterThanOrEqual(1);
    expect(sum(tabled.name, 'dead', 'batches')).toBeGreaterThanOrEqual(3);
    await until(
      async () => (await h().rows(g)).filter((r) => r.processed_at !== null).length === 6,
      'the held and ready rows processed',
    );
    const after = await h().rows(g);
    const left = new Set(after.map((r) => Number(r.id)));
    for (const id of [...aged, ...agedDead]) expect(left.has(id)).toBe(false);
    const kept = (pick: (m: Msg) => boolean) => after.filter((r) => pick(payloadOf(r.payload) as Msg));
    // The recent processed rows and dead letter stay; the dead letter's death was stamped.
    expect(kept((m) => m.kind === 'ok' && m.n >= 7 && m.n < 10)).toHaveLength(3);
    expect(kept((m) => m.kind === 'bad')).toHaveLength(1);
    await until(
      async () => (await h().rows(g)).some((r) => r.grp === 'dead' && r.dead_at !== null),
      'the recent death stamped',
    );
    expect(await unsettled()).toEqual([20, 21, 22, 23, 24]);
    expect((await h().rows(tabled.dlq!)).map((r) => (payloadOf(r.payload) as Msg).n)).toEqual([5]);
    // Logged after the prune commits: waited for, not read at once.
    await until(() => h().logger.has('info', 'retention pruned settled rows'), 'the prune logged');
  });

  test(`R-LIFE-5 two brokers on one table: one prunes a turn, the tick table holds one record for it (${form})`, async () => {
    const { desc, name } = await h().create(form, {
      retryAfter: true,
      processedAt: true,
      retention: { processed: '1d', every: '1h', batchSize: 5 },
    });
    // Rows processed by a broker whose description has no retention, then aged.
    const plain = { ...desc, retention: undefined };
    const w = await h().broker();
    w.subscribe(queue(plain), async () => {});
    await w.start();
    for (let n = 0; n < 12; n++) await w.publish(plain, { kind: 'ok', n }, { notBefore: OLD() });
    await until(
      async () =>
        (await h().rows(name)).every((r) => r.processed_at !== null) && (await h().rows(name)).length === 12,
      'twelve rows processed',
    );
    await h().target.exec(`UPDATE ${name} SET processed_at = retry_after`);
    await w.shutdown();
    // Both brokers start in the same hour-long turn (wait out an hour's last seconds).
    const toHour = 3_600_000 - (Date.now() % 3_600_000);
    if (toHour < 10_000) await new Promise((r) => setTimeout(r, toHour + 100));
    const brokers = [await h().broker(), await h().broker()];
    const seen: EventMap['pruned'][][] = [[], []];
    brokers.forEach((b, i) => {
      b.on('pruned', (e) => seen[i]!.push(e));
      b.subscribe(queue(desc), async () => {});
    });
    await Promise.all(brokers.map((b) => b.start()));
    await until(async () => (await h().rows(name)).length === 0, 'the old rows pruned');
    await until(() => seen.flat().reduce((a, e) => a + e.count, 0) === 12, 'both brokers reported');
    // One broker pruned them all, in 3 statements of at most 5; the other took no turn.
    const winners = seen.filter((s) => s.length > 0);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.map((e) => [e.count, e.batches])).toEqual([[12, 3]]);
    // The database's record of who pruned: one holder of the turn.
    const turns = await h().target.exec(
      `SELECT COUNT(*) AS n FROM sqlinbox_schedules WHERE name = 'retention:${name}'`,
    );
    expect(Number(turns[0]?.n)).toBe(1);
  });
}
