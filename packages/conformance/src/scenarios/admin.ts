import { Admin, type Capabilities, type Form, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, ms, sleep, until, wrapOps, wrapPool } from '../harness.js';
import { NEEDS } from '../scenario-skips.js';

const ids = (xs: readonly unknown[]) => xs.map(String).sort((a, b) => Number(a) - Number(b));

/** The admin API, per form, on every adapter. */
export function adminScenarios(h: () => Harness, form: Form, _caps: Capabilities): void {
  test(`R-TX-9 R-OPS-8 an admin change whose session is killed mid-transaction closes its connection, never returns it to the pool (${form})`, async (ctx) => {
    const target = h().target;
    if (target.killSession === undefined) ctx.skip(NEEDS.killSession);
    const { desc, name } = await h().create(form, { retryAfter: true });
    const b = await h().broker();
    const [id] = await b.publishMany(desc, [{ n: 1 }]);
    const adapter = await h().open();
    let killed: string | undefined;
    // The dialect as it is, but the change's session is killed just before the change runs.
    const dialect = wrapOps(adapter.dialect, (ops) => ({
      admin: {
        ...ops.admin!,
        reschedule: async (conn, ...rest) => {
          killed = conn.id;
          await target.killSession!(conn.id);
          return ops.admin!.reschedule(conn, ...rest);
        },
      },
    }));
    const released: string[] = [];
    const destroyed: string[] = [];
    const pool = wrapPool(adapter.pool, {
      release: (c) => {
        released.push(c.id);
        adapter.pool.release(c);
      },
      destroy: (c) => {
        destroyed.push(c.id);
        return adapter.pool.destroy(c);
      },
    });
    const admin = new Admin({ ...adapter, dialect, pool });
    await expect(admin.reschedule(desc, { ids: [id] }, new Date(Date.now() + 60_000))).rejects.toThrow();
    expect(killed).toBeDefined();
    expect(released).not.toContain(killed);
    expect(destroyed).toContain(killed);
    expect(await h().rows(name)).toHaveLength(1);
  });

  test(`R-ADM-1 admin.stats counts ready, delayed, in work and dead, with the age of the oldest ready row (${form})`, async () => {
    const { desc } = await h().create(form, { retryAfter: true, group: true });
    const b = await h().broker();
    const admin = new Admin(await h().open());
    const release = gate();
    let holding: unknown;
    b.subscribe(queue(desc).workers(1).maxAttempts(3).deadLetter({ group: 'dead' }), async (_m, ctx) => {
      holding = ctx.id;
      await release.promise;
    });
    await b.publish(desc, { kind: 'hold' });
    await b.start();
    await until(() => holding !== undefined, 'the one worker holding its row');
    // Due a minute ago: the oldest ready row's age reads from its retry_after.
    await b.publish(desc, { kind: 'ready' }, { notBefore: new Date(Date.now() - 60_000) });
    await b.publish(desc, { kind: 'ready' });
    await b.publish(desc, { kind: 'later' }, { notBefore: new Date(Date.now() + 3_600_000) });
    await b.publish(desc, { kind: 'dead' }, { group: 'dead' });
    const stats = await admin.stats(desc, { deadLetter: { group: 'dead' } });
    expect(stats.inWorkSeen).toBeDefined();
    const seen = stats.inWorkSeen !== 'none';
    expect(stats).toMatchObject({ ready: seen ? 2 : 3, delayed: 1, inWork: seen ? 1 : 0, dead: 1 });
    expect(stats.inWorkSeen).toBe(
      form === 'lease' ? 'lease' : form === 'rowlock' ? 'locks' : stats.inWorkSeen,
    );
    expect(stats.oldestReadyAgeMs).toBeGreaterThanOrEqual(59_000);
    expect(stats.oldestReadyAgeMs).toBeLessThan(600_000);
    release.open();
    await until(
      async () => (await h().rows(desc.table)).length === 2,
      'drained but the delayed and dead rows',
    );
    expect(await admin.stats(desc, { deadLetter: { group: 'dead' } })).toMatchObject({
      ready: 0,
      inWork: 0,
      delayed: 1,
      dead: 1,
      oldestReadyAgeMs: null,
    });
  });

  test(`R-LIFE-8 admin.list keeps only a FIFO group's rows or one unique key's, and pages within them (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true, uniqueKey: true });
    const b = await h().broker();
    const admin = new Admin(await h().open());
    const inA: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      inA.push(await b.publish(desc, { n: i }, { group: 'a', key: `a-${i}` }));
      await b.publish(desc, { n: i }, { group: 'b', key: `b-${i}` });
    }
    const pages: unknown[] = [];
    let after: unknown;
    for (;;) {
      const page = await admin.list(desc, { state: 'all', group: 'a', limit: 2, after });
      expect(page.rows.every((r) => r.group === 'a')).toBe(true);
      pages.push(...page.rows.map((r) => r.id));
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(ids(pages)).toEqual(ids(inA));
    const byKey = await admin.list(desc, { state: 'all', key: 'b-3' });
    expect(byKey.rows.map((r) => r.row.job_key)).toEqual(['b-3']);
    expect((await admin.list(desc, { state: 'all', group: 'none of them' })).rows).toEqual([]);
    // A filter on a column the table lacks is refused, naming it.
    const plain = h().describe(form, name);
    await expect(admin.list(plain, { group: 'a' })).rejects.toMatchObject({ code: 'CONFIG', table: name });
    await expect(admin.list(plain, { key: 'a-1' })).rejects.toMatchObject({ code: 'CONFIG', table: name });
  });

  test(`R-ADM-2 admin.list pages rows of a state by id, admin.get shows one row, a row in work lists as in work (${form})`, async () => {
    const { desc, name } = await h().create(form, { retryAfter: true, group: true });
    const b = await h().broker();
    const admin = new Admin(await h().open(), { preview: 8 });
    const published = await b.publishMany(
      desc,
      Array.from({ length: 5 }, (_, i) => ({ n: i, text: 'a long payload to cut' })),
    );
    const later = await b.publish(desc, { later: true }, { notBefore: new Date(Date.now() + 3_600_000) });
    const dead = await b.publish(desc, { dead: true }, { group: 'dead' });
    const dl = { deadLetter: { group: 'dead' } } as const;

    const pages: unknown[][] = [];
    let after: unknown;
    for (;;) {
      const page = await admin.list(desc, { ...dl, state: 'ready', limit: 2, after });
      pages.push(page.rows.map((r) => r.id));
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(pages.map(ids)).toEqual([
      ids(published.slice(0, 2)),
      ids(published.slice(2, 4)),
      ids(published.slice(4)),
    ]);
    const first = (await admin.list(desc, { ...dl, limit: 1 })).rows[0]!;
    expect(first).toMatchObject({
      state: 'ready',
      attempt: 0,
      group: null,
      lockedUntil: null,
      truncated: true,
    });
    expect(first.preview).toHaveLength(8);
    expect(ids((await admin.list(desc, { ...dl, state: 'delayed' })).rows.map((r) => r.id))).toEqual(
      ids([later]),
    );
    const delayed = await admin.get(desc, later, dl);
    expect(ms(delayed?.retryAfter)).toBeGreaterThan(Date.now() + 3_000_000);
    expect(ids((await admin.list(desc, { ...dl, state: 'dead' })).rows.map((r) => r.id))).toEqual(
      ids([dead]),
    );
    expect(await admin.get(desc, 987_654_321, dl)).toBeNull();

    // A row in work shows as in work in every form.
    const release = gate();
    let holding: unknown;
    b.subscribe(queue(desc).workers(1).maxAttempts(3).deadLetter({ group: 'dead' }), async (_m, ctx) => {
      holding = ctx.id;
      await release.promise;
    });
    await b.start();
    await until(() => holding !== undefined, 'a row in work');
    // The handler's row is in work; in the lease form so are rows the subscription holds claimed
    // ahead of its worker (leased, waiting), and none of them lists as ready.
    const inWork = (await admin.list(desc, { ...dl, state: 'inWork' })).rows.map((r) => String(r.id));
    expect(inWork).toContain(String(holding));
    if (form !== 'lease') expect(inWork).toEqual([String(holding)]);
    expect((await admin.get(desc, holding, dl))?.state).toBe('inWork');
    const ready = (await admin.list(desc, { ...dl, state: 'ready' })).rows.map((r) => String(r.id));
    for (const id of inWork) expect(ready).not.toContain(id);
    release.open();
    await until(async () => (await h().rows(name)).length === 2, 'drained');
  });

  test(`R-ADM-3 admin.requeue puts dead letters back by id, list, group and all, with the attempt reset (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true });
    const b = await h().broker();
    const admin = new Admin(await h().open());
    b.subscribe(queue(desc).maxAttempts(2).deadLetter({ group: 'dead' }), async () => Outcome.retry());
    await b.start();
    const rows = await b.publishMany(
      desc,
      Array.from({ length: 5 }, (_, i) => ({ n: i })),
      { group: 'orders' },
    );
    await until(async () => (await h().rows(name)).every((r) => r.grp === 'dead'), 'all dead-lettered');
    await b.shutdown();
    // Dead after 2 deliveries reads 2, in every form.
    expect((await h().rows(name)).map((r) => Number(r.attempt))).toEqual([2, 2, 2, 2, 2]);
    const dl = { deadLetter: { group: 'dead' } } as const;

    const one = await admin.requeue(desc, { ids: [rows[0]] }, { ...dl, toGroup: 'orders' });
    expect(ids(one.changed)).toEqual(ids([rows[0]]));
    const again = await admin.requeue(desc, { ids: [rows[0], 987_654_321] }, dl);
    expect(again.changed).toEqual([]);
    expect(again.skipped.map((s) => s.reason)).toEqual(['not-dead', 'not-found']);
    const two = await admin.requeue(desc, { ids: [rows[1], rows[2]] }, dl);
    expect(ids(two.changed)).toEqual(ids([rows[1], rows[2]]));
    const rest = await admin.requeue(desc, { group: 'dead' }, dl);
    expect(ids(rest.changed)).toEqual(ids([rows[3], rows[4]]));
    const after = await h().rows(name);
    expect(after.map((r) => [Number(r.attempt), r.grp ?? null])).toEqual([
      [0, 'orders'],
      [0, null],
      [0, null],
      [0, null],
      [0, null],
    ]);
    expect(await admin.stats(desc, dl)).toMatchObject({ ready: 5, dead: 0 });

    // The dead-letter table: rows move back in one transaction.
    const t2 = await h().create(form, { deadLetterTable: true });
    const b2 = await h().broker();
    b2.subscribe(queue(t2.desc).maxAttempts(1).deadLetter({ table: t2.dlq! }), async () => Outcome.retry());
    await b2.start();
    const moved = await b2.publishMany(t2.desc, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    await until(async () => (await h().rows(t2.dlq!)).length === 3, 'in the dead-letter table');
    await b2.shutdown();
    const dlt = { deadLetter: { table: t2.dlq! } } as const;
    expect(ids((await admin.list(t2.desc, { ...dlt, state: 'dead' })).rows.map((r) => r.id))).toEqual(
      ids(moved),
    );
    expect((await admin.get(t2.desc, moved[0], dlt))?.state).toBe('dead');
    const back = await admin.requeue(t2.desc, { ids: [moved[0]] }, dlt);
    expect(ids(back.changed)).toEqual(ids([moved[0]]));
    const all = await admin.requeue(t2.desc, { all: true }, dlt);
    expect(ids(all.changed)).toEqual(ids(moved.slice(1)));
    expect(await h().rows(t2.dlq!)).toHaveLength(0);
    expect((await h().rows(t2.name)).map((r) => [String(r.id), Number(r.attempt)])).toEqual(
      ids(moved).map((id) => [id, 0]),
    );
  });

  test(`R-ADM-3 a requeue racing a running broker loses no row and delivers none twice (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true });
    const b = await h().broker({ poolSize: 4 });
    const admin = new Admin(await h().open());
    const delivered: string[] = [];
    b.subscribe(queue(desc).workers(2).maxAttempts(3).deadLetter({ group: 'dead' }), async (_m, ctx) => {
      delivered.push(String(ctx.id));
      await sleep(2);
    });
    const dead = await b.publishMany(
      desc,
      Array.from({ length: 30 }, (_, i) => ({ dead: i })),
      { group: 'dead' },
    );
    await b.start();
    const live: unknown[] = [];
    const dl = { deadLetter: { group: 'dead' } } as const;
    const requeued: unknown[] = [];
    for (let i = 0; i < 30; i += 10) {
      const [report] = await Promise.all([
        admin.requeue(desc, { ids: dead.slice(i, i + 10) }, dl),
        b
          .publishMany(
            desc,
            Array.from({ length: 5 }, (_, k) => ({ live: i + k })),
          )
          .then((x) => live.push(...x)),
      ]);
      requeued.push(...report.changed);
      expect(report.skipped).toEqual([]);
    }
    expect(ids(requeued)).toEqual(ids(dead));
    await until(async () => (await h().rows(name)).length === 0, 'every row acked', 20_000);
    expect([...delivered].sort()).toEqual(ids([...dead, ...live]).sort());
    expect(new Set(delivered).size).toBe(delivered.length);
  });

  test(`R-ADM-3 a requeue waits out a brief lock another session holds on a dead letter: the row is requeued, not skipped (${form})`, async () => {
    const { desc } = await h().create(form, { group: true });
    const b = await h().broker();
    const dead = await b.publishMany(desc, [{ dead: 1 }, { dead: 2 }], { group: 'dead' });
    const dl = { deadLetter: { group: 'dead' } } as const;
    // Another session locks the first dead letter, as a claim's scan or another change does.
    const other = await h().open();
    const conn = await other.pool.acquire();
    await other.dialect.begin(conn, {});
    const locked = await other.dialect.prepare(desc, dl).admin!.pick(conn, {
      dead: true,
      ids: [dead[0]],
      now: new Date(),
    });
    expect(locked.map((r) => String(r[desc.id.column]))).toEqual([String(dead[0])]);
    // The requeue's first pick passes over that row; the lock ends just after.
    const adapter = await h().open();
    const firstPick = gate();
    const dialect = wrapOps(adapter.dialect, (ops) => ({
      admin: {
        ...ops.admin!,
        pick: async (...a) => {
          const rows = await ops.admin!.pick(...a);
          firstPick.open();
          return rows;
        },
      },
    }));
    const admin = new Admin({ ...adapter, dialect });
    const report = admin.requeue(desc, { ids: dead }, dl);
    // (A database that locks the whole file makes the requeue wait for the lock instead.)
    await Promise.race([firstPick.promise, sleep(300)]);
    await other.dialect.rollback(conn);
    other.pool.release(conn);
    const { changed, skipped } = await report;
    expect(skipped).toEqual([]);
    expect(ids(changed)).toEqual(ids(dead));
  });

  test(`R-ADM-3 admin.remove and admin.reschedule never touch a row in work, and say why (${form})`, async () => {
    const { desc, name } = await h().create(form, { retryAfter: true });
    const b = await h().broker();
    const admin = new Admin(await h().open());
    const release = gate();
    let holding: unknown;
    const rows = await b.publishMany(desc, [{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }]);
    b.subscribe(queue(desc).workers(1), async (_m, ctx) => {
      holding ??= ctx.id;
      if (String(ctx.id) === String(holding)) await release.promise;
    });
    await b.start();
    await until(() => holding !== undefined, 'a row in work');
    // Rows in work besides the handler's: in the lease form, those the subscription holds claimed ahead.
    const busy = new Set(
      (await admin.list(desc, { state: 'inWork' })).rows.map((r) => String(r.id)).concat(String(holding)),
    );
    const others = rows.filter((r) => !busy.has(String(r)));
    expect(others.length).toBeGreaterThanOrEqual(2);
    const at = new Date(Date.now() + 3_600_000);

    const moved = await admin.reschedule(desc, { ids: [holding, others[0]] }, at);
    expect(moved.skipped).toEqual([{ id: holding, reason: 'in-work' }]);
    const removed = await admin.remove(desc, { ids: [holding, others[1], 987_654_321] });
    expect(removed.skipped).toEqual([
      { id: holding, reason: 'in-work' },
      { id: 987_654_321, reason: 'not-found' },
    ]);
    const all = await admin.remove(desc, { all: true });
    expect(all.changed.map(String)).not.toContain(String(holding));

    const held = (await h().rows(name)).find((r) => String(r.id) === String(holding));
    expect(held).toBeDefined();
    expect(held!.retry_after ?? null).toBeNull();
    release.open();
    await until(
      async () => (await h().rows(name)).every((r) => String(r.id) !== String(holding)),
      'acked by its handler',
    );
  });
}
