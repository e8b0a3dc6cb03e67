import { createHash } from 'node:crypto';
import type { AnyTable, Form, PrepareOptions } from '@sqlinbox/core';
import {
  AdvisoryStatements,
  ConcurrencyStatements,
  CountStatements,
  FifoStatements,
  fifoWindow,
  type HeldLease,
  ID,
  type InsertParts,
  jsonList,
  KEY,
  LeaseStatements,
  type Params,
  PublishStatements,
  QueueSql,
  QueueStatements,
  type RecordWrite,
  RetentionStatements,
  RowLockStatements,
  SettleStatements,
  SqlSyntax,
  type Statement,
  savepointName,
  schemaOf,
  setIsolation,
  type TransactionSql,
} from '@sqlinbox/sql';
import { escapeString, quoteIdent, utc } from './sql.js';

/**
 * Opens a transaction at the given level, READ COMMITTED when none is declared: the server's
 * default, REPEATABLE READ, would lock the gaps a claim scans and block every insert while a claim
 * is held. `SET TRANSACTION` applies to the next transaction only. Savepoint names are checked.
 */
export const MYSQL_TRANSACTIONS: TransactionSql = {
  begin: (o) => [setIsolation(o.isolation), 'START TRANSACTION'],
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  savepoint: (name) => `SAVEPOINT ${quoteIdent(savepointName(name))}`,
  rollbackToSavepoint: (name) => `ROLLBACK TO SAVEPOINT ${quoteIdent(savepointName(name))}`,
};

/** How long a claim under per-key concurrency waits for its table's turn, in seconds. */
export const TURN_WAIT_S = 10;

/** The longest name `GET_LOCK` takes; a longer one is locked by its SHA-256 (64 hex characters). */
export const LOCK_NAME_MAX = 64;

/**
 * MySQL's and MariaDB's syntax: identifiers take backticks; every instant is bound as `DATETIME(3)`
 * text in UTC and "now" on the database clock is `UTC_TIMESTAMP(3)`, so no statement depends on the
 * session's `time_zone`; `<=>` compares with NULL as a value. There is no `UPDATE .. RETURNING`
 * (MariaDB has it for INSERT and DELETE only, MySQL not at all).
 */
export class MysqlSyntax extends SqlSyntax {
  override ident(name: string): string {
    return quoteIdent(name);
  }

  override readonly clock = 'UTC_TIMESTAMP(3)';
  override readonly textType = 'CHAR';

  override bigint(p: Params, value: bigint): string {
    return `CAST(${p.bind(value.toString())} AS SIGNED)`;
  }
  /** The steps table's result: TEXT holds 64 KB, a step's value may be larger. */
  override readonly stepResultType = 'LONGTEXT';
  override readonly transactions = MYSQL_TRANSACTIONS;

  /** `sqlinbox_<suffix>`: MySQL names an index within its table. */
  override sideIndexName(_table: string, suffix: string): string {
    return `sqlinbox_${suffix}`;
  }

  /**
   * MySQL has no `CREATE INDEX IF NOT EXISTS` (MariaDB has): the index's `CREATE INDEX` is chosen
   * by a read of `information_schema.STATISTICS` into a session variable (`DO 0` where the index
   * exists), then prepared and run, four statements on one session (as `migrate` and the CLI run
   * them). Names are validated identifiers (`escapeString`): the text holds no quote.
   */
  override createSideIndex(table: string, suffix: string, columns: readonly string[]): string[] {
    const name = this.sideIndexName(table, suffix);
    const dot = table.lastIndexOf('.');
    const schema = dot < 0 ? 'DATABASE()' : escapeString(table.slice(0, dot));
    const create = `CREATE INDEX ${this.ident(name)} ON ${this.tableName(table)} (${columns.map((c) => this.ident(c)).join(', ')})`;
    const seen =
      `SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ${schema}` +
      ` AND TABLE_NAME = ${escapeString(table.slice(dot + 1))} AND INDEX_NAME = ${escapeString(name)}`;
    return [
      `SET @sqlinbox_ddl = IF((${seen}) > 0, 'DO 0', '${create}')`,
      'PREPARE sqlinbox_ddl FROM @sqlinbox_ddl',
      'EXECUTE sqlinbox_ddl',
      'DEALLOCATE PREPARE sqlinbox_ddl',
    ];
  }

  override time(p: Params, at: Date): string {
    return p.bind(utc(at));
  }

  override distinct(a: string, b: string): string {
    return `NOT (${a} <=> ${b})`;
  }

  override text(p: Params, value: string): string {
    return p.bind(value);
  }

  override concat(parts: readonly string[]): string {
    return `CONCAT(${parts.join(', ')})`;
  }

  /** Differs: the values as one JSON text of strings, however many (a value each would meet the 65,535 placeholders of a statement). */
  override notAmong(p: Params, expr: string, values: readonly unknown[]): string {
    return `NOT JSON_CONTAINS(${p.bind(jsonList(values, true))}, JSON_QUOTE(CAST(${expr} AS CHAR)))`;
  }

  override returning(): undefined {
    return undefined;
  }

  /** Rate limits: the database clock in epoch milliseconds, whatever the session's time zone. */
  override readonly nowMs = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000)";

  override intDiv(a: string, b: string): string {
    return `(${a} DIV ${b})`;
  }

  /** Schedules: the tick table's instant column. */
  override readonly tickTimeType = 'DATETIME(3)';

  /**
   * `INSERT IGNORE`: `ON DUPLICATE KEY UPDATE` cannot say whether it wrote (both drivers count a
   * found row as affected). `IGNORE` would also quiet other errors, but the tick table is
   * sqlinbox's own and its two values are checked before (a name of at most 255 characters, an
   * instant DATETIME holds), so the duplicate key is the one it meets.
   */
  override insertNew(table: string, columns: readonly string[], values: readonly string[]): string {
    return `INSERT IGNORE INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')})`;
  }
}

/** MySQL's and MariaDB's syntax, shared by every table. */
export const mysqlSyntax: MysqlSyntax = new MysqlSyntax();

/** A queue table on MySQL or MariaDB, with the `GET_LOCK` names its features share. */
export class MysqlQueue extends QueueSql<MysqlSyntax> {
  /**
   * The `GET_LOCK` name of a key, in SQL: the table's database in lower case, a dot and the key;
   * over 64 characters, its SHA-256 in hex. The key is `column` (of a derived table), else `value`
   * bound.
   * `DATABASE()` is utf8mb3: every part is converted to utf8mb4, so a key with a character outside
   * the BMP (an emoji) makes a name instead of an "Illegal mix of collations".
   */
  lockName(p: Params, column: string | undefined, value?: string): string {
    const schema = schemaOf(this.t.table);
    const name = () =>
      `CONCAT(CONVERT(LOWER(${schema === undefined ? 'DATABASE()' : p.bind(schema)}) USING utf8mb4), _utf8mb4'.',` +
      ` CONVERT(${column ?? p.bind(value)} USING utf8mb4))`;
    return `IF(CHAR_LENGTH(${name()}) > ${LOCK_NAME_MAX}, SHA2(${name()}, 256), ${name()})`;
  }

  /**
   * Differs from the builder's: row `a` is its group's head when its id is the least of its
   * group's unsettled rows, or it has no group. The builder's `NOT EXISTS` of an older row reads,
   * for a row that is a head, every row of its group (the subquery's `s.id < a.id` filters the
   * group's entries of the `(group, id)` index one by one, since an outer column bounds no range
   * here); the least id is the first entry of that index.
   */
  override head(a: string): string {
    const t = this.t;
    if (t.group === undefined) return '';
    const g = this.col(a, t.group);
    const sid = this.col('s', t.id.column);
    return (
      ` AND (${g} IS NULL OR ${this.col(a, t.id.column)} = (SELECT ${sid} FROM ${this.table} s` +
      ` WHERE ${this.col('s', t.group)} = ${g}${this.unsettled('s')} ORDER BY ${sid} LIMIT 1))`
    );
  }
}

/** The row lock claim: the builder's select, of a FIFO table's candidates only where given. */
export class MysqlRowLock extends RowLockStatements<MysqlQueue> {
  /** The builder's claim; `among`: only these ids (a FIFO claim's candidates, {@link MysqlFifo.window}). */
  override claim(n: number, now: Date | null, among?: readonly unknown[]): Statement {
    const p = this.q.params();
    return p.statement(this.q.claimSelect(p, n, now, 'q.*', among));
  }
}

/**
 * The lease form in several statements, which {@link MysqlTable} runs in one transaction: an
 * UPDATE can neither return its rows nor read the table it writes in a subquery (error 1093).
 */
export class MysqlLease extends LeaseStatements<MysqlQueue> {
  /**
   * Differs from the builder's: the first statement of the claim's transaction only, the ids (and
   * groups) of up to `n` due rows (FIFO: heads) in claim order, `FOR UPDATE SKIP LOCKED`. Then the
   * FIFO guard, {@link claimUpdate} and {@link claimRows}. `among`: only these ids (a FIFO
   * claim's candidates, {@link MysqlFifo.window}); `from` and `below`: only ids in that range
   * (`ClaimRange`). `tagged`: the ids as `sqlinbox_id` beside a `sqlinbox_k` of -1, the shape of
   * {@link MysqlFifo.headGuards}' rows, for the runner to take the candidates' guards in the same
   * statement (`UNION ALL`).
   */
  override claim(
    n: number,
    now: Date,
    _expiry?: Date,
    among?: readonly unknown[],
    from?: bigint,
    below?: bigint,
    tagged = false,
  ): Statement {
    const { q, t } = this;
    const p = q.params();
    const id = q.col('q', t.id.column);
    const columns = tagged
      ? `-1 AS ${GUARD_K}, ${id} AS ${ID}`
      : `${id}${t.group === undefined ? '' : `, ${q.col('q', t.group)}`}`;
    return p.statement(q.claimSelect(p, n, now, columns, among, from, below));
  }

  /**
   * Second statement: writes the lease and counts the attempt of the locked rows; with `now`
   * (per-key concurrency, whose pick reads without locks), only of those still due.
   */
  claimUpdate(ids: readonly unknown[], expiry: Date, now?: Date): Statement {
    const { q, s } = this;
    const p = q.params();
    const set = q.leaseSets(p, expiry);
    let where = s.inList(p, q.col('q', this.t.id.column), ids);
    if (now !== undefined) where += ` AND ${q.due(p, now, 'q')}`;
    return p.statement(s.update({ table: q.table, alias: 'q', set, where }));
  }

  /**
   * Last statement: the rows of these ids as they stand, in claim order; with `expiry`, only those
   * that hold it (the rows the update reached).
   */
  claimRows(ids: readonly unknown[], expiry?: Date): Statement {
    const { q, s } = this;
    const p = q.params();
    let where = s.inList(p, q.col('q', this.t.id.column), ids);
    if (expiry !== undefined)
      where += ` AND ${q.col('q', q.role(this.t.lease, 'lease'))} = ${s.time(p, expiry)}`;
    return p.statement(
      s.select(p, { columns: 'q.*', table: `${q.table} q`, alias: 'q', where, order: q.order('q') }),
    );
  }

  /** Which of these ids hold `expiry` now: the ids an extension moved, when not all moved. */
  extendLeasesMoved(ids: readonly unknown[], expiry: Date): Statement {
    const { q, s } = this;
    const p = q.params();
    const where = `${s.inList(p, q.id, ids)} AND ${q.ident(q.role(this.t.lease, 'lease'))} = ${s.time(p, expiry)}`;
    return p.statement(`SELECT ${q.id} FROM ${q.table} WHERE ${where}`);
  }

  /**
   * A batched ack, first statement: of these leases, the rows that still hold their tokens, locked
   * (`FOR UPDATE`, in id order as the claim locks them). Then {@link settleManyFinish} by id.
   */
  settleManyHeld(leases: readonly HeldLease[]): Statement {
    const q = this.q;
    const p = q.params();
    return p.statement(
      `SELECT ${q.id} FROM ${q.table} WHERE ${this.heldTokens(p, leases)} ORDER BY ${q.id} FOR UPDATE`,
    );
  }

  /**
   * MariaDB: a batched ack that deletes, in one statement (autocommit): of these leases, the rows
   * that still hold their tokens deleted in id order (as the claim locks them), their ids answered
   * (`DELETE .. RETURNING`, which MySQL has not). Undefined where an ack stamps the row
   * (`processedAt`): then {@link settleManyHeld} and {@link settleManyFinish}.
   */
  settleManyDeleted(leases: readonly HeldLease[]): Statement | undefined {
    const { q, t } = this;
    if (t.processedAt !== undefined) return undefined;
    const p = q.params();
    return p.statement(
      `DELETE FROM ${q.table} WHERE ${this.heldTokens(p, leases)} ORDER BY ${q.id} RETURNING ${q.id}`,
    );
  }

  /**
   * `ack`/`drop` of one row that still holds its token, in one statement (autocommit): delete, or
   * stamp; the count of rows it changed says whether it did. A batch of one row needs no lock read.
   */
  settleOneFinish(lease: HeldLease, now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    if (t.processedAt === undefined)
      return p.statement(s.delete({ table: q.table, where: this.heldTokens(p, [lease]) }));
    const set = [`${q.ident(t.processedAt)} = ${s.time(p, now)}`];
    if (t.lease !== undefined) set.push(`${q.ident(t.lease)} = NULL`);
    return p.statement(
      s.update({ table: q.table, alias: 'q', set, where: this.heldTokens(p, [lease], 'q') }),
    );
  }

  /** `ack`/`drop` of many rows by id (their tokens checked under lock): delete, or stamp. */
  settleManyFinish(ids: readonly unknown[], now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    if (t.processedAt === undefined) {
      return p.statement(s.delete({ table: q.table, where: s.inList(p, q.id, ids) }));
    }
    const set = [`${q.ident(t.processedAt)} = ${s.time(p, now)}`];
    if (t.lease !== undefined) set.push(`${q.ident(t.lease)} = NULL`);
    const where = s.inList(p, q.col('q', t.id.column), ids);
    return p.statement(s.update({ table: q.table, alias: 'q', set, where }));
  }
}

/** Per-key concurrency: a claim's turn is a `GET_LOCK` held for the claim's length. */
export class MysqlConcurrency extends ConcurrencyStatements<MysqlQueue> {
  override readonly forms: readonly Form[] = ['lease'];

  /**
   * The claim's turn, taken before its transaction opens: `GET_LOCK` on the table's turn name,
   * waiting up to 10 s (`ok` 1 when taken); released by {@link turnEnd} after the commit, so the
   * next claim's reads see this one's leases.
   */
  override turn(): Statement {
    const p = this.q.params();
    const name = this.q.lockName(p, undefined, this.turnName);
    return p.statement(`SELECT GET_LOCK(${name}, ${p.bind(TURN_WAIT_S)}) AS ok`);
  }

  /** Releases the claim's turn ({@link turn}). */
  turnEnd(): Statement {
    const p = this.q.params();
    return p.statement(`SELECT RELEASE_LOCK(${this.q.lockName(p, undefined, this.turnName)}) AS ok`);
  }

  /**
   * The columns a bounded pick reads of a row: the id, the key, and the priority and group where
   * the table has them.
   */
  private pickColumns(a: string): string {
    const { q, t } = this;
    return [t.id.column, t.concurrency!.column, t.priority, t.group]
      .filter((x, i, all): x is string => x !== undefined && all.indexOf(x) === i)
      .map((x) => q.col(a, x))
      .join(', ');
  }

  /**
   * The bounded pick's first read ({@link MysqlTable.claimLeaseByKey}): the first `n * limit * 5`
   * due rows (FIFO: heads) in claim order with their keys, at most 10,000, read without locks.
   * The runner counts their keys' rows in work ({@link inWork}) and takes them in order while
   * their keys have free slots. Differs from the builder's pick, one statement that counts each
   * candidate's key in a correlated subquery: MySQL and MariaDB read that subquery's index by its
   * equality alone (`w.key = q.key`, then every entry of the key, not the range of its live
   * leases), so a key with 50,000 ready rows cost 50,000 index reads per claim, and every ready
   * row of a full key ahead of the others was read too.
   */
  front(n: number, now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const want = Math.min(n * t.concurrency!.limit, 10_000);
    return p.statement(
      s.select(p, {
        columns: this.pickColumns('f'),
        table: `${q.table} f`,
        alias: 'f',
        where: `${q.due(p, now, 'f')}${q.head('f')}`,
        order: q.order('f'),
        limit: Math.min(want * 5, 10_000),
      }),
    );
  }

  /**
   * Rows in work (a lease running at `now`) of each of `keys`, as `k` and `n`: keys given as
   * values, so the (key, lease) index is read over the range of each key's live leases only.
   */
  inWork(keys: readonly string[], now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const c = q.col('w', t.concurrency!.column);
    const live = q
      .live(p, 'w')
      .map((x) => ` AND ${x}`)
      .join('');
    return p.statement(
      `SELECT ${c} AS k, COUNT(*) AS n FROM ${q.table} w WHERE ${s.inList(p, c, keys)}` +
        ` AND ${q.col('w', q.role(t.lease, 'lease'))} > ${s.time(p, now)}${live} GROUP BY ${c}`,
    );
  }

  /**
   * Where the front gave fewer rows than the claim wants (full keys hold it): keys to look for
   * heads in, the first `4 * n + 20` (at most 500) in key order of: the table's first key, the
   * next key after each of `known` (the keys this statement answered last time), and the keys of
   * the table's newest rows (as many, by id). Each next key is its own `MIN(key) > value`, which
   * the server answers from one probe of the (key, lease) index whatever its statistics say, so
   * the keys a table has are all found within as many claims as it has keys, and the keys rows
   * are arriving for at once.
   *
   * Replaces a `SELECT DISTINCT key .. LIMIT`, which MariaDB answered with a loose index scan (one
   * probe per key) only while its statistics favoured that: with statistics that count few rows
   * per key it read the whole index (W6 (e): 1.35 million entries and 1.5 s a claim, the table
   * draining 1,000 rows/s at most while 13,000 arrived).
   */
  keys(n: number, known: readonly string[]): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const c = q.col('m', t.concurrency!.column);
    const want = Math.min(n * 4 + 20, 500);
    // `MIN(key)` with no condition: a condition such as `key IS NOT NULL` makes MariaDB read the range.
    const parts = [`SELECT MIN(${c}) AS k FROM ${q.table} m`];
    for (const k of known.slice(0, want))
      parts.push(`SELECT MIN(${c}) FROM ${q.table} m WHERE ${c} > ${p.bind(k)}`);
    parts.push(
      `SELECT r.k FROM (${s.select(p, {
        columns: `${c} AS k`,
        table: `${q.table} m`,
        alias: 'm',
        order: `${q.col('m', t.id.column)} DESC`,
        limit: want,
      })}) r`,
    );
    return p.statement(
      `SELECT k FROM (${parts.join(' UNION ')}) x WHERE k IS NOT NULL ORDER BY k${s.limit(p, want)}`,
    );
  }

  /**
   * Of each of `keys`, its first due row in claim order that no lease ever held (`lease IS NULL`:
   * the (key, lease) index, whose entries of one key and a NULL lease follow the primary key),
   * one look-up each.
   */
  heads(keys: readonly string[], now: Date): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const c = t.concurrency!.column;
    const lease = q.role(t.lease, 'lease');
    return p.statement(
      keys
        .map(
          (k) =>
            `(${s.select(p, {
              columns: this.pickColumns('b'),
              table: `${q.table} b`,
              alias: 'b',
              where: `${q.col('b', c)} = ${p.bind(k)} AND ${q.col('b', lease)} IS NULL AND ${q.due(p, now, 'b')}${q.head('b')}`,
              order: q.order('b'),
              limit: 1,
            })})`,
        )
        .join(' UNION ALL '),
    );
  }
}

/** The alias of a row's group in a FIFO claim's {@link MysqlFifo.window}. */
export const FIFO_GROUP = 'sqlinbox_group';
/** The alias of whether a row is due (1) or not (0) in a FIFO claim's {@link MysqlFifo.window}. */
export const FIFO_DUE = 'sqlinbox_due';
/** The alias of the part a FIFO candidate comes from: 0 {@link MysqlFifo.window}, 1 {@link MysqlFifo.beyond}. */
export const FIFO_PART = 'sqlinbox_part';

/**
 * The FIFO statements: the claim's candidates ({@link MysqlFifo.window}, {@link MysqlFifo.beyond})
 * and the guard, a locking read of a group's older rows, through the index led by the group.
 */
export class MysqlFifo extends FifoStatements<MysqlQueue> {
  /**
   * The index the FIFO guard reads, one led by the group column (`sqlinbox_fifo` of {@link ddl}):
   * found on the server by the runner before the first guard ({@link fifoIndexOf}); null where
   * the table has none.
   */
  fifoIndex: string | null | undefined;

  /** The name of an index of the table whose first column is the group column, as `name`. */
  fifoIndexOf(): Statement {
    const q = this.q;
    const p = q.params();
    const schema = schemaOf(this.t.table);
    return p.statement(
      'SELECT INDEX_NAME AS `name` FROM information_schema.STATISTICS' +
        ` WHERE TABLE_SCHEMA = COALESCE(${p.bind(schema ?? null)}, DATABASE()) AND TABLE_NAME = ${p.bind(this.t.table.split('.').pop())}` +
        ` AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = ${p.bind(q.role(this.t.group, 'group'))}` +
        " ORDER BY INDEX_NAME = 'sqlinbox_fifo' DESC, INDEX_NAME LIMIT 1",
    );
  }

  /**
   * Whether a claim of this table first reads its candidates ({@link window}, {@link beyond}):
   * a FIFO table without priorities, whose claim order is the id's, so a window of the oldest rows
   * holds the oldest heads.
   */
  get windowed(): boolean {
    return this.t.group !== undefined && this.t.priority === undefined;
  }

  /**
   * A FIFO claim's first read, without locks: the oldest {@link fifoWindow}(n) unsettled rows by
   * id, each with its group and whether it is due. Of each group in it, its first row is the
   * group's head (every older unsettled row would be in it too); a row without a group is its
   * own. The claim's locking select then takes only the due heads (and {@link beyond}'s), where
   * the select alone tested the head of row after row in id order, unbounded: with a few long
   * groups whose heads were in work, it read the whole table on every claim (measured on
   * MariaDB: 2.6 s a claim over 200,000 rows in 20 groups, 18 heads in work).
   */
  window(n: number, now: Date | null): Statement {
    const p = this.q.params();
    return p.statement(this.windowSelect(p, n, now));
  }

  private windowSelect(p: Params, n: number, now: Date | null): string {
    const { q, t } = this;
    const id = q.col('q', t.id.column);
    const live = t.processedAt === undefined ? '' : ` WHERE ${q.col('q', t.processedAt)} IS NULL`;
    return (
      `SELECT ${id} AS ${ID}, ${q.col('q', q.role(t.group, 'group'))} AS ${FIFO_GROUP},` +
      ` CASE WHEN ${q.due(p, now, 'q')} THEN 1 ELSE 0 END AS ${FIFO_DUE}, 0 AS ${FIFO_PART}` +
      ` FROM ${q.table} q${live} ORDER BY ${id} LIMIT ${p.bind(fifoWindow(n))}`
    );
  }

  /**
   * {@link window} and {@link beyond} of `after` in one statement, the window's rows first (part
   * 0, then part 1, each in id order): for a claim whose last window was full and left it short
   * (one long group, a few groups whose heads are in work), so its next claim reads both parts in
   * one round trip. `after` is the last window's last id; the window's heads at or before it that
   * beyond answers again are the same rows.
   */
  windowThenBeyond(n: number, now: Date | null, after: unknown): Statement {
    const p = this.q.params();
    return p.statement(
      `(${this.windowSelect(p, n, now)}) UNION ALL ${this.beyondSelect(p, after, n, now)} ORDER BY ${FIFO_PART}, ${ID}`,
    );
  }

  /**
   * Where a full {@link window} leaves the claim short: after the window's `last` id, the due heads
   * of the other groups (each group's first unsettled row after `last`, through the index led by
   * the group, then its head test) and the due rows without a group, up to `n` of each in id order.
   */
  beyond(last: unknown, n: number, now: Date | null): Statement {
    const p = this.q.params();
    return p.statement(this.beyondSelect(p, last, n, now));
  }

  private beyondSelect(p: Params, last: unknown, n: number, now: Date | null): string {
    const { q, t } = this;
    const id = q.ident(t.id.column);
    const g = q.ident(q.role(t.group, 'group'));
    const firsts =
      `SELECT MIN(x.${id}) AS m FROM ${q.table} x WHERE x.${g} IS NOT NULL AND x.${id} > ${p.bind(last)}` +
      `${q.unsettled('x')} GROUP BY x.${g}`;
    const heads =
      `(SELECT q.${id} AS ${ID}, q.${g} AS ${FIFO_GROUP}, 1 AS ${FIFO_DUE}, 1 AS ${FIFO_PART}` +
      ` FROM ${q.table} q JOIN (${firsts}) h ON q.${id} = h.m` +
      ` WHERE ${q.due(p, now, 'q')}${q.head('q')} ORDER BY q.${id} LIMIT ${p.bind(n)})`;
    const loose =
      `(SELECT q.${id} AS ${ID}, NULL AS ${FIFO_GROUP}, 1 AS ${FIFO_DUE}, 1 AS ${FIFO_PART}` +
      ` FROM ${q.table} q WHERE q.${g} IS NULL AND q.${id} > ${p.bind(last)}` +
      ` AND ${q.due(p, now, 'q')} ORDER BY q.${id} LIMIT ${p.bind(n)})`;
    return `${heads} UNION ALL ${loose}`;
  }

  /**
   * The FIFO guard for one claimed head of a group: a locking read of its group's unsettled rows
   * before it. The head check reads committed rows without locks; this read also meets a row
   * another transaction is still writing (an insert with a lower id not yet committed) and waits
   * for it, so two processes never take one group out of order. A row found means the claimed row
   * is not its group's head, and the claim leaves it. The read is held to the group's range of
   * {@link fifoIndex} (`FORCE INDEX`): scanning the primary key instead, it would lock, and wait
   * on, rows of other groups that other claims hold. (At READ COMMITTED, the row lock form's
   * default, InnoDB takes no gap locks; at REPEATABLE READ the range ends at the claimed head,
   * which this claim holds.)
   */
  override headGuard(id: unknown, group: unknown): Statement | undefined {
    const { q, t } = this;
    if (t.group === undefined) return undefined;
    const p = q.params();
    return p.statement(this.guardSelect(p, id, group));
  }

  /**
   * The guards of several heads in one round trip: each head's guard ({@link headGuard}) as a
   * part of a `UNION ALL`, its rows tagged with the head's index (`sqlinbox_k`). Each part locks
   * and waits as the guard alone does.
   */
  override headGuards(
    heads: readonly { readonly id: unknown; readonly group: unknown }[],
  ): Statement | undefined {
    if (this.t.group === undefined || heads.length === 0) return undefined;
    const p = this.q.params();
    return p.statement(heads.map((h, k) => `(${this.guardSelect(p, h.id, h.group, k)})`).join(' UNION ALL '));
  }

  /** A head's guard select; tagged `sqlinbox_k` = `k` where given. */
  private guardSelect(p: Params, id: unknown, group: unknown, k?: number): string {
    const { q, t } = this;
    const sid = q.col('s', t.id.column);
    const index = this.fifoIndex == null ? '' : ` FORCE INDEX (${q.ident(this.fifoIndex)})`;
    const tag = k === undefined ? '' : `${k} AS ${GUARD_K}, `;
    return (
      `SELECT ${tag}${sid} FROM ${q.table} s${index} WHERE ${q.col('s', t.group as string)} = ${p.bind(group)}` +
      ` AND ${sid} < ${p.bind(id)}${q.unsettled('s')} ORDER BY ${sid} FOR UPDATE`
    );
  }
}

/** The column of {@link MysqlFifo.headGuards}' answer that names the head a row is the guard's answer for. */
export const GUARD_K = 'sqlinbox_k';

/** Settlement: the dead-letter move's copy, delete, and its copy's lease cleared. */
export class MysqlSettle extends SettleStatements<MysqlQueue> {
  /** The builder's copy and delete, then (lease form) the copy's lease cleared. */
  override moveToDeadLetter(
    id: unknown,
    token: Date | undefined,
    table: string,
    record?: RecordWrite,
  ): Statement[] {
    const moves = super.moveToDeadLetter(id, token, table, record);
    const lease = this.t.lease;
    if (lease === undefined) return moves;
    const q = this.q;
    const p = q.params();
    const dead = this.s.tableName(table);
    return [
      ...moves,
      p.statement(`UPDATE ${dead} SET ${q.ident(lease)} = NULL WHERE ${q.id} = ${p.bind(id)}`),
    ];
  }
}

/**
 * Publishing: an insert's ids come from its insert id. A keyed insert meets the unique index (on
 * the key, or on the generated `sqlinbox_key_active` where the table stamps settled rows) with
 * `ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)`, which changes nothing and hands the holder's
 * id back; unlike `INSERT IGNORE`, any other error still fails it.
 */
export class MysqlPublish extends PublishStatements<MysqlQueue> {
  override onConflict(): string {
    return ` ON DUPLICATE KEY UPDATE ${this.q.id} = LAST_INSERT_ID(${this.q.id})`;
  }

  /**
   * Differs from the builder's: no `ON CONFLICT .. DO UPDATE .. WHERE`; each column takes the new
   * value only where the holder has not started (`IF(attempt < 1, VALUES(c), c)`: the attempt is
   * not among the columns written, so every `IF` reads the holder's), and the holder's id is
   * handed back as the insert id whether it was replaced or not.
   */
  override onReplace(_keyColumn: string, columns: readonly string[]): string {
    const set = columns.map((c) => `${c} = IF(${this.unstarted()}, VALUES(${c}), ${c})`);
    return ` ON DUPLICATE KEY UPDATE ${[...set, `${this.q.id} = LAST_INSERT_ID(${this.q.id})`].join(', ')}`;
  }

  /** MySQL takes no alias for the table an insert writes; `ON DUPLICATE KEY UPDATE` reads the holder's columns bare. */
  override replaceTarget(table: string): string {
    return table;
  }

  override insertSql(i: InsertParts): string {
    if (i.columns.length > 0) return super.insertSql(i);
    return `INSERT INTO ${i.table} () VALUES ()${i.conflictKey === undefined ? '' : this.onConflict()}`;
  }
}

/** The advisory lock is a `GET_LOCK` named after the table's database and the key. */
export class MysqlAdvisory extends AdvisoryStatements<MysqlQueue> {
  /**
   * Differs from the builder's: the keys in `own` are compared as bytes (the table's collation
   * must not make two keys one) and, unless the table brings its own lock, keys whose lock another
   * session holds are left out (`IS_USED_LOCK`), over a derived table of the due rows.
   */
  override candidates(n: number, now: Date | null, own: ReadonlySet<string>): Statement {
    const { q, s, t } = this;
    const p = q.params();
    const prio = t.priority === undefined ? '' : `, ${q.col('q', t.priority)}`;
    const rows =
      `SELECT ${q.col('q', t.id.column)}${prio}, ${q.keyExpr(p, 'q')} AS ${KEY} FROM ${q.table} q` +
      ` WHERE ${q.due(p, now, 'q')}${q.head('q')}`;
    const key = `c.${KEY}`;
    const where: string[] = [];
    if (own.size > 0) where.push(s.inList(p, `CAST(${key} AS BINARY)`, [...own], true));
    if (t.lock === undefined) where.push(`IS_USED_LOCK(${q.lockName(p, key)}) IS NULL`);
    return p.statement(
      s.select(p, {
        columns: `${q.col('c', t.id.column)} AS ${q.ident('id')}, ${key} AS ${q.ident('key')}`,
        table: `(${rows}) c`,
        alias: 'c',
        where: where.length === 0 ? undefined : where.join(' AND '),
        order: q.order('c'),
        limit: n,
      }),
    );
  }

  /** `GET_LOCK(name, 0)`: tries the key's lock without waiting; `ok` = 1 when taken. */
  override lock(key: string): Statement {
    const p = this.q.params();
    return p.statement(`SELECT GET_LOCK(${this.q.lockName(p, undefined, key)}, 0) AS ok`);
  }

  /** `RELEASE_LOCK(name)`: `ok` = 1 when this session held the key's lock. */
  override unlock(key: string): Statement {
    const p = this.q.params();
    return p.statement(`SELECT RELEASE_LOCK(${this.q.lockName(p, undefined, key)}) AS ok`);
  }

  /**
   * Differs from the builder's (no `UPDATE .. RETURNING`): counts the attempt while the row is
   * still due and (FIFO) its group's head, then {@link takeRow} reads it. An UPDATE cannot read the
   * table it writes in a subquery (error 1093), so the head check is an anti-join on the group's
   * older unsettled rows; a NULL group joins nothing, as it is no group. Without an attempt
   * column: the builder's select.
   */
  override take(id: unknown, now: Date | null): Statement {
    const { q, t } = this;
    if (t.attempt === undefined) return super.take(id, now);
    const p = q.params();
    const sid = q.col('s', t.id.column);
    const older =
      t.group === undefined
        ? ''
        : ` LEFT JOIN ${q.table} s ON ${q.col('s', t.group)} = ${q.col('q', t.group)}` +
          ` AND ${sid} < ${q.col('q', t.id.column)}${q.unsettled('s')}`;
    const head = t.group === undefined ? '' : ` AND ${sid} IS NULL`;
    const attempt = q.col('q', t.attempt.column);
    return p.statement(
      `UPDATE ${q.table} q${older} SET ${attempt} = ${attempt} + 1` +
        ` WHERE ${q.col('q', t.id.column)} = ${p.bind(id)} AND ${q.due(p, now, 'q')}${head}`,
    );
  }

  /** The row of an id, as it stands. */
  takeRow(id: unknown): Statement {
    const q = this.q;
    const p = q.params();
    return p.statement(`SELECT * FROM ${q.table} WHERE ${q.id} = ${p.bind(id)}`);
  }
}

/** Rows in work, for the admin counts. */
export class MysqlCounts extends CountStatements<MysqlQueue> {
  /** How many due rows' keys a session's `GET_LOCK` holds (`IS_USED_LOCK`). */
  usedKeys(now: Date): Statement {
    const q = this.q;
    const p = q.params();
    const rows = `SELECT ${q.keyExpr(p, 'q')} AS ${KEY} FROM ${q.table} q WHERE ${q.due(p, now, 'q')}`;
    const used = `IS_USED_LOCK(${q.lockName(p, `c.${KEY}`)}) IS NOT NULL`;
    return p.statement(`SELECT COUNT(*) AS n FROM (${rows}) c WHERE ${used}`);
  }

  /** The ids of due rows no other transaction locks (row lock form), in a transaction. */
  freeDue(now: Date): Statement {
    const q = this.q;
    const p = q.params();
    const id = q.col('q', this.t.id.column);
    const where = q.due(p, now, 'q');
    return p.statement(
      this.s.select(p, { columns: id, table: `${q.table} q`, alias: 'q', where, lock: true }),
    );
  }
}

/**
 * Retention's bounded deletes, in two statements in one READ COMMITTED transaction
 * ({@link MysqlTable.pruneProcessed}): MySQL refuses `LIMIT` in an `IN` subquery, and a `DELETE`
 * waits for the lock of every row it reads (a small table is scanned rather than looked up), where
 * in the row lock form a claim's transaction holds its row until the handler ends (on MariaDB other
 * rows it read too). So a locking pick that passes over held rows (`FOR UPDATE SKIP LOCKED`, as the
 * claims do) takes the ids, then a delete by the primary key removes them, its condition read again.
 */
export class MysqlRetention extends RetentionStatements<MysqlQueue> {
  /** Differs from the builder's: the pick of at most `limit` processed rows' ids, oldest first. */
  override pruneProcessed(before: Date, limit: number): Statement {
    return this.pick('processed', before, limit);
  }

  /** Differs from the builder's: the pick of at most `limit` dead letters' ids, oldest first. */
  override pruneDead(before: Date, limit: number): Statement | undefined {
    return this.hasDead ? this.pick('dead', before, limit) : undefined;
  }

  /** The ids of at most `limit` settled rows of a kind older than `before`, oldest first. */
  pick(kind: 'processed' | 'dead', before: Date, limit: number): Statement {
    const q = this.q;
    const p = q.params();
    const table = kind === 'processed' ? q.table : this.deadTable();
    const where = this.agedWhere(p, kind, before);
    const order = this.ageColumn(kind);
    return p.statement(
      this.s.select(p, { columns: q.id, table, alias: '', where, order, limit, lock: true }),
    );
  }

  /** The ids of at most `limit` dead letters without a death stamp. */
  pickUnstamped(limit: number): Statement {
    const q = this.q;
    const p = q.params();
    const where = `${this.deadWhere(p)} AND ${this.ageColumn('dead')} IS NULL`;
    const table = this.deadTable();
    return p.statement(
      this.s.select(p, { columns: q.id, table, alias: '', where, order: q.id, limit, lock: true }),
    );
  }

  /** Stamps the death of the picked dead letters still without one, looked up by the primary key only (as {@link deletePicked}). */
  stampPicked(ids: readonly unknown[], now: Date): Statement {
    const q = this.q;
    const p = q.params();
    const at = this.ageColumn('dead');
    const set = `${at} = ${this.s.time(p, now)}`;
    const where = `${this.deadWhere(p)} AND ${at} IS NULL AND ${this.s.inList(p, q.id, ids)}`;
    return p.statement(`UPDATE ${this.deadTable()} FORCE INDEX (PRIMARY) SET ${set} WHERE ${where}`);
  }

  /**
   * Deletes the picked rows of a kind that still are settled and older than `before`, looked up by
   * the primary key only (`FORCE INDEX (PRIMARY)`, which only the multi-table `DELETE` takes): on a
   * small table the optimizer would scan it instead, and a `DELETE` waits for the lock of every row
   * it reads, a row lock form claim's in-work row too.
   */
  deletePicked(kind: 'processed' | 'dead', ids: readonly unknown[], before: Date): Statement {
    const q = this.q;
    const p = q.params();
    const table = kind === 'processed' ? q.table : this.deadTable();
    const where = `${this.agedWhere(p, kind, before)} AND ${this.s.inList(p, q.id, ids)}`;
    return p.statement(`DELETE q FROM ${table} AS q FORCE INDEX (PRIMARY) WHERE ${where}`);
  }
}

/**
 * MySQL's and MariaDB's statements: the builder's over {@link MysqlSyntax}, with what these
 * databases do their own way. A claim, an extension and a batched ack are several statements
 * ({@link MysqlTable} runs them), and an insert's ids come from its insert id.
 */
export class MysqlStatements extends QueueStatements<MysqlQueue> {
  declare readonly rowLock: MysqlRowLock;
  declare readonly lease: MysqlLease;
  declare readonly concurrency: MysqlConcurrency;
  declare readonly fifo: MysqlFifo;
  declare readonly settle: MysqlSettle;
  declare readonly publish: MysqlPublish;
  declare readonly advisory: MysqlAdvisory;
  declare readonly counts: MysqlCounts;
  declare readonly retention: MysqlRetention;

  constructor(t: AnyTable, opts?: PrepareOptions) {
    super(new MysqlQueue(mysqlSyntax, t, opts), {
      rowLock: MysqlRowLock,
      lease: MysqlLease,
      concurrency: MysqlConcurrency,
      fifo: MysqlFifo,
      settle: MysqlSettle,
      publish: MysqlPublish,
      advisory: MysqlAdvisory,
      counts: MysqlCounts,
      retention: MysqlRetention,
    });
  }
}

/**
 * The `GET_LOCK` name of a key, computed as the server computes it: `database` in lower case, a
 * dot and the key; over 64 characters, the SHA-256 of that text in lower-case hex.
 */
export function lockNameOf(database: string, key: string): string {
  const name = `${database.toLowerCase()}.${key}`;
  return [...name].length > LOCK_NAME_MAX ? createHash('sha256').update(name, 'utf8').digest('hex') : name;
}
