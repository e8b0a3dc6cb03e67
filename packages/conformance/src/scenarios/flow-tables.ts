import { Admin, ConfigError, Flows, type Form, migrate, Outcome, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { gate, type Harness, until } from '../harness.js';
import type { Job } from './flow-graph.js';
import { publishPruneFlows } from './flow-rows.js';

/** Generous bounds: a wait asserts an outcome, never a speed. */
const WAIT_MS = 60_000;

/** The catalogue reads of an edge table's indexes, and the drop of one, by the dialect's name. */
function catalogue(dialect: string, edges: string) {
  const index = dialect === 'mysql' ? 'sqlinbox_by_parent' : `${edges}_by_parent`;
  const list: Record<string, string> = {
    postgres: `SELECT indexname AS name FROM pg_indexes WHERE tablename = '${edges}'`,
    mysql: `SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${edges}'`,
    sqlite: `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '${edges}'`,
    mssql: `SELECT name FROM sys.indexes WHERE object_id = OBJECT_ID(N'${edges}') AND name IS NOT NULL`,
  };
  const drop: Record<string, string> = {
    mysql: `DROP INDEX \`${index}\` ON \`${edges}\``,
    mssql: `DROP INDEX [${index}] ON [${edges}]`,
  };
  return { index, list: list[dialect], drop: drop[dialect] ?? `DROP INDEX "${index}"` };
}

/** The flow tables themselves (R-FLOW-6): what `ddl()` and `migrate` make of them. */
export function flowTableScenarios(h: () => Harness, form: Form): void {
  test(`R-FLOW-6 R-USER-3 the edge table has an index by parent: ddl() creates it, migrate creates it on an edge table made without it, and running either again changes nothing (${form})`, async () => {
    const edges = h().name('flow');
    const { desc, name } = await h().create(form, { retryAfter: true, processedAt: true, flows: edges });
    const adapter = await h().open();
    const c = catalogue(adapter.dialect.name, edges);
    if (c.list === undefined) return; // a dialect this scenario cannot read the catalogue of
    const names = async () => (await h().target.exec(c.list!)).map((r) => String(r.name));
    expect(await names()).toContain(c.index);
    // SQL Server creates sqlinbox's own tables (and this index) with a plain CREATE: their DDL
    // runs once, and migrate does not run it on tables that exist.
    if (adapter.dialect.name === 'mssql') return;
    // The DDL again, as a table made before: nothing changes, nothing fails.
    for (const stmt of adapter.dialect.ddl(desc)) await h().target.exec(stmt);
    expect((await names()).filter((n) => n === c.index)).toEqual([c.index]);
    // An edge table made before the index was: migrate adds it, and a second run is a no-op.
    await h().target.exec(c.drop);
    expect(await names()).not.toContain(c.index);
    await migrate(adapter, [{ table: desc }]);
    expect(await names()).toContain(c.index);
    await migrate(adapter, [{ table: desc }]);
    expect((await names()).filter((n) => n === c.index)).toEqual([c.index]);
    await h().target.exec(`DELETE FROM sqlinbox_migrations WHERE target = '${name}'`);
  });

  test(`R-FLOW-6 flows.prune() on a table without a retention deletes the flow rows of jobs whose rows are gone and answers how many edges and parent rows: a finished flow's go; a flow in work keeps its pending edge, its waiting parent's row and the edge of a child already gone; a dead child's edge stays while its dead letter does (${form})`, {
    timeout: 120_000,
  }, async () => {
    const edges = h().name('flow');
    // No processed_at: a row is deleted at its ack, so a finished flow's rows are gone at once.
    const { desc, name, dlq } = await h().create(form, {
      retryAfter: true,
      failureRecord: true,
      deadLetterTable: true,
      flows: edges,
    });
    const adapter = await h().open({ poolSize: 2 });
    const flows = new Flows(adapter);
    const deadLetter = { table: dlq! };
    const { dying, working } = await publishPruneFlows(flows, desc);
    // The flow in work's child `held` waits an hour after its first delivery, until made due again.
    const waiting = gate();
    let heldRuns = 0;
    const b = await h().broker();
    b.subscribe(
      queue(desc).workers(3).maxAttempts(2).backoff('immediate').deadLetter(deadLetter),
      async (m, ctx) => {
        const job = m as Job;
        if (job.fail) throw new Error(`child ${job.n} fails`);
        if (String(ctx.id) === String(working.held) && ++heldRuns === 1) {
          waiting.open();
          return Outcome.retryAfter(3_600_000);
        }
        return Outcome.ack({ n: job.n });
      },
    );
    await b.start();
    const edgeRows = async () =>
      (await h().rows(edges))
        .map((r) => `${String(r.child_id)}>${String(r.parent_id)}:${String(r.state)}`)
        .sort();
    const parentRows = async () => (await h().rows(`${edges}_parent`)).map((r) => String(r.parent_id)).sort();
    const edge = (child: unknown, parent: unknown, state: string) =>
      `${String(child)}>${String(parent)}:${state}`;
    const ids = async () => (await h().rows(name)).map((r) => String(r.id)).sort();
    await waiting.promise;
    // Both finished flows ran (their parents' rows gone), the flow in work took its quick child.
    await until(
      async () =>
        (await ids()).join() === [String(working.held), String(working.waits)].sort().join() &&
        (await edgeRows()).includes(edge(working.quick, working.waits, 'done')),
      'the finished flows run, the flow in work waiting',
      WAIT_MS,
    );
    expect(await edgeRows()).toHaveLength(8);
    expect(await parentRows()).toHaveLength(5);
    // The finished flows' 4 + 1 edges and 3 + 1 parent rows go, a page of 2 at a time.
    expect(await flows.prune(desc, { deadLetter, batchSize: 2 })).toMatchObject({ edges: 5, parents: 4 });
    expect(await edgeRows()).toEqual(
      [
        edge(dying.bad, dying.after, 'dead'),
        edge(working.quick, working.waits, 'done'),
        edge(working.held, working.waits, 'pending'),
      ].sort(),
    );
    expect(await parentRows()).toEqual([String(working.waits)]);
    // Again: nothing more to delete; the flow in work and the dead letter are as they were.
    expect(await flows.prune(desc, { deadLetter })).toMatchObject({ edges: 0, parents: 0 });
    expect(await ids()).toEqual([String(working.held), String(working.waits)].sort());
    // The flow in work ends: its two edges and its parent's row go.
    await new Admin(adapter).reschedule(desc, { ids: [working.held] }, new Date());
    await until(async () => (await ids()).length === 0, 'the flow in work done', WAIT_MS);
    expect(await flows.prune(desc, { deadLetter })).toMatchObject({ edges: 2, parents: 1 });
    // The dead letter removed, the dead child's edge goes too.
    await new Admin(adapter).remove(desc, { ids: [dying.bad] }, { dead: true, deadLetter });
    expect(await flows.prune(desc, { deadLetter })).toMatchObject({ edges: 1, parents: 0 });
    expect(await edgeRows()).toEqual([]);
    expect(await parentRows()).toEqual([]);
    // A table without flow tables, and a batch size out of range, are refused.
    const plain = await h().create(form);
    await expect(flows.prune(plain.desc)).rejects.toBeInstanceOf(ConfigError);
    await expect(flows.prune(desc, { batchSize: 0 })).rejects.toMatchObject({ code: 'CONFIG', table: name });
  });

  test(`R-FLOW-6 a flow job in another queue table than the flow's is refused before anything is written: a ConfigError naming both tables and the fix; a job naming the flow's own table is published (${form})`, async () => {
    const edges = h().name('flow');
    const { desc, name } = await h().create(form, { retryAfter: true, processedAt: true, flows: edges });
    const other = await h().create(form, { retryAfter: true, processedAt: true });
    const flows = new Flows(await h().open());
    const err = await flows
      .publish(desc, {
        jobs: {
          child: { message: { kind: 'child', n: 1 }, table: other.desc },
          parent: { message: { kind: 'parent', n: 2 }, after: ['child'] },
        },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'CONFIG', table: name });
    expect((err as ConfigError).message).toContain(other.name);
    expect((err as ConfigError).message).toContain(name);
    expect((err as ConfigError & { fix?: string }).fix).toContain(other.name);
    for (const t of [name, other.name, edges, `${edges}_parent`]) expect(await h().rows(t)).toEqual([]);
    // Its own table named: published as usual.
    const ids = await flows.publish(desc, {
      jobs: {
        child: { message: { kind: 'child', n: 1 }, table: desc },
        parent: { message: { kind: 'parent', n: 2 }, after: ['child'] },
      },
    });
    expect((await h().rows(name)).map((r) => String(r.id)).sort()).toEqual(
      [String(ids.child), String(ids.parent)].sort(),
    );
    expect(await h().rows(edges)).toHaveLength(1);
  });
}
