import { createHash } from 'node:crypto';
import {
  type InsertParts,
  KEY,
  type Params,
  QueueStatements,
  type Statement,
  savepointName,
  schemaOf,
  setIsolation,
  type TransactionSql,
} from '@sqlinbox/sql';
import { quoteIdent, utc } from './sql.js';

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
 * MySQL's and MariaDB's statements: the builder's, with what these databases do their own way.
 * Identifiers take backticks; every instant is bound as `DATETIME(3)` text in UTC and "now" on the
 * database clock is `UTC_TIMESTAMP(3)`, so no statement depends on the session's `time_zone`;
 * `<=>` compares with NULL as a value. There is no `UPDATE .. RETURNING` (MariaDB has it for INSERT
 * and DELETE only, MySQL not at all), so a claim, an extension and a batched ack are several
 * statements ({@link MysqlTable} runs them), and an insert's ids come from its insert id. A keyed
 * insert meets the unique index (on the key, or on the generated `sqlinbox_key_active` where the
 * table stamps settled rows) with `ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id)`, which changes
 * nothing and hands the holder's id back; unlike `INSERT IGNORE`, any other error still fails it.
 * The advisory lock is a `GET_LOCK` named after the table's database and the key.
 */
export class MysqlStatements extends QueueStatements {
  override ident(name: string): string {
    return quoteIdent(name);
  }

  override readonly clock = 'UTC_TIMESTAMP(3)';
  override readonly textType = 'CHAR';

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

  override returning(): undefined {
    return undefined;
  }

  override onConflict(): string {
    return ` ON DUPLICATE KEY UPDATE ${this.id} = LAST_INSERT_ID(${this.id})`;
  }

  override insertSql(i: InsertParts): string {
    if (i.columns.length > 0) return super.insertSql(i);
    return `INSERT INTO ${i.table} () VALUES ()${i.conflictKey === undefined ? '' : this.onConflict()}`;
  }

  override get begin(): string {
    return 'START TRANSACTION';
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

  // -------------------------------------------------------------------------------------------
  // Claims

  /**
   * Lease form, the first statement of the claim's transaction: the ids (and groups) of up to `n`
   * due rows (FIFO: heads) in claim order, `FOR UPDATE SKIP LOCKED`. Then {@link headGuard},
   * {@link claimLeaseUpdate} and {@link claimLeaseRows}: an UPDATE can neither return its rows nor
   * read the table it writes in a subquery (error 1093).
   */
  override claimLease(n: number, now: Date): Statement {
    const t = this.t;
    const p = this.params();
    const group = t.group === undefined ? '' : `, ${this.col('q', t.group)}`;
    return p.statement(
      this.select(p, {
        columns: `${this.col('q', t.id.column)}${group}`,
        table: `${this.table} q`,
        alias: 'q',
        where: this.due(p, now, 'q') + this.head('q'),
        order: this.order('q'),
        limit: n,
        lock: true,
      }),
    );
  }

  /**
   * Lease form, second statement: writes the lease and counts the attempt of the locked rows; with
   * `now` (per-key concurrency, whose pick reads without locks), only of those still due.
   */
  claimLeaseUpdate(ids: readonly unknown[], expiry: Date, now?: Date): Statement {
    const t = this.t;
    const p = this.params();
    const set = this.leaseSets(p, expiry);
    let where = this.inList(p, this.col('q', t.id.column), ids);
    if (now !== undefined) where += ` AND ${this.due(p, now, 'q')}`;
    return p.statement(this.update({ table: this.table, alias: 'q', set, where }));
  }

  /**
   * Per-key concurrency, the claim's turn, taken before its transaction opens: `GET_LOCK` on the
   * table's turn name, waiting up to 10 s (`ok` 1 when taken); released by {@link claimTurnEnd}
   * after the commit, so the next claim's reads see this one's leases.
   */
  override claimTurn(): Statement {
    const p = this.params();
    const name = this.lockName(p, undefined, this.turnName);
    return p.statement(`SELECT GET_LOCK(${name}, ${p.bind(TURN_WAIT_S)}) AS ok`);
  }

  /** Releases the claim's turn ({@link claimTurn}). */
  claimTurnEnd(): Statement {
    const p = this.params();
    return p.statement(`SELECT RELEASE_LOCK(${this.lockName(p, undefined, this.turnName)}) AS ok`);
  }

  /**
   * Per-key concurrency, the first statement of the claim's transaction: the ids (and groups) of
   * the builder's pick ({@link pickByKey}), read without locks; then {@link fifoGuard},
   * {@link claimLeaseUpdate} with `now`, and {@link claimLeaseRows} with the expiry.
   */
  claimPickByKey(n: number, now: Date): Statement {
    const t = this.t;
    const p = this.params();
    const group = t.group === undefined ? '' : `, ${this.col('x', t.group)}`;
    return p.statement(this.pickByKey(p, n, now, `${this.col('x', t.id.column)}${group}`));
  }

  /**
   * Lease form, last statement: the rows of these ids as they stand, in claim order; with `expiry`,
   * only those that hold it (the rows the update reached).
   */
  claimLeaseRows(ids: readonly unknown[], expiry?: Date): Statement {
    const p = this.params();
    let where = this.inList(p, this.col('q', this.t.id.column), ids);
    if (expiry !== undefined)
      where += ` AND ${this.col('q', this.role(this.t.lease, 'lease'))} = ${this.time(p, expiry)}`;
    return p.statement(
      this.select(p, { columns: 'q.*', table: `${this.table} q`, alias: 'q', where, order: this.order('q') }),
    );
  }

  /**
   * The index the FIFO guard reads, one led by the group column (`sqlinbox_fifo` of {@link ddl}):
   * found on the server by the runner before the first guard ({@link fifoIndexOf}); null where
   * the table has none.
   */
  fifoIndex: string | null | undefined;

  /** The name of an index of the table whose first column is the group column, as `name`. */
  fifoIndexOf(): Statement {
    const p = this.params();
    const schema = schemaOf(this.t.table);
    return p.statement(
      'SELECT INDEX_NAME AS `name` FROM information_schema.STATISTICS' +
        ` WHERE TABLE_SCHEMA = COALESCE(${p.bind(schema ?? null)}, DATABASE()) AND TABLE_NAME = ${p.bind(this.t.table.split('.').pop())}` +
        ` AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = ${p.bind(this.role(this.t.group, 'group'))}` +
        " ORDER BY INDEX_NAME = 'sqlinbox_fifo' DESC, INDEX_NAME LIMIT 1",
    );
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
    const t = this.t;
    if (t.group === undefined) return undefined;
    const p = this.params();
    const sid = this.col('s', t.id.column);
    const index = this.fifoIndex == null ? '' : ` FORCE INDEX (${this.ident(this.fifoIndex)})`;
    return p.statement(
      `SELECT ${sid} FROM ${this.table} s${index} WHERE ${this.col('s', t.group)} = ${p.bind(group)}` +
        ` AND ${sid} < ${p.bind(id)}${this.unsettled('s')} ORDER BY ${sid} FOR UPDATE`,
    );
  }

  /** Which of these ids hold `expiry` now: the ids an extension moved, when not all moved. */
  extendLeasesMoved(ids: readonly unknown[], expiry: Date): Statement {
    const p = this.params();
    const where = `${this.inList(p, this.id, ids)} AND ${this.ident(this.role(this.t.lease, 'lease'))} = ${this.time(p, expiry)}`;
    return p.statement(`SELECT ${this.id} FROM ${this.table} WHERE ${where}`);
  }

  // -------------------------------------------------------------------------------------------
  // Settlement

  /**
   * A batched ack, first statement: of these leases, the rows that still hold their tokens, locked
   * (`FOR UPDATE`, in id order as the claim locks them). Then {@link settleManyFinish} by id.
   */
  settleManyHeld(leases: readonly { id: unknown; token: Date }[]): Statement {
    const p = this.params();
    return p.statement(
      `SELECT ${this.id} FROM ${this.table} WHERE ${this.heldTokens(p, leases)} ORDER BY ${this.id} FOR UPDATE`,
    );
  }

  /** `ack`/`drop` of many rows by id (their tokens checked under lock): delete, or stamp. */
  settleManyFinish(ids: readonly unknown[], now: Date): Statement {
    const t = this.t;
    const p = this.params();
    if (t.processedAt === undefined) {
      return p.statement(this.delete({ table: this.table, where: this.inList(p, this.id, ids) }));
    }
    const set = [`${this.ident(t.processedAt)} = ${this.time(p, now)}`];
    if (t.lease !== undefined) set.push(`${this.ident(t.lease)} = NULL`);
    const where = this.inList(p, this.col('q', t.id.column), ids);
    return p.statement(this.update({ table: this.table, alias: 'q', set, where }));
  }

  /** The builder's copy and delete, then (lease form) the copy's lease cleared. */
  override moveToDeadLetter(id: unknown, token: Date | undefined, table: string): Statement[] {
    const moves = super.moveToDeadLetter(id, token, table);
    const lease = this.t.lease;
    if (lease === undefined) return moves;
    const p = this.params();
    const dead = this.tableName(table);
    return [
      ...moves,
      p.statement(`UPDATE ${dead} SET ${this.ident(lease)} = NULL WHERE ${this.id} = ${p.bind(id)}`),
    ];
  }

  // -------------------------------------------------------------------------------------------
  // Advisory form

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
   * Up to `n` due rows (FIFO: heads) in claim order with their keys, leaving out the keys in `own`
   * (compared as bytes: the table's collation must not make two keys one) and, unless the table
   * brings its own lock, keys whose lock another session holds (`IS_USED_LOCK`).
   */
  override candidates(n: number, now: Date | null, own: ReadonlySet<string>): Statement {
    const t = this.t;
    const p = this.params();
    const prio = t.priority === undefined ? '' : `, ${this.col('q', t.priority)}`;
    const rows =
      `SELECT ${this.col('q', t.id.column)}${prio}, ${this.keyExpr(p, 'q')} AS ${KEY} FROM ${this.table} q` +
      ` WHERE ${this.due(p, now, 'q')}${this.head('q')}`;
    const key = `c.${KEY}`;
    const where: string[] = [];
    if (own.size > 0) where.push(this.inList(p, `CAST(${key} AS BINARY)`, [...own], true));
    if (t.lock === undefined) where.push(`IS_USED_LOCK(${this.lockName(p, key)}) IS NULL`);
    return p.statement(
      this.select(p, {
        columns: `${this.col('c', t.id.column)} AS ${this.ident('id')}, ${key} AS ${this.ident('key')}`,
        table: `(${rows}) c`,
        alias: 'c',
        where: where.length === 0 ? undefined : where.join(' AND '),
        order: this.order('c'),
        limit: n,
      }),
    );
  }

  /** `GET_LOCK(name, 0)`: tries the key's lock without waiting; `ok` = 1 when taken. */
  override lock(key: string): Statement {
    const p = this.params();
    return p.statement(`SELECT GET_LOCK(${this.lockName(p, undefined, key)}, 0) AS ok`);
  }

  /** `RELEASE_LOCK(name)`: `ok` = 1 when this session held the key's lock. */
  override unlock(key: string): Statement {
    const p = this.params();
    return p.statement(`SELECT RELEASE_LOCK(${this.lockName(p, undefined, key)}) AS ok`);
  }

  /**
   * Counts the attempt while the row is still due and (FIFO) its group's head, then
   * {@link takeRow} reads it. An UPDATE cannot read the table it writes in a subquery (error 1093),
   * so the head check is an anti-join on the group's older unsettled rows; a NULL group joins
   * nothing, as it is no group. Without an attempt column: the builder's select.
   */
  override take(id: unknown, now: Date | null): Statement {
    const t = this.t;
    if (t.attempt === undefined) return super.take(id, now);
    const p = this.params();
    const sid = this.col('s', t.id.column);
    const older =
      t.group === undefined
        ? ''
        : ` LEFT JOIN ${this.table} s ON ${this.col('s', t.group)} = ${this.col('q', t.group)}` +
          ` AND ${sid} < ${this.col('q', t.id.column)}${this.unsettled('s')}`;
    const head = t.group === undefined ? '' : ` AND ${sid} IS NULL`;
    const attempt = this.col('q', t.attempt.column);
    return p.statement(
      `UPDATE ${this.table} q${older} SET ${attempt} = ${attempt} + 1` +
        ` WHERE ${this.col('q', t.id.column)} = ${p.bind(id)} AND ${this.due(p, now, 'q')}${head}`,
    );
  }

  /** The row of an id, as it stands. */
  takeRow(id: unknown): Statement {
    const p = this.params();
    return p.statement(`SELECT * FROM ${this.table} WHERE ${this.id} = ${p.bind(id)}`);
  }

  // -------------------------------------------------------------------------------------------
  // Rows in work, for the admin counts

  /** How many due rows' keys a session's `GET_LOCK` holds (`IS_USED_LOCK`). */
  usedKeys(now: Date): Statement {
    const p = this.params();
    const rows = `SELECT ${this.keyExpr(p, 'q')} AS ${KEY} FROM ${this.table} q WHERE ${this.due(p, now, 'q')}`;
    const used = `IS_USED_LOCK(${this.lockName(p, `c.${KEY}`)}) IS NOT NULL`;
    return p.statement(`SELECT COUNT(*) AS n FROM (${rows}) c WHERE ${used}`);
  }

  /** The ids of due rows no other transaction locks (row lock form), in a transaction. */
  freeDue(now: Date): Statement {
    const p = this.params();
    const id = this.col('q', this.t.id.column);
    const where = this.due(p, now, 'q');
    return p.statement(
      this.select(p, { columns: id, table: `${this.table} q`, alias: 'q', where, lock: true }),
    );
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
