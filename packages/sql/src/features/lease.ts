import type { FinishSettlement, ReturnSettlement } from '@sqlinbox/core';
import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';
import { chunks } from '../quote.js';

/** A lease and the token its claim wrote. */
export interface HeldLease {
  /** The row's id. */
  readonly id: unknown;
  /** The lease the claim wrote. */
  readonly token: Date;
}

/**
 * A column a batched retry writes with each row's own value: its key (equal keys, equal values)
 * and its value bound.
 */
interface PerRow {
  /** The column (unquoted). */
  readonly column: string;
  /** The value as a key: two rows whose keys are equal write the same value. */
  key(st: ReturnSettlement): string | number;
  /** The value, bound. */
  bind(p: Params, st: ReturnSettlement): string;
}

/** Rows per batched retry statement at most: each `CASE` is read row by row. */
const RETURN_ROWS = 100;

/** The lease form's claim, its extensions and its batched acks and retries. */
export class LeaseStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * One statement: an update of up to `n` due rows (lease absent or ended at `now`; FIFO: heads),
   * writing `expiry` into the lease and counting the attempt, answering the rows after the update
   * (in no promised order: the runner sorts).
   */
  claim(n: number, now: Date, expiry: Date): Statement {
    const q = this.q;
    const p = q.params();
    const set = q.leaseSets(p, expiry);
    const pick = q.claimSelect(p, n, now, q.col('q', this.t.id.column));
    return p.statement(
      this.s.update({
        table: q.table,
        alias: 't',
        set,
        where: this.s.inSelect(q.col('t', this.t.id.column), pick),
        returning: '*',
      }),
    );
  }

  /**
   * The rows that still hold their tokens, on alias `a` (the bare columns without: a delete's).
   * The leases of one claim share its token, so the ids are grouped by token:
   * `lease = ? AND id IN (..)`, one group per token (`OR`ed, inside `id IN (every id)` where there
   * are several), so each token is bound once and the condition reads the primary key.
   */
  heldTokens(p: Params, leases: readonly HeldLease[], a?: string): string {
    const { q, s } = this;
    const id = q.col(a, this.t.id.column);
    const lease = q.col(a, q.role(this.t.lease, 'lease'));
    const groups = new Map<number, { token: Date; ids: unknown[] }>();
    for (const l of leases) {
      const g = groups.get(l.token.getTime());
      if (g === undefined) groups.set(l.token.getTime(), { token: l.token, ids: [l.id] });
      else g.ids.push(l.id);
    }
    const [only, ...more] = groups.values();
    if (more.length === 0) return `${lease} = ${s.time(p, only!.token)} AND ${s.inList(p, id, only!.ids)}`;
    const all = s.inList(
      p,
      id,
      leases.map((l) => l.id),
    );
    const each = [...groups.values()].map(
      (g) => `${lease} = ${s.time(p, g.token)} AND ${s.inList(p, id, g.ids)}`,
    );
    return `${all} AND ((${each.join(') OR (')}))`;
  }

  /** Moves each lease that still holds its token to `expiry`, answering the ids it moved. */
  extendLeases(leases: readonly HeldLease[], expiry: Date): Statement[] {
    const { q, s } = this;
    const lease = q.role(this.t.lease, 'lease');
    return chunks(leases, Math.floor((s.maxParams - 1) / 2)).map((part) => {
      const p = q.params();
      const set = [`${q.ident(lease)} = ${s.time(p, expiry)}`];
      return p.statement(
        s.update({
          table: q.table,
          alias: 't',
          set,
          where: this.heldTokens(p, part, 't'),
          returning: q.id,
        }),
      );
    });
  }

  /** Many lease-form acks: deletes (or stamps) the rows that still hold their tokens. */
  settleMany(settlements: readonly FinishSettlement[]): Statement[] {
    const { q, s, t } = this;
    return chunks(settlements, Math.floor((s.maxParams - 1) / 2)).map((part) => {
      const p = q.params();
      if (t.processedAt === undefined) {
        // DELETE takes no alias everywhere: the pairs compare the bare columns.
        const where = this.heldTokens(p, part);
        return p.statement(s.delete({ table: q.table, where, returning: q.id }));
      }
      const set = [
        `${q.ident(t.processedAt)} = ${s.time(p, part[0]!.now)}`,
        `${q.ident(q.role(t.lease, 'lease'))} = NULL`,
      ];
      return p.statement(
        s.update({
          table: q.table,
          alias: 't',
          set,
          where: this.heldTokens(p, part, 't'),
          returning: q.id,
        }),
      );
    });
  }

  /**
   * Many lease-form retries, answering the ids they changed: each row that still holds its token
   * returns (the lease cleared, or moved to its `holdUntil`; `retry_after`; the attempt counted or
   * taken back where the settlement says) with its own failure record. One statement per kind of
   * settlement (the columns it writes) and chunk of rows: a value every row of the statement
   * shares is bound once, else `CASE id WHEN .. THEN .. END` gives each row its own.
   */
  returnMany(settlements: readonly ReturnSettlement[]): Statement[] {
    const kinds = new Map<string, ReturnSettlement[]>();
    for (const st of settlements) {
      const k = this.returnKind(st);
      const same = kinds.get(k);
      if (same === undefined) kinds.set(k, [st]);
      else same.push(st);
    }
    const out: Statement[] = [];
    for (const same of kinds.values()) {
      const cols = this.perRow(same[0]!);
      // Worst case per row: its id twice and its token in the condition, an id and a value per column.
      const per = Math.floor((this.s.maxParams - cols.length) / (3 + 2 * cols.length));
      for (const part of chunks(same, Math.min(RETURN_ROWS, per))) {
        const p = this.q.params();
        const set = this.returnSets(p, part, cols);
        const where = this.heldTokens(p, part, 't');
        out.push(
          p.statement(this.s.update({ table: this.q.table, alias: 't', set, where, returning: this.q.id })),
        );
      }
    }
    return out;
  }

  /** The `SET` list of retries of one kind: the fixed assignments, then each per-row column. */
  private returnSets(p: Params, part: readonly ReturnSettlement[], cols: readonly PerRow[]): string[] {
    const { q, t } = this;
    const first = part[0]!;
    const set: string[] = [];
    if (first.countAttempt && t.attempt !== undefined) set.push(q.countAttempt());
    else if (first.uncountAttempt && t.attempt !== undefined) set.push(q.countAttempt(-1));
    if (first.holdUntil === undefined && first.clearLease && t.lease !== undefined)
      set.push(`${q.ident(t.lease)} = NULL`);
    const id = q.col('t', t.id.column);
    for (const c of cols) {
      const key = c.key(first);
      const value = part.every((st) => c.key(st) === key)
        ? c.bind(p, first)
        : `CASE ${id} ${part.map((st) => `WHEN ${p.bind(st.id)} THEN ${c.bind(p, st)}`).join(' ')} ELSE ${q.col('t', c.column)} END`;
      set.push(`${q.ident(c.column)} = ${value}`);
    }
    return set;
  }

  /** The columns a retry writes with a value of its own, in `SET` order. */
  private perRow(st: ReturnSettlement): PerRow[] {
    const { s, t } = this;
    const cols: PerRow[] = [];
    const time = (column: string, at: (st: ReturnSettlement) => Date) =>
      cols.push({ column, key: (x) => at(x).getTime(), bind: (p, x) => s.time(p, at(x)) });
    const text = (column: string, of: (st: ReturnSettlement) => string) =>
      cols.push({ column, key: of, bind: (p, x) => s.text(p, of(x)) });
    if (st.retryAfter !== undefined && t.retryAfter !== undefined) time(t.retryAfter, (x) => x.retryAfter!);
    if (st.holdUntil !== undefined && t.lease !== undefined) time(t.lease, (x) => x.holdUntil!);
    if (st.failure !== undefined) {
      if (t.lastError !== undefined) text(t.lastError, (x) => x.failure!.message);
      if (t.errorClass !== undefined) text(t.errorClass, (x) => x.failure!.name);
      if (t.failedAt !== undefined) time(t.failedAt, (x) => x.now);
    }
    return cols;
  }

  /** Which columns a retry writes: retries of one kind share a statement. */
  private returnKind(st: ReturnSettlement): string {
    const has = (v: unknown) => (v === undefined || v === false ? 0 : 1);
    return [st.countAttempt, st.uncountAttempt, st.clearLease, st.retryAfter, st.holdUntil, st.failure]
      .map(has)
      .join('');
  }
}
