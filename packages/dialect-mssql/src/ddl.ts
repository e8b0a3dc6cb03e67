import type { AnyTable } from '@sqlinbox/core';
import { validateIdentifier } from '@sqlinbox/core';
import { MssqlStatements } from './statements.js';

/**
 * The `CREATE TABLE` a description needs and the indexes its claims use. Id `BIGINT IDENTITY`
 * (clustered: claims read in id order); payload `NVARCHAR(MAX)` or `VARBINARY(MAX)`; times
 * `DATETIME2(3)` in UTC, so a lease token round-trips to the millisecond (`DATETIME` rounds to
 * 1/300 s); other columns `NVARCHAR(255)`. Indexes filtered to unsettled rows: the claim's (id, with
 * the due columns), FIFO (group, id), priority (priority DESC, id), and the unique key (its NULLs
 * left out). A dead-letter table takes the same columns in the same order, its id not generated,
 * as `DELETE .. OUTPUT deleted.* INTO` needs.
 */
export function ddl(t: AnyTable, opts: { deadLetterTable?: string } = {}): string[] {
  const s = new MssqlStatements(t);
  const q = (c: string) => s.ident(c);
  const create = (name: string, identity: boolean) => {
    const cols: [string, string][] = [];
    const add = (c: string | undefined, type: string) => {
      if (c !== undefined && !cols.some(([x]) => x.toLowerCase() === c.toLowerCase())) cols.push([c, type]);
    };
    add(t.id.column, `BIGINT${identity ? ' IDENTITY(1,1)' : ''} NOT NULL PRIMARY KEY`);
    add(
      t.payload?.column,
      t.payload?.type === 'bytes' ? 'VARBINARY(MAX) NOT NULL' : 'NVARCHAR(MAX) NOT NULL',
    );
    add(t.attempt?.column, 'INT NOT NULL DEFAULT 1');
    for (const c of [t.lease, t.retryAfter, t.processedAt]) add(c, 'DATETIME2(3) NULL');
    for (const c of [t.group, t.partitionKey]) add(c, 'NVARCHAR(255) NULL');
    add(t.priority, 'INT NOT NULL DEFAULT 0');
    const named = [t.uniqueKey, ...(t.key ?? []).map((p) => ('column' in p ? p.column : undefined))];
    for (const c of [...named, ...t.columns]) add(c, 'NVARCHAR(255) NULL');
    const lines = cols.map(([c, type]) => `  ${q(c)} ${type}`).join(',\n');
    return `CREATE TABLE ${s.tableName(name)} (\n${lines}\n)`;
  };
  const out = [create(t.table, t.id.generated)];
  const unsettled = t.processedAt === undefined ? '' : ` WHERE ${q(t.processedAt)} IS NULL`;
  const index = (name: string, columns: string, tail = unsettled) =>
    out.push(`CREATE ${name} ON ${s.table} (${columns})${tail}`);
  if (t.processedAt !== undefined) {
    const due = [t.lease, t.retryAfter].filter((c) => c !== undefined).map((c) => s.ident(c));
    index(
      'INDEX [sqlinbox_claim]',
      s.id,
      `${due.length > 0 ? ` INCLUDE (${due.join(', ')})` : ''}${unsettled}`,
    );
  }
  if (t.group !== undefined) index('INDEX [sqlinbox_fifo]', `${q(t.group)}, ${s.id}`);
  if (t.priority !== undefined) index('INDEX [sqlinbox_priority]', `${q(t.priority)} DESC, ${s.id}`);
  if (t.uniqueKey !== undefined) {
    const key = q(t.uniqueKey);
    const settled = t.processedAt === undefined ? '' : ` AND ${q(t.processedAt)} IS NULL`;
    index('UNIQUE INDEX [sqlinbox_unique_key]', key, ` WHERE ${key} IS NOT NULL${settled}`);
  }
  if (opts.deadLetterTable !== undefined) {
    out.push(create(validateIdentifier(opts.deadLetterTable, 'dead-letter table', t.table, true), false));
  }
  return out;
}
