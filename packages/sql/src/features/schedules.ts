import type { Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/** Schedules: the tick table, one row per schedule and tick, its primary key (name, tick). */
export class ScheduleStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The tick table's `CREATE TABLE`, where it does not exist. */
  ddl(ticks: string): string[] {
    const s = this.s;
    return [
      `${s.createTableOpen(ticks)} (\n` +
        `  ${s.ident('name')} ${s.tickNameType} NOT NULL,\n` +
        `  ${s.ident('tick')} ${s.tickTimeType} NOT NULL,\n` +
        `  PRIMARY KEY (${s.ident('name')}, ${s.ident('tick')})\n)`,
    ];
  }

  /** Records a schedule's tick; its row count is 1 where it wrote the record, 0 where it was there. */
  recordTick(ticks: string, name: string, at: Date): Statement {
    const s = this.s;
    const p = s.params();
    return p.statement(
      s.insertNew(s.tableName(ticks), [s.ident('name'), s.ident('tick')], [p.bind(name), s.time(p, at)]),
    );
  }

  /** The newest tick recorded for a schedule, as `tick` (NULL where none). */
  lastTick(ticks: string, name: string): Statement {
    const s = this.s;
    const p = s.params();
    return p.statement(
      `SELECT MAX(${s.ident('tick')}) AS ${s.ident('tick')} FROM ${s.tableName(ticks)}` +
        ` WHERE ${s.ident('name')} = ${p.bind(name)}`,
    );
  }

  /** Deletes a schedule's tick records before `before`. */
  pruneTicks(ticks: string, name: string, before: Date): Statement {
    const s = this.s;
    const p = s.params();
    return p.statement(
      s.delete({
        table: s.tableName(ticks),
        where: `${s.ident('name')} = ${p.bind(name)} AND ${s.ident('tick')} < ${s.time(p, before)}`,
      }),
    );
  }
}
