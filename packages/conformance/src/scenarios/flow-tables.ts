import { type Form, migrate } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import type { Harness } from '../harness.js';

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
}
