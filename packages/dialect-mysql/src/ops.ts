import type {
  AnyTable,
  Connection,
  FinishSettlement,
  Insert,
  PrepareOptions,
  RateReservation,
  ReturnSettlement,
  Row,
  Settlement,
  TableOps,
} from '@sqlinbox/core';
import { boundedClaims, ClaimRange, chunks, fifoWindow, ID, SqlTable, type Statement } from '@sqlinbox/sql';
import { type FifoCandidate, FifoHints } from './fifo-hints.js';
import { knownInTransaction } from './session.js';
import { type MysqlQueryResult, toCount } from './sql.js';
import { FIFO_DUE, FIFO_GROUP, FIFO_PART, GUARD_K, MysqlStatements, mysqlSyntax } from './statements.js';

/**
 * Opens the runner's own transactions, the one way every flow of this runner opens one: at READ
 * COMMITTED, the forms' level (the syntax's `begin`: `SET TRANSACTION ISOLATION LEVEL READ
 * COMMITTED`, then `START TRANSACTION`), never at the server's default REPEATABLE READ, which would
 * lock the gaps a claim or a keyed insert scans.
 */
async function begin(conn: Connection): Promise<void> {
  for (const sql of mysqlSyntax.begin) await conn.query(sql);
}

async function rollbackQuietly(conn: Connection): Promise<void> {
  // the caller rethrows the error that brought it here
  await conn.query('ROLLBACK').catch(() => undefined);
}

/** The answers of statements sent at once, in order, once all have answered; the first failure thrown. */
async function allAnswered(sent: readonly Promise<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(sent);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
}

/**
 * A lease claim's transaction in two round trips where the driver pipelines (`mariadb`; `mysql2`
 * queues them, sparing the awaits between): the begin and the locking select `lock` sent at once;
 * then, for the ids `pick` keeps of its rows, the update, the re-read and the COMMIT sent at once.
 * Nothing is written before the first three have all answered. Where one of the last three fails,
 * the transaction is rolled back unless the COMMIT already ran, and then the claim's rows keep
 * their lease until it ends, as after a crash.
 */
async function leaseTransaction(
  conn: Connection,
  lock: Statement,
  pick: (locked: Row[]) => unknown[] | Promise<unknown[]>,
  write: (ids: readonly unknown[]) => { update: Statement; reread: Statement },
): Promise<Row[]> {
  try {
    const opened = await allAnswered([
      ...mysqlSyntax.begin.map((sql) => conn.query(sql)),
      conn.query<Row>(lock.sql, lock.params),
    ]);
    const ids = await pick((opened.at(-1) as MysqlQueryResult<Row>).rows);
    if (ids.length === 0) {
      await conn.query('COMMIT');
      return [];
    }
    const { update, reread } = write(ids);
    const written = await allAnswered([
      conn.query(update.sql, update.params),
      conn.query<Row>(reread.sql, reread.params),
      conn.query('COMMIT'),
    ]);
    return (written[1] as MysqlQueryResult<Row>).rows;
  } catch (err) {
    await rollbackQuietly(conn);
    throw err;
  }
}

/** Runs `body` in a READ COMMITTED transaction of its own, committed when it returns. */
async function inTransaction<T>(conn: Connection, body: () => Promise<T>): Promise<T> {
  await begin(conn);
  try {
    const result = await body();
    await conn.query('COMMIT');
    return result;
  } catch (err) {
    await rollbackQuietly(conn);
    throw err;
  }
}

/** Dead letters one retention stamp statement writes at most. */
const STAMP_BATCH = 1_000;

/**
 * What the runner needs to know of a session's server, read once per session in one statement:
 * whether it is MariaDB (its `VERSION()`: `DELETE .. RETURNING`), and its
 * `innodb_autoinc_lock_mode` and `auto_increment_increment` (multi-row inserts' ids).
 */
interface SessionFacts {
  readonly mariadb: boolean;
  readonly mode: number;
  readonly step: number;
}

const factsBySession = new WeakMap<Connection, SessionFacts>();

async function sessionFacts(conn: Connection): Promise<SessionFacts> {
  let v = factsBySession.get(conn);
  if (v === undefined) {
    const { rows } = await conn.query<Row>(
      'SELECT VERSION() AS `version`, @@innodb_autoinc_lock_mode AS `mode`, @@auto_increment_increment AS `step`',
    );
    const r = rows[0];
    v = {
      mariadb: /mariadb/i.test(String(r?.version ?? '')),
      mode: toCount(r?.mode),
      step: toCount(r?.step) || 1,
    };
    factsBySession.set(conn, v);
  }
  return v;
}

/** The first id an INSERT generated: the OK packet's `insertId`, else `LAST_INSERT_ID()`. */
async function firstInsertId(conn: Connection, res: MysqlQueryResult): Promise<unknown> {
  let id: unknown = res.insertId;
  if (id === undefined) id = (await conn.query<Row>('SELECT LAST_INSERT_ID() AS `id`')).rows[0]?.id;
  // 0: the table has no AUTO_INCREMENT column, the server generated the id some other way.
  return isZero(id) ? null : id;
}

const isZero = (id: unknown) => id === undefined || id === null || id === 0 || id === 0n || id === '0';

/** `first + k`, in the type the driver gave `first` (number, bigint or decimal string). */
function addToId(first: unknown, k: number): unknown {
  if (k === 0) return first;
  if (typeof first === 'bigint') return first + BigInt(k);
  if (typeof first === 'number') return first + k;
  return (BigInt(String(first)) + BigInt(k)).toString();
}

const idKey = (v: unknown): string => String(v);

/** The statements of one MySQL/MariaDB queue table, all three claim forms. */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new MysqlTable(new MysqlStatements(t, opts));
}

/**
 * MySQL's runner: the builder's, with the flows MySQL runs in several statements, having no
 * `UPDATE .. RETURNING`: the lease claim (select, guard, update, re-read in one transaction), the
 * FIFO guard after each claim, an extension and a batched ack without returned ids, the advisory
 * take (update, then read), inserts whose ids come from the insert id, and the move to a
 * dead-letter table. Advisory locks are noted on the session, so the pool never lends out a
 * connection that holds one.
 */
export class MysqlTable extends SqlTable<MysqlStatements> {
  /** Where a busy table's lease claims read ({@link ClaimRange}); undefined where they cannot start at an id. */
  readonly claimRange: ClaimRange | undefined;
  /**
   * The last FIFO window's last id, where that window was full and left its claim short: the next
   * claim reads {@link MysqlFifo.beyond} of it in the window's statement. Undefined otherwise.
   */
  private beyondAfter: unknown;
  /** The last FIFO read's rows, offered to the claims after it ({@link FifoHints}). */
  private readonly hints = new FifoHints();
  /** The keys the last per-key claim looked for heads in, in key order ({@link MysqlConcurrency.keys}). */
  private keysKnown: string[] = [];

  constructor(sql: MysqlStatements) {
    super(sql);
    this.claimRange = boundedClaims(sql.t) ? new ClaimRange(sql.t.id.column) : undefined;
  }

  override run(conn: Connection, st: Statement): Promise<MysqlQueryResult> {
    return conn.query<Row>(st.sql, st.params);
  }

  /**
   * Rate limits: the reservation's UPDATE, then the row read back in the same transaction, which
   * the UPDATE's row lock keeps to this reservation's values (no `UPDATE .. RETURNING`).
   */
  override async reserveRow(conn: Connection, r: RateReservation): Promise<Row | undefined> {
    return inTransaction(conn, async () => {
      await this.run(conn, this.sql.rates.reserveRate(r.table, r.name, r.want, r.max, r.perMs));
      return (await this.rows(conn, this.sql.rates.rateState(r.table, r.name)))[0];
    });
  }

  /**
   * `nested`: inside the caller's transaction as it stands (no savepoint: a statement that fails
   * fails the caller's transaction), or one of its own where the connection is known to have none
   * open. Else a READ COMMITTED transaction of its own.
   */
  override async atomically<T>(conn: Connection, nested: boolean, body: () => Promise<T>): Promise<T> {
    if (!nested) return inTransaction(conn, body);
    if (knownInTransaction(conn) !== false) return body();
    return inTransaction(conn, body);
  }

  /**
   * The builder's guard, after (once per table) reading which index the guard reads
   * ({@link findFifoIndex}). Two heads or more take their guards in one statement ({@link MysqlFifo.headGuards}) instead of a
   * round trip each (a claim of 16 heads spent 5 ms in its guards).
   */
  override async guardHeads(conn: Connection, rows: readonly Row[]): Promise<Row[]> {
    const s = this.sql.fifo;
    if (rows.length > 0) await this.findFifoIndex(conn);
    const group = s.t.group;
    const grouped =
      group === undefined ? [] : rows.filter((r) => r[group] !== null && r[group] !== undefined);
    if (group === undefined || grouped.length < 2) return super.guardHeads(conn, rows);
    // Every head's guard in one statement: a head any answer row is tagged with is not its group's.
    const st = s.headGuards(grouped.map((r) => ({ id: this.idOf(r), group: r[group] })));
    if (st === undefined) return super.guardHeads(conn, rows);
    const behind = new Set((await this.rows(conn, st)).map((r) => Number(r[GUARD_K])));
    const left = new Set(grouped.filter((_, k) => behind.has(k)));
    return rows.filter((r) => !left.has(r));
  }

  /**
   * Reads (once per table) which index the FIFO guard reads ({@link MysqlFifo.fifoIndex}). A
   * table without an index led by its group column is warned about once: its guard may wait on
   * rows of other groups that other claims hold.
   */
  private async findFifoIndex(conn: Connection): Promise<void> {
    const s = this.sql.fifo;
    if (s.t.group === undefined || s.fifoIndex !== undefined) return;
    const name = (await this.rows(conn, s.fifoIndexOf()))[0]?.name;
    s.fifoIndex = name === undefined || name === null ? null : String(name);
    if (s.fifoIndex === null) {
      process.emitWarning(
        `sqlinbox: table ${s.t.table} has no index led by its group column ${s.t.group}: the FIFO guard scans the primary key and may wait on rows other claims hold; create the sqlinbox_fifo index ddl() prints`,
        { code: 'SQLINBOX_NO_FIFO_INDEX' },
      );
    }
  }

  /** The FIFO guard ({@link MysqlFifo.headGuard}) finds no older row: the claimed row is its group's head. */
  override isHead(answer: Row[]): boolean {
    return answer.length === 0;
  }

  /**
   * A FIFO claim's candidates, read without locks before its locking select (where the table's
   * claim order is the id's, {@link MysqlFifo.windowed}; else undefined): the due heads of the
   * window of the oldest rows, and where that leaves the claim short, of the groups after it
   * ({@link MysqlFifo.window}, {@link MysqlFifo.beyond}); where the last claim's window left it
   * short, both in one statement ({@link MysqlFifo.windowThenBeyond}). A group is told by its value as the
   * driver answers it: where the server takes two values as one group (a case-insensitive
   * collation), both may be candidates, and the locking select's head test keeps the older.
   * The rows the statements answered are kept as the hints ({@link remembered}).
   */
  private async fifoCandidates(conn: Connection, n: number, now: Date | null): Promise<FifoCandidate[]> {
    const fifo = this.sql.fifo;
    const after = this.beyondAfter;
    const rows = await this.rows(
      conn,
      after === undefined ? fifo.window(n, now) : fifo.windowThenBeyond(n, now, after),
    );
    const window = rows.filter((r) => toCount(r[FIFO_PART]) === 0);
    const seen = new Set<string>();
    const ids = new Set<string>();
    const out: FifoCandidate[] = [];
    const add = (r: Row) => {
      const g = r[FIFO_GROUP];
      const grouped = g !== null && g !== undefined;
      if (grouped) {
        if (seen.has(String(g))) return;
        seen.add(String(g));
      }
      if (toCount(r[FIFO_DUE]) !== 1 || ids.has(String(r[ID]))) return;
      ids.add(String(r[ID]));
      out.push({ id: r[ID], group: grouped ? g : null });
    };
    for (const r of window) add(r);
    if (window.length < fifoWindow(n) || out.length >= n) {
      this.beyondAfter = undefined;
      return this.remembered(window, out);
    }
    const last = window[window.length - 1]![ID];
    this.beyondAfter = last;
    const beyond =
      after === undefined
        ? await this.rows(conn, fifo.beyond(last, n, now))
        : rows.filter((r) => toCount(r[FIFO_PART]) === 1);
    for (const r of beyond) add(r);
    return this.remembered([...window, ...beyond], out);
  }

  /**
   * A FIFO read's candidates `out`, its rows kept as the next claims' hints ({@link FifoHints})
   * where every candidate has a group (a row without one is claimed as the read finds it).
   */
  private remembered(read: readonly Row[], out: FifoCandidate[]): FifoCandidate[] {
    if (out.some((c) => c.group === null)) this.hints.forget();
    else
      this.hints.remember(
        read.map((r) => ({ id: r[ID], group: r[FIFO_GROUP], due: toCount(r[FIFO_DUE]) === 1 })),
      );
    return out;
  }

  /**
   * A FIFO claim of up to `n` rows, `over` its candidates: those the last read left as hints
   * ({@link FifoHints}) where it has any, else those a read finds ({@link fifoCandidates}). A claim
   * over hints that takes nothing reads at once and claims over what it finds: a hint may be stale
   * (another process settled or took the row), and the claim must not come back empty while a head
   * is free. Undefined where the table's claim order is not the id's (no window to read).
   * `settled` (the lease form): hints only of groups whose rows ahead this subscription settled.
   * The lease form's locking statement guards every candidate, and a hint behind a head in work
   * would lock that head in the claim's transaction, so two brokers' claims could wait on each
   * other (a deadlock, and after three in a row the claim backs off for seconds); the row lock
   * claim guards only the heads its select took, by its head test.
   */
  private async fifoClaim(
    conn: Connection,
    n: number,
    now: Date | null,
    settled: boolean,
    over: (among: readonly FifoCandidate[]) => Promise<Row[]>,
  ): Promise<Row[] | undefined> {
    if (!this.sql.fifo.windowed) return undefined;
    const hinted = this.hints.candidates(settled);
    if (hinted !== undefined) {
      const rows = await this.claimOver(hinted, n, over);
      if (rows.length > 0) return rows;
    }
    const among = await this.fifoCandidates(conn, n, now);
    return among.length === 0 ? [] : this.claimOver(among, n, over);
  }

  /** A FIFO claim over `among`, its rows told to the hints ({@link FifoHints.took}); none kept where it fails. */
  private async claimOver(
    among: readonly FifoCandidate[],
    n: number,
    over: (among: readonly FifoCandidate[]) => Promise<Row[]>,
  ): Promise<Row[]> {
    let rows: Row[];
    try {
      rows = await over(among);
    } catch (err) {
      this.hints.forget();
      throw err;
    }
    this.hints.took(
      among,
      rows.map((r) => this.idOf(r)),
      n,
    );
    return rows;
  }

  /** The builder's claim; a FIFO table's select takes only its candidates ({@link fifoClaim}). */
  override async claimLocked(conn: Connection, n: number, now: Date | null): Promise<Row[]> {
    if (n <= 0) return [];
    const rows = await this.fifoClaim(conn, n, now, false, async (among) => {
      const ids = among.map((c) => c.id);
      return this.guardHeads(conn, await this.rows(conn, this.sql.rowLock.claim(n, now, ids)));
    });
    return rows ?? super.claimLocked(conn, n, now);
  }

  /**
   * Locking select, guard (FIFO), update, re-read, in one READ COMMITTED transaction of its own
   * sent in two round trips ({@link leaseTransaction}); a FIFO table's candidates
   * ({@link fifoClaim}) read before it, and no transaction where there are none. A busy table's
   * claims start near the lowest id the last one took, and sweep the ids below in windows where a
   * scan from the first id is slow ({@link ClaimRange}): while a transaction is held open, purge
   * removes no deleted row, and a scan from the first id steps over every row settled since.
   */
  override async claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    if (this.claimRange !== undefined)
      return this.claimRange.claim(n, (k, from, below) => this.lease(conn, k, now, expiry, from, below));
    const rows = await this.fifoClaim(conn, n, now, true, async (among) => {
      const heads = await this.lockHeads(conn, n, now, expiry, among);
      return leaseTransaction(conn, heads.lock, heads.pick, (ids) => this.leaseWrite(ids, expiry));
    });
    return rows ?? this.lease(conn, n, now, expiry);
  }

  /**
   * One claim's transaction ({@link leaseTransaction}): the locking select, of ids in a range where
   * given, the guard, the update, the re-read.
   */
  private lease(
    conn: Connection,
    n: number,
    now: Date,
    expiry: Date,
    from?: bigint,
    below?: bigint,
  ): Promise<Row[]> {
    return leaseTransaction(
      conn,
      this.sql.lease.claim(n, now, expiry, undefined, from, below),
      async (locked) => (await this.guardHeads(conn, locked)).map((r) => this.idOf(r)),
      (ids) => this.leaseWrite(ids, expiry),
    );
  }

  /**
   * A FIFO claim's locking statement over its candidates, and how to `pick` from its rows the ids
   * it locked (`SKIP LOCKED`) that pass their group's guard: the locking select and every grouped
   * candidate's guard ({@link MysqlFifo.headGuards}, which waits where the select skips) as parts
   * of one `UNION ALL`, a round trip less than the select, then the guards. A candidate whose guard
   * answers a row is not its group's head; one the select did not lock (another claim holds it) is
   * not taken.
   */
  private async lockHeads(
    conn: Connection,
    n: number,
    now: Date,
    expiry: Date,
    among: readonly FifoCandidate[],
  ): Promise<{ lock: Statement; pick: (rows: Row[]) => unknown[] }> {
    const grouped = among.filter((c) => c.group !== null);
    const ids = among.map((c) => c.id);
    if (grouped.length > 0) await this.findFifoIndex(conn);
    const select = this.sql.lease.claim(n, now, expiry, ids, undefined, undefined, true);
    const guards = this.sql.fifo.headGuards(grouped);
    const lock =
      guards === undefined
        ? select
        : { sql: `(${select.sql}) UNION ALL ${guards.sql}`, params: [...select.params, ...guards.params] };
    const pick = (rows: Row[]) => {
      const behind = new Set<string>();
      for (const r of rows) {
        const k = Number(r[GUARD_K]);
        if (k >= 0) behind.add(String(grouped[k]!.id));
      }
      const locked = new Set(rows.filter((r) => Number(r[GUARD_K]) < 0).map((r) => String(r[ID])));
      return ids.filter((id) => locked.has(String(id)) && !behind.has(String(id)));
    };
    return { lock, pick };
  }

  /** The lease written to rows a claim's transaction locked, and the re-read of them after it, in claim order. */
  private leaseWrite(ids: readonly unknown[], expiry: Date): { update: Statement; reread: Statement } {
    return { update: this.sql.lease.claimUpdate(ids, expiry), reread: this.sql.lease.claimRows(ids) };
  }

  /**
   * The rows a claim under per-key concurrency takes, in claim order, read in statements whose
   * keys are values ({@link MysqlConcurrency.front}): the front of the queue, its keys' rows in
   * work, and the rows taken in order while their key has a free slot; where that gives fewer
   * than `n` (full keys hold the front), the first keys in key order ({@link MysqlConcurrency.keys})
   * and the first row of each with a free slot ({@link MysqlConcurrency.heads}). What one key
   * holds is counted by its value folded to lower case without trailing spaces, as the default
   * collations compare it: two values the server takes as one key never pass its limit together.
   */
  private async pickByKey(conn: Connection, n: number, now: Date): Promise<Row[]> {
    const st = this.sql.concurrency;
    const column = st.t.concurrency!.column;
    const limit = st.t.concurrency!.limit;
    const fold = (v: unknown) => String(v).toLowerCase().trimEnd();
    const work = new Map<string, number>();
    const count = async (keys: unknown[]) => {
      const fresh = [...new Map(keys.map((k) => [fold(k), k])).entries()].filter(([f]) => !work.has(f));
      if (fresh.length === 0) return;
      for (const [f] of fresh) work.set(f, 0);
      for (const r of await this.rows(
        conn,
        st.inWork(
          fresh.map(([, k]) => String(k)),
          now,
        ),
      ))
        work.set(fold(r.k), (work.get(fold(r.k)) ?? 0) + toCount(r.n));
    };
    const picked: Row[] = [];
    const ids = new Set<string>();
    const take = (r: Row) => {
      const id = String(this.idOf(r));
      if (picked.length >= n || ids.has(id)) return;
      const k = r[column];
      if (k !== null && k !== undefined) {
        const f = fold(k);
        if ((work.get(f) ?? 0) >= limit) return;
        work.set(f, (work.get(f) ?? 0) + 1);
      }
      ids.add(id);
      picked.push(r);
    };
    const front = await this.rows(conn, st.front(n, now));
    await count(front.map((r) => r[column]).filter((k) => k !== null && k !== undefined));
    for (const r of front) take(r);
    if (picked.length < n) {
      const keys = (await this.rows(conn, st.keys(n, this.keysKnown))).map((r) => r.k);
      this.keysKnown = keys.map((k) => String(k));
      await count(keys);
      const free = keys.filter((k) => (work.get(fold(k)) ?? 0) < limit).map((k) => String(k));
      if (free.length > 0)
        for (const r of this.inClaimOrder(await this.rows(conn, st.heads(free, now)))) take(r);
    }
    return this.inClaimOrder(picked);
  }

  /**
   * Per-key concurrency: the table's turn (`GET_LOCK`, waited for), then in one READ COMMITTED
   * transaction the pick, guard (FIFO), update of the rows still due, and re-read of those it
   * leased; the turn is released after the commit. No turn within the wait: nothing claimed.
   */
  override async claimLeaseByKey(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    const ok = (await this.rows(conn, this.sql.concurrency.turn()))[0]?.ok;
    if (toCount(ok) !== 1) return [];
    try {
      return await inTransaction(conn, async () => {
        const picked = await this.guardHeads(conn, await this.pickByKey(conn, n, now));
        const ids = picked.map((r) => this.idOf(r));
        if (ids.length === 0) return [];
        await this.run(conn, this.sql.lease.claimUpdate(ids, expiry, now));
        return this.rows(conn, this.sql.lease.claimRows(ids, expiry));
      });
    } finally {
      await this.run(conn, this.sql.concurrency.turnEnd());
    }
  }

  /**
   * The builder's update, one per run of leases; where it moved fewer than asked, the moved ones
   * are those that hold `expiry` now. Each lease binds three values here.
   */
  override async extendLeases(
    conn: Connection,
    leases: readonly { id: unknown; token: Date }[],
    expiry: Date,
  ): Promise<unknown[]> {
    const moved: unknown[] = [];
    for (const part of chunks(leases, Math.floor((this.sql.s.maxParams - 1) / 3))) {
      const ids = part.map((l) => l.id);
      let changed = 0;
      for (const st of this.sql.lease.extendLeases(part, expiry))
        changed += (await this.run(conn, st)).rowCount;
      if (changed === part.length) moved.push(...ids);
      else if (changed > 0) {
        const holding = await this.rows(conn, this.sql.lease.extendLeasesMoved(ids, expiry));
        const now = new Set(holding.map((r) => idKey(this.idOf(r))));
        moved.push(...ids.filter((id) => now.has(idKey(id))));
      }
    }
    return moved;
  }

  /**
   * Many lease-form acks, in one READ COMMITTED transaction: the rows that still hold their tokens
   * read `FOR UPDATE`, then deleted (or stamped) by id; the lock makes the ids read the ids changed.
   * On MariaDB acks that delete are one statement, which answers the ids it deleted
   * ({@link MysqlLease.settleManyDeleted}): a round trip where the transaction took five with
   * `mysql2`, and no lock held between them. One ack is one statement
   * ({@link MysqlLease.settleOneFinish}), its count the answer.
   */
  override async settleMany(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]> {
    const held = await this.finishHeld(conn, settlements);
    this.hints.settled(held);
    return held;
  }

  /** {@link settleMany}'s statements: the ids it acked. */
  private async finishHeld(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]> {
    if (settlements.length === 0) return [];
    const [one, ...more] = settlements;
    if (more.length === 0 && one !== undefined) {
      // One row: its statement's count says whether it still held its token.
      const changed = toCount((await this.run(conn, this.sql.lease.settleOneFinish(one, one.now))).rowCount);
      return changed > 0 ? [one.id] : [];
    }
    const deleted = this.sql.lease.settleManyDeleted(settlements);
    if (deleted !== undefined && (await sessionFacts(conn)).mariadb)
      return (await this.rows(conn, deleted)).map((r) => this.idOf(r));
    return inTransaction(conn, async () => {
      const held = (await this.rows(conn, this.sql.lease.settleManyHeld(settlements))).map((r) =>
        this.idOf(r),
      );
      if (held.length > 0) await this.run(conn, this.sql.lease.settleManyFinish(held, settlements[0]!.now));
      return held;
    });
  }

  /**
   * Many lease-form retries, in one READ COMMITTED transaction: the rows that still hold their
   * tokens read `FOR UPDATE` (in id order, as a batched ack's), then the builder's updates, each row
   * with its own values (no `RETURNING` for an update here: the lock makes the ids read the ids changed).
   */
  override async returnMany(conn: Connection, settlements: readonly ReturnSettlement[]): Promise<unknown[]> {
    if (settlements.length === 0) return [];
    return inTransaction(conn, async () => {
      const held = (await this.rows(conn, this.sql.lease.settleManyHeld(settlements))).map((r) =>
        this.idOf(r),
      );
      const holding = new Set(held.map(idKey));
      const still = settlements.filter((s) => holding.has(idKey(s.id)));
      for (const st of this.sql.lease.returnMany(still)) await this.run(conn, st);
      return held;
    });
  }

  /** Retention: the pick of processed rows' ids, then their delete ({@link MysqlRetention}). */
  override async pruneProcessed(conn: Connection, before: Date, limit: number): Promise<number> {
    return this.prunePicked(conn, 'processed', before, limit);
  }

  /**
   * Retention: the death stamp in two statements, as the deletes ({@link prunePicked}): the ids
   * without one locked (`SKIP LOCKED`), then their update by the primary key, 1,000 at a time.
   */
  override async markDead(conn: Connection, now: Date): Promise<number> {
    const r = this.sql.retention;
    if (!r.hasDead) return 0;
    let stamped = 0;
    for (;;) {
      const { picked, changed } = await inTransaction(conn, async () => {
        const ids = (await this.rows(conn, r.pickUnstamped(STAMP_BATCH))).map((row) => this.idOf(row));
        if (ids.length === 0) return { picked: 0, changed: 0 };
        const n = toCount((await this.run(conn, r.stampPicked(ids, now))).rowCount);
        return { picked: ids.length, changed: n };
      });
      stamped += changed;
      if (picked < STAMP_BATCH) return stamped;
    }
  }

  /** Retention: the pick of dead letters' ids, then their delete ({@link MysqlRetention}). */
  override async pruneDead(conn: Connection, before: Date, limit: number): Promise<number> {
    return this.sql.retention.hasDead ? this.prunePicked(conn, 'dead', before, limit) : 0;
  }

  /**
   * In one READ COMMITTED transaction: locks at most `limit` ids of settled rows old enough,
   * passing over rows another transaction holds (`SKIP LOCKED`: in the row lock form on MariaDB a
   * claim's transaction may hold rows besides the one it delivers), then deletes them by the
   * primary key; answers the rows deleted. Never waits for a row in work.
   */
  private async prunePicked(
    conn: Connection,
    kind: 'processed' | 'dead',
    before: Date,
    limit: number,
  ): Promise<number> {
    const r = this.sql.retention;
    return inTransaction(conn, async () => {
      const ids = (await this.rows(conn, r.pick(kind, before, limit))).map((row) => this.idOf(row));
      if (ids.length === 0) return 0;
      return toCount((await this.run(conn, r.deletePicked(kind, ids, before))).rowCount);
    });
  }

  /**
   * The builder's settlement, or {@link settleRow}'s move; a row that left its group is told to
   * the FIFO hints, unless a dead-letter move ran in the caller's transaction. (An ack in a
   * transactional handler's transaction is told before its COMMIT: a claim over the hint it frees
   * may wait on that COMMIT, never on anything the COMMIT waits for.)
   */
  override async settle(conn: Connection, s: Settlement): Promise<number> {
    const changed = await this.settleRow(conn, s);
    const uncommitted = s.kind === 'deadLetter' && s.inTransaction;
    if (changed > 0 && !uncommitted && s.kind !== 'return') this.hints.settled([s.id]);
    return changed;
  }

  /**
   * The move to a dead-letter table: copy, delete, clear the copy's lease. In a transaction of its
   * own unless the caller's is open; there a delete that finds fewer rows than were copied (the
   * token moved on between the two: the copy reads without locks) rolls the move back and answers 0.
   */
  private async settleRow(conn: Connection, s: Settlement): Promise<number> {
    if (s.kind !== 'deadLetter' || !('table' in s.target)) return super.settle(conn, s);
    const [copy, remove, clearLease] = this.sql.settle.moveToDeadLetter(s.id, s.token, s.target.table, s);
    const count = this.sql.settle.countBeforeMove(s);
    const move = async () => {
      if (count !== undefined) await this.run(conn, count);
      const copied = (await this.run(conn, copy!)).rowCount;
      if (copied === 0) return 0;
      const removed = (await this.run(conn, remove!)).rowCount;
      if (!s.inTransaction && removed !== copied) throw new Unmoved();
      if (clearLease !== undefined) await this.run(conn, clearLease);
      return removed;
    };
    if (s.inTransaction) return move();
    return inTransaction(conn, move).catch((err) => {
      if (err instanceof Unmoved) return 0;
      throw err;
    });
  }

  // -------------------------------------------------------------------------------------------
  // Advisory form

  /** Counts the attempt, then reads the row (no `UPDATE .. RETURNING`). */
  override async take(conn: Connection, id: unknown, now: Date | null): Promise<Row | null> {
    if (this.sql.t.attempt === undefined) return super.take(conn, id, now);
    if ((await this.run(conn, this.sql.advisory.take(id, now))).rowCount === 0) return null;
    return (await this.rows(conn, this.sql.advisory.takeRow(id)))[0] ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // Insert

  /**
   * Ids from the statement's insert id: ids the caller gives, or AUTO_INCREMENT ids under
   * `innodb_autoinc_lock_mode` 0 or 1, where a multi-row insert takes consecutive values (`first +
   * k * auto_increment_increment`). Under mode 2 (interleaved, the MySQL 8 default) the ids of one
   * statement may interleave with another's, so each message is inserted on its own. Several
   * statements run in a transaction when the connection is known to have none open.
   */
  override async insert(conn: Connection, messages: readonly Insert[]): Promise<unknown[]> {
    const t = this.sql.t;
    const keyed = t.uniqueKey !== undefined && messages.some((m) => m.key !== undefined);
    const many = messages.length > 1 && t.id.generated;
    const { mode, step } = many && !keyed ? await sessionFacts(conn) : { mode: 0, step: 1 };
    if (keyed || mode >= 2) {
      return this.atomically(conn, true, async () => {
        const ids: unknown[] = [];
        for (const m of messages) ids.push(await this.insertOne(conn, m));
        return ids;
      });
    }
    const statements = this.sql.publish.insert(messages);
    const ids: unknown[] = [];
    const runAll = async () => {
      for (const st of statements) {
        const res = await this.run(conn, st);
        const first = t.id.generated ? await firstInsertId(conn, res) : null;
        for (let k = 0; k < res.rowCount; k++) ids.push(first === null ? null : addToId(first, k * step));
      }
    };
    await (statements.length === 1 ? runAll() : this.atomically(conn, true, runAll));
    return t.id.generated ? ids : messages.map((m) => m.columns?.[t.id.column]);
  }

  /**
   * One message: its new id, or (keyed, the key held) the holder's id, which the keyed insert hands
   * back as the insert id, replaced or not (a replacing message). A given id: the insert id is 0 where the row went in.
   */
  override async insertOne(conn: Connection, m: Insert): Promise<unknown> {
    const t = this.sql.t;
    const keyed = m.key !== undefined && t.uniqueKey !== undefined;
    const res = await this.run(
      conn,
      keyed
        ? m.replace === true
          ? this.sql.publish.insertReplacing(m)
          : this.sql.publish.insertKeyed(m)
        : this.sql.publish.insert([m])[0]!,
    );
    if (t.id.generated) return firstInsertId(conn, res);
    return isZero(res.insertId) ? m.columns?.[t.id.column] : res.insertId;
  }

  // -------------------------------------------------------------------------------------------
  // Rows in work

  /** Due rows whose key's `GET_LOCK` a session holds, counted by the server. */
  override async heldKeys(conn: Connection, _keys: readonly string[], now: Date): Promise<number> {
    return toCount((await this.rows(conn, this.sql.counts.usedKeys(now)))[0]?.n);
  }

  /** Due rows a `FOR UPDATE SKIP LOCKED` read passes over, in a transaction rolled back. */
  override async lockedRows(conn: Connection, now: Date, due: number): Promise<number> {
    await begin(conn);
    try {
      return Math.max(0, due - (await this.rows(conn, this.sql.counts.freeDue(now))).length);
    } finally {
      await rollbackQuietly(conn);
    }
  }
}

/** A move the delete did not match: rolled back, answering 0. */
class Unmoved extends Error {}
