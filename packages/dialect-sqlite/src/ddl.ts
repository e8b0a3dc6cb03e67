import { type AnyTable, validateIdentifier } from '@sqlinbox/core';
import { type ColumnUse, ansiIdent as ident, tableColumns, qualified as tableName } from '@sqlinbox/sql';

/**
 * the `CREATE TABLE` a description needs on SQLite, and the indexes its claims use.
 * Every time column is INTEGER epoch milliseconds (the dialect's only time kind).
 */
export function ddl(t: AnyTable, opts: { deadLetterTable?: string } = {}): string[] {
  const out = [createTable(t, t.table, t.id.generated), ...indexes(t)];
  // Rows keep their ids when they move, so the dead-letter table never generates one.
  if (opts.deadLetterTable !== undefined)
    out.push(
      createTable(t, validateIdentifier(opts.deadLetterTable, 'dead-letter table', t.table, true), false),
    );
  return out;
}

function createTable(t: AnyTable, name: string, generatedId: boolean): string {
  const lines = columns(t, generatedId).map((line) => `  ${line}`);
  return `CREATE TABLE IF NOT EXISTS ${tableName(name)} (\n${lines.join(',\n')}\n)`;
}

/**
 * Each column with its SQLite type. `INTEGER PRIMARY KEY` is the rowid: the database fills it when
 * the id is generated, and it also takes an integer id the caller gives.
 */
function columns(t: AnyTable, generatedId: boolean): string[] {
  const types: Record<ColumnUse, string> = {
    id: generatedId ? 'INTEGER PRIMARY KEY' : 'INTEGER NOT NULL PRIMARY KEY',
    payload: t.payload?.type === 'bytes' ? 'BLOB NOT NULL' : 'TEXT NOT NULL',
    attempt: 'INTEGER NOT NULL DEFAULT 1',
    time: 'INTEGER',
    text: 'TEXT',
    priority: 'INTEGER NOT NULL DEFAULT 0',
  };
  return tableColumns(t).map((c) => `${ident(c.name)} ${types[c.role]}`);
}

/**
 * The claim reads due rows in id order; the index lists id first and carries the columns of the due
 * condition so the claim filters without reading rows. With `processed_at` it is partial over
 * unsettled rows, so settled history never enters a claim's scan. A FIFO table also gets
 * (group, id) for the head check. A priority column gets `(priority DESC, id)` (partial likewise),
 * the claim's order; a unique key column a unique index (partial likewise); a concurrency key
 * `(key, lease)` (partial likewise), which a claim reads to count each key's rows in work.
 */
function indexes(t: AnyTable): string[] {
  // SQLite names the index in the table's schema and the table bare: `CREATE INDEX s.i ON t (..)`.
  const dot = t.table.lastIndexOf('.');
  const schema = dot < 0 ? '' : `${ident(t.table.slice(0, dot))}.`;
  const bare = t.table.slice(dot + 1);
  const create = (suffix: string, cols: string[], where: string) =>
    `CREATE INDEX IF NOT EXISTS ${schema}${ident(`${bare}_${suffix}`)} ON ${ident(bare)} (${cols.map(ident).join(', ')})${where}`;
  const where = t.processedAt === undefined ? '' : ` WHERE ${ident(t.processedAt)} IS NULL`;
  const due = [t.id.column, t.lease, t.retryAfter].filter((c): c is string => c !== undefined);
  const out: string[] = [];
  // Without a filter or extra columns the primary key already is that index.
  if (where !== '' || due.length > 1) out.push(create('due', due, where));
  if (t.group !== undefined) out.push(create('group_head', [t.group, t.id.column], where));
  // The claim's order with a priority column: highest first, then id.
  if (t.priority !== undefined)
    out.push(
      `CREATE INDEX IF NOT EXISTS ${schema}${ident(`${bare}_priority`)} ON ${ident(bare)}` +
        ` (${ident(t.priority)} DESC, ${ident(t.id.column)})${where}`,
    );
  // Per-key concurrency: a claim counts each key's rows in work (a live lease).
  if (t.concurrency !== undefined && t.lease !== undefined)
    out.push(create('concurrency', [t.concurrency.column, t.lease], where));
  // One unsettled row per unique key: partial where settled rows are stamped.
  if (t.uniqueKey !== undefined)
    out.push(
      `CREATE UNIQUE INDEX IF NOT EXISTS ${schema}${ident(`${bare}_unique_key`)} ON ${ident(bare)}` +
        ` (${ident(t.uniqueKey)})${where}`,
    );
  return out;
}
