import type { ControlRow } from '@sqlinbox/core';
import type { Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/**
 * Lifecycle control: the control table, one row per pause (of a queue, or of one FIFO group) and
 * per cancel of a row in work, its primary key (queue_name, kind, target). A pause writes a row
 * where it is missing, a resume deletes it; a cancel writes one that the settlement honouring it
 * deletes; every broker subscribed to a queue reads that queue's rows once a second. A cancel
 * whose row settled before any broker read it is deleted by {@link sweepCancels}.
 */
export class ControlStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The control table's `CREATE TABLE`, where it does not exist. */
  ddl(control: string): string[] {
    const s = this.s;
    const c = (name: string) => s.ident(name);
    return [
      `${s.createTableOpen(control)} (\n` +
        `  ${c('queue_name')} ${s.controlQueueType ?? s.tickNameType} NOT NULL,\n` +
        `  ${c('kind')} ${s.controlKindType} NOT NULL,\n` +
        `  ${c('target')} ${s.tickNameType} NOT NULL,\n` +
        `  ${c('reason')} ${s.controlReasonType},\n` +
        `  ${c('requested_at')} ${s.rateMsType} NOT NULL,\n` +
        `  PRIMARY KEY (${c('queue_name')}, ${c('kind')}, ${c('target')})\n)`,
    ];
  }

  /** The control rows of the queues named (the primary key's prefix). */
  readControl(control: string, queues: readonly string[]): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    return s.plainRead(
      p.statement(
        `SELECT ${c('queue_name')}, ${c('kind')}, ${c('target')}, ${c('reason')} FROM ${s.tableName(control)}` +
          ` WHERE ${s.inList(p, c('queue_name'), queues)}`,
      ),
    );
  }

  /**
   * Writes a control row unless it is there (pausing twice is one pause, cancelling twice one
   * cancel, kept from the first); `requested_at` is the database clock in epoch milliseconds; a
   * cancel's row also writes its reason.
   */
  writeControl(control: string, row: ControlRow): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    const reason = row.reason ?? undefined;
    const cols = [c('queue_name'), c('kind'), c('target')];
    const vals = [p.bind(row.queue), p.bind(row.kind), p.bind(row.target)];
    if (reason !== undefined) {
      cols.push(c('reason'));
      vals.push(s.text(p, reason));
    }
    return p.statement(
      s.insertNew(s.tableName(control), [...cols, c('requested_at')], [...vals, s.nowMs], 3),
    );
  }

  /**
   * Deletes the cancels of `queue` among `targets` (ids as text) whose row is not live (settled,
   * in the dead-letter group, moved, or deleted): one `DELETE`, each target compared with the
   * queue table's id by the database (`id = ?`, the text converted to the id's type), so each check
   * is a primary key lookup.
   */
  sweepCancels(control: string, queue: string, targets: readonly string[]): Statement {
    const { s, q, t } = this;
    const p = q.params();
    const c = (name: string) => s.ident(name);
    // Bound in the text's order (positional placeholders): queue, kind, then each target's pair
    // and its live conditions.
    const byQueue = `${c('queue_name')} = ${p.bind(queue)} AND ${c('kind')} = ${p.bind('cancel')}`;
    const stale = targets.map((target) => {
      const byTarget = `${c('target')} = ${p.bind(target)}`;
      const byId = `${q.col('x', t.id.column)} = ${p.bind(target)}`;
      const live = q
        .live(p, 'x')
        .map((part) => ` AND ${part}`)
        .join('');
      return `(${byTarget} AND NOT EXISTS (SELECT 1 FROM ${q.table} x WHERE ${byId}${live}))`;
    });
    return p.statement(
      s.delete({ table: s.tableName(control), where: `${byQueue} AND (${stale.join(' OR ')})` }),
    );
  }

  /** Deletes a control row. */
  deleteControl(control: string, row: ControlRow): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    return p.statement(
      s.delete({
        table: s.tableName(control),
        where: `${c('queue_name')} = ${p.bind(row.queue)} AND ${c('kind')} = ${p.bind(row.kind)} AND ${c('target')} = ${p.bind(row.target)}`,
      }),
    );
  }
}
