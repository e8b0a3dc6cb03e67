import { type FailureRecord, type Settlement, validateIdentifier } from '@sqlinbox/core';
import { tableColumns } from '../columns.js';
import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/** What a settlement writes into the failure record: the failure (if any) and its instant. */
export interface RecordWrite {
  /** The delivery's failure: its message and class; absent, they are left as they are. */
  readonly failure?: FailureRecord | undefined;
  /** The failure's (or the death's) instant, for `failedAt`. */
  readonly now: Date;
}

/** Settlement in every form: finish, return, the move to the dead letter. */
export class SettleStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /** `id = ?` and, with a lease token, `lease = token`. */
  owned(p: Params, id: unknown, token: Date | undefined, a?: string): string {
    const { q, t } = this;
    const byId = `${q.col(a, t.id.column)} = ${p.bind(id)}`;
    if (token === undefined || t.lease === undefined) return byId;
    return `${byId} AND ${q.col(a, t.lease)} = ${this.s.time(p, token)}`;
  }

  /**
   * The failure record's columns a settlement writes (quoted): with a failure, the message, the
   * class and the failure time; with none, the time of a death (`death`) only. Empty where the
   * table keeps no record. {@link recordValues} answers their values in the same order.
   */
  recordColumns(w: RecordWrite | undefined, death: boolean): string[] {
    const { q, t } = this;
    const out: string[] = [];
    const f = w?.failure;
    if (f !== undefined && t.lastError !== undefined) out.push(q.ident(t.lastError));
    if (f !== undefined && t.errorClass !== undefined) out.push(q.ident(t.errorClass));
    if (w !== undefined && (f !== undefined || death) && t.failedAt !== undefined)
      out.push(q.ident(t.failedAt));
    return out;
  }

  /** The values (bound) of {@link recordColumns}, in its order. */
  recordValues(p: Params, w: RecordWrite | undefined, death: boolean): string[] {
    const t = this.t;
    const out: string[] = [];
    const f = w?.failure;
    if (f !== undefined && t.lastError !== undefined) out.push(this.s.text(p, f.message));
    if (f !== undefined && t.errorClass !== undefined) out.push(this.s.text(p, f.name));
    if (w !== undefined && (f !== undefined || death) && t.failedAt !== undefined)
      out.push(this.s.time(p, w.now));
    return out;
  }

  /** The `SET`s of {@link recordColumns}. */
  recordSets(p: Params, w: RecordWrite | undefined, death: boolean): string[] {
    const { q, t } = this;
    const out: string[] = [];
    const f = w?.failure;
    if (f !== undefined && t.lastError !== undefined)
      out.push(`${q.ident(t.lastError)} = ${this.s.text(p, f.message)}`);
    if (f !== undefined && t.errorClass !== undefined)
      out.push(`${q.ident(t.errorClass)} = ${this.s.text(p, f.name)}`);
    if (w !== undefined && (f !== undefined || death) && t.failedAt !== undefined)
      out.push(`${q.ident(t.failedAt)} = ${this.s.time(p, w.now)}`);
    return out;
  }

  /**
   * The columns (quoted) a dead-letter move that writes the failure record copies as they are:
   * every column of the table but those {@link recordColumns} names.
   */
  copied(w: RecordWrite | undefined, death: boolean): string[] {
    const t = this.t;
    const fold = (n: string) => n.toLowerCase();
    const f = w?.failure;
    const skip = new Set<string>();
    if (f !== undefined && t.lastError !== undefined) skip.add(fold(t.lastError));
    if (f !== undefined && t.errorClass !== undefined) skip.add(fold(t.errorClass));
    if (w !== undefined && (f !== undefined || death) && t.failedAt !== undefined) skip.add(fold(t.failedAt));
    return tableColumns(t, fold)
      .filter((c) => !skip.has(fold(c.name)))
      .map((c) => this.q.ident(c.name));
  }

  /** The `SET` list of a settlement (empty: nothing to write). */
  sets(p: Params, s: Settlement): string[] {
    const { q, t } = this;
    const time = (at: Date) => this.s.time(p, at);
    const sets: string[] = [];
    const clearLease = () => {
      if (t.lease !== undefined) sets.push(`${q.ident(t.lease)} = NULL`);
    };
    if (s.kind === 'finish') {
      sets.push(`${q.ident(q.role(t.processedAt, 'processedAt'))} = ${time(s.now)}`);
      // An ack's result, in the statement that stamps the row: no round trip of its own.
      if (s.result !== undefined && t.result !== undefined)
        sets.push(`${q.ident(t.result)} = ${this.s.json(p, s.result)}`);
      if (s.countAttempt && t.attempt !== undefined) sets.push(q.countAttempt());
      clearLease();
    } else if (s.kind === 'return') {
      if (s.countAttempt && t.attempt !== undefined) sets.push(q.countAttempt());
      else if (s.uncountAttempt && t.attempt !== undefined) sets.push(q.countAttempt(-1));
      if (s.retryAfter !== undefined && t.retryAfter !== undefined) {
        sets.push(`${q.ident(t.retryAfter)} = ${time(s.retryAfter)}`);
      }
      // A lease held until a backoff ends (no retry_after column to hold it): the lease moves there.
      if (s.holdUntil !== undefined && t.lease !== undefined)
        sets.push(`${q.ident(t.lease)} = ${time(s.holdUntil)}`);
      else if (s.clearLease) clearLease();
      sets.push(...this.recordSets(p, s, false));
    } else {
      if (!('group' in s.target)) throw new Error('a dead-letter table move takes moveToDeadLetter');
      sets.push(`${q.ident(q.role(t.group, 'group'))} = ${p.bind(s.target.group)}`);
      if (s.countAttempt && t.attempt !== undefined) sets.push(q.countAttempt());
      clearLease();
      sets.push(...this.recordSets(p, s, true));
    }
    return sets;
  }

  /**
   * One settlement, with `AND lease = token` where it carries a token: finish (delete, or stamp
   * `processed_at`), return, or the move to the dead-letter group. A return with nothing to write
   * selects the row, so its count still says whether the row (and its lease) was there. The move
   * to a dead-letter table is {@link moveToDeadLetter}.
   */
  settle(s: Settlement): Statement {
    const q = this.q;
    const p = q.params();
    if (s.kind === 'finish' && this.t.processedAt === undefined) {
      return p.statement(this.s.delete({ table: q.table, where: this.owned(p, s.id, s.token) }));
    }
    const set = this.sets(p, s);
    const where = this.owned(p, s.id, s.token, 'q');
    if (set.length === 0)
      return p.statement(`SELECT 1 AS ${q.ident('one')} FROM ${q.table} q WHERE ${where}`);
    return p.statement(this.s.update({ table: q.table, alias: 'q', set, where }));
  }

  /**
   * Row lock form, before a move to a dead-letter table: the row's last delivery counted
   * (`attempt = attempt + 1`), in the move's transaction. Undefined where there is nothing to count.
   */
  countBeforeMove(s: Settlement): Statement | undefined {
    if (s.kind !== 'deadLetter' || s.countAttempt !== true || this.t.attempt === undefined) return undefined;
    return this.settle({ kind: 'return', id: s.id, now: s.now, countAttempt: true, clearLease: false });
  }

  /**
   * The move to a dead-letter table of the same columns: one statement where {@link deleteInto}
   * writes one, else a copy, then a delete under the same condition, which the runner runs in one
   * transaction. The last statement's count is the answer. With `record` (the settlement's failure
   * and instant), a table that keeps the failure record copies by column lists and writes the record
   * in the copy; without its columns the copy is `SELECT *`.
   */
  moveToDeadLetter(id: unknown, token: Date | undefined, table: string, record?: RecordWrite): Statement[] {
    const q = this.q;
    const dead = this.s.tableName(validateIdentifier(table, 'dead-letter table', this.t.table, true));
    const one = q.params();
    const where = this.owned(one, id, token);
    const written = this.recordColumns(record, true);
    const moved =
      written.length === 0
        ? this.deleteInto(where, dead)
        : this.deleteIntoRecord(
            where,
            dead,
            this.copied(record, true),
            written,
            this.recordValues(one, record, true),
          );
    if (moved !== undefined) return [one.statement(moved)];
    const copy = q.params();
    const remove = q.params();
    // The values first: positional placeholders follow the text, and the SELECT list comes first.
    const copied = this.copied(record, true);
    const into =
      written.length === 0
        ? `${dead} SELECT *`
        : `${dead} (${[...copied, ...written].join(', ')}) SELECT ${[...copied, ...this.recordValues(copy, record, true)].join(', ')}`;
    return [
      copy.statement(`INSERT INTO ${into} FROM ${q.table} WHERE ${this.owned(copy, id, token)}`),
      remove.statement(this.s.delete({ table: q.table, where: this.owned(remove, id, token) })),
    ];
  }

  /**
   * The rows of the queue table `where` selects, deleted and written into `dead` (quoted) in one
   * statement, where the database can (`WITH .. DELETE .. RETURNING *`, `OUTPUT deleted.* INTO`).
   * Default: undefined.
   */
  deleteInto(where: string, dead: string): string | undefined {
    void where;
    void dead;
    return undefined;
  }

  /**
   * {@link deleteInto} for a table that keeps the failure record: `copied` the columns (quoted)
   * copied as they are, `written` the record's columns (quoted) that take `values` (their SQL,
   * placeholders). Default: undefined, the copy by column lists, then the delete.
   */
  deleteIntoRecord(
    where: string,
    dead: string,
    copied: readonly string[],
    written: readonly string[],
    values: readonly string[],
  ): string | undefined {
    void [where, dead, copied, written, values];
    return undefined;
  }
}
