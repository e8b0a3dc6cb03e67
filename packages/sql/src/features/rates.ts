import type { Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/** Rate limits: the budget table, one row per limited queue, its window and what it used. */
export class RateStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The budget table's `CREATE TABLE`, where it does not exist. */
  ddl(rates: string): string[] {
    const s = this.s;
    const col = (name: string, type: string) => `  ${s.ident(name)} ${type} NOT NULL DEFAULT 0,\n`;
    return [
      `${s.createTableOpen(rates)} (\n` +
        `  ${s.ident('name')} ${s.tickNameType} NOT NULL,\n` +
        col('window_start', s.rateMsType) +
        col('used', s.rateCountType) +
        col('granted', s.rateCountType) +
        col('at_ms', s.rateMsType) +
        `  PRIMARY KEY (${s.ident('name')})\n)`,
    ];
  }

  /** Creates a budget's row (the other columns' defaults: window 0, nothing used) unless it is there. */
  rateRow(rates: string, name: string): Statement {
    const s = this.s;
    const p = s.params();
    return p.statement(s.insertNew(s.tableName(rates), [s.ident('name')], [p.bind(name)]));
  }

  /**
   * Takes up to `want` of `max` from the budget's current window in one UPDATE on the database
   * clock: the window is the multiple of `perMs` (since the epoch) that holds now; a row still on
   * an older window starts the new one at 0 used. `granted` is what this reservation took, `at_ms`
   * the instant it was taken (the window ends at `window_start + perMs`); the dialect answers the
   * row as updated (`RETURNING`, `OUTPUT`, or a read in the same transaction).
   */
  reserveRate(rates: string, name: string, want: number, max: number, perMs: number): Statement {
    const s = this.s;
    const p = s.params();
    const now = s.nowMs;
    const start = () => `${s.intDiv(now, p.bind(perMs))} * ${p.bind(perMs)}`;
    const ws = s.ident('window_start');
    const used = s.ident('used');
    const granted = s.ident('granted');
    const base = () => `(CASE WHEN ${ws} = ${start()} THEN ${used} ELSE 0 END)`;
    // Each use binds its values anew: placeholders are written in text order.
    const room = () => `(${p.bind(max)} - ${base()})`;
    const grant = () =>
      `(CASE WHEN ${room()} <= 0 THEN 0 WHEN ${room()} < ${p.bind(want)} THEN ${room()} ELSE ${p.bind(want)} END)`;
    // Every assignment reads the old values whether the database assigns all at once (standard
    // SQL) or left to right (MySQL, MariaDB): `used` reads only itself and the window, which is
    // assigned after it.
    const set = [
      `${granted} = ${grant()}`,
      `${used} = ${base()} + ${grant()}`,
      `${ws} = ${start()}`,
      `${s.ident('at_ms')} = ${now}`,
    ];
    return p.statement(
      s.update({
        table: s.tableName(rates),
        alias: 'b',
        set,
        where: `${s.col('b', 'name')} = ${p.bind(name)}`,
        returning: '*',
      }),
    );
  }

  /** Gives `count` unused back to a budget, while its window is still the one at `windowStart`. */
  returnRate(rates: string, name: string, windowStart: number, count: number): Statement {
    const s = this.s;
    const p = s.params();
    const used = s.ident('used');
    const c = p.bind(count);
    return p.statement(
      s.update({
        table: s.tableName(rates),
        alias: 'b',
        set: [`${used} = CASE WHEN ${used} > ${c} THEN ${used} - ${p.bind(count)} ELSE 0 END`],
        where: `${s.col('b', 'name')} = ${p.bind(name)} AND ${s.col('b', 'window_start')} = ${p.bind(windowStart)}`,
      }),
    );
  }

  /** Reads a budget's row (where the database cannot answer an UPDATE's rows). */
  rateState(rates: string, name: string): Statement {
    const s = this.s;
    const p = s.params();
    return p.statement(`SELECT * FROM ${s.tableName(rates)} WHERE ${s.ident('name')} = ${p.bind(name)}`);
  }
}
