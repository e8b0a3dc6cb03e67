import type {
  AnyTable,
  Connection,
  FinishSettlement,
  Insert,
  PrepareOptions,
  RateReservation,
  Row,
  Settlement,
  TableOps,
} from '@sqlinbox/core';
import { SqlTable, type Statement } from '@sqlinbox/sql';
import { knownInTransaction } from './session.js';
import { type MysqlQueryResult, toCount } from './sql.js';
import { MYSQL_TRANSACTIONS, MysqlStatements } from './statements.js';

/** Opens a READ COMMITTED transaction (the dialect's `begin` with no level declared). */
async function begin(conn: Connection): Promise<void> {
  for (const sql of MYSQL_TRANSACTIONS.begin({})) await conn.query(sql);
}

async function rollbackQuietly(conn: Connection): Promise<void> {
  // the caller rethrows the error that brought it here
  await conn.query('ROLLBACK').catch(() => undefined);
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

/** `innodb_autoinc_lock_mode` and `auto_increment_increment` of a session, read once. */
const autoIncBySession = new WeakMap<Connection, { mode: number; step: number }>();

async function autoInc(conn: Connection): Promise<{ mode: number; step: number }> {
  let v = autoIncBySession.get(conn);
  if (v === undefined) {
    const { rows } = await conn.query<Row>(
      'SELECT @@innodb_autoinc_lock_mode AS `mode`, @@auto_increment_increment AS `step`',
    );
    v = { mode: toCount(rows[0]?.mode), step: toCount(rows[0]?.step) || 1 };
    autoIncBySession.set(conn, v);
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
  override run(conn: Connection, st: Statement): Promise<MysqlQueryResult> {
    return conn.query<Row>(st.sql, st.params);
  }

  /**
   * Rate limits: the reservation's UPDATE, then the row read back in the same transaction, which
   * the UPDATE's row lock keeps to this reservation's values (no `UPDATE .. RETURNING`).
   */
  override async reserveRow(conn: Connection, r: RateReservation): Promise<Row | undefined> {
    return inTransaction(conn, async () => {
      await this.run(conn, this.sql.reserveRate(r.table, r.name, r.want, r.max, r.perMs));
      return (await this.rows(conn, this.sql.rateState(r.table, r.name)))[0];
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
    await conn.query(this.sql.begin);
    try {
      const result = await body();
      await conn.query(this.sql.commit);
      return result;
    } catch (err) {
      await rollbackQuietly(conn);
      throw err;
    }
  }

  /**
   * The builder's guard, after (once per table) reading which index the guard reads
   * ({@link MysqlStatements.fifoIndex}). A table without an index led by its group column is
   * warned about once: its guard may wait on rows of other groups that other claims hold.
   */
  override async guardHeads(conn: Connection, rows: readonly Row[]): Promise<Row[]> {
    const s = this.sql;
    if (s.t.group !== undefined && rows.length > 0 && s.fifoIndex === undefined) {
      const name = (await this.rows(conn, s.fifoIndexOf()))[0]?.name;
      s.fifoIndex = name === undefined || name === null ? null : String(name);
      if (s.fifoIndex === null) {
        process.emitWarning(
          `sqlinbox: table ${s.t.table} has no index led by its group column ${s.t.group}: the FIFO guard scans the primary key and may wait on rows other claims hold; create the sqlinbox_fifo index ddl() prints`,
          { code: 'SQLINBOX_NO_FIFO_INDEX' },
        );
      }
    }
    return super.guardHeads(conn, rows);
  }

  /** The FIFO guard ({@link MysqlStatements.headGuard}) finds no older row: the claimed row is its group's head. */
  override isHead(answer: Row[]): boolean {
    return answer.length === 0;
  }

  /** Locking select, guard (FIFO), update, re-read, in one READ COMMITTED transaction of its own. */
  override async claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    return inTransaction(conn, async () => {
      const picked = await this.guardHeads(conn, await this.rows(conn, this.sql.claimLease(n, now)));
      const ids = picked.map((r) => this.idOf(r));
      if (ids.length === 0) return [];
      await this.run(conn, this.sql.claimLeaseUpdate(ids, expiry));
      return this.rows(conn, this.sql.claimLeaseRows(ids));
    });
  }

  /**
   * Per-key concurrency: the table's turn (`GET_LOCK`, waited for), then in one READ COMMITTED
   * transaction the pick, guard (FIFO), update of the rows still due, and re-read of those it
   * leased; the turn is released after the commit. No turn within the wait: nothing claimed.
   */
  override async claimLeaseByKey(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]> {
    if (n <= 0) return [];
    const ok = (await this.rows(conn, this.sql.claimTurn()))[0]?.ok;
    if (toCount(ok) !== 1) return [];
    try {
      return await inTransaction(conn, async () => {
        const picked = await this.guardHeads(conn, await this.rows(conn, this.sql.claimPickByKey(n, now)));
        const ids = picked.map((r) => this.idOf(r));
        if (ids.length === 0) return [];
        await this.run(conn, this.sql.claimLeaseUpdate(ids, expiry, now));
        return this.rows(conn, this.sql.claimLeaseRows(ids, expiry));
      });
    } finally {
      await this.run(conn, this.sql.claimTurnEnd());
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
    for (const part of this.sql.chunks(leases, Math.floor((this.sql.maxParams - 1) / 3))) {
      const ids = part.map((l) => l.id);
      let changed = 0;
      for (const st of this.sql.extendLeases(part, expiry)) changed += (await this.run(conn, st)).rowCount;
      if (changed === part.length) moved.push(...ids);
      else if (changed > 0) {
        const holding = await this.rows(conn, this.sql.extendLeasesMoved(ids, expiry));
        const now = new Set(holding.map((r) => idKey(this.idOf(r))));
        moved.push(...ids.filter((id) => now.has(idKey(id))));
      }
    }
    return moved;
  }

  /**
   * Many lease-form acks, in one READ COMMITTED transaction: the rows that still hold their tokens
   * read `FOR UPDATE`, then deleted (or stamped) by id; the lock makes the ids read the ids changed.
   */
  override async settleMany(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]> {
    if (settlements.length === 0) return [];
    return inTransaction(conn, async () => {
      const held = (await this.rows(conn, this.sql.settleManyHeld(settlements))).map((r) => this.idOf(r));
      if (held.length > 0) await this.run(conn, this.sql.settleManyFinish(held, settlements[0]!.now));
      return held;
    });
  }

  /**
   * The move to a dead-letter table: copy, delete, clear the copy's lease. In a transaction of its
   * own unless the caller's is open; there a delete that finds fewer rows than were copied (the
   * token moved on between the two: the copy reads without locks) rolls the move back and answers 0.
   */
  override async settle(conn: Connection, s: Settlement): Promise<number> {
    if (s.kind !== 'deadLetter' || !('table' in s.target)) return super.settle(conn, s);
    const [copy, remove, clearLease] = this.sql.moveToDeadLetter(s.id, s.token, s.target.table);
    const move = async () => {
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
    if ((await this.run(conn, this.sql.take(id, now))).rowCount === 0) return null;
    return (await this.rows(conn, this.sql.takeRow(id)))[0] ?? null;
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
    const { mode, step } = many && !keyed ? await autoInc(conn) : { mode: 0, step: 1 };
    if (keyed || mode >= 2) {
      return this.atomically(conn, true, async () => {
        const ids: unknown[] = [];
        for (const m of messages) ids.push(await this.insertOne(conn, m));
        return ids;
      });
    }
    const statements = this.sql.insert(messages);
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
   * back as the insert id. A given id: the insert id is 0 where the row went in.
   */
  override async insertOne(conn: Connection, m: Insert): Promise<unknown> {
    const t = this.sql.t;
    const keyed = m.key !== undefined && t.uniqueKey !== undefined;
    const res = await this.run(conn, keyed ? this.sql.insertKeyed(m) : this.sql.insert([m])[0]!);
    if (t.id.generated) return firstInsertId(conn, res);
    return isZero(res.insertId) ? m.columns?.[t.id.column] : res.insertId;
  }

  // -------------------------------------------------------------------------------------------
  // Rows in work

  /** Due rows whose key's `GET_LOCK` a session holds, counted by the server. */
  override async heldKeys(conn: Connection, _keys: readonly string[], now: Date): Promise<number> {
    return toCount((await this.rows(conn, this.sql.usedKeys(now)))[0]?.n);
  }

  /** Due rows a `FOR UPDATE SKIP LOCKED` read passes over, in a transaction rolled back. */
  override async lockedRows(conn: Connection, now: Date, due: number): Promise<number> {
    await begin(conn);
    try {
      return Math.max(0, due - (await this.rows(conn, this.sql.freeDue(now))).length);
    } finally {
      await rollbackQuietly(conn);
    }
  }
}

/** A move the delete did not match: rolled back, answering 0. */
class Unmoved extends Error {}
