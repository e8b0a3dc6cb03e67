import type { Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/** The row lock form's claim: a locking select inside the engine's transaction. */
export class RowLockStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * Up to `n` due rows (FIFO: group heads) in claim order, locked, rows other transactions hold
   * skipped. A FIFO table's dialect adds its group guard ({@link FifoStatements.headGuard}).
   */
  claim(n: number, now: Date | null): Statement {
    const p = this.q.params();
    return p.statement(this.q.claimSelect(p, n, now, 'q.*'));
  }
}

/** The FIFO guard a claim takes for each group head it claimed, where the claim's select alone cannot. */
export class FifoStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * The FIFO guard of a claimed head `id` of `group` (never NULL), run after the claim's select in
   * its transaction: the runner keeps the head where {@link SqlTable.isHead} reads the answer so.
   * Default: undefined, no guard (the select's own head condition alone).
   */
  headGuard(id: unknown, group: unknown): Statement | undefined {
    void id;
    void group;
    return undefined;
  }

  /**
   * The guards of several claimed heads in one statement, where the dialect has one: each answer
   * row's `sqlinbox_k` is the index in `heads` of the head it is the guard's answer for. Default:
   * undefined, one {@link headGuard} per head.
   */
  headGuards(heads: readonly { readonly id: unknown; readonly group: unknown }[]): Statement | undefined {
    void heads;
    return undefined;
  }
}
