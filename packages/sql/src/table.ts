import type {
  AdminOps,
  Advisory,
  BatchSettleOps,
  Candidate,
  ConcurrencyOps,
  Connection,
  ControlOps,
  ControlRow,
  FinishSettlement,
  FlowOps,
  Insert,
  ListQuery,
  LockedTake,
  PickQuery,
  QueryResult,
  QueueStats,
  RateGrant,
  RateOps,
  RateReservation,
  RetentionOps,
  ReturnSettlement,
  Row,
  ScheduleOps,
  Settlement,
  StepsOps,
  TableOps,
} from '@sqlinbox/core';
import { flowOps } from './flow-ops.js';
import type { Statement } from './params.js';
import { chunks } from './quote.js';
import type { QueueStatements } from './statements.js';
import { stepsOps } from './steps-ops.js';
import { rateGrant, timeOf, truthy } from './values.js';

/** Keys a {@link SqlTable} locked on each connection and has not released. */
const held = new WeakMap<Connection, Set<string>>();

/** The column of a lock-and-take's answer that says whether the key was taken. */
const LOCKED = 'sqlinbox_locked';

/**
 * The keys the runner locked on `conn` and has not released: a pool never pools a session that
 * holds one (the lock would pass to its next borrower).
 */
export function keysHeld(conn: Connection): readonly string[] {
  return [...(held.get(conn) ?? [])];
}

/** The rows of a statement's answer. */
const rowsOf = (r: QueryResult<Row>): Row[] => r.rows;

/**
 * Runs a {@link QueueStatements}' statements as core's `TableOps`: the part of a dialect that
 * talks to a connection. A database whose statements return their rows (`RETURNING`, `OUTPUT`)
 * uses it as it is; a dialect whose database differs in a flow overrides that method (MySQL reads
 * the rows a lease claim updated again, having no `RETURNING` for an update).
 *
 * Hooks: {@link idOf} reads an id from a returned row; {@link compareIds} orders ids as the
 * database does; {@link heldKeys} and {@link lockedRows} let the admin counts see rows in work in
 * the advisory and row lock forms.
 */
export class SqlTable<S extends QueueStatements = QueueStatements> implements TableOps {
  readonly advisory: Advisory;
  /** Per-key concurrency, where the statements hold it in some form ({@link ConcurrencyStatements.forms}). */
  readonly concurrency: ConcurrencyOps | undefined;
  /** Batched acks and retries ({@link settleMany}, {@link returnMany}). */
  readonly batch: BatchSettleOps;
  /** The admin API ({@link list}, {@link pick}, {@link requeue}, {@link remove}, {@link reschedule}). */
  readonly admin: AdminOps;
  /** Schedules' ticks ({@link recordTick}, {@link lastTick}, {@link pruneTicks}). */
  readonly schedules: ScheduleOps;
  /** Rate budgets ({@link reserveRate}, {@link returnRate}). */
  readonly rates: RateOps;
  /** Retention's deletes ({@link pruneProcessed}, {@link markDead}, {@link pruneDead}). */
  readonly retention: RetentionOps;
  /** The control table ({@link readControl}, {@link writeControl}, {@link deleteControl}, {@link sweepCancels}). */
  readonly control: ControlOps;
  /** The flow tables (see `flow-ops.ts`). */
  readonly flows: FlowOps;
  /** The steps table (see `steps-ops.ts`). */
  readonly steps: StepsOps;

  constructor(
    /** The table's statements, which this runs. */
    readonly sql: S,
  ) {
    // Each feature calls the runner's methods, so a dialect's runner overrides a flow as a method.
    this.advisory = {
      candidates: (conn, n, now, own) => this.candidates(conn, n, now, own),
      lock: (conn, key) => this.lock(conn, key),
      unlock: (conn, key) => this.unlock(conn, key),
      take: (conn, id, now) => this.take(conn, id, now),
      ...(sql.advisory.locksAndTakes
        ? { lockAndTake: (conn, key, id, now) => this.lockAndTake(conn, key, id, now) }
        : {}),
    };
    const forms = sql.concurrency.forms;
    this.concurrency =
      forms.length === 0
        ? undefined
        : { forms, claimLease: (conn, n, now, expiry) => this.claimLeaseByKey(conn, n, now, expiry) };
    this.batch = {
      settleMany: (conn, settlements) => this.settleMany(conn, settlements),
      returnMany: (conn, settlements) => this.returnMany(conn, settlements),
    };
    this.admin = {
      list: (conn, q) => this.list(conn, q),
      pick: (conn, q) => this.pick(conn, q),
      requeue: (conn, ids, opts) => this.requeue(conn, ids, opts),
      remove: (conn, ids, opts) => this.remove(conn, ids, opts),
      reschedule: (conn, ids, at) => this.reschedule(conn, ids, at),
    };
    this.schedules = {
      recordTick: (conn, ticks, name, at) => this.recordTick(conn, ticks, name, at),
      lastTick: (conn, ticks, name) => this.lastTick(conn, ticks, name),
      pruneTicks: (conn, ticks, name, before) => this.pruneTicks(conn, ticks, name, before),
    };
    this.rates = {
      reserveRate: (conn, r) => this.reserveRate(conn, r),
      returnRate: (conn, b, windowStart, count) => this.returnRate(conn, b, windowStart, count),
    };
    this.retention = {
      pruneProcessed: (conn, before, limit) => this.pruneProcessed(conn, before, limit),
      markDead: (conn, now) => this.markDead(conn, now),
      pruneDead: (conn, before, limit) => this.pruneDead(conn, before, limit),
    };
    this.control = {
      readControl: (conn, table, queues) => this.readControl(conn, table, queues),
      writeControl: (conn, table, row) => this.writeControl(conn, table, row),
      deleteControl: (conn, table, row) => this.deleteControl(conn, table, row),
      sweepCancels: (conn, table, queue, targets) => this.sweepCancels(conn, table, queue, targets),
    };
    this.flows = flowOps(this);
    this.steps = stepsOps(this);
  }

  /** Runs one statement. */
  run(conn: Connection, st: Statement) {
    return conn.query<Row>(st.sql, st.params);
  }

  /** The rows of one statement. */
  rows(conn: Connection, st: Statement): Promise<Row[]> {
    // Not an async function: a statement costs the driver's promise and this one callback.
    try {
      return this.run(conn, st).then(rowsOf);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The id of a row a statement returned. */
  idOf(row: Row): unknown {
    return row[this.sql.t.id.column];
  }

  /**
   * Id order as the database sorts them where it matters: numbers, bigints and the decimal text a
   * driver returns for a BIGINT by value; other ids as text.
   */
  compareIds(a: unknown, b: unknown): number {
    const big = (v: unknown) => (/^-?\d+$/.test(String(v)) ? BigInt(String(v)) : undefined);
    const [x, y] = [big(a), big(b)];
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  }

  /** Rows in claim order (priority, then id): `RETURNING` and `OUTPUT` promise none. */
  inClaimOrder(rows: Row[]): Row[] {
    const prio = this.sql.t.priority;
    return rows.sort(
      (a, b) =>
        (prio === undefined ? 0 : Number(b[prio]) - Number(a[prio])) ||
        this.compareIds(this.idOf(a), this.idOf(b)),
    );
  }

  /**
   * Runs `body` in a transaction of its own, or under a savepoint when `nested` (and, where
   * {@link SqlSyntax.inTransactionSql} can tell, a transaction is open).
   */
  async atomically<T>(conn: Connection, nested: boolean, body: () => Promise<T>): Promise<T> {
    const s = this.sql.s;
    const open = s.inTransactionSql;
    if (nested && open !== undefined)
      nested = Number((await this.rows(conn, { sql: open, params: [] }))[0]?.n) > 0;
    const name = 'sqlinbox_step';
    if (nested) await conn.query(s.savepoint(name));
    else for (const sql of s.begin) await conn.query(sql);
    let result: T;
    try {
      result = await body();
    } catch (err) {
      await conn.query(nested ? s.rollbackToSavepoint(name) : s.rollback).catch(() => undefined);
      const release = nested ? s.releaseSavepoint(name) : undefined;
      if (release !== undefined) await conn.query(release).catch(() => undefined);
      throw err;
    }
    const done = nested ? s.releaseSavepoint(name) : s.commit;
    if (done !== undefined) await conn.query(done);
    return result;
  }

  // -------------------------------------------------------------------------------------------
  // Claims

  /** The row lock claim's select, then (FIFO) each head's guard ({@link guardHeads}). */
  claimLocked(conn: Connection, n: number, now: Date | null): Promise<Row[]> {
    if (n <= 0) return Promise.resolve([]);
    let rows: Promise<Row[]>;
    try {
      rows = this.rows(conn, this.sql.rowLock.claim(n, now));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.sql.t.group === undefined ? rows : rows.then((r) => this.guardHeads(conn, r));
  }

  /**
   * The claimed rows that pass their group's guard ({@link FifoStatements.headGuard}); a row
   * without a group, or a table without a guard, passes. A row left stays locked until the claim's
   * transaction ends; it is only not delivered.
   */
  async guardHeads(conn: Connection, rows: readonly Row[]): Promise<Row[]> {
    const group = this.sql.t.group;
    if (group === undefined) return [...rows];
    const heads: Row[] = [];
    for (const row of rows) {
      const g = row[group];
      const st = g === null || g === undefined ? undefined : this.sql.fifo.headGuard(this.idOf(row), g);
      if (st === undefined || this.isHead(await this.rows(conn, st))) heads.push(row);
    }
    return heads;
  }

  /** Reads a guard's answer: the head is its group's when `ok` is true. */
  isHead(answer: Row[]): boolean {
    return truthy(answer[0]?.ok);
  }

  async claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    return this.inClaimOrder(await this.rows(conn, this.sql.lease.claim(n, now, expiry)));
  }

  /**
   * Lease form under per-key concurrency, in a transaction of its own: the table's claim turn
   * ({@link ConcurrencyStatements.turn}), then the claim ({@link ConcurrencyStatements.claim}).
   * No turn taken (`ok` not 1): nothing claimed this time.
   */
  async claimLeaseByKey(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    const turn = this.sql.concurrency.turn();
    return this.atomically(conn, false, async () => {
      if (turn !== undefined && !truthy((await this.rows(conn, turn))[0]?.ok)) return [];
      return this.inClaimOrder(await this.rows(conn, this.sql.concurrency.claim(n, now, expiry)));
    });
  }

  async extendLeases(
    conn: Connection,
    leases: readonly { id: unknown; token: Date }[],
    expiry: Date,
  ): Promise<unknown[]> {
    return this.idsOf(conn, this.sql.lease.extendLeases(leases, expiry));
  }

  /**
   * Batched acks: the lease form's `finish` settlements in as few statements as the ids allow;
   * answers the ids changed. Several statements (chunks of rows) are all or nothing, as
   * {@link returnMany}'s are.
   */
  async settleMany(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]> {
    return this.allIdsOf(conn, this.sql.lease.settleMany(settlements));
  }

  /**
   * Batched retries: the lease form's `return` settlements, each row with its own values; answers
   * the ids changed. Several statements (kinds of settlement, chunks of rows) are all or nothing.
   */
  async returnMany(conn: Connection, settlements: readonly ReturnSettlement[]): Promise<unknown[]> {
    return this.allIdsOf(conn, this.sql.lease.returnMany(settlements));
  }

  /**
   * {@link idsOf}, with several statements in one transaction: should one fail, none has changed a
   * row (a batch's rows then settle one by one, each by its own token's fence; a row an earlier
   * statement had settled would fail that fence and be reported lost).
   */
  private allIdsOf(conn: Connection, statements: readonly Statement[]): Promise<unknown[]> {
    if (statements.length <= 1) return this.idsOf(conn, statements);
    return this.atomically(conn, false, () => this.idsOf(conn, statements));
  }

  /** Runs statements that answer the ids they changed (`RETURNING`, `OUTPUT`), in turn; answers every id. */
  private async idsOf(conn: Connection, statements: readonly Statement[]): Promise<unknown[]> {
    const ids: unknown[] = [];
    for (const st of statements) for (const row of await this.rows(conn, st)) ids.push(this.idOf(row));
    return ids;
  }

  // -------------------------------------------------------------------------------------------
  // Advisory form

  /** Runs the candidate select: up to `n` due rows in claim order, with their keys as text. */
  async candidates(
    conn: Connection,
    n: number,
    now: Date | null,
    own: ReadonlySet<string>,
  ): Promise<Candidate[]> {
    if (n <= 0) return [];
    const found = await this.rows(conn, this.sql.advisory.candidates(n, now, own));
    return found.map((r) => ({ id: r.id, key: String(r.key) }));
  }

  /** Runs the dialect's try-lock of `key`; true when this session took it. */
  async lock(conn: Connection, key: string): Promise<boolean> {
    const taken = truthy((await this.rows(conn, this.sql.advisory.lock(key)))[0]?.ok);
    if (taken) held.set(conn, (held.get(conn) ?? new Set()).add(key));
    return taken;
  }

  /** Runs the dialect's release of `key`; true when this session held it. Either way it holds it no more. */
  async unlock(conn: Connection, key: string): Promise<boolean> {
    const released = truthy((await this.rows(conn, this.sql.advisory.unlock(key)))[0]?.ok);
    held.get(conn)?.delete(key);
    return released;
  }

  /**
   * Runs the dialect's lock-and-take: whether this session took the key, and the row it took (null
   * when the key was not taken or the row was settled meanwhile).
   */
  async lockAndTake(conn: Connection, key: string, id: unknown, now: Date | null): Promise<LockedTake> {
    const [found] = await this.rows(conn, this.sql.advisory.lockAndTake(key, id, now));
    const { [LOCKED]: ok, ...row } = found ?? {};
    const locked = truthy(ok);
    if (!locked) return { locked, row: null };
    held.set(conn, (held.get(conn) ?? new Set()).add(key));
    const taken = row[this.sql.t.id.column];
    return { locked, row: taken === null || taken === undefined ? null : row };
  }

  /** Runs the take: counts the attempt of a still-claimable row and answers it; null when it was settled meanwhile. */
  async take(conn: Connection, id: unknown, now: Date | null): Promise<Row | null> {
    return (await this.rows(conn, this.sql.advisory.take(id, now)))[0] ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // Settlement

  async settle(conn: Connection, s: Settlement): Promise<number> {
    if (s.kind === 'deadLetter' && 'table' in s.target) {
      const count = this.sql.settle.countBeforeMove(s);
      const moves = this.sql.settle.moveToDeadLetter(s.id, s.token, s.target.table, s);
      const statements = count === undefined ? moves : [count, ...moves];
      const runAll = async () => {
        let changed = 0;
        for (const st of statements) changed = (await this.run(conn, st)).rowCount;
        return changed;
      };
      return statements.length === 1 ? runAll() : this.atomically(conn, s.inTransaction, runAll);
    }
    return (await this.run(conn, this.sql.settle.settle(s))).rowCount;
  }

  // -------------------------------------------------------------------------------------------
  // Insert

  /**
   * Inserts, answering ids in message order. Keyed messages go one statement each, so a later
   * message sees an earlier one's key; several statements run under a savepoint (in the caller's
   * transaction, or opening one).
   */
  async insert(conn: Connection, messages: readonly Insert[]): Promise<unknown[]> {
    if (messages.length === 0) return [];
    const t = this.sql.t;
    if (t.uniqueKey !== undefined && messages.some((m) => m.key !== undefined)) {
      return this.atomically(conn, true, async () => {
        const ids: unknown[] = [];
        for (const m of messages) ids.push(await this.insertOne(conn, m));
        return ids;
      });
    }
    const statements = this.sql.publish.insert(messages);
    const returned: unknown[] = [];
    const runAll = async () => {
      for (const st of statements) returned.push(...(await this.insertIds(conn, st)));
    };
    if (statements.length === 1) await runAll();
    else await this.atomically(conn, true, runAll);
    const given = messages.map((m) => m.columns?.[t.id.column]);
    // Given ids are known already; generated ones ascend in insert order.
    return !t.id.generated && given.every((v) => v !== undefined)
      ? given
      : returned.sort((a, b) => this.compareIds(a, b));
  }

  /** One message, keyed or not: its new id, or the id of the unsettled row holding its key. */
  async insertOne(conn: Connection, m: Insert): Promise<unknown> {
    if (m.key === undefined) return (await this.insertIds(conn, this.sql.publish.insert([m])[0]!))[0];
    if (m.replace === true) return this.insertReplacing(conn, m, m.key);
    const inserted = await this.insertIds(conn, this.sql.publish.insertKeyed(m));
    if (inserted.length > 0) return inserted[0];
    const holder = (await this.rows(conn, this.sql.publish.keyHolder(m.key)))[0];
    return holder === undefined ? undefined : this.idOf(holder);
  }

  /**
   * A replacing message: the id of the row it inserted or replaced, else (the holder had started)
   * the holder's. Where the holder was settled between the two statements, it goes round again.
   */
  async insertReplacing(conn: Connection, m: Insert, key: string): Promise<unknown> {
    for (let round = 0; round < 5; round++) {
      const written = await this.insertIds(conn, this.sql.publish.insertReplacing(m));
      if (written.length > 0) return written[0];
      const holder = (await this.rows(conn, this.sql.publish.keyHolder(key)))[0];
      if (holder !== undefined) return this.idOf(holder);
    }
    throw new Error(`table ${this.sql.t.table}: a unique key kept changing hands while it was published`);
  }

  /** Runs an insert and answers the ids it returned. */
  async insertIds(conn: Connection, st: Statement): Promise<unknown[]> {
    return (await this.rows(conn, st)).map((r) => this.idOf(r));
  }

  // -------------------------------------------------------------------------------------------
  // Stats

  async stats(conn: Connection, now: Date, opts: { inWork?: boolean } = {}): Promise<QueueStats> {
    const row = (await this.rows(conn, this.sql.counts.stats(now)))[0] ?? {};
    const base: QueueStats = {
      ready: Number(row.ready ?? 0),
      delayed: Number(row.delayed ?? 0),
      inWork: Number(row.in_work ?? 0),
      dead: Number(row.dead ?? 0),
    };
    return opts.inWork === true ? this.statsInWork(conn, now, base) : base;
  }

  /**
   * The counts with rows in work in every form the database shows, and the oldest ready row's
   * age: leases (counted already); due rows whose key another session holds ({@link heldKeys});
   * due rows another transaction locks ({@link lockedRows}).
   */
  async statsInWork(conn: Connection, now: Date, base: QueueStats): Promise<QueueStats> {
    const t = this.sql.t;
    const due = await this.rows(conn, this.sql.counts.dueRows(now));
    let oldest: number | null = null;
    for (const r of due) {
      const at = timeOf(r.due_at);
      if (at !== null && (oldest === null || at < oldest)) oldest = at;
    }
    let inWork = base.inWork;
    let seen: QueueStats['inWorkSeen'] = t.form === 'lease' ? 'lease' : 'none';
    if (t.form === 'advisory' && t.lock === undefined) {
      const held = await this.heldKeys(
        conn,
        due.map((r) => String(r.key)),
        now,
      );
      if (held !== undefined) {
        inWork = held;
        seen = 'keys';
      }
    } else if (t.form === 'rowlock') {
      const locked = await this.lockedRows(conn, now, due.length);
      if (locked !== undefined) {
        inWork = locked;
        seen = 'locks';
      }
    }
    return this.withInWork(base, now, inWork, seen, oldest);
  }

  /** The counts with `inWork` rows in work (`ready` less them, but in the lease form) and the oldest ready row's `retry_after` (epoch ms). */
  withInWork(
    base: QueueStats,
    now: Date,
    inWork: number,
    seen: QueueStats['inWorkSeen'],
    oldest: number | null,
  ): QueueStats {
    const lease = this.sql.t.form === 'lease';
    return {
      ...base,
      ready: lease ? base.ready : Math.max(0, base.ready - inWork),
      inWork,
      inWorkSeen: seen,
      oldestReadyAgeMs: oldest === null ? null : Math.max(0, now.getTime() - oldest),
    };
  }

  /**
   * How many of these due rows' keys (due at `now`) another session holds, by
   * {@link AdvisoryStatements.heldKeys} in runs of the parameter limit; undefined where the database
   * cannot tell.
   */
  async heldKeys(conn: Connection, keys: readonly string[], now: Date): Promise<number | undefined> {
    void now;
    if (this.sql.advisory.heldKeys([]) === undefined) return undefined;
    let n = 0;
    for (const part of chunks(keys, this.sql.s.maxParams)) {
      n += Number((await this.rows(conn, this.sql.advisory.heldKeys(part)!))[0]?.n ?? 0);
    }
    return n;
  }

  /**
   * How many of the `due` due rows another transaction locks: those a locking read cannot lock, in
   * a transaction rolled back at once ({@link CountStatements.lockable}); undefined where the
   * database cannot tell.
   */
  async lockedRows(conn: Connection, now: Date, due: number): Promise<number | undefined> {
    const st = this.sql.counts.lockable(now);
    if (st === undefined) return undefined;
    for (const sql of this.sql.s.begin) await conn.query(sql);
    try {
      return Math.max(0, due - Number((await this.rows(conn, st))[0]?.n ?? 0));
    } finally {
      await conn.query(this.sql.s.rollback);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Admin (the caller holds a transaction for changes)

  /** Most ids in one admin statement. */
  get adminChunk(): number {
    return Math.max(1, Math.floor(this.sql.s.maxParams / 2));
  }

  /** Admin: rows by the state SQL sees, in id order (see `AdminOps.list`). */
  async list(conn: Connection, q: ListQuery): Promise<Row[]> {
    return this.rows(conn, this.sql.admin.list(q));
  }

  /** Admin, in the caller's transaction: the rows a change may touch, by chunks of ids under the parameter limit. */
  async pick(conn: Connection, q: PickQuery): Promise<Row[]> {
    if (q.ids !== undefined && q.ids.length === 0) return [];
    const parts = q.ids === undefined ? [undefined] : chunks(q.ids, this.adminChunk);
    const found: Row[] = [];
    for (const ids of parts) {
      const st = this.sql.admin.pick({ ...q, ids });
      if (st !== null) found.push(...(await this.rows(conn, st)));
    }
    return found;
  }

  /** Admin, in the caller's transaction: puts dead rows back in the queue, attempt reset (see `AdminOps.requeue`). */
  async requeue(
    conn: Connection,
    ids: readonly unknown[],
    opts: { toGroup: string | null },
  ): Promise<unknown[]> {
    const s = this.sql.admin;
    const fromTable = this.sql.q.deadTable !== undefined;
    if (!fromTable && s.t.group === undefined) return [];
    for (const part of chunks(ids, this.adminChunk)) {
      if (fromTable) {
        await this.run(conn, s.copyBack(part));
        await this.run(conn, s.remove(part, true));
      }
      const group = fromTable && opts.toGroup === null ? undefined : { value: opts.toGroup };
      const reset = s.fresh(part, group);
      if (reset !== null) await this.run(conn, reset);
    }
    return [...ids];
  }

  /** Admin, in the caller's transaction: deletes rows, dead ones from the dead-letter table where there is one. */
  async remove(conn: Connection, ids: readonly unknown[], opts: { dead: boolean }): Promise<unknown[]> {
    for (const part of chunks(ids, this.adminChunk))
      await this.run(conn, this.sql.admin.remove(part, opts.dead));
    return [...ids];
  }

  /** Admin, in the caller's transaction: sets `retry_after` of live rows; answers the ids it changed. */
  async reschedule(conn: Connection, ids: readonly unknown[], at: Date): Promise<unknown[]> {
    const done: unknown[] = [];
    for (const part of chunks(ids, this.adminChunk)) {
      const st = this.sql.admin.reschedule(part, at);
      if (st === null) return [];
      await this.run(conn, st);
      done.push(...part);
    }
    return done;
  }
  // -------------------------------------------------------------------------------------------
  // Schedules (the caller holds the tick's transaction for recordTick)

  /** Schedules, in the caller's transaction: records a tick; true when this call wrote it (the primary key decides). */
  async recordTick(conn: Connection, ticks: string, name: string, at: Date): Promise<boolean> {
    return (await this.run(conn, this.sql.schedules.recordTick(ticks, name, at))).rowCount > 0;
  }

  /** Schedules: the newest tick recorded for the schedule, or null. */
  async lastTick(conn: Connection, ticks: string, name: string): Promise<Date | null> {
    const at = timeOf((await this.rows(conn, this.sql.schedules.lastTick(ticks, name)))[0]?.tick);
    return at === null ? null : new Date(at);
  }

  /** Schedules: deletes the schedule's tick records before `before`; answers how many. */
  async pruneTicks(conn: Connection, ticks: string, name: string, before: Date): Promise<number> {
    return (await this.run(conn, this.sql.schedules.pruneTicks(ticks, name, before))).rowCount;
  }

  // -------------------------------------------------------------------------------------------
  // Retention (on a connection outside any transaction)

  /** Retention: deletes at most `limit` processed rows stamped before `before`; answers how many. */
  async pruneProcessed(conn: Connection, before: Date, limit: number): Promise<number> {
    return (await this.run(conn, this.sql.retention.pruneProcessed(before, limit))).rowCount;
  }

  /** Retention: stamps the death of the dead letters without one; answers how many. */
  async markDead(conn: Connection, now: Date): Promise<number> {
    const st = this.sql.retention.markDead(now);
    return st === undefined ? 0 : (await this.run(conn, st)).rowCount;
  }

  /** Retention: deletes at most `limit` dead letters stamped dead before `before`; answers how many. */
  async pruneDead(conn: Connection, before: Date, limit: number): Promise<number> {
    const st = this.sql.retention.pruneDead(before, limit);
    return st === undefined ? 0 : (await this.run(conn, st)).rowCount;
  }

  // Rate limits (on a connection outside any transaction)

  /**
   * Takes up to `r.want` from the budget's current window: one UPDATE answering the row; where
   * the budget has no row yet, creates it and updates again.
   */
  async reserveRate(conn: Connection, r: RateReservation): Promise<RateGrant> {
    let row = await this.reserveRow(conn, r);
    if (row === undefined) {
      await this.run(conn, this.sql.rates.rateRow(r.table, r.name));
      row = await this.reserveRow(conn, r);
    }
    if (row === undefined) throw new Error(`rate budget ${r.name} has no row in ${r.table}`);
    return rateGrant(row, r.perMs);
  }

  /** The reservation's UPDATE, answering the budget's row after it (undefined: no row). */
  async reserveRow(conn: Connection, r: RateReservation): Promise<Row | undefined> {
    return (await this.rows(conn, this.sql.rates.reserveRate(r.table, r.name, r.want, r.max, r.perMs)))[0];
  }

  /** Rate limits: gives unused deliveries back to the budget while its window is still `windowStart`'s. */
  async returnRate(
    conn: Connection,
    b: { readonly table: string; readonly name: string },
    windowStart: number,
    count: number,
  ): Promise<void> {
    if (count <= 0) return;
    await this.run(conn, this.sql.rates.returnRate(b.table, b.name, windowStart, count));
  }

  // -------------------------------------------------------------------------------------------
  // The control table (on a connection outside any transaction)

  /** The control rows of the queues named. */
  async readControl(conn: Connection, table: string, queues: readonly string[]): Promise<ControlRow[]> {
    if (queues.length === 0) return [];
    const rows = await this.rows(conn, this.sql.control.readControl(table, queues));
    return rows.map((r) => ({
      queue: String(r.queue_name),
      kind: String(r.kind),
      target: String(r.target ?? ''),
      reason: r.reason == null ? null : String(r.reason),
    }));
  }

  /** Writes a control row unless it is there. */
  async writeControl(conn: Connection, table: string, row: ControlRow): Promise<void> {
    await this.run(conn, this.sql.control.writeControl(table, row));
  }

  /** Deletes the stale cancels among `targets`; answers how many went. */
  async sweepCancels(
    conn: Connection,
    table: string,
    queue: string,
    targets: readonly string[],
  ): Promise<number> {
    if (targets.length === 0) return 0;
    return (await this.run(conn, this.sql.control.sweepCancels(table, queue, targets))).rowCount;
  }

  /** Deletes a control row; answers how many went. */
  async deleteControl(conn: Connection, table: string, row: ControlRow): Promise<number> {
    return (await this.run(conn, this.sql.control.deleteControl(table, row))).rowCount;
  }
}
