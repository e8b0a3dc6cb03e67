import type { AnyTable, DdlOptions } from '@sqlinbox/core';
import { type ColumnUse, type IndexParts, QueueDdl, QueueSql } from '@sqlinbox/sql';
import { sqliteSyntax } from './statements.js';

/**
 * The `CREATE TABLE` a description needs on SQLite, and the indexes its claims use, on the shared
 * writer ({@link SqliteDdl}). Every time column is INTEGER epoch milliseconds (the dialect's only
 * time kind). Rows keep their ids when they move, so the dead-letter table never generates one.
 */
export function ddl(t: AnyTable, opts: DdlOptions = {}): string[] {
  return new SqliteDdl(new QueueSql(sqliteSyntax, t)).ddl(opts);
}

/**
 * SQLite's DDL. The claim reads due rows in id order; its index lists id first and carries the
 * columns of the due condition so the claim filters without reading rows; with `processed_at` it is
 * partial over unsettled rows, so settled history never enters a claim's scan (without a filter or
 * extra columns the primary key already is that index). A FIFO table also gets (group, id) for the
 * head check; a priority column `(priority DESC, id)`, the claim's order; a concurrency key
 * `(key, lease)`, which a claim reads to count each key's rows in work; a unique key column a unique
 * index (partial likewise; SQLite's unique indexes let NULLs repeat).
 */
export class SqliteDdl extends QueueDdl {
  /** Names as written: the shipped DDL never folded them. */
  override fold(name: string): string {
    return name;
  }

  /**
   * `INTEGER PRIMARY KEY` is the rowid: the database fills it when generated, and takes an integer
   * id given. A plain generated rowid reuses the highest id once that row is deleted (a drained
   * table starts again at 1), while a row's id outlives the row: a dead-letter table keeps it (a
   * new row with the same id would collide there), and side tables, results, cancels and waits name
   * rows by it. So a generated id takes `AUTOINCREMENT`: no id ever comes back to a new row.
   */
  override column(use: ColumnUse, generatedId: boolean): string {
    const types: Record<ColumnUse, string> = {
      id: generatedId ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'INTEGER NOT NULL PRIMARY KEY',
      payload: this.s.t.payload?.type === 'bytes' ? 'BLOB NOT NULL' : 'TEXT NOT NULL',
      attempt: 'INTEGER NOT NULL DEFAULT 0',
      time: 'INTEGER',
      text: 'TEXT',
      priority: 'INTEGER NOT NULL DEFAULT 0',
      error: 'TEXT',
      // Now in epoch milliseconds, the dialect's time kind (julianday: every SQLite version has it).
      created: "INTEGER DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
      result: 'TEXT',
    };
    return types[use];
  }

  /**
   * SQLite adds no column whose default is an expression to a table that exists: the insert time's
   * default is the clock, so that column cannot be added in place.
   */
  override addedColumn(use: ColumnUse, generatedId: boolean): string | undefined {
    return use === 'created' ? undefined : this.column(use, generatedId);
  }

  override indexes(): IndexParts[] {
    const { s, t } = { s: this.s, t: this.s.t };
    const where = this.unsettled();
    const out: IndexParts[] = [];
    const index = (name: IndexParts['name'], columns: (string | undefined)[], unique = false) =>
      out.push({
        name,
        columns: columns.filter((c) => c !== undefined).map((c) => s.ident(c)),
        where,
        unique,
      });
    const due = [t.id.column, t.lease, t.retryAfter].filter((c) => c !== undefined);
    if (where !== '' || due.length > 1) index('claim', due);
    if (t.group !== undefined) index('fifo', [t.group, t.id.column]);
    if (t.priority !== undefined)
      out.push({ name: 'priority', columns: [`${s.ident(t.priority)} DESC`, s.id], where, unique: false });
    if (t.concurrency !== undefined && t.lease !== undefined)
      index('concurrency', [t.concurrency.column, t.lease]);
    if (t.uniqueKey !== undefined) index('unique_key', [t.uniqueKey], true);
    const processed = this.processedIndex();
    if (processed !== undefined) out.push(processed);
    return out;
  }

  /** `<table>_{due,group_head,priority,unique_key,concurrency,processed}`. */
  override indexName(name: IndexParts['name']): string {
    const suffix = {
      claim: 'due',
      fifo: 'group_head',
      priority: 'priority',
      unique_key: 'unique_key',
      concurrency: 'concurrency',
      processed: 'processed',
    }[name];
    return `${this.s.t.table.split('.').pop()}_${suffix}`;
  }

  /** SQLite names the index in the table's schema and the table bare: `CREATE INDEX s.i ON t (..)`. */
  override index(i: IndexParts): string {
    const table = this.s.t.table;
    const dot = table.lastIndexOf('.');
    const schema = dot < 0 ? '' : `${this.s.ident(table.slice(0, dot))}.`;
    const bare = this.s.ident(table.slice(dot + 1));
    return `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${schema}${this.s.ident(this.indexName(i.name))} ON ${bare} (${i.columns.join(', ')})${i.where}`;
  }
}
