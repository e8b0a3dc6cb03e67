import type {
  Advisory,
  AnyTable,
  Candidate,
  Connection,
  FinishSettlement,
  Insert,
  ListQuery,
  PickQuery,
  PrepareOptions,
  QueueStats,
  Row,
  Settlement,
  TableOps,
} from '@sqlinbox/core';
import { EncodeError } from '@sqlinbox/core';
import { wakeupChannel } from './ddl.js';
import { Params, quoteIdent, quoteTable } from './sql.js';

/**
 * The statements of one queue table on PostgreSQL: one method per statement kind, named as in
 * every other dialect (`claimLocked`, `claimLease`, `extendLeases`, `advisory.*`, `settle`,
 * `settleMany`, `insert`, `stats`, and the `fifoGuard` of a claim). Identifiers are quoted, values bound; time values are bound as
 * `$n::timestamptz`, so a lease token (a millisecond Date) round-trips exactly.
 *
 * Aliases used below: `q` the row being judged, `s` a sibling of the same group, `t` the row a
 * statement locks or writes.
 */

/** One statement's parameters, plus the values several clauses share (each bound once). */
class Statement extends Params {
  #now: string | undefined;
  #dead: string | undefined;

  constructor(
    private readonly nowValue: Date | null,
    private readonly deadGroup: string | undefined,
  ) {
    super();
  }

  /** The claim's "now": the bound host instant, or the database clock (`now()`) for `null`. */
  get now(): string {
    this.#now ??= this.nowValue === null ? 'now()' : this.time(this.nowValue);
    return this.#now;
  }

  /** The dead-letter group, bound once. */
  get dead(): string {
    this.#dead ??= this.add(this.deadGroup);
    return this.#dead;
  }
}

/** Answers the rows of a statement. */
async function rows(conn: Connection, sql: string, p: Params): Promise<Row[]> {
  return (await conn.query(sql, p.values)).rows;
}

/** Prepares the statements of one table (see {@link PostgresTable}). */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new PostgresTable(t, opts);
}

/** Private aliases in derived tables, chosen so they never meet a user's column name. */
const ID = 'sqlinbox_id';
const GROUP = 'sqlinbox_group';

/**
 * A table's statements. Construction only computes names; every method runs one statement
 * (PostgreSQL runs each of them, the lease claim and the dead-letter move included, as one).
 */
export class PostgresTable implements TableOps {
  /** The advisory form's statements: {@link candidates}, {@link lock}, {@link unlock}, {@link take}. */
  readonly advisory: Advisory;
  private readonly table: string;
  private readonly id: string;
  private readonly deadGroup: string | undefined;
  private readonly deadTable: string | undefined;
  /** Ids claims pass over (a relay's held-back records, R-OUT-1), read at each statement. */
  private readonly exclude: ReadonlySet<unknown> | undefined;

  constructor(
    private readonly t: AnyTable,
    opts: PrepareOptions,
  ) {
    this.table = quoteTable(t.table);
    this.id = quoteIdent(t.id.column);
    const dead = opts.deadLetter;
    this.deadGroup = dead !== undefined && 'group' in dead ? dead.group : undefined;
    this.deadTable = dead !== undefined && 'table' in dead ? quoteTable(dead.table) : undefined;
    this.exclude = opts.exclude;
    this.advisory = {
      candidates: (conn, n, now, own) => this.candidates(conn, n, now, own),
      lock: (conn, key) => this.lock(conn, key),
      unlock: (conn, key) => this.unlock(conn, key),
      take: (conn, id, now) => this.take(conn, id, now),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Conditions

  private col(alias: string, column: string): string {
    return `${alias}.${quoteIdent(column)}`;
  }

  /**
   * Claim order on alias `a` (R-FLOW-1): the highest priority first, then id; without a priority
   * column, id alone. With no alias, the bare columns (a CTE's output).
   */
  private order(a: string | undefined): string {
    const c = (column: string) => (a === undefined ? quoteIdent(column) : this.col(a, column));
    const id = c(this.t.id.column);
    return this.t.priority === undefined ? id : `${c(this.t.priority)} DESC, ${id}`;
  }

  private statement(now: Date | null): Statement {
    return new Statement(now, this.deadGroup);
  }

  /**
   * A row is due: not processed, its `retry_after` reached, its lease absent or ended, not in
   * the dead-letter group (each where the table has the column), and not an excluded id.
   */
  private due(s: Statement, a: string): string {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.col(a, t.processedAt)} IS NULL`);
    if (t.retryAfter !== undefined) {
      const c = this.col(a, t.retryAfter);
      parts.push(`(${c} IS NULL OR ${c} <= ${s.now})`);
    }
    if (t.lease !== undefined) {
      const c = this.col(a, t.lease);
      parts.push(`(${c} IS NULL OR ${c} <= ${s.now})`);
    }
    if (this.deadGroup !== undefined && t.group !== undefined) {
      parts.push(`${this.col(a, t.group)} IS DISTINCT FROM ${s.dead}`);
    }
    if (this.exclude !== undefined && this.exclude.size > 0) {
      // One array parameter, typed by the id column (`id <> ALL($n)`), however many ids.
      parts.push(`${this.col(a, t.id.column)} <> ALL(${s.add([...this.exclude])})`);
    }
    return parts.length === 0 ? 'TRUE' : parts.join(' AND ');
  }

  /**
   * FIFO (R-FIFO-1): the row is its group's head, the smallest id among the group's unsettled
   * rows. A NULL group is no group: `=` never matches it, so such a row stands alone. Rows of the
   * dead-letter group have left their group, so they never hold one up.
   */
  private head(a: string): string {
    const t = this.t;
    if (t.group === undefined) return 'TRUE';
    const unsettled = t.processedAt === undefined ? '' : ` AND ${this.col('s', t.processedAt)} IS NULL`;
    return (
      `NOT EXISTS (SELECT 1 FROM ${this.table} s WHERE ${this.col('s', t.group)} = ${this.col(a, t.group)}` +
      ` AND ${this.col('s', t.id.column)} < ${this.col(a, t.id.column)}${unsettled})`
    );
  }

  private get fifo(): boolean {
    return this.t.group !== undefined;
  }

  /**
   * The FIFO guard (R-FIFO-2): up to `n` due group heads in claim order whose guard this transaction
   * takes, as a CTE body selecting `sqlinbox_id`.
   *
   * The guard is `pg_try_advisory_xact_lock(hashtextextended(<table> || group, 0))`, held until the
   * claim's transaction ends: in the row lock form that is the whole handler, so a second broker
   * (another process) takes nothing of the group meanwhile, even in the instant between the
   * holder's settlement and its commit. It is the *try* form: a blocking guard would make a claim
   * wait on another's handler, and a claim never waits (R-ROW-1). A row without a group gets a
   * guard of its own (on its id), so a row another claim holds is passed over here instead of
   * filling one of the `n` slots and being skipped by `SKIP LOCKED` later.
   *
   * The heads are sorted in a derived table that the planner keeps apart (`OFFSET 0`; a volatile
   * condition is never pushed into it), and the guard is tried on its output under `LIMIT n`, so
   * the guard is tried on heads only, in claim order, and no more often than the claim needs.
   */
  private fifoGuard(s: Statement, n: number): string {
    const t = this.t;
    const group = t.group as string;
    const prefix = s.add(`sqlinbox.fifo:${t.table}:`);
    return (
      `SELECT h.${ID} FROM (SELECT ${this.col('q', t.id.column)} AS ${ID}, ${this.col('q', group)} AS ${GROUP}` +
      ` FROM ${this.table} q WHERE ${this.due(s, 'q')} AND ${this.head('q')}` +
      ` ORDER BY ${this.order('q')} OFFSET 0) h` +
      ` WHERE pg_try_advisory_xact_lock(hashtextextended(${prefix}::text || CASE WHEN h.${GROUP} IS NULL` +
      ` THEN 'row:' || h.${ID}::text ELSE 'group:' || h.${GROUP}::text END, 0))` +
      ` LIMIT ${s.add(n)}`
    );
  }

  /** The advisory key as SQL text: literals bound, columns as `col::text`, NULL as ''. */
  private keyExpr(s: Statement, a: string): string {
    const parts = (this.t.key ?? []).map((part) =>
      'literal' in part ? `${s.add(part.literal)}::text` : `coalesce(${this.col(a, part.column)}::text, '')`,
    );
    return parts.length === 0 ? `''` : parts.join(' || ');
  }

  /** `id = $1`, and `locked_until = $token` for a lease settlement. */
  private whereRow(p: Params, id: unknown, token: Date | undefined): string {
    let where = `${this.id} = ${p.add(id)}`;
    if (token !== undefined && this.t.lease !== undefined)
      where += ` AND ${quoteIdent(this.t.lease)} = ${p.time(token)}`;
    return where;
  }

  // -------------------------------------------------------------------------------------------
  // Claims

  /**
   * Row lock form (R-ROW-1), inside the engine's transaction: up to `n` due rows in claim order (priority, then id),
   * `FOR UPDATE SKIP LOCKED`, so a concurrent claim passes over them instead of waiting. A FIFO
   * table takes group heads under the guard (see `fifoGuard`). Counts nothing.
   */
  async claimLocked(conn: Connection, n: number, now: Date | null): Promise<Row[]> {
    const s = this.statement(now);
    const id = this.col('t', this.t.id.column);
    const order = this.order('t');
    if (!this.fifo) {
      return rows(
        conn,
        `SELECT t.* FROM ${this.table} t WHERE ${this.due(s, 't')} ORDER BY ${order} LIMIT ${s.add(n)} FOR UPDATE OF t SKIP LOCKED`,
        s,
      );
    }
    return rows(
      conn,
      `WITH sqlinbox_heads AS (${this.fifoGuard(s, n)}) ` +
        `SELECT t.* FROM ${this.table} t WHERE ${id} IN (SELECT ${ID} FROM sqlinbox_heads) AND ${this.due(s, 't')}` +
        ` ORDER BY ${order} FOR UPDATE OF t SKIP LOCKED`,
      s,
    );
  }

  /**
   * Lease form, one statement (R-LEASE-1, R-LEASE-2): a locking select of up to `n` due rows
   * (`FOR UPDATE SKIP LOCKED`, lease absent or ended at `now`), an update of the rows it found
   * (`locked_until = expiry`, `attempt = attempt + 1`), and the rows after the update, in claim order.
   * `now` is read once, as one bound value. Runs in autocommit: the statement's commit is the claim.
   */
  async claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    const t = this.t;
    const s = this.statement(now);
    const lease = t.lease;
    if (lease === undefined) throw new Error(`table ${t.table} has no lease column`);
    const set = [`${quoteIdent(lease)} = ${s.time(expiry)}`];
    if (t.attempt !== undefined)
      set.push(`${quoteIdent(t.attempt.column)} = ${this.col('t', t.attempt.column)} + 1`);
    const qid = this.col('q', t.id.column);
    const pick = this.fifo
      ? `SELECT ${qid} AS ${ID} FROM ${this.table} q WHERE ${qid} IN (SELECT ${ID} FROM sqlinbox_heads)` +
        ` AND ${this.due(s, 'q')} ORDER BY ${this.order('q')} FOR UPDATE OF q SKIP LOCKED`
      : `SELECT ${qid} AS ${ID} FROM ${this.table} q WHERE ${this.due(s, 'q')}` +
        ` ORDER BY ${this.order('q')} LIMIT ${s.add(n)} FOR UPDATE OF q SKIP LOCKED`;
    const heads = this.fifo ? `sqlinbox_heads AS (${this.fifoGuard(s, n)}), ` : '';
    return rows(
      conn,
      `WITH ${heads}sqlinbox_claimed AS (UPDATE ${this.table} AS t SET ${set.join(', ')}` +
        ` FROM (${pick}) c WHERE ${this.col('t', t.id.column)} = c.${ID} RETURNING t.*)` +
        ` SELECT * FROM sqlinbox_claimed ORDER BY ${this.order(undefined)}`,
      s,
    );
  }

  /**
   * Moves each lease still holding its token to `expiry`, all in one statement (R-LEASE-4): ids
   * and tokens go in as two arrays, each row compared with the token at its id's position; the
   * id array takes the id column's own type from `id = ANY($2)`. Answers the ids it moved.
   */
  async extendLeases(
    conn: Connection,
    leases: readonly { id: unknown; token: Date }[],
    expiry: Date,
  ): Promise<unknown[]> {
    const lease = this.t.lease;
    if (leases.length === 0 || lease === undefined) return [];
    const p = new Params();
    const e = p.time(expiry);
    const ids = p.add(leases.map((l) => l.id));
    const tokens = p.add(leases.map((l) => l.token));
    const found = await rows(
      conn,
      `UPDATE ${this.table} AS t SET ${quoteIdent(lease)} = ${e}` +
        ` WHERE ${this.col('t', this.t.id.column)} = ANY(${ids})` +
        ` AND ${this.col('t', lease)} = (${tokens}::timestamptz[])[array_position(${ids}, ${this.col('t', this.t.id.column)})]` +
        ` RETURNING ${this.col('t', this.t.id.column)} AS ${ID}`,
      p,
    );
    return found.map((r) => r[ID]);
  }

  /**
   * Many lease-form acks in one statement: a DELETE (or the `processed_at` stamp) of every row
   * that still holds its token, matched by `id = ANY($ids)` and the token at the id's position, as
   * `extendLeases` does. Answers the ids it changed.
   */
  async settleMany(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]> {
    const t = this.t;
    const lease = t.lease;
    if (settlements.length === 0 || lease === undefined) return [];
    const p = new Params();
    const ids = p.add(settlements.map((s) => s.id));
    const tokens = p.add(settlements.map((s) => s.token));
    const where =
      `${this.col('t', t.id.column)} = ANY(${ids})` +
      ` AND ${this.col('t', lease)} = (${tokens}::timestamptz[])[array_position(${ids}, ${this.col('t', t.id.column)})]`;
    const sql =
      t.processedAt === undefined
        ? `DELETE FROM ${this.table} AS t WHERE ${where}`
        : `UPDATE ${this.table} AS t SET ${quoteIdent(t.processedAt)} = ${p.time(settlements[0]!.now)}, ${quoteIdent(lease)} = NULL WHERE ${where}`;
    const found = await rows(conn, `${sql} RETURNING ${this.col('t', t.id.column)} AS ${ID}`, p);
    return found.map((r) => r[ID]);
  }

  // -------------------------------------------------------------------------------------------
  // Advisory form (R-ADV-1, R-DB-2)

  /**
   * Up to `n` due rows in claim order (FIFO: heads only) with their keys rendered in SQL as core's
   * `keyOf()` renders them. Leaves out the keys in `own` and the keys another session holds: a
   * 64-bit advisory lock shows in `pg_locks` as `locktype = 'advisory'`, `objsubid = 1`, the high
   * half of the key in `classid` and the low half in `objid`, so a claim spends no slot on a row
   * it could not lock. `pg_locks` is read once per statement (a volatile CTE is never inlined).
   */
  async candidates(
    conn: Connection,
    n: number,
    now: Date | null,
    own: ReadonlySet<string>,
  ): Promise<Candidate[]> {
    const s = this.statement(now);
    const qid = this.col('q', this.t.id.column);
    const hash = 'hashtextextended(c.key, 0)';
    const found = await rows(
      conn,
      `WITH sqlinbox_held AS (SELECT l.classid::int8 AS hi, l.objid::int8 AS lo FROM pg_catalog.pg_locks l` +
        ` WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.pid <> pg_backend_pid()` +
        ` AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database()))` +
        ` SELECT c.id AS id, c.key AS key FROM (SELECT ${qid} AS id, ${this.keyExpr(s, 'q')} AS key` +
        ` FROM ${this.table} q WHERE ${this.due(s, 'q')} AND ${this.head('q')} ORDER BY ${this.order('q')} OFFSET 0) c` +
        ` WHERE c.key <> ALL (${s.add([...own])}::text[])` +
        ` AND NOT EXISTS (SELECT 1 FROM sqlinbox_held h WHERE h.hi = ((${hash} >> 32) & 4294967295)` +
        ` AND h.lo = (${hash} & 4294967295))` +
        ` LIMIT ${s.add(n)}`,
      s,
    );
    return found.map((r) => ({ id: r.id, key: String(r.key) }));
  }

  /** `pg_try_advisory_lock(hashtextextended(key, 0))`: the session's lock on the key, no waiting. */
  async lock(conn: Connection, key: string): Promise<boolean> {
    const r = await conn.query<{ ok: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1::text, 0)) AS ok',
      [key],
    );
    return r.rows[0]?.ok === true;
  }

  /** `pg_advisory_unlock(hashtextextended(key, 0))`: true when this session held the key. */
  async unlock(conn: Connection, key: string): Promise<boolean> {
    const r = await conn.query<{ ok: boolean }>(
      'SELECT pg_advisory_unlock(hashtextextended($1::text, 0)) AS ok',
      [key],
    );
    return r.rows[0]?.ok === true;
  }

  /**
   * Takes the row while it is still claimable (due, and a FIFO head): `attempt = attempt + 1`
   * returning the row after the count (R-ADV-2); without an attempt column a select under the same
   * condition. Autocommit. Null when the row was settled meanwhile.
   */
  async take(conn: Connection, id: unknown, now: Date | null): Promise<Row | null> {
    const t = this.t;
    const s = this.statement(now);
    const where = `${this.col('q', t.id.column)} = ${s.add(id)} AND ${this.due(s, 'q')} AND ${this.head('q')}`;
    const sql =
      t.attempt === undefined
        ? `SELECT q.* FROM ${this.table} q WHERE ${where}`
        : `UPDATE ${this.table} AS q SET ${quoteIdent(t.attempt.column)} = ${this.col('q', t.attempt.column)} + 1` +
          ` WHERE ${where} RETURNING q.*`;
    return (await rows(conn, sql, s))[0] ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // Settlement, insert, stats

  /**
   * One settlement (R-SET-1), with `AND locked_until = token` where the settlement carries a token
   * (R-LEASE-3). Answers the rows changed in the queue table.
   * - finish: `DELETE`, or `processed_at = now` (and the lease cleared) where the table stamps rows;
   * - return: `attempt + 1` if counted, `retry_after` if given, `locked_until = NULL` if asked
   *   (where the table has each column); with nothing to write, a select of the row;
   * - deadLetter: a group is one `UPDATE` of the row's group (lease cleared); a table is one
   *   statement, `WITH moved AS (DELETE .. RETURNING *) INSERT INTO dlq SELECT * FROM moved`
   *   (R-DLQ-2), so both tables change in one commit whether or not a transaction is open.
   */
  async settle(conn: Connection, s: Settlement): Promise<number> {
    const t = this.t;
    const p = new Params();
    const clearLease = t.lease === undefined ? [] : [`${quoteIdent(t.lease)} = NULL`];
    let sql: string;
    switch (s.kind) {
      case 'finish': {
        if (t.processedAt === undefined) {
          sql = `DELETE FROM ${this.table} WHERE ${this.whereRow(p, s.id, s.token)}`;
        } else {
          const set = [`${quoteIdent(t.processedAt)} = ${p.time(s.now)}`, ...clearLease];
          sql = `UPDATE ${this.table} SET ${set.join(', ')} WHERE ${this.whereRow(p, s.id, s.token)}`;
        }
        break;
      }
      case 'return': {
        const set: string[] = [];
        if (s.countAttempt && t.attempt !== undefined) {
          set.push(`${quoteIdent(t.attempt.column)} = ${quoteIdent(t.attempt.column)} + 1`);
        }
        if (s.retryAfter !== undefined && t.retryAfter !== undefined) {
          set.push(`${quoteIdent(t.retryAfter)} = ${p.time(s.retryAfter)}`);
        }
        if (s.clearLease) set.push(...clearLease);
        sql =
          set.length === 0
            ? `SELECT 1 FROM ${this.table} WHERE ${this.whereRow(p, s.id, s.token)}`
            : `UPDATE ${this.table} SET ${set.join(', ')} WHERE ${this.whereRow(p, s.id, s.token)}`;
        break;
      }
      case 'deadLetter': {
        if ('group' in s.target) {
          if (t.group === undefined)
            throw new Error(`table ${t.table} has no group column for a dead-letter group`);
          const set = [`${quoteIdent(t.group)} = ${p.add(s.target.group)}`, ...clearLease];
          sql = `UPDATE ${this.table} SET ${set.join(', ')} WHERE ${this.whereRow(p, s.id, s.token)}`;
        } else {
          sql =
            `WITH sqlinbox_moved AS (DELETE FROM ${this.table} WHERE ${this.whereRow(p, s.id, s.token)} RETURNING *)` +
            ` INSERT INTO ${quoteTable(s.target.table)} SELECT * FROM sqlinbox_moved`;
        }
        break;
      }
    }
    return (await conn.query(sql, p.values)).rowCount;
  }

  /**
   * Inserts messages as multi-row `INSERT .. VALUES (..), (..) RETURNING id` statements (one per
   * 1000 messages): payload, group, partition key, `retry_after = notBefore`, the extra columns,
   * `attempt = 1` unless the attempt column is generated, the id from `columns[id]` unless the id is
   * generated. A value a message does not give is `DEFAULT`. A JSON payload is bound as text and
   * cast (`$n::text::json`), which fits a json, jsonb or text column. Answers the ids in message order
   * (PostgreSQL returns the rows of `INSERT .. VALUES` in the order of the list).
   */
  async insert(conn: Connection, messages: readonly Insert[]): Promise<unknown[]> {
    const t = this.t;
    if (t.uniqueKey !== undefined && messages.some((m) => m.key !== undefined)) {
      return this.insertKeyed(conn, messages, t.uniqueKey);
    }
    const ids: unknown[] = [];
    const statements = this.insertStatements(messages);
    for (const [i, st] of statements.entries()) {
      const p = st.p;
      const full = `${st.sql} RETURNING ${this.id} AS ${ID}`;
      // The last statement of a publish also wakes the table's listeners (R-PLUS-1): one
      // notification per publish, sent at its commit, with no round trip of its own.
      const statement =
        i === statements.length - 1
          ? `WITH sqlinbox_ins AS (${full}), sqlinbox_wake AS (SELECT pg_notify(${p.add(wakeupChannel(t.table))}, '')) SELECT ${ID} FROM sqlinbox_ins, sqlinbox_wake`
          : full;
      let inserted: Row[];
      try {
        inserted = await rows(conn, statement, p);
      } catch (err) {
        throw unstorable(t.table, err) ?? err;
      }
      for (const r of inserted) ids.push(r[ID]);
    }
    return ids;
  }

  /** The `INSERT .. VALUES` of each chunk of 1000 messages, without RETURNING (see {@link insert}). */
  private insertStatements(messages: readonly Insert[]): { sql: string; p: Params }[] {
    const t = this.t;
    const records = messages.map((m) => {
      const r = new Map<string, unknown>();
      for (const [column, value] of Object.entries(m.columns ?? {})) {
        if (!(t.id.generated && column === t.id.column)) r.set(column, value);
      }
      const put = (column: string | undefined, value: unknown) => {
        if (column !== undefined && value !== undefined) r.set(column, value);
      };
      put(t.payload?.column, m.payload);
      put(t.group, m.group);
      put(t.partitionKey, m.partitionKey);
      put(t.retryAfter, m.notBefore);
      put(t.priority, m.priority);
      put(t.uniqueKey, m.key);
      if (t.attempt !== undefined && !t.attempt.generated) r.set(t.attempt.column, 1);
      return r;
    });
    // An encoded JSON payload goes in as text cast to json, never as an untyped value: a driver that
    // serializes by the parameter's type (postgres.js) would otherwise encode the string again.
    // json converts to a jsonb column and, verbatim, to a text one.
    const jsonPayload = t.payload?.type === 'json' ? t.payload.column : undefined;
    const out: { sql: string; p: Params }[] = [];
    for (let i = 0; i < records.length; i += 1000) {
      const chunk = records.slice(i, i + 1000);
      const columns = [...new Set(chunk.flatMap((r) => [...r.keys()]))];
      const p = new Params();
      const values = chunk.map(
        (r) =>
          `(${columns
            .map((c) => {
              const v = r.get(c);
              if (v === undefined) return 'DEFAULT';
              if (v instanceof Date) return p.time(v);
              if (c === jsonPayload)
                return `${p.add(typeof v === 'string' ? v : JSON.stringify(v))}::text::json`;
              return p.add(v);
            })
            .join(', ')})`,
      );
      const sql =
        columns.length === 0
          ? `INSERT INTO ${this.table} SELECT FROM generate_series(1, ${p.add(chunk.length)})`
          : `INSERT INTO ${this.table} (${columns.map(quoteIdent).join(', ')}) VALUES ${values.join(', ')}`;
      out.push({ sql, p });
    }
    return out;
  }

  /**
   * Inserts messages some of which carry a unique key (R-FLOW-2): one statement per chunk,
   * `INSERT .. ON CONFLICT (key) WHERE processed_at IS NULL DO NOTHING RETURNING id, key`, which
   * the unique index decides (the partial one where the table stamps settled rows), so racing
   * publishers insert one row. A keyed message that inserted nothing (its key held by an unsettled
   * row, or by an earlier message of this call) answers the holder's id, read by one more select
   * of the keys that conflicted. Where that holder was settled between the two statements, the
   * messages go round again.
   */
  private async insertKeyed(
    conn: Connection,
    messages: readonly Insert[],
    keyColumn: string,
  ): Promise<unknown[]> {
    const t = this.t;
    const ids: unknown[] = new Array(messages.length).fill(undefined);
    const KEY = 'sqlinbox_key';
    const active = t.processedAt === undefined ? '' : ` WHERE ${quoteIdent(t.processedAt)} IS NULL`;
    for (let round = 0; round < 5; round++) {
      const todo = messages.map((m, i) => ({ m, i })).filter(({ i }) => ids[i] === undefined);
      if (todo.length === 0) return ids;
      const base = this.insertStatements(todo.map(({ m }) => m));
      const conflicts = new Set<string>();
      let k = 0;
      for (const st of base) {
        const p = st.p;
        const statement =
          `WITH sqlinbox_ins AS (${st.sql} ON CONFLICT (${quoteIdent(keyColumn)})${active} DO NOTHING` +
          ` RETURNING ${this.id} AS ${ID}, ${quoteIdent(keyColumn)} AS ${KEY}),` +
          ` sqlinbox_wake AS (SELECT pg_notify(${p.add(wakeupChannel(t.table))}, ''))` +
          ` SELECT ${ID}, ${KEY} FROM sqlinbox_ins, sqlinbox_wake`;
        let found: Row[];
        try {
          found = await rows(conn, statement, p);
        } catch (err) {
          throw unstorable(t.table, err) ?? err;
        }
        // RETURNING follows the VALUES list, leaving out the rows that inserted nothing.
        let r = 0;
        const chunk = todo.slice(k, k + 1000);
        for (const { m, i } of chunk) {
          const got = found[r];
          if (m.key === undefined || (got !== undefined && got[KEY] === m.key)) {
            ids[i] = got?.[ID];
            r++;
          } else conflicts.add(m.key);
        }
        k += chunk.length;
      }
      if (conflicts.size === 0) return ids;
      const p = new Params();
      const held = await rows(
        conn,
        `SELECT ${this.id} AS ${ID}, ${quoteIdent(keyColumn)} AS ${KEY} FROM ${this.table}` +
          ` WHERE ${quoteIdent(keyColumn)} = ANY(${p.add([...conflicts])}::text[])` +
          (t.processedAt === undefined ? '' : ` AND ${quoteIdent(t.processedAt)} IS NULL`),
        p,
      );
      const byKey = new Map(held.map((h) => [String(h[KEY]), h[ID]]));
      for (const [i, m] of messages.entries()) {
        if (ids[i] === undefined && m.key !== undefined && byKey.has(m.key)) ids[i] = byKey.get(m.key);
      }
    }
    throw new Error(`table ${t.table}: a unique key kept changing hands while it was published`);
  }

  /**
   * Counts in one statement: ready (due), delayed (`retry_after` after `now`), in work (lease form:
   * a lease running at `now`; else 0), dead (rows of the dead-letter group, or of the dead-letter
   * table).
   */
  async stats(conn: Connection, now: Date, opts: { inWork?: boolean } = {}): Promise<QueueStats> {
    if (opts.inWork === true) return this.statsInWork(conn, now);
    const t = this.t;
    const s = this.statement(now);
    const live: string[] = [];
    if (t.processedAt !== undefined) live.push(`${this.col('q', t.processedAt)} IS NULL`);
    if (this.deadGroup !== undefined && t.group !== undefined) {
      live.push(`${this.col('q', t.group)} IS DISTINCT FROM ${s.dead}`);
    }
    const and = (cond: string) => [...live, cond].join(' AND ');
    const ready = `count(*) FILTER (WHERE ${this.due(s, 'q')})`;
    const delayed =
      t.retryAfter === undefined
        ? '0'
        : `count(*) FILTER (WHERE ${and(`${this.col('q', t.retryAfter)} > ${s.now}`)})`;
    const inWork =
      t.lease === undefined ? '0' : `count(*) FILTER (WHERE ${and(`${this.col('q', t.lease)} > ${s.now}`)})`;
    let dead = '0';
    if (this.deadTable !== undefined) dead = `(SELECT count(*) FROM ${this.deadTable})`;
    else if (this.deadGroup !== undefined && t.group !== undefined) {
      const unsettled = t.processedAt === undefined ? '' : ` AND ${this.col('q', t.processedAt)} IS NULL`;
      dead = `count(*) FILTER (WHERE ${this.col('q', t.group)} = ${s.dead}${unsettled})`;
    }
    const r = await rows(
      conn,
      `SELECT ${ready} AS ready, ${delayed} AS delayed, ${inWork} AS in_work, ${dead} AS dead FROM ${this.table} q`,
      s,
    );
    const row = r[0] ?? {};
    return {
      ready: Number(row.ready ?? 0),
      delayed: Number(row.delayed ?? 0),
      inWork: Number(row.in_work ?? 0),
      dead: Number(row.dead ?? 0),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Admin (R-ADM-1, R-ADM-2, R-ADM-3)

  /**
   * The counts of {@link stats}, with rows in work in every form: leases running at `now`; in the
   * row lock form the due rows a `FOR UPDATE SKIP LOCKED` read passes over (it locks each due row
   * for the statement's instant); in the advisory form the due rows whose key's lock another
   * session holds, read from `pg_locks` (a table with its own lock functions: not seen). And the
   * oldest ready row's `retry_after`.
   */
  async statsInWork(conn: Connection, now: Date): Promise<QueueStats> {
    const base = await this.stats(conn, now);
    const t = this.t;
    const s = this.statement(now);
    const oldest =
      t.retryAfter === undefined
        ? 'NULL::timestamptz'
        : `min(${this.col('q', t.retryAfter)}) FILTER (WHERE ${this.due(s, 'q')})`;
    let busy = '0';
    let seen: QueueStats['inWorkSeen'] = t.form === 'lease' ? 'lease' : 'none';
    if (t.form === 'rowlock') {
      seen = 'locks';
      busy =
        `count(*) FILTER (WHERE ${this.due(s, 'q')}) - (SELECT count(*) FROM (SELECT 1 FROM ${this.table} f` +
        ` WHERE ${this.due(s, 'f')} FOR UPDATE OF f SKIP LOCKED) sqlinbox_free)`;
    } else if (t.form === 'advisory' && t.lock === undefined) {
      seen = 'keys';
      const hash = `hashtextextended(${this.keyExpr(s, 'q')}, 0)`;
      busy =
        `count(*) FILTER (WHERE ${this.due(s, 'q')} AND EXISTS (SELECT 1 FROM pg_catalog.pg_locks l` +
        ` WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.pid <> pg_backend_pid()` +
        ` AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database())` +
        ` AND l.classid::int8 = ((${hash} >> 32) & 4294967295) AND l.objid::int8 = (${hash} & 4294967295)))`;
    }
    const r =
      (await rows(conn, `SELECT ${busy} AS busy, ${oldest} AS oldest FROM ${this.table} q`, s))[0] ?? {};
    const inWork = t.form === 'lease' ? base.inWork : Math.max(0, Number(r.busy ?? 0));
    const oldestAt =
      r.oldest instanceof Date ? r.oldest : r.oldest == null ? null : new Date(String(r.oldest));
    return {
      ...base,
      ready: t.form === 'lease' ? base.ready : Math.max(0, base.ready - inWork),
      inWork,
      inWorkSeen: seen,
      oldestReadyAgeMs: oldestAt === null ? null : Math.max(0, now.getTime() - oldestAt.getTime()),
    };
  }

  /** The state of row `a` as SQL sees it (see `RowState`), as a CASE expression. */
  private stateExpr(s: Statement, a: string): string {
    const t = this.t;
    const when: string[] = [];
    if (this.deadGroup !== undefined && t.group !== undefined)
      when.push(`WHEN ${this.col(a, t.group)} = ${s.dead} THEN 'dead'`);
    if (t.processedAt !== undefined) when.push(`WHEN ${this.col(a, t.processedAt)} IS NOT NULL THEN 'done'`);
    if (t.lease !== undefined) when.push(`WHEN ${this.col(a, t.lease)} > ${s.now} THEN 'inWork'`);
    if (t.retryAfter !== undefined) when.push(`WHEN ${this.col(a, t.retryAfter)} > ${s.now} THEN 'delayed'`);
    return when.length === 0 ? `'ready'` : `CASE ${when.join(' ')} ELSE 'ready' END`;
  }

  /** Admin list: rows of one state in id order after `after`, each with `sqlinbox_state`. */
  async list(conn: Connection, q: ListQuery): Promise<Row[]> {
    const s = this.statement(q.now);
    const fromDead = q.state === 'dead' && this.deadTable !== undefined;
    const source = fromDead
      ? `SELECT d.*, 'dead'::text AS sqlinbox_state FROM ${this.deadTable} d`
      : `SELECT q.*, ${this.stateExpr(s, 'q')} AS sqlinbox_state FROM ${this.table} q`;
    const where: string[] = [];
    if (q.state !== 'all') where.push(`x.sqlinbox_state = ${s.add(q.state)}`);
    if (q.after !== undefined) where.push(`x.${this.id} > ${s.add(q.after)}`);
    if (q.ids !== undefined) where.push(`x.${this.id} = ANY(${s.add([...q.ids])})`);
    return rows(
      conn,
      `SELECT x.* FROM (${source}) x${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
        ` ORDER BY x.${this.id} LIMIT ${s.add(q.limit)}`,
      s,
    );
  }

  /**
   * Admin pick, inside the caller's transaction: dead rows (the dead-letter group's, or the
   * dead-letter table's) or live ones (unsettled, not dead, lease absent or ended), optionally by
   * ids and group, `FOR UPDATE SKIP LOCKED`: a row another transaction holds is left out.
   */
  async pick(conn: Connection, q: PickQuery): Promise<Row[]> {
    const t = this.t;
    const s = this.statement(q.now);
    const where: string[] = [];
    let from = `${this.table} q`;
    if (q.dead && this.deadTable !== undefined) {
      from = `${this.deadTable} q`;
    } else if (q.dead) {
      if (t.group === undefined || this.deadGroup === undefined) return [];
      where.push(`${this.col('q', t.group)} = ${q.group === undefined ? s.dead : s.add(q.group)}`);
      if (t.processedAt !== undefined) where.push(`${this.col('q', t.processedAt)} IS NULL`);
    } else {
      if (t.processedAt !== undefined) where.push(`${this.col('q', t.processedAt)} IS NULL`);
      if (this.deadGroup !== undefined && t.group !== undefined)
        where.push(`${this.col('q', t.group)} IS DISTINCT FROM ${s.dead}`);
      if (t.lease !== undefined) {
        const c = this.col('q', t.lease);
        where.push(`(${c} IS NULL OR ${c} <= ${s.now})`);
      }
    }
    if (q.group !== undefined && !(q.dead && this.deadTable === undefined)) {
      if (t.group === undefined) return [];
      where.push(`${this.col('q', t.group)} = ${s.add(q.group)}`);
    }
    if (q.ids !== undefined) where.push(`${this.col('q', t.id.column)} = ANY(${s.add([...q.ids])})`);
    return rows(
      conn,
      `SELECT q.* FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
        ` ORDER BY ${this.col('q', t.id.column)} FOR UPDATE OF q SKIP LOCKED`,
      s,
    );
  }

  /** The `SET` list that puts a row back as new: attempt 1, no `retry_after`, no lease. */
  private fresh(): string[] {
    const t = this.t;
    const set: string[] = [];
    if (t.attempt !== undefined) set.push(`${quoteIdent(t.attempt.column)} = 1`);
    if (t.retryAfter !== undefined) set.push(`${quoteIdent(t.retryAfter)} = NULL`);
    if (t.lease !== undefined) set.push(`${quoteIdent(t.lease)} = NULL`);
    return set;
  }

  /**
   * Admin requeue of picked dead rows: a dead-letter group's rows get `toGroup`; a dead-letter
   * table's rows move back in one statement (`WITH moved AS (DELETE .. RETURNING *) INSERT ..`),
   * then every moved row is reset. Answers the ids moved.
   */
  async requeue(
    conn: Connection,
    ids: readonly unknown[],
    opts: { toGroup: string | null },
  ): Promise<unknown[]> {
    const t = this.t;
    const p = new Params();
    const set = this.fresh();
    if (this.deadTable !== undefined) {
      const list = p.add([...ids]);
      const moved = await rows(
        conn,
        `WITH sqlinbox_moved AS (DELETE FROM ${this.deadTable} WHERE ${this.id} = ANY(${list}) RETURNING *)` +
          ` INSERT INTO ${this.table} SELECT * FROM sqlinbox_moved RETURNING ${this.id} AS ${ID}`,
        p,
      );
      const back = moved.map((r) => r[ID]);
      const u = new Params();
      if (opts.toGroup !== null && t.group !== undefined)
        set.push(`${quoteIdent(t.group)} = ${u.add(opts.toGroup)}`);
      if (set.length > 0 && back.length > 0)
        await conn.query(
          `UPDATE ${this.table} SET ${set.join(', ')} WHERE ${this.id} = ANY(${u.add(back)})`,
          u.values,
        );
      return back;
    }
    if (t.group === undefined) return [];
    set.push(`${quoteIdent(t.group)} = ${p.add(opts.toGroup)}`);
    const found = await rows(
      conn,
      `UPDATE ${this.table} SET ${set.join(', ')} WHERE ${this.id} = ANY(${p.add([...ids])}) RETURNING ${this.id} AS ${ID}`,
      p,
    );
    return found.map((r) => r[ID]);
  }

  /** Admin delete of picked rows (dead ones from the dead-letter table where there is one). */
  async remove(conn: Connection, ids: readonly unknown[], opts: { dead: boolean }): Promise<unknown[]> {
    const p = new Params();
    const from = opts.dead && this.deadTable !== undefined ? this.deadTable : this.table;
    const found = await rows(
      conn,
      `DELETE FROM ${from} WHERE ${this.id} = ANY(${p.add([...ids])}) RETURNING ${this.id} AS ${ID}`,
      p,
    );
    return found.map((r) => r[ID]);
  }

  /** Admin reschedule of picked live rows: `retry_after = at`. */
  async reschedule(conn: Connection, ids: readonly unknown[], at: Date): Promise<unknown[]> {
    const ra = this.t.retryAfter;
    if (ra === undefined) return [];
    const p = new Params();
    const found = await rows(
      conn,
      `UPDATE ${this.table} SET ${quoteIdent(ra)} = ${p.time(at)} WHERE ${this.id} = ANY(${p.add([...ids])})` +
        ` RETURNING ${this.id} AS ${ID}`,
      p,
    );
    return found.map((r) => r[ID]);
  }
}

/**
 * The server's refusal of a character it cannot store, as an `EncodeError` that says so: text and
 * jsonb hold no NUL (U+0000; SQLSTATE 22021 for a text value, 22P05 for `\u0000` in JSON). Other
 * errors answer undefined. Nothing is stored: the INSERT failed as a whole.
 */
function unstorable(table: string, err: unknown): EncodeError | undefined {
  const e = err as { code?: unknown; message?: unknown; detail?: unknown };
  if (e.code !== '22021' && e.code !== '22P05') return undefined;
  const detail = typeof e.detail === 'string' ? ` (${e.detail})` : '';
  return new EncodeError(
    table,
    `PostgreSQL text and jsonb cannot hold the NUL character U+0000: ${String(e.message)}${detail}; store such messages in a bytes (bytea) payload`,
    err,
  );
}
