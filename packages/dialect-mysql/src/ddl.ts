import type { AnyTable, DdlOptions } from '@sqlinbox/core';
import { type ColumnUse, type IndexParts, QueueDdl, tableColumns } from '@sqlinbox/sql';
import { MysqlQueue, mysqlSyntax } from './statements.js';

/**
 * The `CREATE TABLE` of a description, InnoDB, utf8mb4: `BIGINT AUTO_INCREMENT` id
 * (plain `BIGINT` when the id is not generated), payload `JSON` / `LONGTEXT` / `LONGBLOB`,
 * `attempt INT NOT NULL DEFAULT 0`, time columns `DATETIME(3)` (UTC), group, partition key and the
 * other named columns `VARCHAR(255)`. Then the indexes a claim needs: MySQL has no partial index,
 * so a table with `processed_at` gets `(processed_at, id)` (the claim reads `processed_at IS NULL`
 * in id order), and a FIFO table `(group, [processed_at,] id)`, which the head check and the FIFO
 * guard read (without it the guard's locking read scans and waits on other groups' rows). Without
 * either column the primary key serves the claim. A priority column (`INT NOT NULL DEFAULT 0`)
 * gets `([processed_at,] priority DESC, id)`, the claim's order (descending index parts need
 * MySQL 8.0 or MariaDB 10.8; older MariaDB sorts). A unique key column (`VARCHAR(255)`) gets a
 * unique index: on the column itself where settled rows are deleted, else on the generated column
 * `sqlinbox_key_active` (the key while `processed_at IS NULL`, NULL after), since MySQL has no
 * partial index. A concurrency key (`VARCHAR(255)`) gets `(key, lease)`, which a claim reads to count
 * each key's rows in work. With `deadLetterTable`, that table with the same columns in the same order (its
 * id not generated, `sqlinbox_key_active` a plain column), for `INSERT .. SELECT *`. The indexes are
 * declared inside the `CREATE TABLE IF NOT EXISTS`: each statement creates only what does not exist.
 */
export function ddl(table: AnyTable, opts: DdlOptions = {}): string[] {
  return new MysqlDdl(new MysqlQueue(mysqlSyntax, table)).ddl(opts);
}

/** The generated column that carries a stamping table's unique key while the row is unsettled. */
const KEY_ACTIVE = 'sqlinbox_key_active';

/** MySQL's and MariaDB's DDL on the shared writer ({@link ddl} says what it prints). */
export class MysqlDdl extends QueueDdl {
  /** An older table's attempt default (1) becomes 0 in place: a change of the catalogue only. */
  override attemptDefault(table: string, column: string): string {
    return `ALTER TABLE ${table} ALTER COLUMN ${column} SET DEFAULT 0`;
  }

  override column(use: ColumnUse, generatedId: boolean): string {
    const payload = { json: 'JSON NOT NULL', text: 'LONGTEXT NOT NULL', bytes: 'LONGBLOB NOT NULL' } as const;
    const types: Record<ColumnUse, string> = {
      id: generatedId ? 'BIGINT NOT NULL AUTO_INCREMENT' : 'BIGINT NOT NULL',
      payload: payload[this.s.t.payload?.type ?? 'json'],
      attempt: 'INT NOT NULL DEFAULT 0',
      time: 'DATETIME(3) NULL',
      text: 'VARCHAR(255) NULL',
      priority: 'INT NOT NULL DEFAULT 0',
      // The last error's message, up to 1,000 characters: longer than a name's VARCHAR(255).
      error: 'TEXT NULL',
      // The session's clock: UTC in every session the adapter opens (`time_zone = '+00:00'`).
      created: 'DATETIME(3) NULL DEFAULT CURRENT_TIMESTAMP(3)',
      // A handler's result: JSON (LONGTEXT beside a text payload).
      result: this.s.t.payload?.type === 'text' ? 'LONGTEXT NULL' : 'JSON NULL',
    };
    return types[use];
  }

  /**
   * The columns, the unique key's generated twin after the key (the key while the row is unsettled,
   * NULL after: MySQL has no partial index; the dead-letter table takes it as a plain column, for
   * `INSERT .. SELECT *`), the primary key, and on the queue table its indexes.
   */
  override lines(generatedId: boolean, deadLetter: boolean): string[] {
    const { s, t } = { s: this.s, t: this.s.t };
    const { uniqueKey: key, processedAt } = t;
    const out: string[] = [];
    for (const c of tableColumns(t, (n) => this.fold(n))) {
      out.push(`${s.ident(c.name)} ${this.column(c.role, generatedId)}`);
      if (key === undefined || processedAt === undefined || this.fold(c.name) !== this.fold(key)) continue;
      out.push(`${s.ident(KEY_ACTIVE)} ${this.activeKey(deadLetter)}`);
    }
    out.push(`PRIMARY KEY (${s.id})`);
    if (deadLetter) return out;
    return [
      ...out,
      ...this.indexes().map(
        (i) =>
          `${i.unique ? 'UNIQUE ' : ''}INDEX ${s.ident(this.indexName(i.name))} (${i.columns.join(', ')})`,
      ),
    ];
  }

  /** The unique key's generated twin (a plain text column in the dead-letter table). */
  private activeKey(deadLetter: boolean): string {
    const { s, t } = { s: this.s, t: this.s.t };
    if (deadLetter || t.uniqueKey === undefined || t.processedAt === undefined)
      return this.column('text', false);
    return `VARCHAR(255) GENERATED ALWAYS AS (IF(${s.ident(t.processedAt)} IS NULL, ${s.ident(t.uniqueKey)}, NULL)) STORED`;
  }

  /**
   * The columns a table that exists lacks, as the shared writer adds them; then the unique key's
   * twin where the table lacks it, and on the queue table each index named for a column just added
   * (the indexes are part of the CREATE TABLE, which a table that exists skips).
   */
  override addColumns(
    name: string,
    existing: readonly string[] | null | undefined,
    generatedId: boolean,
    deadLetter = false,
  ): string[] {
    const out = super.addColumns(name, existing, generatedId, deadLetter);
    if (out.length === 0 || existing === null || existing === undefined) return out;
    const { s, t } = { s: this.s, t: this.s.t };
    const table = s.s.tableName(name);
    const have = new Set(existing.map((n) => this.fold(n)));
    const added = new Set(
      tableColumns(t, (n) => this.fold(n))
        .filter((c) => !have.has(this.fold(c.name)))
        .map((c) => this.fold(c.name)),
    );
    if (t.uniqueKey !== undefined && t.processedAt !== undefined && !have.has(this.fold(KEY_ACTIVE)))
      out.push(`ALTER TABLE ${table} ADD COLUMN ${s.ident(KEY_ACTIVE)} ${this.activeKey(deadLetter)}`);
    if (deadLetter) return out;
    // An index is new where the column it is named for is: one of a column the table had is left
    // as it was made (MySQL has no ADD INDEX IF NOT EXISTS), and still serves its claims.
    const namedFor: Record<IndexParts['name'], string | undefined> = {
      claim: t.processedAt,
      fifo: t.group,
      priority: t.priority,
      unique_key: t.uniqueKey,
      concurrency: t.concurrency?.column,
      processed: undefined,
    };
    for (const i of this.indexes()) {
      const column = namedFor[i.name];
      if (column === undefined || !added.has(this.fold(column))) continue;
      out.push(
        `ALTER TABLE ${table} ADD ${i.unique ? 'UNIQUE ' : ''}INDEX ${s.ident(this.indexName(i.name))} (${i.columns.join(', ')})`,
      );
    }
    return out;
  }

  override tableOptions(): string {
    return ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4';
  }

  /** No partial index: `processed_at` leads (or follows the group), the unique key is its generated twin's. */
  override indexes(): IndexParts[] {
    const { s, t } = { s: this.s, t: this.s.t };
    const pa = t.processedAt === undefined ? [] : [s.ident(t.processedAt)];
    const out: IndexParts[] = [];
    const index = (name: IndexParts['name'], columns: string[], unique = false) =>
      out.push({ name, columns, where: '', unique });
    if (t.processedAt !== undefined) index('claim', [...pa, s.id]);
    if (t.group !== undefined) index('fifo', [s.ident(t.group), ...pa, s.id]);
    if (t.priority !== undefined) index('priority', [...pa, `${s.ident(t.priority)} DESC`, s.id]);
    if (t.uniqueKey !== undefined)
      index('unique_key', [s.ident(t.processedAt !== undefined ? KEY_ACTIVE : t.uniqueKey)], true);
    // A claim counts each key's rows in work: a live lease of the key.
    if (t.concurrency !== undefined && t.lease !== undefined)
      index('concurrency', [s.ident(t.concurrency.column), s.ident(t.lease)]);
    return out;
  }

  /** `sqlinbox_<name>`: MySQL names an index within its table. */
  override indexName(name: IndexParts['name']): string {
    return `sqlinbox_${name}`;
  }

  /**
   * None apart: MySQL has no CREATE INDEX IF NOT EXISTS (MariaDB has), so the indexes are part of the
   * CREATE TABLE IF NOT EXISTS, and running the statements again changes nothing.
   */
  override indexStatements(): string[] {
    return [];
  }
}
