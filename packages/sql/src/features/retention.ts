import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/**
 * Retention: bounded deletes of settled rows. Processed rows are those whose `processed_at`
 * stamp has committed (and, in the lease form, whose lease is cleared, as every settlement
 * clears it); dead letters are the rows of the subscription's dead-letter group (lease cleared)
 * or of its dead-letter table, aged by the retention's `deadAt` column, which {@link markDead}
 * stamps. No statement reads a row by anything that an unsettled row can have: a ready, delayed or
 * in-work row has no `processed_at` and is in no dead letter.
 */
export class RetentionStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The death column, or an error saying the description declares none. */
  private get deadAt(): string {
    return this.q.role(this.t.retention?.deadAt, 'retention.deadAt');
  }

  /** `AND lease IS NULL` on alias `a` in the lease form, else ''. */
  private unleased(a?: string): string {
    return this.t.lease === undefined ? '' : ` AND ${this.q.col(a, this.t.lease)} IS NULL`;
  }

  /**
   * At most `limit` rows of `table` (quoted) that `where` selects, the oldest by `age` (a quoted
   * column) first, deleted in one statement: the builder's `DELETE .. WHERE id IN (SELECT id ..
   * ORDER BY age LIMIT n)`. Ordered by the age, the pick reads the index on it (see the DDL), never
   * the table's unsettled rows.
   */
  deleteBatch(p: Params, table: string, where: string, age: string, limit: number): string {
    const s = this.s;
    if (s.deleteTop) return `DELETE TOP (${p.bind(limit)}) FROM ${table} WHERE ${where}`;
    const id = this.q.id;
    const pick = s.select(p, { columns: id, table, alias: '', where, order: age, limit });
    return s.delete({ table, where: s.inSelect(id, pick) });
  }

  /** Deletes at most `limit` processed rows stamped before `before`. */
  pruneProcessed(before: Date, limit: number): Statement {
    const p = this.q.params();
    const where = this.agedWhere(p, 'processed', before);
    return p.statement(this.deleteBatch(p, this.q.table, where, this.ageColumn('processed'), limit));
  }

  /** The quoted column a kind of settled row ages by: `processed_at`, or the death column. */
  ageColumn(kind: 'processed' | 'dead'): string {
    const { q, t } = this;
    return q.ident(kind === 'processed' ? q.role(t.processedAt, 'processedAt') : this.deadAt);
  }

  /**
   * What selects the settled rows of a kind older than `before` (binding into `p`): processed rows
   * of the queue table, or the dead letters of {@link deadTable}.
   */
  agedWhere(p: Params, kind: 'processed' | 'dead', before: Date): string {
    const at = this.ageColumn(kind);
    if (kind === 'processed') {
      return `${at} IS NOT NULL AND ${at} < ${this.s.time(p, before)}${this.unleased()}`;
    }
    return `${this.deadWhere(p)} AND ${at} < ${this.s.time(p, before)}`;
  }

  /**
   * Stamps `now` into the death column of the dead letters without one; undefined where the
   * statements have no dead letter.
   */
  markDead(now: Date): Statement | undefined {
    const { q } = this;
    if (!this.hasDead) return undefined;
    const p = q.params();
    // Bound in text order: the SET's value before the WHERE's.
    const set = [`${q.ident(this.deadAt)} = ${this.s.time(p, now)}`];
    const where = `${this.deadWhere(p, 'q')} AND ${q.col('q', this.deadAt)} IS NULL`;
    return p.statement(this.s.update({ table: this.deadTable(), alias: 'q', set, where }));
  }

  /** Deletes at most `limit` dead letters stamped dead before `before`; undefined without a dead letter. */
  pruneDead(before: Date, limit: number): Statement | undefined {
    if (!this.hasDead) return undefined;
    const p = this.q.params();
    const where = this.agedWhere(p, 'dead', before);
    return p.statement(this.deleteBatch(p, this.deadTable(), where, this.ageColumn('dead'), limit));
  }

  /** Whether the statements have a dead letter (a group or a table). */
  get hasDead(): boolean {
    return this.q.deadTable !== undefined || this.q.deadGroup !== undefined;
  }

  /** The quoted table the dead letters are in: the dead-letter table, else the queue table. */
  deadTable(): string {
    const dead = this.q.deadTable;
    return dead === undefined ? this.q.table : this.s.tableName(dead);
  }

  /** What selects the dead letters in {@link deadTable} (binding into `p`): all of a dead-letter table's rows, or the group's. */
  deadWhere(p: Params, a?: string): string {
    const { q, t } = this;
    if (q.deadTable !== undefined) return this.s.always;
    const group = q.col(a, q.role(t.group, 'group'));
    return `${group} = ${p.bind(q.deadGroup)}${this.unleased(a)}`;
  }
}
