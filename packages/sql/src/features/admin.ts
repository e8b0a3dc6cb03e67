import type { ListQuery, PickQuery } from '@sqlinbox/core';
import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql, STATE } from '../queue.js';

/** The admin API's statements: list, pick, requeue (fresh, copy back), remove, reschedule. */
export class AdminStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** The state of row `a` as SQL sees it (see core's `RowState`), as a CASE expression. */
  state(p: Params, now: Date, a: string): string {
    const { q, s, t } = this;
    const when: string[] = [];
    if (t.group !== undefined && q.deadGroup !== undefined)
      when.push(`WHEN ${q.col(a, t.group)} = ${p.bind(q.deadGroup)} THEN 'dead'`);
    if (t.processedAt !== undefined) when.push(`WHEN ${q.col(a, t.processedAt)} IS NOT NULL THEN 'done'`);
    if (t.lease !== undefined) when.push(`WHEN ${q.col(a, t.lease)} > ${s.time(p, now)} THEN 'inWork'`);
    if (t.retryAfter !== undefined)
      when.push(`WHEN ${q.col(a, t.retryAfter)} > ${s.time(p, now)} THEN 'delayed'`);
    return when.length === 0 ? this.stateText('ready') : `CASE ${when.join(' ')} ELSE 'ready' END`;
  }

  /** A state's name as a text literal (a constant of this package, never user input). */
  stateText(state: string): string {
    return `'${state}'`;
  }

  /** The `SET` list that puts a row back as new: attempt 0, no `retry_after`, no lease. */
  freshSets(): string[] {
    const { q, t } = this;
    const set: string[] = [];
    if (t.attempt !== undefined) set.push(`${q.ident(t.attempt.column)} = 0`);
    if (t.retryAfter !== undefined) set.push(`${q.ident(t.retryAfter)} = NULL`);
    if (t.lease !== undefined) set.push(`${q.ident(t.lease)} = NULL`);
    return set;
  }

  /** Admin list: rows of one state in id order after `after`, each with `sqlinbox_state`. */
  list(l: ListQuery): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const source =
      l.state === 'dead' && q.deadTable !== undefined
        ? `SELECT r.*, ${this.stateText('dead')} AS ${STATE} FROM ${s.scan(s.tableName(q.deadTable), 'r')}`
        : `SELECT r.*, ${this.state(p, l.now, 'r')} AS ${STATE} FROM ${s.scan(q.table, 'r')}`;
    const where: string[] = [];
    if (l.state !== 'all') where.push(`x.${STATE} = ${p.bind(l.state)}`);
    if (l.after !== undefined) where.push(`${q.col('x', t.id.column)} > ${p.bind(l.after)}`);
    if (l.ids !== undefined) where.push(s.inList(p, q.col('x', t.id.column), l.ids));
    if (l.group !== undefined && t.group !== undefined)
      where.push(`${q.col('x', t.group)} = ${p.bind(l.group)}`);
    if (l.key !== undefined && t.uniqueKey !== undefined)
      where.push(`${q.col('x', t.uniqueKey)} = ${p.bind(l.key)}`);
    return s.plainRead(
      p.statement(
        s.select(p, {
          columns: 'x.*',
          table: `(${source}) x`,
          alias: 'x',
          where: where.length === 0 ? undefined : where.join(' AND '),
          order: q.col('x', t.id.column),
          limit: l.limit,
        }),
      ),
    );
  }

  /**
   * Admin pick, inside the caller's transaction: dead rows or live ones (unsettled, not dead, lease
   * absent or ended), optionally by ids and group, locked where the database locks rows; null when
   * the table cannot hold such rows.
   */
  pick(k: PickQuery): Statement | null {
    const { q, s, t } = this;
    const p = q.params();
    const where: string[] = [];
    let from = q.table;
    if (k.dead && q.deadTable !== undefined) from = s.tableName(q.deadTable);
    else if (k.dead) {
      if (t.group === undefined || q.deadGroup === undefined) return null;
      where.push(`${q.col('r', t.group)} = ${p.bind(k.group ?? q.deadGroup)}`);
      if (t.processedAt !== undefined) where.push(`${q.col('r', t.processedAt)} IS NULL`);
    } else {
      where.push(...q.live(p, 'r'));
      if (t.lease !== undefined) {
        const c = q.col('r', t.lease);
        where.push(`(${c} IS NULL OR ${c} <= ${s.time(p, k.now)})`);
      }
    }
    if (k.group !== undefined && !(k.dead && q.deadTable === undefined)) {
      if (t.group === undefined) return null;
      where.push(`${q.col('r', t.group)} = ${p.bind(k.group)}`);
    }
    if (k.ids !== undefined) where.push(s.inList(p, q.col('r', t.id.column), k.ids));
    return p.statement(
      s.select(p, {
        columns: 'r.*',
        table: `${from} r`,
        alias: 'r',
        where: where.length === 0 ? undefined : where.join(' AND '),
        order: q.col('r', t.id.column),
        lock: true,
      }),
    );
  }

  /** Puts rows back as new (attempt 0, no `retry_after`, no lease), with the group when given. */
  fresh(ids: readonly unknown[], group: { value: string | null } | undefined): Statement | null {
    const { q, s, t } = this;
    const p = q.params();
    const set = this.freshSets();
    if (group !== undefined && t.group !== undefined)
      set.push(`${q.ident(t.group)} = ${p.bind(group.value)}`);
    if (set.length === 0) return null;
    return p.statement(
      s.update({ table: q.table, alias: 'q', set, where: s.inList(p, q.col('q', t.id.column), ids) }),
    );
  }

  /** Copies dead-letter table rows back into the queue table (deleted from it after). */
  copyBack(ids: readonly unknown[]): Statement {
    const { q, s } = this;
    const p = q.params();
    const dead = s.tableName(q.role(q.deadTable, 'dead-letter table'));
    return p.statement(`INSERT INTO ${q.table} SELECT * FROM ${dead} WHERE ${s.inList(p, q.id, ids)}`);
  }

  /** Deletes rows by id, from the dead-letter table with `dead`. */
  remove(ids: readonly unknown[], dead: boolean): Statement {
    const { q, s } = this;
    const p = q.params();
    const table = dead && q.deadTable !== undefined ? s.tableName(q.deadTable) : q.table;
    return p.statement(s.delete({ table, where: s.inList(p, q.id, ids) }));
  }

  /** `retry_after = at` by id; null without a `retry_after` column. */
  reschedule(ids: readonly unknown[], at: Date): Statement | null {
    const { q, s, t } = this;
    const ra = t.retryAfter;
    if (ra === undefined) return null;
    const p = q.params();
    const set = [`${q.ident(ra)} = ${s.time(p, at)}`];
    return p.statement(
      s.update({ table: q.table, alias: 'q', set, where: s.inList(p, q.col('q', t.id.column), ids) }),
    );
  }
}
