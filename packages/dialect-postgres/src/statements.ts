import {
  type AnyTable,
  ConfigError,
  type ControlRow,
  type FinishSettlement,
  type Form,
  type Insert,
  type IsolationLevel,
  type PrepareOptions,
  type Settlement,
} from '@sqlinbox/core';
import {
  AdvisoryStatements,
  ansiIdent,
  ConcurrencyStatements,
  type Conflict,
  ControlStatements,
  CountStatements,
  ID,
  type InsertColumn,
  type InsertParts,
  ISOLATION_SQL,
  LeaseStatements,
  type Params,
  PublishStatements,
  QueueSql,
  QueueStatements,
  RowLockStatements,
  SettleStatements,
  SqlSyntax,
  type Statement,
  standardTransactions,
  type TransactionSql,
} from '@sqlinbox/sql';
import { escapeString, topicChannel, wakeupChannel } from './sql.js';

/** Private alias of a head's group in the FIFO guard. */
const GROUP = 'sqlinbox_group';

/**
 * The advisory locks other sessions of this database hold, as `hi`/`lo` halves: a 64-bit advisory
 * lock shows in `pg_locks` as `locktype = 'advisory'`, `objsubid = 1`, the high half of the key in
 * `classid`, the low half in `objid`. A CTE body; a volatile CTE is read once per statement.
 */
const HELD =
  `SELECT l.classid::int8 AS hi, l.objid::int8 AS lo FROM pg_catalog.pg_locks l` +
  ` WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.pid <> pg_backend_pid()` +
  ` AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database())`;

/**
 * `BEGIN` at the server's default level when the table declares none, else
 * `BEGIN ISOLATION LEVEL ..`; `read_uncommitted` is refused: PostgreSQL would run it as read
 * committed. A SQLite mode is ignored. Savepoint names are quoted.
 */
export const POSTGRES_TRANSACTIONS: TransactionSql = {
  ...standardTransactions,
  begin({ isolation: level }) {
    if (level === undefined) return ['BEGIN'];
    if (level === 'read_uncommitted') {
      throw new ConfigError(`PostgreSQL does not run isolation level ${level satisfies IsolationLevel}`, {
        fix: 'declare read_committed, repeatable_read or serializable',
      });
    }
    return [`BEGIN ISOLATION LEVEL ${ISOLATION_SQL[level]}`];
  },
  savepoint: (name) => `SAVEPOINT ${ansiIdent(name)}`,
  rollbackToSavepoint: (name) => `ROLLBACK TO SAVEPOINT ${ansiIdent(name)}`,
};

/**
 * PostgreSQL's syntax: `$n` placeholders (an instant as `$n::timestamptz`, so a lease token, a
 * millisecond Date, round-trips exactly), lists as one array parameter (`= ANY($n)`),
 * `count(*) FILTER (..)`, `FOR UPDATE OF q SKIP LOCKED`.
 */
export class PostgresSyntax extends SqlSyntax {
  override readonly clock = 'now()';
  /** Schedules: the tick table's column types. */
  override readonly tickNameType = 'text';
  override readonly tickTimeType = 'timestamptz';

  override readonly transactions = POSTGRES_TRANSACTIONS;

  override placeholder(index: number, value: unknown): string {
    return value instanceof Date ? `$${index}::timestamptz` : `$${index}`;
  }

  /** One array parameter, typed by `expr` (`id = ANY($n)`), however many values. */
  override inList(p: Params, expr: string, values: readonly unknown[], not = false): string {
    return `${expr} ${not ? '<> ALL' : '= ANY'}(${p.bind([...values])})`;
  }

  override text(p: Params, value: string): string {
    return `${p.bind(value)}::text`;
  }

  override bigint(p: Params, value: bigint): string {
    return `${p.bind(value.toString())}::int8`;
  }

  /** JSON text as text cast to json (`$n::text::json`), which a jsonb column and a text one both take. */
  override json(p: Params, text: string): string {
    return `${this.text(p, text)}::json`;
  }

  override keyColumn(expr: string): string {
    return `coalesce(${expr}::text, '')`;
  }

  override countIf(cond: string): string {
    return `count(*) FILTER (WHERE ${cond})`;
  }

  /**
   * An array of the subquery's values, computed once before the update reads the table, so the
   * update looks its rows up by the primary key: a join to the subquery may be planned as a hash
   * join over a scan of the whole table, which costs a claim of 100 rows from a 20,000-row backlog
   * 5 ms instead of 0.5 ms.
   */
  override inSelect(column: string, subquery: string): string {
    return `${column} = ANY(ARRAY(${subquery}))`;
  }

  override lockClause(alias: string): string {
    return ` FOR UPDATE OF ${alias} SKIP LOCKED`;
  }
}

/** PostgreSQL's syntax, shared by every table. */
export const postgresSyntax: PostgresSyntax = new PostgresSyntax();

/** A queue table on PostgreSQL, with the fragments its claims share: the FIFO guard, other sessions' locks. */
export class PostgresQueue extends QueueSql<PostgresSyntax> {
  /**
   * Differs from the builder's: the lease condition reads `coalesce(lease, '-infinity') <= now`
   * instead of `(lease IS NULL OR lease <= now)`, which means the same. The planner estimates the
   * plain form from the column's statistics, and a queue's change between two ANALYZEs: taken
   * while most rows were leased (a lease ends in the future), they say almost no row is due, and
   * the claim is planned as a scan of the whole table and a sort instead of a walk of the primary
   * key that stops after `n` rows (measured: a claim read 60,180 pages in 140-330 ms for a minute
   * after an autoanalyze, instead of a few hundred to a few thousand, and a 34,460 jobs/s hold fell to
   * 780-1,850 jobs/s). An expression has no statistics: the planner takes a third of the rows as due,
   * whatever ANALYZE saw, and keeps to the index. `retry_after` keeps the builder's form: its
   * statistics do not swing with every claim, and the priority index of a table without a lease
   * is chosen on them.
   */
  override leaseEnded(p: Params, now: Date | null, c: string): string {
    return `coalesce(${c}, '-infinity') <= ${this.s.now(p, now)}`;
  }

  /**
   * The FIFO guard: up to `n` due group heads in claim order whose guard this
   * transaction takes, as a CTE body selecting `sqlinbox_id`.
   *
   * The guard is `pg_try_advisory_xact_lock(hashtextextended(<table> || group, 0))`, held until the
   * claim's transaction ends: in the row lock form that is the whole handler, so a second broker
   * (another process) takes nothing of the group meanwhile, even in the instant between the
   * holder's settlement and its commit. It is the *try* form: a blocking guard would make a claim
   * wait on another's handler, and a claim never waits. A row without a group gets a
   * guard of its own (on its id), so a row another claim holds is passed over here instead of
   * filling one of the `n` slots and being skipped by `SKIP LOCKED` later.
   *
   * The heads are sorted in a derived table that the planner keeps apart (`OFFSET 0`; a volatile
   * condition is never pushed into it), and the guard is tried on its output under `LIMIT n`, so
   * the guard is tried on heads only, in claim order, and no more often than the claim needs.
   */
  fifoGuard(p: Params, n: number, now: Date | null): string {
    const t = this.t;
    const prefix = this.s.text(p, `sqlinbox.fifo:${t.table}:`);
    const heads =
      t.priority === undefined
        ? this.windowedHeads(p, n, now)
        : `SELECT ${this.col('q', t.id.column)} AS ${ID}, ${this.col('q', this.role(t.group, 'group'))} AS ${GROUP}` +
          ` FROM ${this.table} q WHERE ${this.due(p, now, 'q')}${this.head('q')} ORDER BY ${this.order('q')} OFFSET 0`;
    return (
      `SELECT h.${ID} FROM (${heads}) h` +
      ` WHERE pg_try_advisory_xact_lock(hashtextextended(${prefix} || CASE WHEN h.${GROUP} IS NULL` +
      ` THEN 'row:' || h.${ID}::text ELSE 'group:' || h.${GROUP}::text END, 0))` +
      ` LIMIT ${p.bind(n)}`
    );
  }

  /**
   * The due heads of a FIFO table without priorities, in id order, read in two parts that the
   * guard's `LIMIT` reads in turn (an `Append` stops once the limit is met):
   *
   * 1. the window ({@link QueueSql.fifoWindowSelect}): the oldest unsettled rows, each a head
   *    where no older unsettled row of its group exists (one probe of the `(group, id)` index),
   *    read in id order and no further than the claim needs. Where they fill the claim, the second part is never read.
   * 2. beyond the window: each group's head found by a walk of the `(group, id)` index from group
   *    to group (a recursive CTE: one index descent per group, whatever the rows behind each; by
   *    `ORDER BY .. LIMIT 1`, which every ordered type has, where `min()` is missing for `uuid`), and
   *    the rows without a group, each its own head; those after the window's last id, due.
   *
   * The plain form (the probe of part 1, row after row in id order, unbounded) read the whole
   * table on every claim where few groups had their heads in work (measured: 1.5 s a claim over
   * 200,000 rows in 20 groups, 18 heads in work, against 5 ms in this form).
   */
  windowedHeads(p: Params, n: number, now: Date | null): string {
    const t = this.t;
    const id = this.ident(t.id.column);
    const group = this.ident(this.role(t.group, 'group'));
    const window = this.fifoWindowSelect(p, n);
    const first =
      `SELECT w.${id} AS ${ID}, w.${group} AS ${GROUP} FROM (${window}) w` +
      ` WHERE ${this.due(p, now, 'w')}${this.head('w')} ORDER BY w.${id} OFFSET 0`;
    const qid = this.col('q', t.id.column);
    const pick = `SELECT ${qid} AS ${ID}, ${this.col('q', this.role(t.group, 'group'))} AS ${GROUP} FROM ${this.table} q`;
    const after = `${qid} > (SELECT m FROM sqlinbox_last) AND ${this.due(p, now, 'q')}`;
    const walk =
      `WITH RECURSIVE sqlinbox_g(g) AS ((SELECT x.${group} FROM ${this.table} x WHERE x.${group} IS NOT NULL${this.unsettled('x')} ORDER BY x.${group} LIMIT 1)` +
      ` UNION ALL SELECT (SELECT x.${group} FROM ${this.table} x WHERE x.${group} > r.g${this.unsettled('x')} ORDER BY x.${group} LIMIT 1)` +
      ` FROM sqlinbox_g r WHERE r.g IS NOT NULL),` +
      ` sqlinbox_last(m) AS (SELECT max(y.${id}) FROM (${window}) y)` +
      ` SELECT u.* FROM (${pick} WHERE ${qid} IN (SELECT (SELECT x.${id} FROM ${this.table} x WHERE x.${group} = r.g${this.unsettled('x')} ORDER BY x.${id} LIMIT 1)` +
      ` FROM sqlinbox_g r WHERE r.g IS NOT NULL) AND ${after}` +
      ` UNION ALL (${pick} WHERE ${this.col('q', this.role(t.group, 'group'))} IS NULL AND ${after} ORDER BY ${qid} LIMIT ${p.bind(n)})) u` +
      ` ORDER BY u.${ID} OFFSET 0`;
    return `SELECT * FROM (${first}) a UNION ALL SELECT * FROM (${walk}) b`;
  }

  /**
   * A FIFO table's claim takes its rows among the guarded heads: the CTE of {@link fifoGuard} and
   * the condition `id IN (the heads) AND ` on alias `a`; both empty for a table without groups.
   */
  guarded(
    p: Params,
    n: number,
    now: Date | null,
    a: string,
  ): {
    /** The CTE `sqlinbox_heads AS (..)`, without `WITH`; empty without groups. */
    with: string;
    /** The condition on the heads, ending in `AND `; empty without groups. */
    where: string;
  } {
    if (this.t.group === undefined) return { with: '', where: '' };
    return {
      with: `sqlinbox_heads AS (${this.fifoGuard(p, n, now)})`,
      where: `${this.s.inSelect(this.col(a, this.t.id.column), `SELECT ${ID} FROM sqlinbox_heads`)} AND `,
    };
  }

  /** `hashtextextended(key, 0)`'s halves are among the locks other sessions hold (`HELD`). */
  heldBy(key: string): string {
    const hash = `hashtextextended(${key}, 0)`;
    return `EXISTS (SELECT 1 FROM sqlinbox_held h WHERE h.hi = ((${hash} >> 32) & 4294967295) AND h.lo = (${hash} & 4294967295))`;
  }
}

/** The row lock claim: the builder's select; a FIFO table's differs. */
export class PostgresRowLock extends RowLockStatements<PostgresQueue> {
  /**
   * Differs from the builder's for a FIFO table: its rows are taken among the heads whose guard
   * this transaction takes ({@link PostgresQueue.fifoGuard}), in the select itself, where the
   * builder's has no guard and other databases take one per head after the select.
   */
  override claim(n: number, now: Date | null): Statement {
    const q = this.q;
    if (this.t.group === undefined) return super.claim(n, now);
    const p = q.params();
    const g = q.guarded(p, n, now, 'q');
    const pick = this.s.select(p, {
      columns: 'q.*',
      table: `${q.table} q`,
      alias: 'q',
      where: g.where + q.due(p, now, 'q'),
      order: q.order('q'),
      lock: true,
    });
    return p.statement(`WITH ${g.with} ${pick}`);
  }
}

/** The lease claim in one round trip. */
export class PostgresLease extends LeaseStatements<PostgresQueue> {
  /**
   * Differs from the builder's: the update is a CTE whose rows the statement answers in claim order
   * (`ORDER BY` over `RETURNING`, so the runner sorts nothing), and a FIFO table takes guarded heads
   * ({@link PostgresQueue.guarded}). Runs in autocommit: the statement's commit is the claim.
   */
  override claim(n: number, now: Date, expiry: Date, from?: bigint, below?: bigint): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const g = q.guarded(p, n, now, 'q');
    const set = q.leaseSets(p, expiry);
    // From an id on, or below one (`ClaimRange`): the primary key's scan starts or ends there.
    const lower = q.idRange(p, 'q', from, below);
    const pick = s.select(p, {
      columns: `${q.col('q', t.id.column)} AS ${ID}`,
      table: `${q.table} q`,
      alias: 'q',
      where: g.where + lower + q.due(p, now, 'q'),
      order: q.order('q'),
      limit: g.with === '' ? n : undefined,
      lock: true,
    });
    return p.statement(
      `WITH ${g.with === '' ? '' : `${g.with}, `}sqlinbox_claimed AS (UPDATE ${q.table} AS t SET ${set.join(', ')}` +
        ` WHERE ${s.inSelect(q.col('t', t.id.column), pick)} RETURNING t.*)` +
        ` SELECT * FROM sqlinbox_claimed ORDER BY ${q.order('sqlinbox_claimed')}`,
    );
  }

  /**
   * Differs from the builder's where the table keeps results: each acked row's id is notified on
   * the table's `result` channel in the same statement, for `broker.result` waiting in any
   * process. A table without results keeps the builder's statement.
   */
  override settleMany(settlements: readonly FinishSettlement[]): Statement[] {
    const sts = super.settleMany(settlements);
    if (this.t.result === undefined) return sts;
    return sts.map((st) => notifying(st, topicChannel(this.t.table, 'result'), this.q.id));
  }
}

/**
 * A statement `st` whose rows (its `RETURNING`) each send `pg_notify(channel, <id as text>)`: the
 * rows and their count are the statement's own, and the notifications go out at its commit.
 */
function notifying(st: Statement, channel: string, id: string): Statement {
  return {
    ...st,
    sql:
      `WITH sqlinbox_settled AS (${st.sql}) SELECT sqlinbox_settled.*,` +
      ` pg_notify(${escapeString(channel)}, sqlinbox_settled.${id}::text) AS sqlinbox_notified FROM sqlinbox_settled`,
  };
}

/**
 * The planner settings the per-key claim's turn turns off for its transaction, as the turn's
 * select-list items ({@link PostgresConcurrency.turn}). JIT too: a plan that keeps a sort it
 * cannot do without carries the cost a turned-off setting adds, far above `jit_above_cost`, and
 * each claim then compiled its expressions (600 ms where the claim itself took 10).
 */
const INDEX_ONLY_PLANS = [
  'enable_seqscan',
  'enable_bitmapscan',
  'enable_hashjoin',
  'enable_mergejoin',
  'enable_sort',
  'jit',
]
  .map((name) => `, set_config('${name}', 'off', true)`)
  .join('');

/** Per-key concurrency: claims of a table serialized by a transaction advisory lock. */
export class PostgresConcurrency extends ConcurrencyStatements<PostgresQueue> {
  override readonly forms: readonly Form[] = ['lease'];
  override readonly bounded = true;

  /** The builder's claim, its rows answered in claim order. */
  override claim(n: number, now: Date, expiry: Date): Statement {
    const st = super.claim(n, now, expiry);
    return {
      sql: `WITH sqlinbox_claimed AS (${st.sql}) SELECT * FROM sqlinbox_claimed ORDER BY ${this.q.order('sqlinbox_claimed')}`,
      params: st.params,
    };
  }

  /**
   * The claim's turn is a transaction advisory lock on the table's turn name
   * (`pg_advisory_xact_lock`), waited for and released by the claim's commit; the claim that
   * follows is a statement of its own, so its snapshot sees every claim committed before the turn.
   * Through a transaction pooler too: the lock lives in the transaction.
   *
   * The turn also turns off, for the rest of the claim's transaction only, the plans that read a
   * whole table or index (sequential and bitmap scans, hash and merge joins), so the claim keeps to
   * index scans when the statistics are stale. A queue's table is often analyzed at a quiet
   * moment, when few of its pages hold live rows; its backlog then fills the pages vacuum freed
   * without the statistics moving, and the planner, counting a few rows in a large table, chose
   * bitmap scans of the whole table for each of the pick's steps: in the benchmark's hot-key case
   * one claim took seconds and the table stopped draining for a minute, until the next analyze.
   * Sorts are turned off too, where the plan has another way (the claim's window functions have
   * none and sort as before): with statistics that count a few thousand rows over a sparse table,
   * the front of the queue (`ORDER BY id LIMIT ..`) was read as an index-only scan of the whole
   * (key, lease, id) index sorted by id, 335,000 rows and 210 ms a claim, rather than the primary
   * key in order.
   */
  override turn(): Statement {
    const p = this.q.params();
    return p.statement(
      `SELECT pg_advisory_xact_lock(hashtextextended(${this.s.text(p, this.turnName)}, 0))${INDEX_ONLY_PLANS}, 1 AS ok`,
    );
  }
}

/** The advisory form on `pg_try_advisory_lock` of the key's 64-bit hash. */
export class PostgresAdvisory extends AdvisoryStatements<PostgresQueue> {
  /**
   * Differs from the builder's: it also leaves out the keys another session holds (read from
   * `pg_locks` once per statement), so a claim spends no slot on a row it could not lock. The
   * sorted candidates are a derived table the planner keeps apart (`OFFSET 0`).
   */
  override candidates(n: number, now: Date | null, own: ReadonlySet<string>): Statement {
    const { q, s } = this;
    const p = q.params();
    const notOwn = own.size === 0 ? '' : ` AND ${s.inList(p, 'c.key', [...own], true)}`;
    return p.statement(
      `WITH sqlinbox_held AS (${HELD}) SELECT c.id AS id, c.key AS key FROM (SELECT ${q.col('q', this.t.id.column)} AS id,` +
        ` ${q.keyExpr(p, 'q')} AS key FROM ${q.table} q WHERE ${q.due(p, now, 'q')}${q.head('q')}` +
        ` ORDER BY ${q.order('q')} OFFSET 0) c WHERE NOT ${q.heldBy('c.key')}${notOwn} LIMIT ${p.bind(n)}`,
    );
  }

  /** `pg_try_advisory_lock(hashtextextended(key, 0))`: the session's lock on the key, no waiting. */
  override lock(key: string): Statement {
    const p = this.q.params();
    return p.statement(`SELECT pg_try_advisory_lock(hashtextextended(${this.s.text(p, key)}, 0)) AS ok`);
  }

  /**
   * The lock and the take in one statement where the take is an update (its `attempt` count),
   * which re-reads a row another session changed after the statement began, and the table has no
   * FIFO groups (the head check reads the statement's snapshot).
   */
  override get locksAndTakes(): boolean {
    return this.t.attempt !== undefined && this.t.group === undefined;
  }

  /**
   * `pg_try_advisory_lock` in a CTE (evaluated once, as a CTE with a volatile function and two
   * readers is), the take's update only where it answered true, and the lock's answer beside the
   * updated row: one row whatever was taken.
   */
  override lockAndTake(key: string, id: unknown, now: Date | null): Statement {
    const p = this.q.params();
    const lock = `pg_try_advisory_lock(hashtextextended(${this.s.text(p, key)}, 0))`;
    const take = this.takeSql(p, id, now, ' AND (SELECT l.ok FROM sqlinbox_lock l)');
    return p.statement(
      `WITH sqlinbox_lock AS (SELECT ${lock} AS ok), sqlinbox_taken AS (${take})` +
        ' SELECT l.ok AS sqlinbox_locked, k.* FROM sqlinbox_lock l LEFT JOIN sqlinbox_taken k ON true',
    );
  }

  /** `pg_advisory_unlock(hashtextextended(key, 0))`: true when this session held the key. */
  override unlock(key: string): Statement {
    const p = this.q.params();
    return p.statement(`SELECT pg_advisory_unlock(hashtextextended(${this.s.text(p, key)}, 0)) AS ok`);
  }
}

/**
 * Settlement: the dead-letter move in one statement. Where the table keeps results, a settlement
 * that ends the row (an ack or drop, a death) notifies its id on the table's `result` channel in
 * the same statement, so `broker.result` in any process reads it at the commit; a table without
 * results keeps the builder's statements, with no notification.
 */
export class PostgresSettle extends SettleStatements<PostgresQueue> {
  /** The `result` channel, where the table keeps results. */
  private get resultChannel(): string | undefined {
    return this.t.result === undefined ? undefined : topicChannel(this.t.table, 'result');
  }

  /**
   * The notification of row `id`'s settlement on the table's `result` channel alone, sent after a
   * custom ack or drop statement (which sends none); undefined where the table keeps no results.
   */
  resultNotify(id: unknown): Statement | undefined {
    const channel = this.resultChannel;
    if (channel === undefined) return undefined;
    return { sql: 'SELECT pg_notify($1, $2)', params: [channel, String(id)] };
  }

  /** The builder's settlement; where the table keeps results, an ack, drop or death also notifies. */
  override settle(st: Settlement): Statement {
    const base = super.settle(st);
    const channel = this.resultChannel;
    if (channel === undefined || st.kind === 'return') return base;
    return notifying({ ...base, sql: `${base.sql} RETURNING ${this.q.id}` }, channel, this.q.id);
  }

  /**
   * The move to a dead-letter table in one statement,
   * `WITH moved AS (DELETE .. RETURNING *) INSERT INTO dlq SELECT * FROM moved`, so both tables
   * change in one commit whether or not a transaction is open.
   */
  override deleteInto(where: string, dead: string): string {
    const moved = this.s.delete({ table: this.q.table, where, returning: '*' });
    return this.move(moved, `INSERT INTO ${dead} SELECT * FROM sqlinbox_moved`);
  }

  /**
   * A move's statement: the delete, then the insert into the dead letter; where the table keeps
   * results, the insert answers the moved row's id and the statement notifies it.
   */
  private move(moved: string, insert: string): string {
    const channel = this.resultChannel;
    if (channel === undefined) return `WITH sqlinbox_moved AS (${moved}) ${insert}`;
    const id = this.q.id;
    return (
      `WITH sqlinbox_moved AS (${moved}), sqlinbox_dead AS (${insert} RETURNING ${id})` +
      ` SELECT pg_notify(${escapeString(channel)}, sqlinbox_dead.${id}::text) FROM sqlinbox_dead`
    );
  }

  /** The same move by column lists, the failure record's values written in the copy. */
  override deleteIntoRecord(
    where: string,
    dead: string,
    copied: readonly string[],
    written: readonly string[],
    values: readonly string[],
  ): string {
    const moved = this.s.delete({ table: this.q.table, where, returning: '*' });
    const into = [...copied, ...written].join(', ');
    return this.move(
      moved,
      `INSERT INTO ${dead} (${into}) SELECT ${[...copied, ...values].join(', ')} FROM sqlinbox_moved`,
    );
  }
}

/**
 * The control table: a write that adds a row, or a delete that removes one, notifies the queue's
 * `control` channel in the same statement (at its commit, inside a cancel's transaction), so every
 * broker listening reads the control table at once instead of at its next poll.
 */
export class PostgresControl extends ControlStatements<PostgresQueue> {
  /** Differs from the builder's: the insert's row, where it wrote one, sends the notification. */
  override writeControl(control: string, row: ControlRow): Statement {
    return this.notifies(super.writeControl(control, row), row.queue);
  }

  /** Differs from the builder's: the deleted row, where there was one, sends the notification. */
  override deleteControl(control: string, row: ControlRow): Statement {
    return this.notifies(super.deleteControl(control, row), row.queue);
  }

  private notifies(st: Statement, queue: string): Statement {
    return {
      ...st,
      sql:
        `WITH sqlinbox_changed AS (${st.sql} RETURNING 1)` +
        ` SELECT pg_notify(${escapeString(topicChannel(queue, 'control'))}, '') FROM sqlinbox_changed`,
    };
  }
}

/** Publishing: inserts that wake the table's listeners in their own statement. */
export class PostgresPublish extends PublishStatements<PostgresQueue> {
  /**
   * An encoded JSON payload goes in as text cast to json (`$n::text::json`), never as an untyped
   * value: a driver that serializes by the parameter's type (postgres.js) would otherwise encode
   * the string again. json converts to a jsonb column and, verbatim, to a text one.
   */
  override insertValue(p: Params, column: InsertColumn, value: unknown): string {
    if (column.role !== 'payload' || this.t.payload?.type !== 'json')
      return super.insertValue(p, column, value);
    return `${this.s.text(p, typeof value === 'string' ? value : JSON.stringify(value))}::json`;
  }

  /** A keyed insert also answers each new row's key, to tell which messages inserted nothing. */
  override insertSql(i: InsertParts): string {
    if (i.conflictKey === undefined || i.returning === undefined) return super.insertSql(i);
    return super.insertSql({ ...i, returning: `${i.returning}, ${this.q.ident(i.conflictKey)}` });
  }

  /**
   * Differs from the builder's: messages of no column at all go in one `INSERT .. SELECT FROM
   * generate_series` (the builder writes one `DEFAULT VALUES` statement each), and the last
   * statement of a publish (each of a keyed one) wakes the table's listeners: one notification per
   * publish, sent at its commit, with no round trip of its own; none with `wake` false, and the
   * other statements marked quiet for the table's wake-up trigger ({@link quiet}). PostgreSQL
   * answers `INSERT .. VALUES` rows in the order of the list.
   */
  override insert(messages: readonly Insert[], conflict: Conflict = false, wake = true): Statement[] {
    const q = this.q;
    const woken = (st: Statement) => (wake ? this.wake(st) : this.quiet(st));
    if (this.insertColumns(messages).length === 0) {
      const p = q.params();
      const all = `INSERT INTO ${q.table} SELECT FROM generate_series(1, ${p.bind(messages.length)}) RETURNING ${q.id}`;
      return [woken(p.statement(all))];
    }
    const statements = super.insert(messages, conflict);
    return statements.map((st, i) => (conflict || i === statements.length - 1 ? woken(st) : this.quiet(st)));
  }

  /**
   * The insert, telling the table's wake-up trigger (`wakeupTriggerDdl`) to send nothing for it:
   * `set_config('sqlinbox.quiet', 'on', true)` for the rest of the transaction. A publish that
   * sends no notification of its own relies on one another publish owes it, as without the
   * trigger; a notifying commit holds the server's notification lock, so publishes side by side
   * would otherwise wait on each other's commits.
   */
  quiet(insert: Statement): Statement {
    const p = this.q.params();
    p.values.push(...insert.params);
    return p.statement(
      `WITH sqlinbox_ins AS (${insert.sql}), sqlinbox_quiet AS (SELECT set_config('sqlinbox.quiet', 'on', true))` +
        ` SELECT sqlinbox_ins.* FROM sqlinbox_ins, sqlinbox_quiet`,
    );
  }

  /** The insert, and `pg_notify` on the table's wake-up channel, in one statement. */
  wake(insert: Statement): Statement {
    const p = this.q.params();
    p.values.push(...insert.params);
    return p.statement(
      `WITH sqlinbox_ins AS (${insert.sql}), sqlinbox_wake AS (SELECT pg_notify(${p.bind(wakeupChannel(this.t.table))}, ''))` +
        ` SELECT sqlinbox_ins.* FROM sqlinbox_ins, sqlinbox_wake`,
    );
  }

  /** Differs from the builder's: the unsettled rows holding any of these keys, with their ids, one select for a whole publish. */
  override keyHolder(keys: string | readonly string[]): Statement {
    const q = this.q;
    const p = q.params();
    const key = q.ident(q.role(this.t.uniqueKey, 'uniqueKey'));
    const list = this.s.inList(p, key, typeof keys === 'string' ? [keys] : keys);
    return p.statement(`SELECT ${q.id}, ${key} FROM ${q.table} WHERE ${list}${q.unsettled()}`);
  }
}

/** The counts, and the rows in work they cannot see, in one aggregate. */
export class PostgresCounts extends CountStatements<PostgresQueue> {
  /**
   * Rows in work that the counts cannot see, and since when the oldest due row is due ({@link dueSince}), in one
   * aggregate: in the row lock form the due rows a `FOR UPDATE SKIP LOCKED` read passes over (it
   * locks each due row for the statement's instant); in the advisory form the due rows whose key's
   * lock another session holds (a table with its own lock functions: not seen).
   */
  statsInWork(now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const since = this.dueSince('q');
    const oldest =
      since === undefined ? 'NULL::timestamptz' : `min(${since}) FILTER (WHERE ${q.due(p, now, 'q')})`;
    let busy = '0';
    let held = '';
    if (t.form === 'rowlock') {
      const free = s.select(p, {
        columns: '1',
        table: `${q.table} f`,
        alias: 'f',
        where: q.due(p, now, 'f'),
        lock: true,
      });
      busy = `${s.countIf(q.due(p, now, 'q'))} - (SELECT count(*) FROM (${free}) sqlinbox_free)`;
    } else if (t.form === 'advisory' && t.lock === undefined) {
      held = `WITH sqlinbox_held AS (${HELD}) `;
      busy = s.countIf(`${q.due(p, now, 'q')} AND ${q.heldBy(q.keyExpr(p, 'q'))}`);
    }
    return p.statement(`${held}SELECT ${busy} AS busy, ${oldest} AS oldest FROM ${q.table} q`);
  }
}

/**
 * PostgreSQL's statements: the builder's over {@link PostgresSyntax}, and the statements PostgreSQL
 * does in one round trip where the builder's take more or read more: the FIFO-guarded claims, the
 * lease claim as one `WITH .. UPDATE .. FROM (SELECT .. FOR UPDATE SKIP LOCKED)`, candidates that
 * skip keys other sessions hold (`pg_locks`), the dead-letter move as one
 * `WITH moved AS (DELETE .. RETURNING *) INSERT`, and inserts that wake the table's listeners
 * (`pg_notify`) in the same statement.
 */
export class PostgresStatements extends QueueStatements<PostgresQueue> {
  declare readonly rowLock: PostgresRowLock;
  declare readonly lease: PostgresLease;
  declare readonly concurrency: PostgresConcurrency;
  declare readonly advisory: PostgresAdvisory;
  declare readonly settle: PostgresSettle;
  declare readonly publish: PostgresPublish;
  declare readonly control: PostgresControl;
  declare readonly counts: PostgresCounts;

  constructor(t: AnyTable, opts?: PrepareOptions) {
    super(new PostgresQueue(postgresSyntax, t, opts), {
      rowLock: PostgresRowLock,
      lease: PostgresLease,
      concurrency: PostgresConcurrency,
      advisory: PostgresAdvisory,
      settle: PostgresSettle,
      publish: PostgresPublish,
      counts: PostgresCounts,
      control: PostgresControl,
    });
  }
}
