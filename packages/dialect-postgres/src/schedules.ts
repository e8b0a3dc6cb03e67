import type { AnyTable, TableOps } from '@sqlinbox/core';
import { type Params, QueueStatements, SqlTable } from '@sqlinbox/sql';

/**
 * The tick table of schedules on PostgreSQL, from the shared statement builder with PostgreSQL's
 * hooks: numbered placeholders, instants bound as `timestamptz`, `text` names. The builder's
 * `INSERT .. ON CONFLICT DO NOTHING` is PostgreSQL's own. (Once this dialect's statements extend
 * the builder, its runner answers these itself and this file goes.)
 */
class PostgresTickStatements extends QueueStatements {
  override placeholder(index: number): string {
    return `$${index}`;
  }

  override time(p: Params, at: Date): string {
    return `${p.bind(at)}::timestamptz`;
  }

  override get tickNameType(): string {
    return 'text';
  }

  override get tickTimeType(): string {
    return 'timestamptz';
  }
}

/** Gives a table's statements the schedule ones (`recordTick`, `lastTick`, `pruneTicks`). */
export function withSchedules(ops: TableOps, t: AnyTable): TableOps {
  const ticks = new SqlTable(new PostgresTickStatements(t));
  return Object.assign(ops, {
    recordTick: ticks.recordTick.bind(ticks),
    lastTick: ticks.lastTick.bind(ticks),
    pruneTicks: ticks.pruneTicks.bind(ticks),
  });
}

/** The tick table's `CREATE TABLE`. */
export function ticksDdl(t: AnyTable, ticks: string): string[] {
  return new PostgresTickStatements(t).ticksDdl(ticks);
}
