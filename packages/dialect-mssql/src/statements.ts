/**
 * The T-SQL of one queue table, one method per statement kind, named as in the other dialects
 * (`claimLocked`, `fifoGuard`, `claimLease`, `extendLeases`, the advisory `candidates`, `lock`,
 * `unlock`, `take`, `settle`, `insert`, `stats`). Identifiers are quoted when the table's statements
 * are built; every value is a bound `@pN` parameter.
 *
 * Locking. Every claim reads the queue with `WITH (UPDLOCK, READPAST, ROWLOCK)`: update locks on the
 * rows it takes, held to the end of its transaction, and rows another claim holds are skipped, never
 * waited on (R-ROW-1). (Effect SQL's SQL Server claim has `UPDLOCK` without `READPAST`, so its
 * claimers queue behind each other's locks; these never do.) `READPAST` is refused below READ
 * COMMITTED and at SERIALIZABLE (error 650), and a pooled session keeps the isolation level of its
 * last transaction, so each claim batch first sets READ COMMITTED; the row lock claim, which runs
 * inside the delivery's transaction, sets the table's declared level back after its select.
 *
 * Time: lease, `retry_after` and `processed_at` are `DATETIME2(3)` in UTC; every instant is bound as
 * a `datetime2` Date (tedious sends it in UTC), and "now" on the database clock is `SYSUTCDATETIME()`.
 */
import type { AnyTable, DeadLetterTarget, Insert, IsolationLevel, Settlement } from '@sqlinbox/core';
import { ConfigError, EncodeError, namedColumns, validateIdentifier } from '@sqlinbox/core';
import {
  DB_NOW,
  ident,
  MAX_PARAMS,
  Params,
  resourceName,
  resourceSql,
  type Statement,
  tableName,
} from './sql.js';

/** T-SQL names of the isolation levels. */
export const ISOLATION_SQL: Readonly<Record<IsolationLevel, string>> = {
  read_uncommitted: 'READ UNCOMMITTED',
  read_committed: 'READ COMMITTED',
  repeatable_read: 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
};

/** Sets the session's level for the statements after it (a pooled session keeps its last one). */
export const SET_READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;';

/** The claim's table hints: update locks on the rows taken, locked rows skipped, row granularity. */
export const CLAIM_HINTS = 'WITH (UPDLOCK, READPAST, ROWLOCK)';

/**
 * A plain read that passes over rows being written instead of waiting for them. `READPAST` needs a
 * locking read: under `READ_COMMITTED_SNAPSHOT` a READ COMMITTED select reads row versions and
 * refuses the hint unless `READCOMMITTEDLOCK` asks for locks (the claims' `UPDLOCK` already does).
 */
export const SKIP_HINTS = 'WITH (READCOMMITTEDLOCK, READPAST)';

/** The database principal every application lock of this package is taken for (`sp_getapplock`'s default). */
const PRINCIPAL = "N'public'";

/** A statement's parameters plus the values several of its clauses share, each bound once. */
class Builder extends Params {
  #now: string | undefined;
  #dead: string | undefined;

  constructor(
    private readonly nowValue: Date | null,
    private readonly deadGroup: string | undefined,
  ) {
    super();
  }

  /** "Now": the bound host instant, or the database clock for `null`. */
  get now(): string {
    this.#now ??= this.nowValue === null ? DB_NOW : this.add(this.nowValue);
    return this.#now;
  }

  /** The dead-letter group, bound once. */
  get dead(): string {
    this.#dead ??= this.add(this.deadGroup);
    return this.#dead;
  }
}

/** The statements of one table, for one dead-letter target. */
export class TableStatements {
  /** The quoted table. */
  readonly T: string;
  readonly ID: string;
  private readonly deadGroup: string | undefined;
  /** The quoted dead-letter table, when the subscription's target is a table. */
  readonly DLQ: string | undefined;

  constructor(
    readonly t: AnyTable,
    deadLetter: DeadLetterTarget | undefined,
    /** Ids claims pass over (a relay's held-back records, R-OUT-1), read at each statement. */
    private readonly exclude?: ReadonlySet<unknown> | undefined,
  ) {
    this.T = tableName(t.table);
    this.ID = ident(t.id.column);
    this.deadGroup = deadLetter !== undefined && 'group' in deadLetter ? deadLetter.group : undefined;
    this.DLQ =
      deadLetter !== undefined && 'table' in deadLetter
        ? tableName(validateIdentifier(deadLetter.table, 'dead-letter table', t.table, true))
        : undefined;
  }

  private builder(now: Date | null): Builder {
    return new Builder(now, this.deadGroup);
  }

  private col(alias: string, column: string): string {
    return `${alias}.${ident(column)}`;
  }

  /**
   * The due condition on alias `a` (see the dialect contract): not processed, `retry_after`
   * reached, the lease absent or ended (lease form), out of the dead-letter group, not an excluded
   * id. T-SQL has no boolean literal, so "always" is `1 = 1`.
   */
  private due(b: Builder, a: string): string {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.col(a, t.processedAt)} IS NULL`);
    if (t.retryAfter !== undefined) {
      const c = this.col(a, t.retryAfter);
      parts.push(`(${c} IS NULL OR ${c} <= ${b.now})`);
    }
    if (t.lease !== undefined) {
      const c = this.col(a, t.lease);
      parts.push(`(${c} IS NULL OR ${c} <= ${b.now})`);
    }
    if (t.group !== undefined && this.deadGroup !== undefined) {
      const g = this.col(a, t.group);
      parts.push(`(${g} IS NULL OR ${g} <> ${b.dead})`);
    }
    if (this.exclude !== undefined && this.exclude.size > 0) {
      const ids = [...this.exclude].map((id) => b.add(id));
      parts.push(`${this.col(a, t.id.column)} NOT IN (${ids.join(', ')})`);
    }
    return parts.length === 0 ? '1 = 1' : parts.join(' AND ');
  }

  /**
   * FIFO (R-FIFO-1): the row on alias `a` is its group's head when no unsettled row of its group
   * has a smaller id. A NULL group is no group. The sibling read carries no hints on purpose: it
   * must see a head that another claim holds (an update lock lets it read) and must not pass over a
   * head whose settlement statement is running (it waits for that one statement, never for a
   * handler).
   */
  private head(a: string): string {
    const t = this.t;
    if (t.group === undefined) return '';
    const g = ident(t.group);
    const unsettled = t.processedAt === undefined ? '' : ` AND h.${ident(t.processedAt)} IS NULL`;
    return (
      ` AND (${a}.${g} IS NULL OR NOT EXISTS (SELECT 1 FROM ${this.T} AS h` +
      ` WHERE h.${g} = ${a}.${g} AND h.${this.ID} < ${a}.${this.ID}${unsettled}))`
    );
  }

  // -------------------------------------------------------------------------------------------
  // Claims

  /**
   * Row lock form (R-ROW-1), inside the transaction the engine opened: up to `n` due rows in id
   * order under `UPDLOCK, READPAST, ROWLOCK` (a FIFO table: group heads only; the claim then takes
   * each head's {@link fifoGuard}). The select runs at READ COMMITTED whatever the table declares,
   * so it locks only the rows it takes (at REPEATABLE READ or SERIALIZABLE it would also keep every
   * row it read, and `READPAST` would be refused); the declared level is set back after it.
   */
  claimLocked(n: number, now: Date | null): Statement {
    const b = this.builder(now);
    const top = b.add(n);
    const select =
      `SELECT TOP (${top}) q.* FROM ${this.T} AS q ${CLAIM_HINTS}` +
      ` WHERE ${this.due(b, 'q')}${this.head('q')} ORDER BY q.${this.ID}`;
    const level = this.t.isolation;
    if (level === undefined || level === 'read_committed') return b.statement(select);
    return b.statement(
      `${SET_READ_COMMITTED}\n${select};\nSET TRANSACTION ISOLATION LEVEL ${ISOLATION_SQL[level]}`,
    );
  }

  /**
   * The FIFO guard (R-FIFO-2) of one group, in the row lock claim's transaction: `sp_getapplock` on
   * `<table>/<group>`, owned by the transaction (released by its commit or rollback, so it covers the
   * whole handler), without waiting. Answers `result` >= 0 when taken; a head whose guard another
   * transaction holds is not taken.
   */
  fifoGuard(group: string): Statement {
    const p = new Params();
    const resource = p.add(resourceName(`${this.t.table}/${group}`));
    return p.statement(
      'DECLARE @sqlinbox_result INT;\n' +
        `EXEC @sqlinbox_result = sp_getapplock @Resource = ${resource}, @LockMode = 'Exclusive',` +
        ` @LockOwner = 'Transaction', @LockTimeout = 0, @DbPrincipal = ${PRINCIPAL};\n` +
        'SELECT @sqlinbox_result AS [result]',
    );
  }

  /**
   * Lease form, one statement (R-LEASE-1, R-LEASE-2): an updatable CTE selects up to `n` due rows
   * whose lease is absent or ended at `now` (`UPDLOCK, READPAST, ROWLOCK`, id order; FIFO: heads),
   * and the `UPDATE` of it writes `expiry` and counts the attempt, `OUTPUT inserted.*` answering the
   * rows after the update (in no order: the caller sorts). The statement is its own transaction, and
   * its lease marks a head in work before it commits, so a FIFO table needs no guard beyond the head
   * check here: a concurrent claim skips the locked head and finds its successor is no head.
   */
  claimLease(n: number, now: Date, expiry: Date): Statement {
    const t = this.t;
    if (t.lease === undefined) throw missing(t, 'lease');
    const b = this.builder(now);
    const top = b.add(n);
    const due = this.due(b, 'q');
    const sets = [`${ident(t.lease)} = ${b.add(expiry)}`];
    if (t.attempt !== undefined) sets.push(`${ident(t.attempt.column)} = ${ident(t.attempt.column)} + 1`);
    return b.statement(
      `${SET_READ_COMMITTED}\n` +
        `WITH sqlinbox_claim AS (SELECT TOP (${top}) q.* FROM ${this.T} AS q ${CLAIM_HINTS}` +
        ` WHERE ${due}${this.head('q')} ORDER BY q.${this.ID})\n` +
        `UPDATE sqlinbox_claim SET ${sets.join(', ')} OUTPUT inserted.*`,
    );
  }

  /**
   * Moves each lease that still holds its token to `expiry` (R-LEASE-4): one `UPDATE` joined to a
   * `VALUES` list of (id, token) pairs, answering the ids it moved; a statement per 999 leases
   * (two parameters each, under the 2100 a request takes).
   */
  extendLeases(leases: readonly { id: unknown; token: Date }[], expiry: Date): Statement[] {
    const t = this.t;
    if (t.lease === undefined) throw missing(t, 'lease');
    const lease = ident(t.lease);
    const per = Math.floor((MAX_PARAMS - 1) / 2);
    const out: Statement[] = [];
    for (let i = 0; i < leases.length; i += per) {
      const p = new Params();
      const e = p.add(expiry);
      const pairs = leases
        .slice(i, i + per)
        .map((l) => `(${p.add(l.id)}, ${p.add(l.token)})`)
        .join(', ');
      out.push(
        p.statement(
          `UPDATE q SET ${lease} = ${e} OUTPUT inserted.${this.ID} AS [sqlinbox_id]` +
            ` FROM ${this.T} AS q INNER JOIN (VALUES ${pairs}) AS v ([sqlinbox_id], [sqlinbox_token])` +
            ` ON q.${this.ID} = v.[sqlinbox_id] AND q.${lease} = v.[sqlinbox_token]`,
        ),
      );
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Advisory form (R-ADV-1)

  /**
   * A row's key in T-SQL, as core's `keyOf()` renders it: literal parts bound, each column cast to
   * `nvarchar(max)`, `CONCAT` turning NULL into ''. Integer and text columns render as JavaScript's
   * `String()` does; other types as SQL Server casts them.
   */
  private keySql(p: Params, a: string): string {
    const parts = (this.t.key ?? []).map((part) =>
      'literal' in part ? p.add(part.literal) : `CAST(${this.col(a, part.column)} AS NVARCHAR(MAX))`,
    );
    // CONCAT takes at least two arguments; the leading N'' also makes one column part valid.
    return `CONCAT(N'', ${parts.join(', ')})`;
  }

  /**
   * Up to `n` due rows in id order (FIFO: heads) with their keys. Leaves out the keys in `own`,
   * compared as binary strings as application locks compare them, and, unless the table brings its
   * own lock (`leaveOutHeld` false, R-ADV-10), the keys another session holds:
   * `APPLOCK_TEST('public', name, 'Exclusive', 'Session') = 1` says the lock could be granted to
   * this session now. `APPLOCK_TEST` needs no permission beyond `public` and compares the exact
   * lock name; `sys.dm_tran_locks` needs VIEW SERVER STATE and shows only the first 32 characters of
   * a name, so it cannot tell keys apart. The scan reads past rows being written (`READPAST`): an
   * insert a handler's transaction has not committed holds no claim waiting.
   */
  candidates(n: number, now: Date | null, own: ReadonlySet<string>, leaveOutHeld: boolean): Statement {
    const b = this.builder(now);
    const top = b.add(n);
    const key = this.keySql(b, 'q');
    const where: string[] = [];
    if (own.size > 0) {
      where.push(`c.[sqlinbox_key] COLLATE Latin1_General_BIN2 NOT IN (${b.list(own)})`);
    }
    if (leaveOutHeld) {
      where.push(
        `APPLOCK_TEST(${PRINCIPAL}, ${resourceSql('c.[sqlinbox_key]')}, 'Exclusive', 'Session') = 1`,
      );
    }
    return b.statement(
      `${SET_READ_COMMITTED}\n` +
        `SELECT TOP (${top}) c.[sqlinbox_id] AS [id], c.[sqlinbox_key] AS [key] FROM (` +
        `SELECT q.${this.ID} AS [sqlinbox_id], ${key} AS [sqlinbox_key] FROM ${this.T} AS q ${SKIP_HINTS}` +
        ` WHERE ${this.due(b, 'q')}${this.head('q')}) AS c` +
        `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY c.[sqlinbox_id]`,
    );
  }

  /**
   * `sp_getapplock` on the key, owned by the session (it outlives transactions and ends with the
   * session, so a crashed process's keys are released by the server, R-ADV-7), without waiting.
   * Answers `result`: >= 0 taken (0 at once), < 0 not (-1: another session holds it).
   */
  lock(key: string): Statement {
    const p = new Params();
    const resource = p.add(resourceName(key));
    return p.statement(
      'DECLARE @sqlinbox_result INT;\n' +
        `EXEC @sqlinbox_result = sp_getapplock @Resource = ${resource}, @LockMode = 'Exclusive',` +
        ` @LockOwner = 'Session', @LockTimeout = 0, @DbPrincipal = ${PRINCIPAL};\n` +
        'SELECT @sqlinbox_result AS [result]',
    );
  }

  /**
   * `sp_releaseapplock` on the key, only when this session holds it (`APPLOCK_MODE` is not
   * `NoLock`): releasing a lock not held raises error 1223 instead of answering. Answers `result`:
   * >= 0 released; -999 this session did not hold it.
   */
  unlock(key: string): Statement {
    const p = new Params();
    const resource = p.add(resourceName(key));
    return p.statement(
      'DECLARE @sqlinbox_result INT = -999;\n' +
        `IF APPLOCK_MODE(${PRINCIPAL}, ${resource}, 'Session') <> 'NoLock'\n` +
        `  EXEC @sqlinbox_result = sp_releaseapplock @Resource = ${resource}, @LockOwner = 'Session',` +
        ` @DbPrincipal = ${PRINCIPAL};\n` +
        'SELECT @sqlinbox_result AS [result]',
    );
  }

  /**
   * Advisory take (R-ADV-1, R-ADV-2): counts the attempt of the row while it is still due and (FIFO)
   * still its group's head, answering the row after the count (`OUTPUT inserted.*`); without an
   * attempt column a select under the same condition. Autocommit. No row: settled meanwhile, or an
   * older row of its group appeared or came back unsettled since the candidate select (R-OPS-7).
   */
  take(id: unknown, now: Date | null): Statement {
    const t = this.t;
    const b = this.builder(now);
    const where = `q.${this.ID} = ${b.add(id)} AND ${this.due(b, 'q')}${this.head('q')}`;
    if (t.attempt === undefined) return b.statement(`SELECT q.* FROM ${this.T} AS q WHERE ${where}`);
    const a = ident(t.attempt.column);
    return b.statement(`UPDATE q SET ${a} = q.${a} + 1 OUTPUT inserted.* FROM ${this.T} AS q WHERE ${where}`);
  }

  // -------------------------------------------------------------------------------------------
  // Settlement (R-SET-1)

  /** `id = @p` and, with a lease token, `locked_until = @token` (R-LEASE-3). */
  private owned(p: Params, id: unknown, token: Date | undefined): string {
    const byId = `${this.ID} = ${p.add(id)}`;
    if (token === undefined || this.t.lease === undefined) return byId;
    return `${byId} AND ${ident(this.t.lease)} = ${p.add(token)}`;
  }

  /**
   * One settlement in one statement; its row count is the answer.
   * - finish: `DELETE`, or `processed_at = now` (and the lease cleared) where the table stamps rows;
   * - return: `attempt + 1` if counted, `retry_after` if given, the lease cleared if asked (each
   *   where the column exists); with nothing to write, a select of the row, so the count still says
   *   whether the row (and its token) was there;
   * - deadLetter to a group: one `UPDATE` of the row's group, the lease cleared (R-DLQ-2);
   * - deadLetter to a table: `DELETE .. OUTPUT deleted.* INTO dlq`, one statement that copies and
   *   deletes atomically, inside a transaction or not (SQL Server's answer to PostgreSQL's
   *   `WITH moved AS (DELETE .. RETURNING *) INSERT ..`; R-DLQ-2's copy-then-delete needs no
   *   transaction of its own here). The dead-letter table takes the queue's columns in the same
   *   order, without IDENTITY, triggers, foreign keys or CHECK constraints (what `OUTPUT INTO`
   *   allows).
   */
  settle(s: Settlement): Statement {
    const t = this.t;
    const p = new Params();
    const clearLease = t.lease === undefined ? [] : [`${ident(t.lease)} = NULL`];
    switch (s.kind) {
      case 'finish': {
        if (t.processedAt === undefined) {
          return p.statement(`DELETE FROM ${this.T} WHERE ${this.owned(p, s.id, s.token)}`);
        }
        const sets = [`${ident(t.processedAt)} = ${p.add(s.now)}`, ...clearLease];
        return p.statement(`UPDATE ${this.T} SET ${sets.join(', ')} WHERE ${this.owned(p, s.id, s.token)}`);
      }
      case 'return': {
        const sets: string[] = [];
        if (s.countAttempt && t.attempt !== undefined) {
          sets.push(`${ident(t.attempt.column)} = ${ident(t.attempt.column)} + 1`);
        }
        if (s.retryAfter !== undefined && t.retryAfter !== undefined) {
          sets.push(`${ident(t.retryAfter)} = ${p.add(s.retryAfter)}`);
        }
        if (s.clearLease) sets.push(...clearLease);
        const where = this.owned(p, s.id, s.token);
        if (sets.length === 0) return p.statement(`SELECT 1 AS [found] FROM ${this.T} WHERE ${where}`);
        return p.statement(`UPDATE ${this.T} SET ${sets.join(', ')} WHERE ${where}`);
      }
      case 'deadLetter': {
        if ('group' in s.target) {
          if (t.group === undefined) throw missing(t, 'group');
          const sets = [`${ident(t.group)} = ${p.add(s.target.group)}`, ...clearLease];
          return p.statement(`UPDATE ${this.T} SET ${sets.join(', ')} WHERE ${this.owned(p, s.id, s.token)}`);
        }
        const dlq = tableName(validateIdentifier(s.target.table, 'dead-letter table', t.table, true));
        return p.statement(
          `DELETE FROM ${this.T} OUTPUT deleted.* INTO ${dlq} WHERE ${this.owned(p, s.id, s.token)}`,
        );
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Insert (R-PUB-1)

  /**
   * The inserts of these messages, each answering the new ids as `sqlinbox_id`: id (when not
   * generated), payload, `attempt = 1` (when not generated), group, partition key,
   * `retry_after = notBefore`, and the extra columns; a value one message leaves out and another
   * gives is NULL. One message: `INSERT .. OUTPUT inserted.id VALUES (..)`. Several: `INSERT ..
   * SELECT .. FROM (VALUES ..) ORDER BY <position>`, whose ORDER BY fixes the order IDENTITY values
   * are assigned in (SQL Server guarantees that, not the order of `OUTPUT` rows), so the ids sorted
   * ascending are the messages' ids in order. A statement per batch of rows under the parameter
   * limit (and at most 1000 rows).
   */
  insert(messages: readonly Insert[]): Statement[] {
    const t = this.t;
    const columns = insertColumns(t, messages);
    const output = `OUTPUT inserted.${this.ID} AS [sqlinbox_id]`;
    if (columns.length === 0) {
      return messages.map(() => ({ sql: `INSERT INTO ${this.T} ${output} DEFAULT VALUES`, params: [] }));
    }
    const names = columns.map((c) => ident(c.name)).join(', ');
    const per = Math.max(1, Math.min(1000, Math.floor(MAX_PARAMS / columns.length)));
    const out: Statement[] = [];
    for (let i = 0; i < messages.length; i += per) {
      const chunk = messages.slice(i, i + per);
      const p = new Params();
      if (chunk.length === 1) {
        const values = p.list(columns.map((c) => c.value(chunk[0]!)));
        out.push(p.statement(`INSERT INTO ${this.T} (${names}) ${output} VALUES (${values})`));
        continue;
      }
      // The position is statement structure, not a value: a literal, so it costs no parameter.
      const rows = chunk.map((m, k) => `(${p.list(columns.map((c) => c.value(m)))}, ${k})`).join(', ');
      const aliases = columns.map((_, k) => `[c${k}]`);
      out.push(
        p.statement(
          `INSERT INTO ${this.T} (${names}) ${output}` +
            ` SELECT ${aliases.map((a) => `v.${a}`).join(', ')}` +
            ` FROM (VALUES ${rows}) AS v (${aliases.join(', ')}, [sqlinbox_pos]) ORDER BY v.[sqlinbox_pos]`,
        ),
      );
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Stats (R-PLUS-3)

  /**
   * Ready (due now), delayed (a future `retry_after`, not in work), in work (an unexpired lease) and
   * dead (the dead-letter group's rows, or the dead-letter table's), in one select. It reads past
   * rows being written, so a long transaction that inserted into the queue never holds it up; such
   * rows are not counted yet.
   */
  stats(now: Date): Statement {
    const t = this.t;
    const b = this.builder(now);
    const later = (column: string | undefined) =>
      column === undefined ? '(1 = 0)' : `(q.${ident(column)} IS NOT NULL AND q.${ident(column)} > ${b.now})`;
    const live: string[] = [];
    if (t.processedAt !== undefined) live.push(`q.${ident(t.processedAt)} IS NULL`);
    if (t.group !== undefined && this.deadGroup !== undefined) {
      live.push(`(q.${ident(t.group)} IS NULL OR q.${ident(t.group)} <> ${b.dead})`);
    }
    const and = (...conds: string[]) => [...live, ...conds].join(' AND ');
    const sum = (cond: string) => `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`;
    const ready = sum(this.due(b, 'q'));
    const inWork = sum(and(later(t.lease)));
    const delayed = sum(and(`NOT ${later(t.lease)}`, later(t.retryAfter)));
    let dead = '0';
    if (this.DLQ !== undefined) dead = `(SELECT COUNT(*) FROM ${this.DLQ} ${SKIP_HINTS})`;
    else if (this.deadGroup !== undefined && t.group !== undefined) {
      const unsettled = t.processedAt === undefined ? '' : ` AND q.${ident(t.processedAt)} IS NULL`;
      dead = sum(`q.${ident(t.group)} = ${b.dead}${unsettled}`);
    }
    return b.statement(
      `${SET_READ_COMMITTED}\n` +
        `SELECT ${ready} AS [ready], ${delayed} AS [delayed], ${inWork} AS [in_work], ${dead} AS [dead]` +
        ` FROM ${this.T} AS q ${SKIP_HINTS}`,
    );
  }
}

/** One column an insert writes, and its value for a message. */
interface InsertColumn {
  readonly name: string;
  readonly value: (m: Insert) => unknown;
}

/** The columns an insert writes: the union over the messages, each named once. */
function insertColumns(t: AnyTable, messages: readonly Insert[]): InsertColumn[] {
  const out: InsertColumn[] = [];
  const add = (name: string, value: (m: Insert) => unknown) => {
    if (!out.some((c) => c.name.toLowerCase() === name.toLowerCase())) out.push({ name, value });
  };
  const any = (f: (m: Insert) => unknown) => messages.some((m) => f(m) !== undefined);
  const orNull = (v: unknown) => (v === undefined ? null : v);
  if (!t.id.generated) {
    add(t.id.column, (m) => {
      const v = m.columns?.[t.id.column];
      if (v === undefined || v === null) {
        throw new EncodeError(
          t.table,
          `the id column ${t.id.column} is not generated: give its value in columns`,
        );
      }
      return v;
    });
  }
  if (t.payload !== undefined) add(t.payload.column, (m) => orNull(m.payload));
  if (t.attempt !== undefined && !t.attempt.generated) add(t.attempt.column, () => 1);
  if (any((m) => m.group)) add(roleColumn(t, t.group, 'group'), (m) => orNull(m.group));
  if (any((m) => m.partitionKey)) {
    add(roleColumn(t, t.partitionKey, 'partitionKey'), (m) => orNull(m.partitionKey));
  }
  if (any((m) => m.notBefore)) add(roleColumn(t, t.retryAfter, 'retryAfter'), (m) => orNull(m.notBefore));
  for (const m of messages) {
    for (const name of Object.keys(m.columns ?? {})) {
      // A generated id or attempt is the database's to fill, whatever a message carries.
      if (t.id.generated && name === t.id.column) continue;
      if (t.attempt?.generated && name === t.attempt.column) continue;
      add(validateIdentifier(name, 'column', t.table), (x) => orNull(x.columns?.[name]));
    }
  }
  return out;
}

/** A role's column, or a ConfigError saying the description lacks it. */
function roleColumn(t: AnyTable, column: string | undefined, role: string): string {
  if (column !== undefined) return column;
  throw missing(t, role);
}

function missing(t: AnyTable, role: string): ConfigError {
  return new ConfigError(`the description names no ${role} column`, {
    table: t.table,
    fix: `describe the ${role} column`,
  });
}

// ---------------------------------------------------------------------------------------------
// Admin (R-ADM-1, R-ADM-2, R-ADM-3)

/**
 * The admin API's T-SQL of one table. Reads pass over rows being written (`READPAST`); a change
 * picks its rows `WITH (UPDLOCK, READPAST, ROWLOCK)` inside the caller's READ COMMITTED
 * transaction, so a row a claim holds (row lock form) is left out, never waited on.
 */
export class AdminStatements {
  private readonly T: string;
  private readonly ID: string;
  private readonly DLQ: string | undefined;
  private readonly deadGroup: string | undefined;

  constructor(
    private readonly t: AnyTable,
    deadLetter: DeadLetterTarget | undefined,
  ) {
    this.T = tableName(t.table);
    this.ID = ident(t.id.column);
    this.deadGroup = deadLetter !== undefined && 'group' in deadLetter ? deadLetter.group : undefined;
    this.DLQ =
      deadLetter !== undefined && 'table' in deadLetter
        ? tableName(validateIdentifier(deadLetter.table, 'dead-letter table', t.table, true))
        : undefined;
  }

  private c(a: string, column: string): string {
    return `${a}.${ident(column)}`;
  }

  /** Unsettled and out of the dead-letter group. */
  private live(b: Builder, a: string): string[] {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.c(a, t.processedAt)} IS NULL`);
    if (t.group !== undefined && this.deadGroup !== undefined)
      parts.push(`(${this.c(a, t.group)} IS NULL OR ${this.c(a, t.group)} <> ${b.dead})`);
    return parts;
  }

  /** Due at `now`: live, `retry_after` reached, lease absent or ended. */
  private due(b: Builder, a: string): string {
    const parts = this.live(b, a);
    for (const column of [this.t.retryAfter, this.t.lease]) {
      if (column === undefined) continue;
      parts.push(`(${this.c(a, column)} IS NULL OR ${this.c(a, column)} <= ${b.now})`);
    }
    return parts.length === 0 ? '1 = 1' : parts.join(' AND ');
  }

  /** The state of row `a` as a CASE expression. */
  private state(b: Builder, a: string): string {
    const t = this.t;
    const when: string[] = [];
    if (t.group !== undefined && this.deadGroup !== undefined)
      when.push(`WHEN ${this.c(a, t.group)} = ${b.dead} THEN 'dead'`);
    if (t.processedAt !== undefined) when.push(`WHEN ${this.c(a, t.processedAt)} IS NOT NULL THEN 'done'`);
    if (t.lease !== undefined) when.push(`WHEN ${this.c(a, t.lease)} > ${b.now} THEN 'inWork'`);
    if (t.retryAfter !== undefined) when.push(`WHEN ${this.c(a, t.retryAfter)} > ${b.now} THEN 'delayed'`);
    return when.length === 0 ? `'ready'` : `CASE ${when.join(' ')} ELSE 'ready' END`;
  }

  /** Rows of one state in id order after `after`, each with `sqlinbox_state`. */
  list(q: {
    state: string;
    after?: unknown;
    limit: number;
    ids?: readonly unknown[] | undefined;
    now: Date;
  }): Statement {
    const b = new Builder(q.now, this.deadGroup);
    const top = b.add(q.limit);
    const source =
      q.state === 'dead' && this.DLQ !== undefined
        ? `SELECT r.*, N'dead' AS [sqlinbox_state] FROM ${this.DLQ} AS r ${SKIP_HINTS}`
        : `SELECT r.*, ${this.state(b, 'r')} AS [sqlinbox_state] FROM ${this.T} AS r ${SKIP_HINTS}`;
    const where: string[] = [];
    if (q.state !== 'all') where.push(`x.[sqlinbox_state] = ${b.add(q.state)}`);
    if (q.after !== undefined) where.push(`x.${this.ID} > ${b.add(q.after)}`);
    if (q.ids !== undefined) where.push(q.ids.length === 0 ? '1 = 0' : `x.${this.ID} IN (${b.list(q.ids)})`);
    return b.statement(
      `${SET_READ_COMMITTED}\n` +
        `SELECT TOP (${top}) x.* FROM (${source}) AS x${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
        ` ORDER BY x.${this.ID}`,
    );
  }

  /** The rows a change may touch, locked `WITH (UPDLOCK, READPAST, ROWLOCK)`; null when none can be. */
  pick(q: {
    dead: boolean;
    ids?: readonly unknown[] | undefined;
    group?: string | undefined;
    now: Date;
  }): Statement | null {
    const t = this.t;
    const b = new Builder(q.now, this.deadGroup);
    const where: string[] = [];
    let from = this.T;
    if (q.dead && this.DLQ !== undefined) from = this.DLQ;
    else if (q.dead) {
      if (t.group === undefined || this.deadGroup === undefined) return null;
      where.push(`${this.c('r', t.group)} = ${q.group === undefined ? b.dead : b.add(q.group)}`);
      if (t.processedAt !== undefined) where.push(`${this.c('r', t.processedAt)} IS NULL`);
    } else {
      where.push(...this.live(b, 'r'));
      if (t.lease !== undefined)
        where.push(`(${this.c('r', t.lease)} IS NULL OR ${this.c('r', t.lease)} <= ${b.now})`);
    }
    if (q.group !== undefined && !(q.dead && this.DLQ === undefined)) {
      if (t.group === undefined) return null;
      where.push(`${this.c('r', t.group)} = ${b.add(q.group)}`);
    }
    if (q.ids !== undefined) where.push(q.ids.length === 0 ? '1 = 0' : `r.${this.ID} IN (${b.list(q.ids)})`);
    return b.statement(
      `SELECT r.* FROM ${from} AS r ${CLAIM_HINTS}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY r.${this.ID}`,
    );
  }

  /**
   * Dead rows back in the queue with the attempt reset (1), `retry_after` and the lease cleared:
   * a group's rows get `toGroup`; a dead-letter table's rows are copied back (the columns the
   * description names, under `IDENTITY_INSERT` where the id is generated), deleted from it and
   * reset, in the caller's transaction.
   */
  requeue(ids: readonly unknown[], toGroup: string | null): Statement[] {
    const t = this.t;
    const out: Statement[] = [];
    const inList = (p: Params) => `${this.ID} IN (${p.list(ids)})`;
    if (this.DLQ !== undefined) {
      const names = namedColumns(t)
        .map((c) => ident(c.column))
        .filter((n, i, all) => all.indexOf(n) === i)
        .join(', ');
      const p = new Params();
      const copy = `INSERT INTO ${this.T} (${names}) SELECT ${names} FROM ${this.DLQ} WHERE ${inList(p)};`;
      out.push(
        p.statement(
          t.id.generated
            ? `SET IDENTITY_INSERT ${this.T} ON;\n${copy}\nSET IDENTITY_INSERT ${this.T} OFF;`
            : copy,
        ),
      );
      const d = new Params();
      out.push(d.statement(`DELETE FROM ${this.DLQ} WHERE ${inList(d)}`));
    } else if (t.group === undefined) return [];
    const p = new Params();
    const set: string[] = [];
    if (t.attempt !== undefined) set.push(`${ident(t.attempt.column)} = 1`);
    if (t.retryAfter !== undefined) set.push(`${ident(t.retryAfter)} = NULL`);
    if (t.lease !== undefined) set.push(`${ident(t.lease)} = NULL`);
    if (t.group !== undefined && (this.DLQ === undefined || toGroup !== null))
      set.push(`${ident(t.group)} = ${p.add(toGroup)}`);
    if (set.length > 0) out.push(p.statement(`UPDATE ${this.T} SET ${set.join(', ')} WHERE ${inList(p)}`));
    return out;
  }

  /** Deletes rows by id (dead ones from the dead-letter table where there is one). */
  remove(ids: readonly unknown[], dead: boolean): Statement {
    const p = new Params();
    const from = dead && this.DLQ !== undefined ? this.DLQ : this.T;
    return p.statement(`DELETE FROM ${from} WHERE ${this.ID} IN (${p.list(ids)})`);
  }

  /** `retry_after = at` by id. */
  reschedule(ids: readonly unknown[], at: Date): Statement | null {
    const ra = this.t.retryAfter;
    if (ra === undefined) return null;
    const p = new Params();
    const value = p.add(at);
    return p.statement(`UPDATE ${this.T} SET ${ident(ra)} = ${value} WHERE ${this.ID} IN (${p.list(ids)})`);
  }

  /**
   * Rows in work and the oldest ready `retry_after`, in one select: in the row lock form the due
   * rows minus those an `UPDLOCK, READPAST` read can lock (run it in a transaction and roll back);
   * in the advisory form the due rows whose key `APPLOCK_TEST` says another session holds.
   */
  inWork(now: Date): Statement {
    const t = this.t;
    const b = new Builder(now, this.deadGroup);
    const oldest =
      t.retryAfter === undefined
        ? 'NULL'
        : `MIN(CASE WHEN ${this.due(b, 'q')} THEN ${this.c('q', t.retryAfter)} END)`;
    let busy = '0';
    if (t.form === 'rowlock') {
      busy =
        `COALESCE(SUM(CASE WHEN ${this.due(b, 'q')} THEN 1 ELSE 0 END), 0)` +
        ` - (SELECT COUNT(*) FROM ${this.T} AS f ${CLAIM_HINTS} WHERE ${this.due(b, 'f')})`;
    } else if (t.form === 'advisory' && t.lock === undefined) {
      const parts = (t.key ?? []).map((part) =>
        'literal' in part ? b.add(part.literal) : `CAST(${this.c('q', part.column)} AS NVARCHAR(MAX))`,
      );
      const key = `CONCAT(N'', ${parts.join(', ')})`;
      busy =
        `COALESCE(SUM(CASE WHEN ${this.due(b, 'q')} AND` +
        ` APPLOCK_TEST(${PRINCIPAL}, ${resourceSql(key)}, 'Exclusive', 'Session') = 0 THEN 1 ELSE 0 END), 0)`;
    }
    return b.statement(
      `${SET_READ_COMMITTED}\nSELECT ${busy} AS [busy], ${oldest} AS [oldest] FROM ${this.T} AS q ${SKIP_HINTS}`,
    );
  }
}
