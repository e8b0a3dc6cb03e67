import type { AnyTable } from '@sqlinbox/core';
import { validateIdentifier } from '@sqlinbox/core';
import { ident, tableName } from './sql.js';

/**
 * R-PLUS-2: the `CREATE TABLE` a description needs on SQL Server, and the indexes its claims use.
 *
 * - id `BIGINT IDENTITY(1,1)` primary key (clustered: the claim reads in id order), plain `BIGINT`
 *   when the id is not generated;
 * - payload `NVARCHAR(MAX)` (json and text) or `VARBINARY(MAX)` (bytes), NOT NULL;
 * - attempt `INT NOT NULL DEFAULT 1`;
 * - lease, `retry_after`, `processed_at` `DATETIME2(3)`, UTC: millisecond precision, so a lease token
 *   (a JavaScript Date) compares equal in every settlement. (`DATETIME` rounds to 1/300 s and
 *   would lose every lease.);
 * - group, partition key, key columns and other named columns `NVARCHAR(255)` NULL.
 *
 * Indexes: with `processed_at`, a filtered index over unsettled rows in id order carrying the due
 * columns (`WHERE processed_at IS NULL`), so settled history never enters a claim's scan; a FIFO
 * table also gets (group, id), filtered the same way, for the head check. Without either the
 * clustered primary key is the claim's index. A priority column (`INT NOT NULL DEFAULT 0`) gets
 * `(priority DESC, id)`, filtered likewise, the claim's order; a unique key column
 * (`NVARCHAR(255)`) a unique index filtered on `key IS NOT NULL` (and `processed_at IS NULL`). (A filtered index asks writers for the default SET
 * options, `ANSI_NULLS` and `QUOTED_IDENTIFIER` ON, which tedious and the other drivers use.)
 *
 * With `deadLetterTable`, that table with the same columns in the same order and its id not
 * generated, as `DELETE .. OUTPUT deleted.* INTO` needs.
 */
export function ddl(t: AnyTable, opts: { deadLetterTable?: string } = {}): string[] {
  const out = [createTable(t, t.table, t.id.generated), ...indexes(t)];
  if (opts.deadLetterTable !== undefined) {
    out.push(
      createTable(t, validateIdentifier(opts.deadLetterTable, 'dead-letter table', t.table, true), false),
    );
  }
  return out;
}

function createTable(t: AnyTable, name: string, generatedId: boolean): string {
  const lines = columns(t, generatedId).map(([column, type]) => `  ${ident(column)} ${type}`);
  return `CREATE TABLE ${tableName(name)} (\n${lines.join(',\n')}\n)`;
}

function columns(t: AnyTable, generatedId: boolean): [string, string][] {
  const out: [string, string][] = [];
  const add = (column: string | undefined, type: string) => {
    if (column !== undefined && !out.some(([c]) => c.toLowerCase() === column.toLowerCase())) {
      out.push([column, type]);
    }
  };
  add(t.id.column, generatedId ? 'BIGINT IDENTITY(1,1) NOT NULL PRIMARY KEY' : 'BIGINT NOT NULL PRIMARY KEY');
  if (t.payload !== undefined) {
    add(t.payload.column, t.payload.type === 'bytes' ? 'VARBINARY(MAX) NOT NULL' : 'NVARCHAR(MAX) NOT NULL');
  }
  add(t.attempt?.column, 'INT NOT NULL DEFAULT 1');
  add(t.lease, 'DATETIME2(3) NULL');
  add(t.retryAfter, 'DATETIME2(3) NULL');
  add(t.processedAt, 'DATETIME2(3) NULL');
  add(t.group, 'NVARCHAR(255) NULL');
  add(t.partitionKey, 'NVARCHAR(255) NULL');
  add(t.priority, 'INT NOT NULL DEFAULT 0');
  add(t.uniqueKey, 'NVARCHAR(255) NULL');
  for (const part of t.key ?? []) if ('column' in part) add(part.column, 'NVARCHAR(255) NULL');
  for (const column of t.columns) add(column, 'NVARCHAR(255) NULL');
  return out;
}

function indexes(t: AnyTable): string[] {
  const T = tableName(t.table);
  const ID = ident(t.id.column);
  const out: string[] = [];
  const unsettled = t.processedAt === undefined ? '' : ` WHERE ${ident(t.processedAt)} IS NULL`;
  if (t.processedAt !== undefined) {
    const include = [t.lease, t.retryAfter].filter((c): c is string => c !== undefined).map(ident);
    out.push(
      `CREATE INDEX [sqlinbox_claim] ON ${T} (${ID})` +
        `${include.length > 0 ? ` INCLUDE (${include.join(', ')})` : ''}${unsettled}`,
    );
  }
  if (t.group !== undefined) {
    out.push(`CREATE INDEX [sqlinbox_fifo] ON ${T} (${ident(t.group)}, ${ID})${unsettled}`);
  }
  if (t.priority !== undefined) {
    out.push(`CREATE INDEX [sqlinbox_priority] ON ${T} (${ident(t.priority)} DESC, ${ID})${unsettled}`);
  }
  if (t.uniqueKey !== undefined) {
    // A unique index counts NULL as a value: the filter leaves keyless rows out.
    const key = ident(t.uniqueKey);
    const settled = t.processedAt === undefined ? '' : ` AND ${ident(t.processedAt)} IS NULL`;
    out.push(`CREATE UNIQUE INDEX [sqlinbox_unique_key] ON ${T} (${key}) WHERE ${key} IS NOT NULL${settled}`);
  }
  return out;
}
