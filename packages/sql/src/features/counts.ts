import type { Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/** The counts of a queue's rows by state, and what the admin counts of rows in work read. */
export class CountStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * Counts in one select: `in_work` (a lease running at `now`), `delayed` (a future `retry_after`,
   * not in work), `ready` (due now), `dead` (the dead-letter group's or table's rows).
   */
  stats(now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const later = (column: string | undefined) =>
      column === undefined ? undefined : `${q.col('q', column)} > ${s.time(p, now)}`;
    const and = (parts: (string | undefined)[]) => {
      const ok = parts.filter((x): x is string => x !== undefined);
      return ok.length === 0 ? s.always : ok.join(' AND ');
    };
    const leaseLater = () => later(t.lease);
    const inWork = t.lease === undefined ? '0' : s.countIf(and([...q.live(p, 'q'), leaseLater()]));
    const delayed =
      t.retryAfter === undefined
        ? '0'
        : s.countIf(
            and([
              ...q.live(p, 'q'),
              t.lease === undefined
                ? undefined
                : `NOT (${q.col('q', t.lease)} IS NOT NULL AND ${leaseLater()})`,
              later(t.retryAfter),
            ]),
          );
    const ready = s.countIf(q.due(p, now, 'q'));
    let dead = '0';
    if (q.deadTable !== undefined) dead = `(SELECT COUNT(*) FROM ${s.scan(s.tableName(q.deadTable))})`;
    else if (q.deadGroup !== undefined && t.group !== undefined) {
      dead = s.countIf(`${q.col('q', t.group)} = ${p.bind(q.deadGroup)}${q.unsettled('q')}`);
    }
    // Quoted: DELAYED is a reserved word in MySQL.
    const as = (name: string) => `AS ${q.ident(name)}`;
    return s.plainRead(
      p.statement(
        `SELECT ${inWork} ${as('in_work')}, ${delayed} ${as('delayed')}, ${ready} ${as('ready')}, ${dead} ${as('dead')} FROM ${s.scan(q.table, 'q')}`,
      ),
    );
  }

  /**
   * How many due rows a locking read can lock now, as `n`: the runner runs it in a transaction it
   * rolls back at once, and the due rows it could not lock are those other transactions hold (the
   * row lock form's rows in work). Undefined where the database cannot tell.
   */
  lockable(now: Date): Statement | undefined {
    const { q, s } = this;
    const p = q.params();
    const where = q.due(p, now, 'q');
    const pick = s.select(p, {
      columns: `1 AS ${q.ident('one')}`,
      table: `${q.table} q`,
      alias: 'q',
      where,
      lock: true,
    });
    return s.plainRead(p.statement(`SELECT COUNT(*) AS ${q.ident('n')} FROM (${pick}) x`));
  }

  /**
   * Since when a row is due, where the table can tell: its `retry_after`, else its insert time
   * (`createdAt`, for a row published without a delay); undefined where it has neither column.
   */
  dueSince(a: string): string | undefined {
    const { q, t } = this;
    const due = t.retryAfter === undefined ? undefined : q.col(a, t.retryAfter);
    const created = t.createdAt === undefined ? undefined : q.col(a, t.createdAt);
    return due !== undefined && created !== undefined ? `COALESCE(${due}, ${created})` : (due ?? created);
  }

  /**
   * The due rows' keys (advisory form; NULL otherwise) and since when each is due (as `due_at`):
   * its `retry_after`, else its insert time (`createdAt`) where the table keeps one.
   */
  dueRows(now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const key = t.key === undefined ? 'NULL' : q.keyExpr(p, 'q');
    const at = this.dueSince('q') ?? 'NULL';
    return s.plainRead(
      p.statement(
        `SELECT ${key} AS ${q.ident('key')}, ${at} AS ${q.ident('due_at')} FROM ${s.scan(q.table, 'q')} WHERE ${q.due(p, now, 'q')}`,
      ),
    );
  }
}
