import { type ColumnRole, type IndexParts, QueueDdl } from '@sqlinbox/sql';
import type { MssqlStatements } from './statements.js';

/**
 * SQL Server's tables: id `BIGINT IDENTITY` (clustered: claims read in id order), times
 * `DATETIME2(3)` in UTC so a lease token round-trips to the millisecond (`DATETIME` rounds to
 * 1/300 s), text `NVARCHAR`; the claim's index carries the due columns. A dead-letter table takes
 * the same columns in the same order, as `OUTPUT deleted.* INTO` needs.
 */
export class MssqlDdl extends QueueDdl<MssqlStatements> {
  override type(role: ColumnRole): string {
    const types: Record<ColumnRole, string> = {
      generatedId: 'BIGINT IDENTITY(1,1)',
      id: 'BIGINT',
      json: 'NVARCHAR(MAX)',
      text: 'NVARCHAR(MAX)',
      bytes: 'VARBINARY(MAX)',
      integer: 'INT',
      time: 'DATETIME2(3) NULL',
      name: 'NVARCHAR(255) NULL',
    };
    return types[role];
  }

  override index(i: IndexParts): string {
    const t = this.s.t;
    const due = [t.lease, t.retryAfter].filter((c) => c !== undefined).map((c) => this.s.ident(c));
    const include = i.name === 'claim' && due.length > 0 ? ` INCLUDE (${due.join(', ')})` : '';
    const on = `${this.s.table} (${i.columns.join(', ')})${include}${i.where}`;
    return `CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX [sqlinbox_${i.name}] ON ${on}`;
  }
}
