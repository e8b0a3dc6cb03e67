import type { FinishSettlement } from '@sqlinbox/core';
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

/** The lease form's claim, its extensions and its batched acks. */
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
}
