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
      `${s.createTableSql} ${s.tableName(steps)} (\n` +
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
