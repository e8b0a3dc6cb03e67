import { createHash } from 'node:crypto';
import type { AnyTable, Form, PrepareOptions } from '@sqlinbox/core';
import * as b from '@sqlinbox/sql';

/** T-SQL's transactions. `begin` sets the level (READ COMMITTED by default: a pooled session keeps its last one) in
 * the batch that begins (`sp_executesql` would undo the `SET`). A deadlock victim's transaction is gone: a plain
 * ROLLBACK would fail (3903). Savepoints: bare names of 32 at most. */
export const MSSQL_TRANSACTIONS: b.TransactionSql = {
  begin: (o) => [`${b.setIsolation(o.isolation)}; BEGIN TRANSACTION`],
  commit: 'COMMIT TRANSACTION',
  rollback: 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION',
  savepoint: (name) => `SAVE TRANSACTION ${b.savepointName(name, 32)}`,
  rollbackToSavepoint: (name) => `ROLLBACK TRANSACTION ${b.savepointName(name, 32)}`,
};

/** `sp_getapplock` truncates a name past 255 characters: a longer key is locked under its SHA-256. */
export const RESOURCE_MAX = 255;

/** The application lock name of a key: itself, or the upper-case hex SHA-256 of its UTF-16LE bytes. */
export function resourceName(key: string): string {
  if (key.length <= RESOURCE_MAX) return key;
  return createHash('sha256').update(key, 'utf16le').digest('hex').toUpperCase();
}

/** T-SQL: values `@pN`, `SELECT TOP` for `LIMIT`, table hints for `FOR UPDATE SKIP LOCKED`, `OUTPUT` for `RETURNING`;
 * instants `DATETIME2(3)` in UTC (as tedious binds a Date); application locks (`sp_getapplock`) for the advisory
 * keys, the FIFO guard and the claim's turn. */
export class MssqlSyntax extends b.SqlSyntax {
  /** SQL Server takes 2100 parameters a request. */
  override readonly maxParams = 2000;
  override readonly clock = 'SYSUTCDATETIME()';
  override readonly always = '1 = 1';
  override readonly textType = 'NVARCHAR(MAX)';
  override readonly emptyText = "N''";
  override readonly missingValue = 'NULL';
  override readonly transactions = MSSQL_TRANSACTIONS;
  override readonly inTransactionSql = 'SELECT @@TRANCOUNT AS [n]';
  /** The tick table's types; the control table's queue: a table name is at most 128 characters, and its key (queue,
   * kind, target) within a clustered key's 900 bytes, as the steps table's. */
  override readonly tickNameType = 'NVARCHAR(255)';
  override readonly tickTimeType = 'DATETIME2(3)';
  override readonly controlQueueType = 'NVARCHAR(128)';
  override readonly deleteTop = true;
  /** T-SQL has no `IF NOT EXISTS` on `CREATE`: the table, the index, where the catalog has none. */
  override createTableOpen(table: string): string {
    return `IF OBJECT_ID(N'${this.tableName(table)}', N'U') IS NULL\nCREATE TABLE ${this.tableName(table)}`;
  }
  override createIndexOpen(name: string, on: string, unique = false): string {
    return `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'${name}' AND object_id = OBJECT_ID(N'${on}'))\nCREATE ${unique ? 'UNIQUE ' : ''}INDEX ${this.ident(name)} ON ${on}`;
  }
  override readonly addColumnSql = 'ADD';
  /** A plain read passes over rows being written (`READCOMMITTEDLOCK`: `READPAST` needs a locking read). */
  override readonly scanHints = ' WITH (READCOMMITTEDLOCK, READPAST)';
  /** `READPAST` is refused at READ UNCOMMITTED and SERIALIZABLE (650); a pooled session keeps its level. */
  override readonly plainReadPrefix = `${b.setIsolation()};`;
  /** Rate limits: the clock in epoch ms. Read a moment apart across a window's edge, a reservation's later reads
   * only move the window (keeping the old count): a grant too few, never one too many. */
  override readonly nowMs = "DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())";
  /** Written unless the key is there ({@link absent}). */
  override insertNew(table: string, cols: readonly string[], vals: readonly string[], keys?: number): string {
    const same = cols.slice(0, keys).map((c) => `x.${c} = v.${c}`);
    return `INSERT INTO ${table} (${cols.join(', ')}) SELECT v.* FROM (VALUES (${vals.join(', ')})) AS v (${cols.join(', ')}) WHERE ${this.absent(`${table} AS x`, same.join(' AND '))}`;
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
  override distinct(a: string, c: string): string {
    return `(${a} IS NULL OR ${a} <> ${c})`;
  }
  override text(p: b.Params, value: string): string {
    return p.bind(value);
  }
  /** Differs: one JSON parameter (`OPENJSON`), as 2,100 parameters a request cannot hold a relay's held-back ids. */
  override notAmong(p: b.Params, expr: string, values: readonly unknown[]): string {
    return `${expr} NOT IN (SELECT [value] FROM OPENJSON(${p.bind(b.jsonList(values, true))}))`;
  }
  /** Keys compare as binary strings, as lock names do. */
  override concat(parts: readonly string[]): string {
    return `(${parts.join(' + ')}) COLLATE Latin1_General_BIN2`;
  }
  /** `SELECT TOP (@n)`; a claim's hints: update locks on its rows, rows others hold skipped, never waited on. */
  override select(p: b.Params, s: b.SelectParts): string {
    const top = s.limit === undefined ? '' : `TOP (${p.bind(s.limit)}) `;
    const table = s.lock === true ? `${s.table} WITH (UPDLOCK, READPAST, ROWLOCK)` : s.table;
    return super.select(p, { ...s, columns: top + s.columns, table, limit: undefined, lock: false });
  }
  override update(u: b.UpdateParts): string {
    const out = u.returning === undefined ? '' : ` OUTPUT inserted.${u.returning}`;
    return `UPDATE ${u.alias} SET ${u.set.join(', ')}${out} FROM ${u.table} AS ${u.alias} WHERE ${u.where}`;
  }
  override delete(d: b.DeleteParts): string {
    const out = d.returning === undefined ? '' : ` OUTPUT deleted.${d.returning}`;
    return `DELETE FROM ${d.table}${out} WHERE ${d.where}`;
  }
  /** An application lock call on `key`'s lock name, `ok` 1 where its return code `@r` >= 0: `sp_getapplock` (Exclusive)
   * waiting up to `wait` ms, or with `release`, `sp_releaseapplock` of a lock the session holds (else error 1223). */
  applock(key: string, owner: 'Session' | 'Transaction', wait: number | 'release' = 0): b.Statement {
    const p = this.params();
    const name = p.bind(resourceName(key));
    const owned = `@Resource = ${name}, @LockOwner = '${owner}', @DbPrincipal = N'public'`;
    const call =
      wait === 'release'
        ? `IF APPLOCK_MODE(N'public', ${name}, '${owner}') <> 'NoLock'\n  EXEC @r = sp_releaseapplock ${owned}`
        : `EXEC @r = sp_getapplock ${owned}, @LockMode = 'Exclusive', @LockTimeout = ${wait}`;
    return p.statement(`DECLARE @r INT = -1;\n${call};\nSELECT CASE WHEN @r >= 0 THEN 1 ELSE 0 END AS [ok]`);
  }
}

/** A queue table read through T-SQL. */
export type Q = b.QueueSql<MssqlSyntax>;
class MssqlRowLock extends b.RowLockStatements<Q> {
  /** Differs at another declared level: the select runs at READ COMMITTED, the level set back after it (at
   * REPEATABLE READ it would keep every row it read; elsewhere `READPAST` is refused). */
  override claim(n: number, now: Date | null): b.Statement {
    const st = super.claim(n, now);
    const level = this.t.isolation ?? 'read_committed';
    if (level === 'read_committed') return st;
    return { sql: `${this.s.plainRead(st).sql};\n${b.setIsolation(level)}`, params: st.params };
  }
}

class MssqlLease extends b.LeaseStatements<Q> {
  /** Differs from the builder's: an updatable CTE over the locking select (`UPDATE .. WHERE id IN` reads the table twice), `OUTPUT inserted.*`. */
  override claim(n: number, now: Date, expiry: Date): b.Statement {
    const p = this.q.params();
    const pick = this.q.claimSelect(p, n, now, 'q.*');
    const update = `UPDATE sqlinbox_claim SET ${this.q.leaseSets(p, expiry).join(', ')} OUTPUT inserted.*`;
    return this.s.plainRead(p.statement(`WITH sqlinbox_claim AS (${pick})\n${update}`));
  }
}

class MssqlConcurrency extends b.ConcurrencyStatements<Q> {
  override readonly forms: readonly Form[] = ['lease'];
  /** The turn: an application lock owned by the claim's transaction (its commit releases it), waited for up to 10 s. */
  override turn(): b.Statement {
    return this.s.applock(this.turnName, 'Transaction', 10_000);
  }
}

class MssqlFifo extends b.FifoStatements<Q> {
  /** The FIFO guard of a group: an application lock owned by the claim's transaction, so its end releases it. */
  override headGuard(_id: unknown, group: unknown): b.Statement {
    return this.s.applock(`${this.t.table}/${String(group)}`, 'Transaction');
  }
}

class MssqlAdvisory extends b.AdvisoryStatements<Q> {
  /**
   * `APPLOCK_TEST` of a key (an `nvarchar` expression) under its lock name is 1: no other session holds it.
   * It needs only `public` (`sys.dm_tran_locks` shows 32 characters of a name).
   */
  override freeKey(key: string): string {
    const name =
      `CASE WHEN DATALENGTH(${key}) / 2 > ${RESOURCE_MAX}` +
      ` THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', ${key}), 2) ELSE ${key} END`;
    return `APPLOCK_TEST(N'public', ${name}, 'Exclusive', 'Session') = 1`;
  }
  /** Owned by the session: it outlives transactions, and the server drops it with the session. */
  override lock(key: string): b.Statement {
    return this.s.applock(key, 'Session');
  }
  /** Releases only a lock the session holds. */
  override unlock(key: string): b.Statement {
    return this.s.applock(key, 'Session', 'release');
  }
}

class MssqlSettle extends b.SettleStatements<Q> {
  /** One statement, in a transaction or not: `DELETE .. OUTPUT deleted.* INTO` the dead-letter table. */
  override deleteInto(where: string, dead: string): string {
    return `DELETE FROM ${this.q.table} OUTPUT deleted.* INTO ${dead} WHERE ${where}`;
  }
}

class MssqlPublish extends b.PublishStatements<Q> {
  /** Each row with its position, which orders the insert ({@link insertSql}). */
  override insertRow(values: readonly string[], index: number): string {
    return `(${values.join(', ')}, ${index})`;
  }
  /**
   * Differs: `INSERT .. SELECT .. FROM (VALUES ..) ORDER BY position`, as IDENTITY values follow it (not
   * `OUTPUT`'s); no `ON CONFLICT`: a keyed row needs its key free ({@link MssqlSyntax.absent}).
   */
  override insertSql(i: b.InsertParts): string {
    const out = ` OUTPUT inserted.${this.q.id}`;
    // Replacing: the builder's `MERGE`, under `HOLDLOCK` so racing publishers take the key in turn.
    if (i.replace !== undefined) return `${this.merge(i, ' WITH (HOLDLOCK)', ['[sqlinbox_pos]'], out)};`;
    if (i.columns.length === 0) return `INSERT INTO ${i.table}${out} DEFAULT VALUES`;
    const columns = i.columns.join(', ');
    const key = i.conflictKey === undefined ? undefined : this.q.ident(i.conflictKey);
    const free =
      key === undefined ? '' : ` WHERE ${this.s.absent(i.table, `${key} = v.${key}${this.q.unsettled()}`)}`;
    return (
      `INSERT INTO ${i.table} (${columns})${out} SELECT ${i.columns.map((c) => `v.${c}`).join(', ')}` +
      ` FROM (VALUES ${i.rows.join(', ')}) AS v (${columns}, [sqlinbox_pos])${free} ORDER BY v.[sqlinbox_pos]`
    );
  }
}

class MssqlAdmin extends b.AdminStatements<Q> {
  /** Differs from the builder's: the named columns back (no `SELECT *` into IDENTITY), a generated id under `IDENTITY_INSERT`. */
  override copyBack(ids: readonly unknown[]): b.Statement {
    const { q, s } = this;
    const p = q.params();
    const dead = s.tableName(q.role(q.deadTable, 'dead-letter table'));
    const columns = b.tableColumns(this.t, (n) => n.toLowerCase());
    const names = columns.map((c) => q.ident(c.name)).join(', ');
    const copy = `INSERT INTO ${q.table} (${names}) SELECT ${names} FROM ${dead} WHERE ${s.inList(p, q.id, ids)};`;
    const on = (v: 'ON' | 'OFF') => `SET IDENTITY_INSERT ${q.table} ${v};`;
    return p.statement(this.t.id.generated ? `${on('ON')}\n${copy}\n${on('OFF')}` : copy);
  }
}

/** SQL Server's tables: id `BIGINT IDENTITY` (clustered: claims read in id order), times `DATETIME2(3)` in UTC so a
 * lease token round-trips to the millisecond (`DATETIME` rounds to 1/300 s), text `NVARCHAR`; the claim's index
 * carries the due columns. A dead-letter table takes the same columns in the same order (`OUTPUT deleted.* INTO`). */
export class MssqlDdl extends b.QueueDdl<Q> {
  override type(role: b.ColumnRole): string {
    const [max, name, time] = ['NVARCHAR(MAX)', 'NVARCHAR(255) NULL', 'DATETIME2(3) NULL'];
    const types = { generatedId: 'BIGINT IDENTITY(1,1)', id: 'BIGINT', json: max, text: max, integer: 'INT' };
    return { ...types, bytes: 'VARBINARY(MAX)', time, name }[role];
  }
  override index(i: b.IndexParts): string {
    const t = this.s.t;
    const due = [t.lease, t.retryAfter].filter((c) => c !== undefined).map((c) => this.s.ident(c));
    const include = i.name === 'claim' && due.length > 0 ? ` INCLUDE (${due.join(', ')})` : '';
    return `${this.s.s.createIndexOpen(this.indexName(i.name), this.s.table, i.unique)} (${i.columns.join(', ')})${include}${i.where}`;
  }
  /** `sqlinbox_<name>`: SQL Server names an index within its table. */
  override indexName(name: b.IndexParts['name']): string {
    return `sqlinbox_${name}`;
  }
}

/** SQL Server's syntax, shared by every table. */
export const mssqlSyntax: MssqlSyntax = new MssqlSyntax();

/** SQL Server's statements: the builder's over {@link MssqlSyntax}, and the features T-SQL writes its own way. */
export class MssqlStatements extends b.QueueStatements<Q> {
  constructor(t: AnyTable, opts?: PrepareOptions) {
    const [rowLock, lease, concurrency, fifo] = [MssqlRowLock, MssqlLease, MssqlConcurrency, MssqlFifo];
    const features = { rowLock, lease, concurrency, fifo, advisory: MssqlAdvisory, settle: MssqlSettle };
    super(new b.QueueSql(mssqlSyntax, t, opts), { ...features, publish: MssqlPublish, admin: MssqlAdmin });
  }
}
