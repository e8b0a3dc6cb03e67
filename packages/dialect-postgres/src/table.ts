import { performance } from 'node:perf_hooks';
import type {
  AnyTable,
  Candidate,
  Connection,
  Insert,
  InsertOptions,
  Logger,
  PrepareOptions,
  QueueStats,
  Row,
  TableOps,
} from '@sqlinbox/core';
import { EncodeError } from '@sqlinbox/core';
import { boundedClaims, ClaimRange, SqlTable, type Statement, timeOf } from '@sqlinbox/sql';
import { PostgresStatements } from './statements.js';

/**
 * The planner settings a claim's read runs under while its table's statistics mislead the planner,
 * for the read's own transaction only (`set_config(.., true)`, as `SET LOCAL`): no sequential scan,
 * no bitmap scan, no JIT. The read takes the first due rows in index order; what the planner
 * weighs against that is the table's statistics, and they can be far off for a minute at a time. A
 * table emptied and vacuumed keeps its pages and records a handful of rows, so the rows that arrive
 * before the next ANALYZE (autovacuum's naptime away) look like a handful too, and reading all of
 * them and sorting seems cheaper than an index scan that expects to read to the end: a whole-table
 * scan and sort per claim, hundreds of milliseconds on a table bloated by a held snapshot. With the
 * scans that need a sort made costly, the read keeps to its index whatever the statistics say; JIT
 * is off because that cost would otherwise set off compiling the statement.
 */
export const CLAIM_PLAN =
  "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)," +
  " set_config('jit', 'off', true)";

/** A claim's read of at least this many milliseconds has its plan looked at (`EXPLAIN`). */
export const SLOW_CLAIM_MS = 50;
/** How often at most a table's claim plan is looked at (ms): again while its reads run under `CLAIM_PLAN`. */
export const PLAN_RECHECK_MS = 10_000;
/**
 * The planner's cost of a sequential scan of the table from which it counts as the flip: about a
 * thousand pages (8 MB).
 */
export const BIG_SCAN_COST = 1000;

/** A node of a plan as `EXPLAIN (FORMAT JSON)` answers it, as far as {@link PostgresTable} reads it. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Total Cost': number;
  Plans?: PlanNode[];
}

/** Prepares the statements of one table (see {@link PostgresTable}). */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new PostgresTable(new PostgresStatements(t, opts), opts.logger);
}

/**
 * PostgreSQL's runner: the builder's, with one statement where PostgreSQL needs one (the lease
 * claim, the dead-letter move, a keyed publish of many messages, the counts of rows in work), a
 * publish of several statements run as it comes (a savepoint needs an open transaction), and the
 * server's refusal of a NUL character answered as an `EncodeError`.
 */
export class PostgresTable extends SqlTable<PostgresStatements> {
  /** Where a busy table's lease claims read ({@link ClaimRange}); undefined where they cannot start at an id. */
  readonly claimRange: ClaimRange | undefined;
  /**
   * How long a claim's read (a lease claim, the advisory candidates) may take (ms) before its plan
   * is looked at; `SLOW_CLAIM_MS` unless changed.
   */
  slowClaimMs = SLOW_CLAIM_MS;
  /** How often the plan is looked at again while the reads run under `CLAIM_PLAN` (ms). */
  recheckMs = PLAN_RECHECK_MS;
  /** Whether the claims' reads run under `CLAIM_PLAN`, and since when the plan was last looked at. */
  private pinned = false;
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(
    sql: PostgresStatements,
    /** Told when the claims' reads go under `CLAIM_PLAN` and when they leave it. */
    private readonly logger?: Logger,
  ) {
    super(sql);
    this.claimRange = boundedClaims(sql.t) ? new ClaimRange(sql.t.id.column) : undefined;
  }

  /**
   * The lease claim, its scan started near the lowest id this table's last claim took and the ids
   * below that start swept in windows where a scan from the first id is slow ({@link ClaimRange}).
   *
   * A claim is one statement in autocommit: its commit is the claim. While the planner would read
   * the whole table for it, claims run in a transaction of their own under `CLAIM_PLAN` (three
   * more round trips each; see `readDue`), so a plan that flipped to a scan of the whole table
   * costs one slow claim, not a slow claim each time until the next ANALYZE.
   */
  override async claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    const read = (k: number, from?: bigint, below?: bigint) =>
      this.readDue(conn, this.sql.lease.claim(k, now, expiry, from, below));
    return this.claimRange === undefined ? read(n) : this.claimRange.claim(n, read);
  }

  /**
   * A claim's read (the lease claim, the advisory candidates): one statement in autocommit, or, while
   * the planner would read the table in full for it, in a transaction of its own under
   * `CLAIM_PLAN`. A read that took `slowClaimMs` or more has its plan looked at (`EXPLAIN`,
   * one more round trip; at most once per `recheckMs`): a scan of the whole of a big table puts the
   * table's reads under the settings. While they are, the plan is looked at again every
   * `recheckMs`, and once the planner keeps to an index by itself (autovacuum's ANALYZE came) they
   * run as one statement again. A slow read with an index plan, or on a small table (a busy server,
   * a pause of this process), changes nothing.
   */
  private async readDue(conn: Connection, st: Statement): Promise<Row[]> {
    const at = performance.now();
    const rows = this.pinned ? await this.onIndex(conn, st) : await this.rows(conn, st);
    const end = performance.now();
    if (end - this.checkedAt >= this.recheckMs && (this.pinned || end - at >= this.slowClaimMs)) {
      try {
        const pinned = await this.scansTable(conn, st);
        if (pinned !== this.pinned) this.planChanged(pinned, end - at);
        this.pinned = pinned;
      } catch {
        // The plan unread, the reads stay as they were. The rows are claimed (the lease claim has
        // committed): they are the caller's. A connection that broke fails its next statement.
      }
      this.checkedAt = performance.now();
    }
    return rows;
  }

  /** Tells the logger the claims' reads go under `CLAIM_PLAN` (`pinned`) or leave it. */
  private planChanged(pinned: boolean, ms: number): void {
    const table = this.sql.t.table;
    if (pinned)
      this.logger?.warn(
        'the planner would read the whole table for each claim (its statistics are stale): claims run with sequential and bitmap scans off until it would not',
        { table, claimMs: Math.round(ms) },
      );
    else this.logger?.info('the planner keeps to the index again: claims run as planned', { table });
  }

  /** The advisory form's candidate select, run as `readDue` runs it. */
  override async candidates(
    conn: Connection,
    n: number,
    now: Date | null,
    own: ReadonlySet<string>,
  ): Promise<Candidate[]> {
    if (n <= 0) return [];
    const found = await this.readDue(conn, this.sql.advisory.candidates(n, now, own));
    return found.map((r) => ({ id: r.id, key: String(r.key) }));
  }

  /**
   * Whether the planner, left to itself, plans read `st` with a sequential scan of the table that
   * costs `BIG_SCAN_COST` or more. A small table is best read whole, and under load its claim
   * can take 50 ms too; a big one read whole is the flip. The scan's cost counts the table's pages,
   * which stale statistics do not shrink.
   */
  private async scansTable(conn: Connection, st: Statement): Promise<boolean> {
    const r = await conn.query(`EXPLAIN (FORMAT JSON) ${st.sql}`, st.params);
    const raw = r.rows[0]?.['QUERY PLAN'];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    const nodes: PlanNode[] = [];
    const walk = (n: PlanNode) => {
      nodes.push(n);
      for (const c of n.Plans ?? []) walk(c);
    };
    walk(plan[0]!.Plan);
    // The plan names the relation without its schema.
    const relation = this.sql.t.table.split('.').pop();
    return nodes.some(
      (n) =>
        n['Node Type'] === 'Seq Scan' && n['Relation Name'] === relation && n['Total Cost'] >= BIG_SCAN_COST,
    );
  }

  /** Runs claim `st` in a transaction of its own under `CLAIM_PLAN`. */
  private async onIndex(conn: Connection, st: Statement): Promise<Row[]> {
    await conn.query('BEGIN');
    let rows: Row[];
    try {
      await conn.query(CLAIM_PLAN);
      rows = await this.rows(conn, st);
    } catch (err) {
      await conn.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
    await conn.query('COMMIT');
    return rows;
  }

  /** Notifies row `id` on the table's `result` channel (after a custom ack or drop statement). */
  async notifyResult(conn: Connection, id: unknown): Promise<void> {
    const st = this.sql.settle.resultNotify(id);
    if (st !== undefined) await conn.query(st.sql, st.params);
  }

  /** The claim's statement orders its rows already (`ORDER BY` over the update's `RETURNING`). */
  override inClaimOrder(rows: Row[]): Row[] {
    return rows;
  }

  /** Runs an insert; a text or JSON value holding NUL is an `EncodeError` (`unstorable`). */
  async insertRows(conn: Connection, st: Statement): Promise<Row[]> {
    try {
      return await this.rows(conn, st);
    } catch (err) {
      throw unstorable(this.sql.t.table, err) ?? err;
    }
  }

  override async insertIds(conn: Connection, st: Statement): Promise<unknown[]> {
    return (await this.insertRows(conn, st)).map((r) => this.idOf(r));
  }

  /**
   * Inserts messages as multi-row `INSERT .. VALUES (..), (..) RETURNING id` statements, answering
   * the ids in message order (PostgreSQL returns the rows of `INSERT .. VALUES` in the order of
   * the list). Messages with a unique key go through {@link insertKeyed}.
   */
  override async insert(
    conn: Connection,
    messages: readonly Insert[],
    opts?: InsertOptions,
  ): Promise<unknown[]> {
    if (messages.length === 0) return [];
    const key = this.sql.t.uniqueKey;
    const wake = opts?.quiet !== true;
    // Replacing messages go one statement each (`ON CONFLICT DO UPDATE` takes a key once a statement).
    if (key !== undefined && messages.some((m) => m.replace === true)) {
      const ids: unknown[] = [];
      for (const m of messages) ids.push(await this.insertOne(conn, m));
      return ids;
    }
    if (key !== undefined && messages.some((m) => m.key !== undefined))
      return this.insertKeyed(conn, messages, key, wake);
    const ids: unknown[] = [];
    for (const st of this.sql.publish.insert(messages, false, wake))
      ids.push(...(await this.insertIds(conn, st)));
    return ids;
  }

  /**
   * Inserts messages some of which carry a unique key: `INSERT .. ON CONFLICT (key)
   * WHERE processed_at IS NULL DO NOTHING RETURNING id, key` per chunk, which the unique index
   * decides (the partial one where the table stamps settled rows), so racing publishers insert one
   * row. A keyed message that inserted nothing (its key held by an unsettled row, or by an earlier
   * message of this call) answers the holder's id, read by one more select of the keys that
   * conflicted. Where that holder was settled between the two statements, the messages go round
   * again.
   */
  async insertKeyed(
    conn: Connection,
    messages: readonly Insert[],
    key: string,
    wake = true,
  ): Promise<unknown[]> {
    const ids: unknown[] = new Array(messages.length).fill(undefined);
    for (let round = 0; round < 5; round++) {
      const todo = messages.map((m, i) => ({ m, i })).filter(({ i }) => ids[i] === undefined);
      if (todo.length === 0) return ids;
      const statements = this.sql.publish.insert(
        todo.map(({ m }) => m),
        true,
        wake,
      );
      const found: Row[] = [];
      for (const st of statements) found.push(...(await this.insertRows(conn, st)));
      // RETURNING follows the VALUES lists, leaving out the rows that inserted nothing.
      const conflicts = new Set<string>();
      let r = 0;
      for (const { m, i } of todo) {
        const got = found[r];
        if (m.key === undefined || (got !== undefined && got[key] === m.key)) {
          ids[i] = got === undefined ? undefined : this.idOf(got);
          r++;
        } else conflicts.add(m.key);
      }
      if (conflicts.size === 0) return ids;
      const held = await this.rows(conn, this.sql.publish.keyHolder([...conflicts]));
      const byKey = new Map(held.map((h) => [String(h[key]), this.idOf(h)]));
      for (const [i, m] of messages.entries()) {
        if (ids[i] === undefined && m.key !== undefined && byKey.has(m.key)) ids[i] = byKey.get(m.key);
      }
    }
    throw new Error(`table ${this.sql.t.table}: a unique key kept changing hands while it was published`);
  }

  /**
   * The counts with rows in work in every form, aggregated by the server in one statement
   * ({@link PostgresCounts.statsInWork}) instead of reading every due row.
   */
  override async statsInWork(conn: Connection, now: Date, base: QueueStats): Promise<QueueStats> {
    const t = this.sql.t;
    const r = (await this.rows(conn, this.sql.counts.statsInWork(now)))[0] ?? {};
    let seen: QueueStats['inWorkSeen'] = t.form === 'lease' ? 'lease' : 'none';
    if (t.form === 'rowlock') seen = 'locks';
    else if (t.form === 'advisory' && t.lock === undefined) seen = 'keys';
    const inWork = t.form === 'lease' ? base.inWork : Math.max(0, Number(r.busy ?? 0));
    return this.withInWork(base, now, inWork, seen, timeOf(r.oldest));
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
