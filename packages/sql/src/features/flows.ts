import type { ChildDeadPolicy, FlowTable } from '@sqlinbox/core';
import type { Params, Statement } from '../params.js';
import { Feature, type QueueSql } from '../queue.js';

/**
 * Flows (R-FLOW-6): the edge table, one row per (child, parent), its primary key
 * (queue_name, child_id, parent_id) so a settled child finds its edges by the key's prefix; and
 * the parents table, one row per parent with its count of children not yet settled, its primary
 * key (queue_name, parent_id). A sweep marks an edge settled only while it is still pending and
 * counts it off its parent's row in the same transaction: the count's row lock serializes the
 * children of one parent, so exactly one transaction sees it reach 0.
 */
export class FlowStatements<Q extends QueueSql = QueueSql> extends Feature<Q> {
  /**
   * The edge table's and the parents table's `CREATE TABLE`, where they do not exist, then the edge
   * table's index by parent (queue_name, parent_id), where it does not exist (so `migrate` adds it
   * to an edge table made before it was).
   */
  ddl(f: FlowTable): string[] {
    const s = this.s;
    const c = (name: string) => s.ident(name);
    const queue = s.controlQueueType ?? s.tickNameType;
    return [
      `${s.createTableOpen(f.edges)} (\n` +
        `  ${c('queue_name')} ${queue} NOT NULL,\n` +
        `  ${c('child_id')} ${s.tickNameType} NOT NULL,\n` +
        `  ${c('parent_id')} ${s.tickNameType} NOT NULL,\n` +
        `  ${c('child_name')} ${s.tickNameType} NOT NULL,\n` +
        `  ${c('state')} ${s.controlKindType} NOT NULL,\n` +
        `  ${c('error')} ${s.controlReasonType},\n` +
        `  ${c('settled_ms')} ${s.rateMsType},\n` +
        `  PRIMARY KEY (${c('queue_name')}, ${c('child_id')}, ${c('parent_id')})\n)`,
      `${s.createTableOpen(f.parents)} (\n` +
        `  ${c('queue_name')} ${queue} NOT NULL,\n` +
        `  ${c('parent_id')} ${s.tickNameType} NOT NULL,\n` +
        `  ${c('pending')} ${s.rateCountType} NOT NULL,\n` +
        `  ${c('dead')} ${s.rateCountType} NOT NULL,\n` +
        `  ${c('policy')} ${s.controlKindType} NOT NULL,\n` +
        `  ${c('woken')} ${s.rateCountType} NOT NULL,\n` +
        `  PRIMARY KEY (${c('queue_name')}, ${c('parent_id')})\n)`,
      // A parent's edges (its children): what children(), tree(), the sweep's settlement of a
      // parent's edges and the pruning read by parent, which the key (child first) cannot serve.
      ...s.createSideIndex(f.edges, 'by_parent', ['queue_name', 'parent_id']),
    ];
  }

  /** A parent's row: `pending` children, not woken. */
  insertParent(f: FlowTable, parent: string, pending: number, policy: ChildDeadPolicy): Statement {
    const s = this.s;
    const p = s.params();
    const cols = ['queue_name', 'parent_id', 'pending', 'dead', 'policy', 'woken'].map((n) => s.ident(n));
    const vals = [p.bind(f.name), p.bind(parent), p.bind(pending), '0', p.bind(policy), '0'];
    return p.statement(
      `INSERT INTO ${s.tableName(f.parents)} (${cols.join(', ')}) VALUES (${vals.join(', ')})`,
    );
  }

  /** One edge, pending. */
  insertEdge(f: FlowTable, parent: string, child: string, name: string): Statement {
    const s = this.s;
    const p = s.params();
    const cols = ['queue_name', 'child_id', 'parent_id', 'child_name', 'state'].map((n) => s.ident(n));
    const vals = [p.bind(f.name), p.bind(child), p.bind(parent), p.bind(name), "'pending'"];
    return p.statement(
      `INSERT INTO ${s.tableName(f.edges)} (${cols.join(', ')}) VALUES (${vals.join(', ')})`,
    );
  }

  /**
   * Pending edges of the children named, or (none named) the queue's first `limit` in key order,
   * after the child id `after` where one is given (the reconcile's cursor).
   */
  pendingEdges(
    f: FlowTable,
    children: readonly string[] | undefined,
    limit: number,
    after?: string,
  ): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    let where = `${this.queue(p, f)} AND ${c('state')} = 'pending'`;
    if (children !== undefined) where += ` AND ${s.inList(p, c('child_id'), children)}`;
    if (after !== undefined) where += ` AND ${c('child_id')} > ${p.bind(after)}`;
    return this.edgePage(p, f, where, limit);
  }

  /** A page of `f`'s edges matching `where`, in key order (child, then parent), a plain read. */
  private edgePage(p: Params, f: FlowTable, where: string, limit: number): Statement {
    const s = this.s;
    return s.plainRead(
      p.statement(
        s.select(p, {
          columns: this.edgeColumns(),
          table: `${s.tableName(f.edges)} f`,
          alias: 'f',
          where,
          order: `${s.ident('child_id')}, ${s.ident('parent_id')}`,
          limit,
        }),
      ),
    );
  }

  /** Marks a pending edge settled; changes nothing where it is settled already. */
  settleEdge(
    f: FlowTable,
    parent: string,
    child: string,
    state: 'done' | 'dead',
    error: string | null,
  ): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    const set = [
      `${c('state')} = ${p.bind(state)}`,
      `${c('error')} = ${error === null ? 'NULL' : s.text(p, error)}`,
      `${c('settled_ms')} = ${s.nowMs}`,
    ];
    const where = `${this.queue(p, f)} AND ${c('child_id')} = ${p.bind(child)} AND ${c('parent_id')} = ${p.bind(parent)} AND ${c('state')} = 'pending'`;
    return p.statement(s.update({ table: s.tableName(f.edges), alias: 'f', set, where }));
  }

  /** Marks the pending edges from `children` to `parent` done; changes none settled already. */
  settleEdges(f: FlowTable, parent: string, children: readonly string[]): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    const set = [`${c('state')} = 'done'`, `${c('settled_ms')} = ${s.nowMs}`];
    const where = `${this.queue(p, f)} AND ${c('parent_id')} = ${p.bind(parent)} AND ${s.inList(p, c('child_id'), children)} AND ${c('state')} = 'pending'`;
    return p.statement(s.update({ table: s.tableName(f.edges), alias: 'f', set, where }));
  }

  /** Counts `by` settled children (and, `dead`, one dead child) off the parent's row. */
  countDown(f: FlowTable, parent: string, dead: boolean, by = 1): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    const set = [`${c('pending')} = ${c('pending')} - ${by === 1 ? '1' : p.bind(by)}`];
    if (dead) set.push(`${c('dead')} = ${c('dead')} + 1`);
    const where = `${this.queue(p, f)} AND ${c('parent_id')} = ${p.bind(parent)}`;
    return p.statement(s.update({ table: s.tableName(f.parents), alias: 'f', set, where }));
  }

  /** Marks the parent woken, where it is not yet. */
  markWoken(f: FlowTable, parent: string): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    const where = `${this.queue(p, f)} AND ${c('parent_id')} = ${p.bind(parent)} AND ${c('woken')} = 0`;
    return p.statement(
      s.update({ table: s.tableName(f.parents), alias: 'f', set: [`${c('woken')} = 1`], where }),
    );
  }

  /** The edges whose `column` (`parent_id` or `child_id`) is one of `ids`. */
  edgesBy(f: FlowTable, column: 'parent_id' | 'child_id', ids: readonly string[]): Statement {
    const s = this.s;
    const p = s.params();
    const where = `${this.queue(p, f)} AND ${s.inList(p, s.ident(column), ids)}`;
    return s.plainRead(
      p.statement(`SELECT ${this.edgeColumns()} FROM ${s.tableName(f.edges)} WHERE ${where}`),
    );
  }

  /** The parents-table rows of the parents named (inside a transaction: the row the caller just updated). */
  parentsOf(f: FlowTable, parents: readonly string[]): Statement {
    const s = this.s;
    const p = s.params();
    const cols = ['parent_id', 'pending', 'dead', 'policy', 'woken'].map((n) => s.ident(n)).join(', ');
    const where = `${this.queue(p, f)} AND ${s.inList(p, s.ident('parent_id'), parents)}`;
    return p.statement(`SELECT ${cols} FROM ${s.tableName(f.parents)} WHERE ${where}`);
  }

  /**
   * Settled edges (`done` or `dead`), the queue's first `limit` in key order, after the edge
   * `after` where one is given: what retention reads to prune the edges whose rows are gone.
   */
  settledEdges(f: FlowTable, limit: number, after?: { child: string; parent: string }): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    let where = `${this.queue(p, f)} AND ${c('state')} <> 'pending'`;
    // The key's range starts at the cursor's child (an index seek), then leaves out the edges of
    // that child up to the cursor's parent.
    if (after !== undefined)
      where +=
        ` AND ${c('child_id')} >= ${p.bind(after.child)}` +
        ` AND (${c('child_id')} > ${p.bind(after.child)} OR ${c('parent_id')} > ${p.bind(after.parent)})`;
    return this.edgePage(p, f, where, limit);
  }

  /** Deletes the edges named by (child, parent) that are settled; a pending one stays. */
  deleteEdges(f: FlowTable, edges: readonly { child: string; parent: string }[]): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    // Bound in the text's order (positional placeholders): the queue, then each edge's pair.
    const byQueue = `${this.queue(p, f)} AND ${c('state')} <> 'pending'`;
    const byKey = edges.map(
      (e) => `(${c('child_id')} = ${p.bind(e.child)} AND ${c('parent_id')} = ${p.bind(e.parent)})`,
    );
    return p.statement(
      s.delete({ table: s.tableName(f.edges), where: `${byQueue} AND (${byKey.join(' OR ')})` }),
    );
  }

  /**
   * Parents-table rows of parents done waiting (woken, no child pending), the queue's first `limit`
   * in key order after the parent `after` where one is given: what retention reads to prune.
   */
  settledParents(f: FlowTable, limit: number, after?: string): Statement {
    const s = this.s;
    const p = s.params();
    const c = (name: string) => s.ident(name);
    let where = `${this.queue(p, f)} AND ${this.doneWaiting()}`;
    if (after !== undefined) where += ` AND ${c('parent_id')} > ${p.bind(after)}`;
    const cols = ['parent_id', 'pending', 'dead', 'policy', 'woken'].map((n) => s.ident(n)).join(', ');
    return s.plainRead(
      p.statement(
        s.select(p, {
          columns: cols,
          table: `${s.tableName(f.parents)} f`,
          alias: 'f',
          where,
          order: c('parent_id'),
          limit,
        }),
      ),
    );
  }

  /** Deletes the parents-table rows of the parents named that are done waiting. */
  deleteParents(f: FlowTable, parents: readonly string[]): Statement {
    const s = this.s;
    const p = s.params();
    const where = `${this.queue(p, f)} AND ${this.doneWaiting()} AND ${s.inList(p, s.ident('parent_id'), parents)}`;
    return p.statement(s.delete({ table: s.tableName(f.parents), where }));
  }

  /** A parents-table row done waiting: woken, and no child pending. */
  private doneWaiting(): string {
    const c = (name: string) => this.s.ident(name);
    return `${c('woken')} = 1 AND ${c('pending')} <= 0`;
  }

  private edgeColumns(): string {
    const s = this.s;
    return ['parent_id', 'child_id', 'child_name', 'state', 'error'].map((n) => s.ident(n)).join(', ');
  }

  private queue(p: Params, f: FlowTable): string {
    return `${this.s.ident('queue_name')} = ${p.bind(f.name)}`;
  }
}
