import type { AnyTable, TableOps } from '@sqlinbox/core';
import { type Params, QueueStatements, SqlTable } from '@sqlinbox/sql';
import { quoteIdent, utc } from './sql.js';

/**
 * The tick table of schedules on MySQL and MariaDB, from the shared statement builder with this
 * dialect's hooks: backquotes, instants bound as UTC `DATETIME(3)` text, and `INSERT IGNORE` for
 * the insert that writes nothing where the key is taken. `ON DUPLICATE KEY UPDATE` cannot say
 * which happened (both drivers count a found row as affected); `IGNORE` would also quiet other
 * errors, but the tick table is sqlinbox's own and its two values are checked before (a name of
 * at most 255 characters, an instant DATETIME holds), so the duplicate key is the one it meets.
 * (Once this dialect's statements extend the builder, they carry these hooks and this file goes.)
 */
class MysqlTickStatements extends QueueStatements {
  override ident(name: string): string {
    return quoteIdent(name);
  }

  override time(p: Params, at: Date): string {
    return p.bind(utc(at));
  }

  override get tickTimeType(): string {
    return 'DATETIME(3)';
  }

  override insertNew(table: string, columns: readonly string[], values: readonly string[]): string {
    return `INSERT IGNORE INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')})`;
  }
}

/** Gives a table's statements the schedule ones (`recordTick`, `lastTick`, `pruneTicks`). */
export function withSchedules(ops: TableOps, t: AnyTable): TableOps {
  const ticks = new SqlTable(new MysqlTickStatements(t));
  return Object.assign(ops, {
    recordTick: ticks.recordTick.bind(ticks),
    lastTick: ticks.lastTick.bind(ticks),
    pruneTicks: ticks.pruneTicks.bind(ticks),
  });
}

/** The tick table's `CREATE TABLE`. */
export function ticksDdl(t: AnyTable, ticks: string): string[] {
  return new MysqlTickStatements(t).ticksDdl(ticks);
}
