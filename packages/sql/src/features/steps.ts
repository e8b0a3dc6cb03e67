import type { StepsKey } from '@sqlinbox/core';
import type { Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/**
 * Durable steps (R-FLOW-7): the steps table, one row per finished step of a row in work, its
 * primary key (queue_name, row_id, step_name). A delivery reads its row's records once, writes one
 * per step it finishes (where none is there: the first record wins), and the row's final
 * settlement deletes them.
 */
export class StepsStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The steps table's `CREATE TABLE`, where it does not exist. */
  ddl(steps: string): string[] {
    const s = this.s;
    const c = (name: string) => s.ident(name);
    // The control table's name type for each part of the key: on SQL Server its 128 characters
    // keep the three within a clustered key's 900 bytes.
    const key = s.controlQueueType ?? s.tickNameType;
    return [
      `${s.createTableOpen(steps)} (\n` +
        `  ${c('queue_name')} ${key} NOT NULL,\n` +
        `  ${c('row_id')} ${key} NOT NULL,\n` +
        `  ${c('step_name')} ${key} NOT NULL,\n` +
        `  ${c('result')} ${s.stepResultType ?? s.textType} NOT NULL,\n` +
        `  ${c('finished_at')} ${s.rateMsType} NOT NULL,\n` +
        `  PRIMARY KEY (${c('queue_name')}, ${c('row_id')}, ${c('step_name')})\n)`,
    ];
  }

  /** The finished steps of one row: its name and kept value. */
  readSteps(key: StepsKey): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    return s.plainRead(
      p.statement(
        `SELECT ${c('step_name')}, ${c('result')} FROM ${s.tableName(key.table)}` +
          ` WHERE ${c('queue_name')} = ${p.bind(key.queue)} AND ${c('row_id')} = ${p.bind(key.rowId)}`,
      ),
    );
  }

  /** Records a finished step unless a record of it is there; `finished_at` is the database clock in epoch ms. */
  writeStep(key: StepsKey, name: string, result: string): Statement {
    const s = this.s;
    const p = s.params();
    const c = (col: string) => s.ident(col);
    return p.statement(
      s.insertNew(
        s.tableName(key.table),
        [c('queue_name'), c('row_id'), c('step_name'), c('result'), c('finished_at')],
        [p.bind(key.queue), p.bind(key.rowId), p.bind(name), s.text(p, result), s.nowMs],
        3,
      ),
    );
  }

  /**
   * The rows with records, the queue's first `limit` in row id order after `after` where one is
   * given: each row's id and the latest `finished_at` of its records. What the orphan sweep reads.
   */
  stepRows(steps: string, queue: string, limit: number, after?: string): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    let where = `${c('queue_name')} = ${p.bind(queue)}`;
    if (after !== undefined) where += ` AND ${c('row_id')} > ${p.bind(after)}`;
    return s.plainRead(
      p.statement(
        s.select(p, {
          columns: `${c('row_id')}, MAX(${c('finished_at')}) AS ${c('last_ms')}`,
          table: s.tableName(steps),
          alias: '',
          // The group after the condition: the select puts its order and limit after it.
          where: `${where} GROUP BY ${c('row_id')}`,
          order: c('row_id'),
          limit,
        }),
      ),
    );
  }

  /**
   * Deletes the records of the rows named (their ids as text) finished at or before each one's
   * `lastMs`: a record written after the sweep read the row stays.
   */
  deleteStepsUpTo(
    steps: string,
    queue: string,
    rows: readonly { rowId: string; lastMs: string }[],
  ): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    // Bound in the text's order (positional placeholders): the queue, then each row's pair.
    const byQueue = `${c('queue_name')} = ${p.bind(queue)}`;
    const byRow = rows.map(
      (r) => `(${c('row_id')} = ${p.bind(r.rowId)} AND ${c('finished_at')} <= ${p.bind(r.lastMs)})`,
    );
    return p.statement(
      s.delete({ table: s.tableName(steps), where: `${byQueue} AND (${byRow.join(' OR ')})` }),
    );
  }

  /** Deletes every record of the rows named (their ids as text). */
  deleteSteps(steps: string, queue: string, rowIds: readonly string[]): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    return p.statement(
      s.delete({
        table: s.tableName(steps),
        where: `${c('queue_name')} = ${p.bind(queue)} AND ${s.inList(p, c('row_id'), rowIds)}`,
      }),
    );
  }
}
