import { createHash } from 'node:crypto';
import {
  type DeleteParts,
  type InsertParts,
  type Params,
  QueueStatements,
  type SelectParts,
  type Statement,
  savepointName,
  setIsolation,
  type TransactionSql,
  tableColumns,
  type UpdateParts,
} from '@sqlinbox/sql';

/** A claim's table hints: update locks on the rows it takes, rows others hold skipped, never waited on. */
export const CLAIM_HINTS = ' WITH (UPDLOCK, READPAST, ROWLOCK)';

/**
 * T-SQL's transactions. `begin` sets the level (READ COMMITTED by default: a pooled session keeps
 * its last one) in the batch that begins (`sp_executesql` would undo the `SET`). A deadlock victim's
 * transaction is gone: a plain ROLLBACK would fail (3903). Savepoints: bare names of 32 at most.
 */
export const MSSQL_TRANSACTIONS: TransactionSql = {
  begin: (o) => [`${setIsolation(o.isolation)}; BEGIN TRANSACTION`],
  commit: 'COMMIT TRANSACTION',
  rollback: 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION',
  savepoint: (name) => `SAVE TRANSACTION ${savepointName(name, 32)}`,
  rollbackToSavepoint: (name) => `ROLLBACK TRANSACTION ${savepointName(name, 32)}`,
};

/** `sp_getapplock` truncates a name past 255 characters: a longer key is locked under its SHA-256. */
export const RESOURCE_MAX = 255;

/** The application lock name of a key: itself, or the upper-case hex SHA-256 of its UTF-16LE bytes. */
export function resourceName(key: string): string {
  if (key.length <= RESOURCE_MAX) return key;
  return createHash('sha256').update(key, 'utf16le').digest('hex').toUpperCase();
}

/**
 * SQL Server's statements in T-SQL: values `@pN`, `SELECT TOP` for `LIMIT`, table hints for `FOR
 * UPDATE SKIP LOCKED`, `OUTPUT` for `RETURNING`; instants `DATETIME2(3)` in UTC (as tedious binds a
 * Date); application locks (`sp_getapplock`) the advisory keys and the FIFO guard.
 */
export class MssqlStatements extends QueueStatements {
  /** SQL Server takes 2100 parameters a request. */
  override readonly maxParams = 2000;
  override readonly clock = 'SYSUTCDATETIME()';
  override readonly always = '1 = 1';
  override readonly textType = 'NVARCHAR(MAX)';
  override readonly emptyText = "N''";
  override readonly missingValue = 'NULL';
  override readonly transactions = MSSQL_TRANSACTIONS;
  override readonly inTransactionSql = 'SELECT @@TRANCOUNT AS [n]';
  /** Schedules: the tick table's column types, and `CREATE TABLE` as the queue table's. */
  override readonly tickNameType = 'NVARCHAR(255)';
  override readonly tickTimeType = 'DATETIME2(3)';
  override readonly createTableSql = 'CREATE TABLE';
  /** A plain read passes over rows being written (`READCOMMITTEDLOCK`: `READPAST` needs a locking read). */
  override readonly scanHints = ' WITH (READCOMMITTEDLOCK, READPAST)';
  /** `READPAST` is refused at READ UNCOMMITTED and SERIALIZABLE (650); a pooled session keeps its level. */
  override readonly plainReadPrefix = `${setIsolation()};`;
  /**
   * Rate limits: the clock in epoch ms. Read a moment apart across a window's edge, a reservation's
   * later reads only move the window (keeping the old count): a grant too few, never one too many.
   */
  override readonly nowMs = "DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())";
  /** Written unless the key is there ({@link absent}). */
  override insertNew(table: string, columns: readonly string[], values: readonly string[]): string {
    const same = columns.map((c) => `x.${c} = v.${c}`).join(' AND ');
    return `INSERT INTO ${table} (${columns.join(', ')}) SELECT v.* FROM (VALUES (${values.join(', ')})) AS v (${columns.join(', ')}) WHERE ${this.absent(`${table} AS x`, same)}`;
  }
  /** No row of `table` meets `cond`, read `WITH (UPDLOCK, HOLDLOCK)` so two writers of one key queue on its range. */
  absent(table: string, cond: string): string {
    return `NOT EXISTS (SELECT 1 FROM ${table} WITH (UPDLOCK, HOLDLOCK) WHERE ${cond})`;
  }
  override placeholder(index: number): string {
    return `@p${index}`;
  }
  override ident(name: string): string {
    return `[${name.replaceAll(']', ']]')}]`;
  }
  override distinct(a: string, b: string): string {
    return `(${a} IS NULL OR ${a} <> ${b})`;
  }
  override text(p: Params, value: string): string {
    return p.bind(value);
  }
  /** Keys compare as binary strings, as lock names do. */
  override concat(parts: readonly string[]): string {
    return `(${parts.join(' + ')}) COLLATE Latin1_General_BIN2`;
  }

  /** `SELECT TOP (@n)`, the claim's hints after the table. */
  override select(p: Params, s: SelectParts): string {
    const top = s.limit === undefined ? '' : `TOP (${p.bind(s.limit)}) `;
    const table = s.lock === true ? s.table + CLAIM_HINTS : s.table;
    return super.select(p, { ...s, columns: top + s.columns, table, limit: undefined, lock: false });
  }
  override update(u: UpdateParts): string {
    const out = u.returning === undefined ? '' : ` OUTPUT inserted.${u.returning}`;
    return `UPDATE ${u.alias} SET ${u.set.join(', ')}${out} FROM ${u.table} AS ${u.alias} WHERE ${u.where}`;
  }
  override delete(d: DeleteParts): string {
    const out = d.returning === undefined ? '' : ` OUTPUT deleted.${d.returning}`;
    return `DELETE FROM ${d.table}${out} WHERE ${d.where}`;
  }

  /** Each row with its position, which orders the insert ({@link insertSql}). */
  override insertRow(values: readonly string[], index: number): string {
    return `(${values.join(', ')}, ${index})`;
  }

  /**
   * `INSERT .. SELECT .. FROM (VALUES ..) ORDER BY position`: IDENTITY values follow that order (not
   * `OUTPUT`'s), so the ids sorted are the messages'. A keyed row needs its key free ({@link absent}).
   */
  override insertSql(i: InsertParts): string {
    const out = ` OUTPUT inserted.${this.id}`;
    if (i.columns.length === 0) return `INSERT INTO ${i.table}${out} DEFAULT VALUES`;
    const columns = i.columns.join(', ');
    const key = i.conflictKey === undefined ? undefined : this.ident(i.conflictKey);
    const free =
      key === undefined ? '' : ` WHERE ${this.absent(i.table, `${key} = v.${key}${this.unsettled()}`)}`;
    return (
      `INSERT INTO ${i.table} (${columns})${out} SELECT ${i.columns.map((c) => `v.${c}`).join(', ')}` +
      ` FROM (VALUES ${i.rows.join(', ')}) AS v (${columns}, [sqlinbox_pos])${free} ORDER BY v.[sqlinbox_pos]`
    );
  }

  /**
   * Inside the delivery's transaction the select runs at READ COMMITTED, the declared level set back
   * after it: at REPEATABLE READ it would keep every row it read, elsewhere `READPAST` is refused.
   */
  override claimLocked(n: number, now: Date | null): Statement {
    const st = super.claimLocked(n, now);
    const level = this.t.isolation ?? 'read_committed';
    if (level === 'read_committed') return st;
    return { sql: `${this.plainRead(st).sql};\n${setIsolation(level)}`, params: st.params };
  }

  /** One statement: an updatable CTE over the locking select, updated, `OUTPUT inserted.*`. */
  override claimLease(n: number, now: Date, expiry: Date): Statement {
    const p = this.params();
    const pick = this.claimSelect(p, n, now, 'q.*');
    const update = `UPDATE sqlinbox_claim SET ${this.leaseSets(p, expiry).join(', ')} OUTPUT inserted.*`;
    return this.plainRead(p.statement(`WITH sqlinbox_claim AS (${pick})\n${update}`));
  }

  /**
   * Per-key concurrency: the claim's turn is an application lock on the table's turn name owned by
   * the claim's transaction (its commit releases it), waited for up to 10 s; `ok` 0 when not granted.
   */
  override claimTurn(): Statement {
    return this.applock(this.turnName, 'Transaction', 10_000);
  }

  /**
   * `APPLOCK_TEST` of a key (an `nvarchar` expression) under its lock name is 1: no other session
   * holds it. It needs only `public` (`sys.dm_tran_locks` shows 32 characters of a name).
   */
  override freeKey(key: string): string {
    const name =
      `CASE WHEN DATALENGTH(${key}) / 2 > ${RESOURCE_MAX}` +
      ` THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', ${key}), 2) ELSE ${key} END`;
    return `APPLOCK_TEST(N'public', ${name}, 'Exclusive', 'Session') = 1`;
  }

  /**
   * An application lock call on `key`'s lock name, `ok` 1 where its return code `@r` >= 0:
   * `sp_getapplock` (Exclusive) waiting up to `wait` ms, or with `release`, `sp_releaseapplock` of
   * a lock the session holds (it raises error 1223 for one not held).
   */
  applock(key: string, owner: 'Session' | 'Transaction', wait: number | 'release' = 0): Statement {
    const p = this.params();
    const name = p.bind(resourceName(key));
    const owned = `@Resource = ${name}, @LockOwner = '${owner}', @DbPrincipal = N'public'`;
    const call =
      wait === 'release'
        ? `IF APPLOCK_MODE(N'public', ${name}, '${owner}') <> 'NoLock'\n  EXEC @r = sp_releaseapplock ${owned}`
        : `EXEC @r = sp_getapplock ${owned}, @LockMode = 'Exclusive', @LockTimeout = ${wait}`;
    return p.statement(`DECLARE @r INT = -1;\n${call};\nSELECT CASE WHEN @r >= 0 THEN 1 ELSE 0 END AS [ok]`);
  }

  /** Owned by the session: it outlives transactions, and the server drops it with the session. */
  override lock(key: string): Statement {
    return this.applock(key, 'Session');
  }

  /** Releases only a lock the session holds. */
  override unlock(key: string): Statement {
    return this.applock(key, 'Session', 'release');
  }

  /** The FIFO guard of a group: owned by the claim's transaction, so its end releases it. */
  override headGuard(_id: unknown, group: unknown): Statement {
    return this.applock(`${this.t.table}/${String(group)}`, 'Transaction');
  }

  /** One statement, in a transaction or not: `DELETE .. OUTPUT deleted.* INTO` the dead-letter table. */
  override deleteInto(where: string, dead: string): string {
    return `DELETE FROM ${this.table} OUTPUT deleted.* INTO ${dead} WHERE ${where}`;
  }

  /** The named columns back, a generated id under `IDENTITY_INSERT`. */
  override copyBack(ids: readonly unknown[]): Statement {
    const p = this.params();
    const dead = this.tableName(this.role(this.deadTable, 'dead-letter table'));
    const idents = tableColumns(this.t, (n) => n.toLowerCase()).map((c) => this.ident(c.name));
    const names = idents.join(', ');
    const copy = `INSERT INTO ${this.table} (${names}) SELECT ${names} FROM ${dead} WHERE ${this.inList(p, this.id, ids)};`;
    const on = (v: 'ON' | 'OFF') => `SET IDENTITY_INSERT ${this.table} ${v};`;
    return p.statement(this.t.id.generated ? `${on('ON')}\n${copy}\n${on('OFF')}` : copy);
  }
}
