import { ConfigError } from '@sqlinbox/core';
import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/** The advisory lock form: candidates, the lock of a key, the take of its row. */
export class AdvisoryStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * Up to `n` due rows (FIFO: heads) in claim order with their keys as `id` and `key`, leaving
   * out the keys in `own`.
   */
  candidates(n: number, now: Date | null, own: ReadonlySet<string>): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const key = q.keyExpr(p, 'q');
    const where = q.due(p, now, 'q') + q.head('q');
    const notOwn = own.size === 0 ? '' : ` AND ${s.inList(p, q.keyExpr(p, 'q'), [...own], true)}`;
    // A table with its own lock: only its own keys are left out (the database's locks are not its).
    // (`freeKey` asked of a constant first: the key's values are bound only where it is used.)
    const sees = t.lock === undefined && this.freeKey(s.emptyText) !== undefined;
    const free = sees ? this.freeKey(q.keyExpr(p, 'q')) : undefined;
    return s.plainRead(
      p.statement(
        s.select(p, {
          columns: `${q.col('q', t.id.column)} AS ${q.ident('id')}, ${key} AS ${q.ident('key')}`,
          table: s.scan(q.table, 'q'),
          alias: 'q',
          where: where + notOwn + (free === undefined ? '' : ` AND ${free}`),
          order: q.order('q'),
          limit: n,
        }),
      ),
    );
  }

  /**
   * How many of these keys another session holds, as `n` (the admin counts of rows in work): the
   * keys as a `VALUES` table, counted where {@link freeKey} fails; undefined without `freeKey`.
   */
  heldKeys(keys: readonly string[]): Statement | undefined {
    const { q, s } = this;
    if (this.freeKey(s.emptyText) === undefined) return undefined;
    const p = q.params();
    const k = q.ident('k');
    const rows = keys.map((key) => `(${s.text(p, key)})`).join(', ');
    return p.statement(
      `SELECT COUNT(*) AS ${q.ident('n')} FROM (VALUES ${rows}) AS v (${k}) WHERE NOT (${this.freeKey(`v.${k}`)})`,
    );
  }

  /**
   * A condition that holds while no other session holds the advisory key `key` (a text
   * expression), where the database can see other sessions' locks: the candidates leave the other
   * rows out, and {@link heldKeys} counts them. Default: undefined.
   */
  freeKey(key: string): string | undefined {
    void key;
    return undefined;
  }

  /** Tries the key's lock without waiting, answering `ok`. A dialect with session locks overrides it. */
  lock(key: string): Statement {
    void key;
    throw new ConfigError('this dialect has no advisory lock statement', {
      table: this.t.table,
      fix: 'override lock() and unlock() in the dialect',
    });
  }

  /** Releases the key's lock, answering `ok`. */
  unlock(key: string): Statement {
    return this.lock(key);
  }

  /**
   * Whether {@link lockAndTake} has a statement for this table: a dialect that can try the lock
   * and take the row in one statement, the take re-reading a row changed after the statement began.
   */
  get locksAndTakes(): boolean {
    return false;
  }

  /**
   * The lock and then the take in one statement: one row, its `sqlinbox_locked` column whether the
   * key was taken, the other columns the taken row's (all null when nothing was taken).
   */
  lockAndTake(key: string, id: unknown, now: Date | null): Statement {
    void key;
    void id;
    void now;
    throw new ConfigError('this dialect has no lock-and-take statement', {
      table: this.t.table,
      fix: 'override lockAndTake() and locksAndTakes in the dialect',
    });
  }

  /**
   * Takes the row while it is still due and (FIFO) its group's head: counts the attempt and
   * answers the row after the count; without an attempt column, a select under the same condition.
   */
  take(id: unknown, now: Date | null): Statement {
    const p = this.q.params();
    return p.statement(this.takeSql(p, id, now));
  }

  /** {@link take}'s SQL, its values bound on `p`; `also` adds a condition (`' AND ..'`). */
  takeSql(p: Params, id: unknown, now: Date | null, also = ''): string {
    const { q, t } = this;
    const set = t.attempt === undefined ? [] : [q.countAttempt()];
    const where = `${q.col('q', t.id.column)} = ${p.bind(id)} AND ${q.due(p, now, 'q')}${q.head('q')}${also}`;
    if (set.length === 0) return `SELECT q.* FROM ${q.table} q WHERE ${where}`;
    return this.s.update({ table: q.table, alias: 'q', set, where, returning: '*' });
  }
}
