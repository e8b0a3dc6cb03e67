import { Admin } from '../admin.js';
import type { CancelOptions, CancelReport } from '../cancel.js';
import type { AnyTable, Queryable } from '../description.js';
import type { Adapter, DeadLetterTarget, TableOps } from '../dialect.js';
import type { Connection } from '../driver.js';
import { ConfigError, SqlInboxError } from '../errors.js';
import { type ChildDeadPolicy, type EdgeState, HELD_UNTIL } from '../flow-table.js';
import { silentLogger } from '../logger.js';
import { Publisher, type PublishOptions } from '../publish.js';
import { runTransaction } from '../transaction.js';
import { type FlowPruneReport, FlowPruner } from './prune.js';
import { flowParts, nodeStates } from './states.js';
import { byName, type FlowNode, flowTree } from './tree.js';

export type { FlowPruneReport } from './prune.js';
export type { FlowNode, FlowParentRef } from './tree.js';

/** Options of {@link Flows.prune}. */
export interface FlowPruneOptions {
  /**
   * The queue's dead letter, as its subscription declares it (`queue(t).deadLetter(..)`): a dead
   * job's edges stay while its row is kept there. Without it, a row moved to a dead-letter table
   * reads as gone. Default: none.
   */
  readonly deadLetter?: DeadLetterTarget;
  /** Rows each page reads (and each read of the queue's rows names) at most. Default 1,000. */
  readonly batchSize?: number;
}

/** One job of a flow: its message, and the jobs it runs after (its children). */
export interface FlowJob {
  /** The job's message, published into the flow's table. */
  readonly message: unknown;
  /**
   * The names of the jobs this one runs after: its children. It is published held and becomes due
   * once every one of them has settled (or at once, where one dies, as the policy says). Default:
   * none, due at once.
   */
  readonly after?: readonly string[];
  /** The job's publish options (`priority`, `group`, `id`, `columns`, ..). Default: none. */
  readonly options?: Omit<PublishOptions, 'tx' | 'notBefore'>;
  /**
   * The table the job goes in: the flow's own. Every job of a flow lives in the table `publish` is
   * given (its edges name rows of that table); a job naming another table is refused with a
   * `ConfigError` before anything is written. Default: the flow's table.
   */
  readonly table?: AnyTable;
}

/** A flow: named jobs and their edges, published in one transaction by {@link Flows.publish}. */
export interface FlowSpec {
  /** The jobs by name; a name is what `children()` reports a child under (at most 255 characters). */
  readonly jobs: Readonly<Record<string, FlowJob>>;
  /** What a parent does when a child dies (see `ChildDeadPolicy`). Default `'dead'`. */
  readonly onChildDead?: ChildDeadPolicy;
  /** Publishes inside this transaction (yours), so the flow commits with it. Default: one of its own. */
  readonly tx?: Queryable;
}

/** A child as its parent's handler reads it. */
export interface FlowChild {
  /** The name it was published under. */
  readonly name: string;
  /** Its id (as text). */
  readonly id: string;
  /** Its edge's state: not yet settled, processed, or dead. */
  readonly state: EdgeState;
  /** The value its handler acked with, where the table keeps results (and the row is still there). */
  readonly result: unknown;
  /** A dead child's last error, where the table keeps one. */
  readonly error: string | null;
}

/** A flow parent whose policy is `'fail'` read a child that died. */
export class FlowChildDeadError extends SqlInboxError {
  /** The dead children's names. */
  readonly children: string[];
  constructor(table: string, rowId: unknown, children: string[]) {
    super('FLOW_CHILD_DEAD', `${table} row ${String(rowId)}: flow child ${children.join(', ')} died`, {
      table,
      rowId,
    });
    this.children = children;
  }
}

/**
 * Flows of one adapter (R-FLOW-6): publish a parent with its children in one transaction, read a
 * parent's children from its handler, show a flow as a tree, cancel a flow. The parents wait in
 * the database; the brokers subscribed to the table wake them (see `FlowSweeper`).
 */
export class Flows {
  private readonly publisher: Publisher;

  constructor(private readonly adapter: Adapter) {
    this.publisher = new Publisher(adapter, adapter, silentLogger, () => undefined);
  }

  /**
   * Publishes the jobs of `spec` into `table` and their edges, in one transaction; answers each
   * job's id by name. A job with `after` waits, held, until those jobs settle.
   */
  async publish(table: AnyTable, spec: FlowSpec): Promise<Record<string, unknown>> {
    const ops = this.publisher.ops(table);
    const { f, flows } = flowParts(table, ops, this.adapter.dialect.name);
    const jobs = Object.entries(spec.jobs ?? {});
    const policy = spec.onChildDead ?? 'dead';
    if (!['fail', 'dead', 'continue'].includes(policy)) {
      throw new ConfigError(`onChildDead is 'fail', 'dead' or 'continue' (got ${String(policy)})`, {
        table: table.table,
      });
    }
    checkJobs(table.table, spec.jobs ?? {});
    for (const [name, j] of jobs) {
      const other = j.table?.table;
      if (other === undefined || other === table.table) continue;
      throw new ConfigError(
        `flow job ${name} names table ${other}, but a flow's jobs all live in the table it is published into, ${table.table}`,
        {
          table: table.table,
          fix: `publish ${name} into ${table.table} (one queue table carries several kinds of job, told apart by their message), or publish the job for ${other} from the handler of a job of ${table.table}, when it runs`,
        },
      );
    }
    const run = async (tx: Queryable): Promise<Record<string, unknown>> => {
      const ids: Record<string, unknown> = {};
      const plain = jobs.filter(([, j]) => (j.after ?? []).length === 0 && j.options === undefined);
      if (plain.length > 0) {
        const got = await this.publisher.publishMany(
          table,
          plain.map(([, j]) => j.message),
          { tx },
        );
        plain.forEach(([name], i) => {
          ids[name] = got[i];
        });
      }
      for (const [name, j] of jobs) {
        if (name in ids) continue;
        const held = (j.after ?? []).length > 0;
        const [id] = await this.publisher.publishMany(table, [j.message], {
          ...(j.options ?? {}),
          tx,
          ...(held ? { notBefore: HELD_UNTIL } : {}),
        });
        ids[name] = id;
      }
      const conn = tx as Connection;
      for (const [name, j] of jobs) {
        const after = j.after ?? [];
        if (after.length === 0) continue;
        await flows.insertParent(conn, f, String(ids[name]), after.length, policy);
        for (const child of after)
          await flows.insertEdge(conn, f, String(ids[name]), String(ids[child]), child);
      }
      return ids;
    };
    if (spec.tx !== undefined) return run(spec.tx);
    return runTransaction(this.adapter.dialect, this.adapter.pool, run, {
      mode: table.mode,
      isolation: table.isolation,
    });
  }

  /**
   * The children of parent `id`, each with its state, result and error; call it from the parent's
   * handler (`flows.children(table, ctx.id)`). Where the flow's policy is `'fail'` and a child died,
   * throws a `FlowChildDeadError` (so the delivery fails). `deadLetter`: the queue's, to read a
   * dead child's error from a dead-letter table.
   */
  async children(
    table: AnyTable,
    id: unknown,
    opts: { deadLetter?: DeadLetterTarget } = {},
  ): Promise<FlowChild[]> {
    return this.withConn(table, opts.deadLetter, async (conn, ops) => {
      const { f, flows } = flowParts(table, ops, this.adapter.dialect.name);
      const edges = await flows.edgesOf(conn, f, [String(id)]);
      const [parent] = await flows.parentsOf(conn, f, [String(id)]);
      const dead = edges.filter((e) => e.state === 'dead');
      if (parent?.policy === 'fail' && dead.length > 0) {
        throw new FlowChildDeadError(
          table.table,
          id,
          dead.map((e) => e.name),
        );
      }
      const states = await nodeStates(
        conn,
        table,
        ops,
        edges.map((e) => e.child),
      );
      return edges
        .map((e) => ({
          name: e.name,
          id: e.child,
          state: e.state,
          result: states.get(e.child)?.result,
          error: e.error ?? states.get(e.child)?.error ?? null,
        }))
        .sort(byName);
    });
  }

  /** The flow below row `id` as a tree: each node's row state, its edge, its count of children pending. */
  async tree(table: AnyTable, id: unknown, opts: { deadLetter?: DeadLetterTarget } = {}): Promise<FlowNode> {
    return this.withConn(table, opts.deadLetter, (conn, ops) =>
      flowTree(conn, table, ops, this.adapter.dialect.name, id),
    );
  }

  /**
   * Deletes the flow rows of `table` whose jobs' rows are gone (pruned, deleted at the ack or by
   * hand) from the table and its dead letter, by the rule a retention turn follows: an edge once it
   * is settled and its child's and its parent's rows are both gone; a parents-table row once the
   * parent is done waiting and its row is gone. Nothing a flow still in work reads goes. For a
   * table without a retention (with one, each retention turn does this). Reads the edge table, then
   * the parents table, through once, in pages of at most `batchSize`; answers what it deleted.
   */
  async prune(table: AnyTable, opts: FlowPruneOptions = {}): Promise<FlowPruneReport> {
    const batchSize = opts.batchSize ?? 1_000;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
      throw new ConfigError('flows.prune: batchSize must be a whole number from 1 to 100,000', {
        table: table.table,
      });
    }
    return this.withConn(table, opts.deadLetter, async (conn, ops) => {
      flowParts(table, ops, this.adapter.dialect.name);
      const pruner = FlowPruner.of(table, ops);
      if (pruner === undefined) {
        throw new ConfigError(`${this.adapter.dialect.name} cannot prune flow rows`, {
          table: table.table,
          fix: 'delete them by hand (by queue_name and ids), or use a dialect whose flow statements prune',
        });
      }
      return pruner.through(conn, batchSize);
    });
  }

  /**
   * Cancels the flow below row `id` (itself included) through `admin.cancel` (the table declares a
   * control table): every node that has not started leaves at once as cancelled; a node in work is
   * told to stop; settled nodes are left alone.
   */
  async cancel(table: AnyTable, id: unknown, opts: CancelOptions = {}): Promise<CancelReport> {
    const ids: string[] = [];
    const walk = (n: FlowNode) => {
      if (n.state !== 'done' && n.state !== 'dead' && n.state !== 'missing' && !ids.includes(n.id))
        ids.push(n.id);
      for (const c of n.children) walk(c);
    };
    walk(await this.tree(table, id, opts.deadLetter === undefined ? {} : { deadLetter: opts.deadLetter }));
    return new Admin(this.adapter).cancel(table, { ids }, opts);
  }

  private async withConn<R>(
    table: AnyTable,
    deadLetter: DeadLetterTarget | undefined,
    fn: (conn: Connection, ops: TableOps) => Promise<R>,
  ): Promise<R> {
    const ops = this.adapter.dialect.prepare(table, { deadLetter });
    const conn = await this.adapter.pool.acquire();
    try {
      const r = await fn(conn, ops);
      this.adapter.pool.release(conn);
      return r;
    } catch (err) {
      this.adapter.pool.release(conn);
      throw err;
    }
  }
}

/** Checks a flow's jobs: names known, no job after itself, no cycle. */
function checkJobs(table: string, jobs: Readonly<Record<string, FlowJob>>): void {
  const names = Object.keys(jobs);
  if (names.length === 0) throw new ConfigError('a flow has at least one job', { table });
  for (const [name, j] of Object.entries(jobs)) {
    if (name.length > 255)
      throw new ConfigError(`flow job name ${name.slice(0, 20)}.. is over 255 characters`, { table });
    const after = j.after ?? [];
    if (new Set(after).size !== after.length)
      throw new ConfigError(`flow job ${name} names a child twice`, { table });
    for (const c of after) {
      if (!(c in jobs))
        throw new ConfigError(`flow job ${name} runs after ${c}, which is not a job of the flow`, { table });
    }
  }
  const state = new Map<string, 1 | 2>();
  const visit = (n: string, path: string[]): void => {
    if (state.get(n) === 2) return;
    if (state.get(n) === 1)
      throw new ConfigError(`flow jobs form a cycle: ${[...path, n].join(' -> ')}`, { table });
    state.set(n, 1);
    for (const c of jobs[n]?.after ?? []) visit(c, [...path, n]);
    state.set(n, 2);
  };
  for (const n of names) visit(n, []);
}
