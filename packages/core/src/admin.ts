import type {
  AdminOptions,
  AdminPage,
  AdminRow,
  AdminTableOptions,
  ChangeReport,
  Selection,
  SkipReason,
} from './admin-types.js';
import {
  type CancelOptions,
  type CancelReport,
  cancelReport,
  leaveCancelled,
  recordCancels,
} from './cancel.js';
import {
  cancelReason,
  controlOps,
  type PausedState,
  type PauseScope,
  readPaused,
  setPaused,
} from './control.js';
import { type AnyTable, keyOf, namedColumns } from './description.js';
import type {
  Adapter,
  AdminOps,
  BeginOptions,
  PickQuery,
  QueueStats,
  RowState,
  TableOps,
} from './dialect.js';
import type { Connection, Row } from './driver.js';
import { ConfigError } from './errors.js';
import { type FlowNode, type FlowParentRef, flowParents, flowTree } from './flows/tree.js';
import { consoleLogger } from './logger.js';
import {
  decodeResult,
  needResult,
  type ResultOf,
  type ResultWaitOptions,
  type RowResult,
  resultOn,
} from './result.js';
import { ResultWaits } from './result-wait.js';
import { dropStepsOf } from './steps.js';

export type {
  AdminOptions,
  AdminPage,
  AdminRow,
  AdminTableOptions,
  ChangeReport,
  Selection,
  SkipReason,
} from './admin-types.js';

/**
 * Operates a queue table while brokers run: counts, lists, shows, requeues dead letters, deletes
 * and reschedules rows. It never changes a row in work: a live lease, a row another transaction
 * locks (row lock form) and a row whose advisory key another session holds are left alone and
 * reported. Every statement is the dialect's; the adapter's pool lends one connection per call.
 */
export class Admin {
  private readonly preview: number;
  private readonly checked = new Set<string>();
  private readonly waits: ResultWaits;

  constructor(
    private readonly adapter: Adapter,
    opts: AdminOptions = {},
  ) {
    this.preview = opts.preview ?? 120;
    this.waits = new ResultWaits(adapter, opts.logger ?? consoleLogger());
  }

  /**
   * Counts by state, with rows in work in every form the database can see (see
   * {@link QueueStats.inWorkSeen}) and the age of the oldest ready row.
   */
  async stats(table: AnyTable, opts: AdminTableOptions = {}): Promise<QueueStats> {
    const stats = await this.withConn(table, opts, (conn, ops) =>
      ops.stats(conn, new Date(), { inWork: true }),
    );
    if (table.control === undefined) return stats;
    return { ...stats, paused: await this.paused(table) };
  }

  /**
   * Pauses the queue, or one FIFO group of it (`scope.group`), in the table's control table (its
   * description's `control`): every broker subscribed to it starts no handler of it within a
   * second; handlers in work finish and settle. Pausing twice is one pause.
   */
  async pause(table: AnyTable, scope: PauseScope = {}): Promise<void> {
    await setPaused(this.adapter.dialect, this.adapter.pool, table, true, scope);
  }

  /** Ends a pause (the queue's, or the group's): brokers claim its rows again within a second. */
  async resume(table: AnyTable, scope: PauseScope = {}): Promise<void> {
    await setPaused(this.adapter.dialect, this.adapter.pool, table, false, scope);
  }

  /** What is paused of the queue: the whole queue, and the groups. */
  paused(table: AnyTable): Promise<PausedState> {
    return readPaused(this.adapter.dialect, this.adapter.pool, table);
  }

  /**
   * Cancels rows by id, in one transaction (the table declares `control`): a row not in work (ready
   * or delayed) leaves at once as cancelled, to `deadLetter` where it is given (failure record
   * `errorClass` `cancelled`, `lastError` the reason) or dropped; for a row in work a cancel is
   * recorded, and the broker running it aborts its `ctx.signal` with a `CancelledError` within a
   * second and settles it as cancelled, whatever the handler answers. Never retried.
   */
  async cancel(
    table: AnyTable,
    selection: { readonly ids: readonly unknown[] },
    opts: CancelOptions = {},
  ): Promise<CancelReport> {
    const control = controlOps(this.adapter.dialect, table, this.adapter.dialect.prepare(table));
    const reason = cancelReason(table.table, opts.reason);
    const signalled: unknown[] = [];
    const report = await this.change(
      table,
      { ids: selection.ids },
      { deadLetter: opts.deadLetter },
      false,
      async (conn, ops, ids) =>
        dropStepsOf(conn, table, ops, await leaveCancelled(conn, ops, ids, opts.deadLetter, reason)),
      async (conn, ops, left) => {
        signalled.push(...(await recordCancels(conn, table, ops, control, left, reason)));
      },
    );
    return cancelReport(report, signalled);
  }

  /**
   * Rows in one state, in id order, after `after` (keyset paging). In the row lock and advisory
   * forms a row in work is told from a ready one by trying its lock, so a page may hold fewer than
   * `limit` rows; `next` is undefined once the table has no more. `group` and `key` keep only the
   * rows of that FIFO group or unique key (the table must have the column).
   * Defaults: state `ready`, from the first row, limit 50.
   */
  async list(
    table: AnyTable,
    opts: AdminTableOptions & {
      state?: RowState | 'all';
      after?: unknown;
      limit?: number;
      group?: string;
      key?: string;
    } = {},
  ): Promise<AdminPage> {
    const state = opts.state ?? 'ready';
    const limit = opts.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new ConfigError(`list limit must be a whole number of rows, at least 1 (got ${limit})`, {
        table: table.table,
      });
    }
    if (opts.group !== undefined && table.group === undefined)
      throw new ConfigError('list by group, but the table has no group column', {
        table: table.table,
        fix: 'describe the group column, or list without a group',
      });
    if (opts.key !== undefined && table.uniqueKey === undefined)
      throw new ConfigError('list by key, but the table has no uniqueKey column', {
        table: table.table,
        fix: 'describe the uniqueKey column, or list without a key',
      });
    return this.withConn(table, opts, async (conn, ops) => {
      const probed = table.form !== 'lease' && (state === 'ready' || state === 'inWork' || state === 'all');
      const sqlState = probed && state === 'inWork' ? 'ready' : state;
      const found = await list(ops)(conn, {
        state: sqlState,
        limit,
        now: new Date(),
        ...(opts.after === undefined ? {} : { after: opts.after }),
        ...(opts.group === undefined ? {} : { group: opts.group }),
        ...(opts.key === undefined ? {} : { key: opts.key }),
      });
      const busy = probed ? await this.inWork(conn, table, ops, found) : new Set<string>();
      const rows = found
        .map((r) => this.toRow(table, r, busy))
        .filter((r) => state === 'all' || r.state === state);
      const last = found[found.length - 1];
      return { rows, next: found.length < limit || last === undefined ? undefined : last[table.id.column] };
    });
  }

  /**
   * The flow below row `id` as a tree (the table declares `flows`), as `Flows.tree` answers it:
   * each node's name, id and row state (`waiting` for a parent held for its children), its edge to
   * the node above, and a parent's count of children not yet settled. A row the table has no more
   * reads `missing`; its children, where edges name any, are still shown.
   */
  async tree(table: AnyTable, id: unknown, opts: AdminTableOptions = {}): Promise<FlowNode> {
    return this.withConn(table, opts, (conn, ops) =>
      flowTree(conn, table, ops, this.adapter.dialect.name, id),
    );
  }

  /**
   * The parents of row `id` in flows (the table declares `flows`): each parent's id, the name the
   * row has under it, and the edge's state. Empty for a row that is no flow's child.
   */
  async flowParents(table: AnyTable, id: unknown, opts: AdminTableOptions = {}): Promise<FlowParentRef[]> {
    return this.withConn(table, opts, (conn, ops) =>
      flowParents(conn, table, ops, this.adapter.dialect.name, id),
    );
  }

  /** One row by id, from the queue table or else the dead-letter table; null when neither has it. */
  async get(table: AnyTable, id: unknown, opts: AdminTableOptions = {}): Promise<AdminRow | null> {
    return this.withConn(table, opts, (conn, ops) => this.getOn(conn, table, ops, id));
  }

  /**
   * Row `id`'s result: `processed` with the value its handler acked with (undefined where it kept
   * none), `pending`, `dead` (given the table's dead letter) or `missing`. The table must declare a
   * result column.
   */
  async result<D extends AnyTable>(
    table: D,
    id: unknown,
    opts: AdminTableOptions = {},
  ): Promise<RowResult<ResultOf<D>>> {
    needResult(table);
    return this.withConn(
      table,
      opts,
      (conn, ops) => resultOn(conn, table, ops, id) as Promise<RowResult<ResultOf<D>>>,
    );
  }

  /**
   * Waits for row `id` to be processed and answers its result's value (see `broker.result`). Where
   * the adapter has a wake-up channel (PostgreSQL), the wait listens for the table's settlement
   * notifications, as a broker's does, so a row settled by any process answers it at once; its
   * reads in between are a fallback. The adapter's listening connection is closed a moment after
   * the admin's last wait ends (and at {@link Admin.close}), unless a broker on the same adapter
   * still listens on it. Elsewhere the wait reads the row until it is processed.
   */
  async waitResult<D extends AnyTable>(
    table: D,
    id: unknown,
    opts: ResultWaitOptions = {},
  ): Promise<ResultOf<D> | undefined> {
    return this.waits.wait(table, id, opts, () => this.result(table, id, opts)) as Promise<
      ResultOf<D> | undefined
    >;
  }

  /**
   * Stops listening for settlement notifications and closes the adapter's listening connection
   * where nothing else listens on it (a broker on the same adapter keeps its own). Waits in
   * progress, and later ones, go on by reading the row. The pool stays the caller's: `close`
   * neither ends it nor stops the admin's other calls.
   */
  async close(): Promise<void> {
    await this.waits.close();
    await this.adapter.wakeup?.closeIdle?.();
  }

  /**
   * Puts dead letters back in the queue with the attempt reset to 0 (no delivery started) and `retry_after` cleared: a
   * dead-letter group's rows get the group `toGroup` (default null: no group, since the move to
   * the dead-letter group overwrote the original), a dead-letter table's rows move back into the
   * queue table in one transaction. `deadLetter` is required.
   */
  async requeue(
    table: AnyTable,
    selection: Selection,
    opts: AdminTableOptions & { toGroup?: string | null },
  ): Promise<ChangeReport> {
    if (opts.deadLetter === undefined) {
      throw new ConfigError('requeue needs the dead-letter group or table', {
        table: table.table,
        fix: 'pass { deadLetter: { group } } or { deadLetter: { table } }',
      });
    }
    const toGroup = opts.toGroup ?? null;
    if (toGroup !== null && table.group === undefined) {
      throw new ConfigError('requeue into a group, but the table has no group column', {
        table: table.table,
      });
    }
    return this.change(table, selection, opts, true, (conn, ops, ids) =>
      need(ops, 'requeue')(conn, ids, { toGroup }),
    );
  }

  /**
   * Deletes rows that are not in work: live rows (default), or with `dead: true` dead letters
   * (from the dead-letter group or table).
   */
  async remove(
    table: AnyTable,
    selection: Selection,
    opts: AdminTableOptions & { dead?: boolean } = {},
  ): Promise<ChangeReport> {
    const dead = opts.dead ?? false;
    if (dead && opts.deadLetter === undefined) {
      throw new ConfigError('removing dead letters needs the dead-letter group or table', {
        table: table.table,
      });
    }
    // Live rows leave with their step records (a dead letter's went when it died).
    return this.change(table, selection, opts, dead, async (conn, ops, ids) => {
      const gone = await need(ops, 'remove')(conn, ids, { dead });
      return dead ? gone : dropStepsOf(conn, table, ops, gone);
    });
  }

  /** Sets `retry_after` of live rows that are not in work: they are not due before `at`. */
  async reschedule(
    table: AnyTable,
    selection: Selection,
    at: Date,
    opts: AdminTableOptions = {},
  ): Promise<ChangeReport> {
    if (table.retryAfter === undefined) {
      throw new ConfigError('reschedule needs a retryAfter column', {
        table: table.table,
        fix: 'describe the retry_after column',
      });
    }
    if (!(at instanceof Date) || Number.isNaN(at.getTime())) {
      throw new ConfigError('reschedule needs a valid Date', { table: table.table });
    }
    return this.change(table, selection, opts, false, (conn, ops, ids) =>
      need(ops, 'reschedule')(conn, ids, at),
    );
  }

  // -------------------------------------------------------------------------------------------

  private async withConn<T>(
    table: AnyTable,
    opts: AdminTableOptions,
    body: (conn: Connection, ops: TableOps) => Promise<T>,
  ): Promise<T> {
    const { dialect, pool } = this.adapter;
    const ops = dialect.prepare(table, { deadLetter: opts.deadLetter });
    const conn = await pool.acquire();
    let result: T;
    try {
      await this.check(conn, table, opts);
      result = await body(conn, ops);
    } catch (err) {
      // The session may be dead, or inside the transaction of a failed read: closed, not returned.
      await pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    pool.release(conn);
    return result;
  }

  /** The table and its dead-letter table exist and have every column the description names. */
  private async check(conn: Connection, table: AnyTable, opts: AdminTableOptions): Promise<void> {
    const dl = opts.deadLetter;
    const dlq = dl !== undefined && 'table' in dl ? dl.table : undefined;
    const key = `${table.table}\u0000${dlq ?? ''}`;
    if (this.checked.has(key)) return;
    const { dialect } = this.adapter;
    if (!dialect.capabilities.forms.includes(table.form)) {
      const why = dialect.capabilities.formsRefused?.[table.form];
      const message = `${dialect.name} does not take the ${table.form} form${why === undefined ? '' : `: ${why}`}`;
      throw new ConfigError(message, { table: table.table });
    }
    for (const name of dlq === undefined ? [table.table] : [table.table, dlq]) {
      const columns = await dialect.describeTable(conn, name);
      if (columns === null) {
        throw new ConfigError('no such table', { table: name, fix: 'check the table name and the database' });
      }
      const have = new Set(columns.map((c) => c.name.toLowerCase()));
      for (const { column, role } of namedColumns(table)) {
        if (!have.has(column.toLowerCase())) {
          throw new ConfigError(`the ${role} column is missing`, { table: name, column });
        }
      }
    }
    if (dl !== undefined && 'group' in dl && table.group === undefined) {
      throw new ConfigError('a dead-letter group needs a group column', { table: table.table });
    }
    this.checked.add(key);
  }

  private async getOn(
    conn: Connection,
    table: AnyTable,
    ops: TableOps,
    id: unknown,
  ): Promise<AdminRow | null> {
    const now = new Date();
    let found = await list(ops)(conn, { state: 'all', ids: [id], limit: 1, now });
    if (found.length === 0) found = await list(ops)(conn, { state: 'dead', ids: [id], limit: 1, now });
    const row = found[0];
    if (row === undefined) return null;
    const busy = table.form === 'lease' ? new Set<string>() : await this.inWork(conn, table, ops, found);
    return this.toRow(table, row, busy);
  }

  /**
   * The ids (as text) of rows SQL reads as ready that are in work: in the row lock form the rows a
   * `SKIP LOCKED` read inside a rolled-back transaction passes over; in the advisory form the
   * rows whose key this connection cannot lock (each one taken is released at once).
   */
  private async inWork(conn: Connection, table: AnyTable, ops: TableOps, rows: Row[]): Promise<Set<string>> {
    const ready = rows.filter((r) => r.sqlinbox_state === 'ready');
    const busy = new Set<string>();
    if (ready.length === 0) return busy;
    const idOf = (r: Row) => r[table.id.column];
    if (table.form === 'rowlock') {
      const { dialect } = this.adapter;
      await dialect.begin(conn, this.beginOptions(table));
      try {
        const free = await need(ops, 'pick')(conn, { dead: false, ids: ready.map(idOf), now: new Date() });
        const open = new Set(free.map((r) => String(idOf(r))));
        for (const r of ready) if (!open.has(String(idOf(r)))) busy.add(String(idOf(r)));
      } finally {
        await dialect.rollback(conn);
      }
    } else if (table.form === 'advisory') {
      for (const r of ready) {
        const key = keyOf(table, r);
        if (await this.lockKey(conn, table, ops, key)) await this.unlockKey(conn, table, ops, key);
        else busy.add(String(idOf(r)));
      }
    }
    return busy;
  }

  private lockKey(conn: Connection, table: AnyTable, ops: TableOps, key: string): Promise<boolean> {
    return table.lock !== undefined ? table.lock(conn, key) : ops.advisory.lock(conn, key);
  }

  private unlockKey(conn: Connection, table: AnyTable, ops: TableOps, key: string): Promise<boolean> {
    return table.unlock !== undefined ? table.unlock(conn, key) : ops.advisory.unlock(conn, key);
  }

  /** A change's transaction: read committed where the database has levels, SQLite's `immediate`. */
  private beginOptions(table: AnyTable): BeginOptions {
    const caps = this.adapter.dialect.capabilities;
    if (caps.transactionModes.includes('immediate')) return { mode: 'immediate' };
    if (table.isolation !== undefined) return { isolation: table.isolation };
    return caps.isolationLevels.includes('read_committed') ? { isolation: 'read_committed' } : {};
  }

  /**
   * One change in one transaction: picks the rows in scope that no one holds (the dialect's
   * locking read leaves out live leases and rows other transactions lock), takes the advisory key
   * of each live row in the advisory form and leaves out the ones held elsewhere, applies the
   * change to what is left, runs `rest` (if given) with the ids asked for that it did not change,
   * commits, then releases the keys. Ids asked for by name and left alone are reported with the reason.
   */
  private async change(
    table: AnyTable,
    selection: Selection,
    opts: AdminTableOptions,
    dead: boolean,
    apply: (conn: Connection, ops: TableOps, ids: readonly unknown[]) => Promise<unknown[]>,
    rest?: (conn: Connection, ops: TableOps, left: readonly unknown[]) => Promise<void>,
  ): Promise<ChangeReport> {
    const ids = 'ids' in selection ? selection.ids : undefined;
    if (ids !== undefined && ids.length === 0) return { changed: [], skipped: [] };
    const group = 'group' in selection ? selection.group : undefined;
    const { dialect, pool } = this.adapter;
    const ops = dialect.prepare(table, { deadLetter: opts.deadLetter });
    const conn = await pool.acquire();
    let destroyed = false;
    let committing = false;
    const held: string[] = [];
    let changed: unknown[] = [];
    try {
      await this.check(conn, table, opts);
      await dialect.begin(conn, this.beginOptions(table));
      try {
        const picked = await this.pickInScope(conn, table, ops, { dead, ids, group, now: new Date() });
        const targets: unknown[] = [];
        for (const r of picked) {
          if (table.form === 'advisory' && !dead) {
            const key = keyOf(table, r);
            if (!(await this.lockKey(conn, table, ops, key))) continue;
            held.push(key);
          }
          targets.push(r[table.id.column]);
        }
        changed = targets.length === 0 ? [] : await apply(conn, ops, targets);
        if (rest !== undefined && ids !== undefined) {
          const done = new Set(changed.map(String));
          await rest(
            conn,
            ops,
            ids.filter((id) => !done.has(String(id))),
          );
        }
        committing = true;
        await dialect.commit(conn);
      } catch (err) {
        // Back to the pool only once a ROLLBACK has confirmed the session holds no transaction; a
        // failed COMMIT or ROLLBACK leaves it unknown: closed (with its keys), never returned.
        const clean =
          !committing &&
          (await dialect.rollback(conn).then(
            () => true,
            () => false,
          ));
        if (!clean) {
          destroyed = true;
          await pool.destroy(conn).catch(() => undefined);
        }
        throw err;
      } finally {
        for (const key of held) {
          if (destroyed) break;
          const ok = await this.unlockKey(conn, table, ops, key).catch(() => false);
          if (!ok) {
            // A release the database does not confirm closes the connection, and its session's locks.
            destroyed = true;
            await pool.destroy(conn);
          }
        }
      }
      const skipped: { id: unknown; reason: SkipReason }[] = [];
      if (ids !== undefined && !destroyed) {
        const done = new Set(changed.map(String));
        for (const id of ids) {
          if (done.has(String(id))) continue;
          const row = await this.getOn(conn, table, ops, id);
          skipped.push({ id, reason: reasonOf(row, dead) });
        }
      }
      return { changed, skipped };
    } finally {
      if (!destroyed) pool.release(conn);
    }
  }

  /**
   * The change's locking pick, taken again for the rows in scope it passed over while a plain
   * read still shows them there (dead, or live and unclaimed: ready or delayed). A lock that is
   * not a delivery's is brief: InnoDB locks each row a claim's scan reads, dead letters included,
   * until the claim finds it does not match, and another change holds its rows until it commits.
   * A row still locked after the pauses (about 0.1 s in all) is in work, and left out.
   */
  private async pickInScope(conn: Connection, table: AnyTable, ops: TableOps, q: PickQuery): Promise<Row[]> {
    const pick = need(ops, 'pick');
    const idOf = (r: Row) => r[table.id.column];
    const picked = await pick(conn, q);
    const have = new Set(picked.map((r) => String(idOf(r))));
    const passedOver = (rows: Row[]) => rows.map(idOf).filter((id) => !have.has(String(id)));
    if (q.ids?.every((id) => have.has(String(id)))) return picked;
    // The whole scope is read once; later rounds read only the rows still passed over.
    let missing = passedOver(await this.inScope(conn, table, ops, q));
    for (const pause of PICK_PAUSES_MS) {
      if (missing.length === 0) break;
      await sleep(pause);
      for (const r of await pick(conn, { ...q, ids: missing, now: new Date() })) {
        if (have.has(String(idOf(r)))) continue;
        have.add(String(idOf(r)));
        picked.push(r);
      }
      const left = missing.filter((id) => !have.has(String(id)));
      missing =
        left.length === 0 ? [] : passedOver(await this.inScope(conn, table, ops, { ...q, ids: left }));
    }
    return picked;
  }

  /** The rows a pick would take if none were locked, read without locks (a page at a time). */
  private async inScope(conn: Connection, table: AnyTable, ops: TableOps, q: PickQuery): Promise<Row[]> {
    const found: Row[] = [];
    const now = new Date();
    let after: unknown;
    for (;;) {
      const page = await list(ops)(conn, {
        state: q.dead ? 'dead' : 'all',
        ids: q.ids,
        after,
        limit: 1000,
        now,
      });
      for (const r of page) {
        const state = String(r.sqlinbox_state);
        if (!q.dead && state !== 'ready' && state !== 'delayed') continue;
        if (q.group !== undefined && (table.group === undefined || String(r[table.group]) !== q.group))
          continue;
        found.push(r);
      }
      if (page.length < 1000) return found;
      after = page[page.length - 1]?.[table.id.column];
    }
  }

  private toRow(table: AnyTable, r: Row, busy: ReadonlySet<string>): AdminRow {
    const id = r[table.id.column];
    let state = String(r.sqlinbox_state) as RowState;
    if (state === 'ready' && busy.has(String(id))) state = 'inWork';
    const { preview, truncated } = previewOf(
      table.payload === undefined ? undefined : r[table.payload.column],
      this.preview,
    );
    const { sqlinbox_state: _, ...row } = r;
    return {
      id,
      state,
      attempt:
        table.attempt === undefined || r[table.attempt.column] == null
          ? null
          : Number(r[table.attempt.column]),
      retryAfter: table.retryAfter === undefined ? null : instant(r[table.retryAfter]),
      lockedUntil: table.lease === undefined ? null : instant(r[table.lease]),
      group: table.group === undefined || r[table.group] == null ? null : String(r[table.group]),
      processedAt: table.processedAt === undefined ? null : instant(r[table.processedAt]),
      lastError: textOf(table.lastError, r),
      errorClass: textOf(table.errorClass, r),
      failedAt: table.failedAt === undefined ? null : instant(r[table.failedAt]),
      createdAt: table.createdAt === undefined ? null : instant(r[table.createdAt]),
      ...(table.result === undefined ? {} : { result: decodeResult(r[table.result]) }),
      preview,
      truncated,
      row,
    };
  }
}

/** A text column's value, or null where the table has no such column or the row holds none. */
function textOf(column: string | undefined, r: Row): string | null {
  const v = column === undefined ? undefined : r[column];
  return v == null ? null : String(v);
}

function reasonOf(row: AdminRow | null, dead: boolean): SkipReason {
  if (row === null) return 'not-found';
  if (dead && row.state !== 'dead') return 'not-dead';
  if (!dead && row.state === 'dead') return 'dead';
  if (row.state === 'done') return 'done';
  return 'in-work';
}

function need<K extends keyof AdminOps>(ops: TableOps, member: K): AdminOps[K] {
  const admin = ops.admin;
  if (admin === undefined) {
    throw new ConfigError(`the dialect has no admin statement ${member}`, {
      fix: 'use a dialect that implements the admin feature of TableOps',
    });
  }
  return (admin[member] as (...args: unknown[]) => unknown).bind(admin) as AdminOps[K];
}

const list = (ops: TableOps) => need(ops, 'list');

/** The pauses before a change's pick is taken again for rows in scope it passed over. */
const PICK_PAUSES_MS = [1, 2, 4, 8, 16, 32, 32];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An instant column's value (drivers answer Date, epoch milliseconds or text) as a Date. */
export function instant(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  if (typeof v === 'number' || typeof v === 'bigint') return new Date(Number(v));
  const s = String(v);
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The first `n` characters of a payload: text as is, bytes read as UTF-8, anything else as JSON. */
export function previewOf(v: unknown, n: number): { preview: string; truncated: boolean } {
  let text: string;
  if (v === null || v === undefined) text = '';
  else if (typeof v === 'string') text = v;
  else if (v instanceof Uint8Array) text = new TextDecoder().decode(v);
  else text = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? '';
  const chars = [...text];
  return chars.length > n
    ? { preview: chars.slice(0, n).join(''), truncated: true }
    : { preview: text, truncated: false };
}
