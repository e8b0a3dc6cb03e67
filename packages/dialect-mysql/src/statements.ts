/**
 * The SQL of one queue table on MySQL 8.0.1+ and MariaDB 10.6+, one method per statement kind,
 * named as in the other dialects and in core's `TableOps` (`claimLocked`, `claimLease`, `fifoGuard`,
 * `extendLeases`, `moveToDeadLetter`, `insert`, `stats`, the advisory `candidates`, `lock`,
 * `unlock`, `take`). A method that runs several statements names each after it: `claimLeaseUpdate`,
 * `settleFinish`, `settleReturn`, `settleDeadLetterGroup`, `settleManyHeld`. Identifiers
 * are quoted once, when the table's statements are built; every value is a bound parameter.
 *
 * Time: every instant is bound as `DATETIME(3)` text in UTC, and "now" on the database clock is
 * `UTC_TIMESTAMP(3)`, so no statement depends on the session's `time_zone`.
 */
import { createHash } from 'node:crypto';
import type { AnyTable, DeadLetterTarget, Insert } from '@sqlinbox/core';
import { EncodeError } from '@sqlinbox/core';
import { placeholders, quoteIdent, quoteTable, type Stmt, schemaOf, utc } from './sql.js';

/** The longest name `GET_LOCK` takes; a longer one is locked by its SHA-256 (64 hex characters). */
export const LOCK_NAME_MAX = 64;

/** A fragment of SQL with the values of its placeholders. */
interface Frag {
  sql: string;
  params: unknown[];
}

/** How a claim-type select restricts rows. */
interface DueOptions {
  /** Lease form: leave out rows whose lease has not ended at `now`. */
  readonly lease: boolean;
  /** FIFO: only the head of each group. */
  readonly head: boolean;
}

/**
 * The lock name of a key, in SQL (R-ADV-4): the table's database in lower case, a dot and the key
 * (as utf8mb4 text);
 * a name over 64 characters is replaced by its SHA-256 in hex (`SHA2(name, 256)`, 64 characters).
 */
function lockNameSql(db: Frag, key: Frag): Frag {
  // DATABASE() is utf8mb3: every part is converted to utf8mb4, so a key with a character outside
  // the BMP (an emoji) makes a name instead of an "Illegal mix of collations".
  const n = `CONCAT(CONVERT(LOWER(${db.sql}) USING utf8mb4), _utf8mb4'.', CONVERT(${key.sql} USING utf8mb4))`;
  const p = [...db.params, ...key.params];
  return {
    sql: `IF(CHAR_LENGTH(${n}) > ${LOCK_NAME_MAX}, SHA2(${n}, 256), ${n})`,
    params: [...p, ...p, ...p],
  };
}

/** The statements of one table, for one dead-letter target. */
export class TableStatements {
  /** The quoted table. */
  readonly T: string;
  readonly ID: string;
  readonly ATT: string | undefined;
  readonly LEASE: string | undefined;
  readonly RA: string | undefined;
  readonly PA: string | undefined;
  readonly GRP: string | undefined;
  readonly PK: string | undefined;
  /** The quoted dead-letter table, when the target is a table. */
  readonly DLQ: string | undefined;
  /** The dead-letter group, when the target is a group. */
  readonly deadGroup: string | undefined;
  /** SQL naming the table's database: a bound schema, or `DATABASE()`. */
  private readonly db: Frag;

  constructor(
    readonly t: AnyTable,
    deadLetter: DeadLetterTarget | undefined,
    /** Ids claims pass over (a relay's held-back records, R-OUT-1), read at each statement. */
    private readonly exclude?: ReadonlySet<unknown> | undefined,
  ) {
    const q = (c: string | undefined) => (c === undefined ? undefined : quoteIdent(c));
    this.T = quoteTable(t.table);
    this.ID = quoteIdent(t.id.column);
    this.ATT = q(t.attempt?.column);
    this.LEASE = t.form === 'lease' ? q(t.lease) : undefined;
    this.RA = q(t.retryAfter);
    this.PA = q(t.processedAt);
    this.GRP = q(t.group);
    this.PK = q(t.partitionKey);
    if (deadLetter !== undefined && 'table' in deadLetter) {
      // Validated where the queue (or the stats call) was built: here it is only quoted.
      this.DLQ = quoteTable(deadLetter.table);
    } else {
      this.DLQ = undefined;
    }
    this.deadGroup = deadLetter !== undefined && 'group' in deadLetter ? deadLetter.group : undefined;
    const schema = schemaOf(t.table);
    this.db = schema === undefined ? { sql: 'DATABASE()', params: [] } : { sql: '?', params: [schema] };
  }

  /** `now` as SQL: a bound UTC instant, or the database clock. */
  private now(now: Date | null): Frag {
    return now === null ? { sql: 'UTC_TIMESTAMP(3)', params: [] } : { sql: '?', params: [utc(now)] };
  }

  /**
   * The due condition on alias `a` (see the dialect contract): not processed, `retry_after`
   * reached, lease ended (lease form), not in the dead-letter group, (FIFO) the group's head, and
   * not an excluded id.
   */
  private due(a: string, now: Date | null, o: DueOptions): Frag {
    const parts: string[] = [];
    const params: unknown[] = [];
    const n = this.now(now);
    if (this.PA) parts.push(`${a}.${this.PA} IS NULL`);
    if (this.RA) {
      parts.push(`(${a}.${this.RA} IS NULL OR ${a}.${this.RA} <= ${n.sql})`);
      params.push(...n.params);
    }
    if (o.lease && this.LEASE) {
      parts.push(`(${a}.${this.LEASE} IS NULL OR ${a}.${this.LEASE} <= ${n.sql})`);
      params.push(...n.params);
    }
    if (this.GRP && this.deadGroup !== undefined) {
      parts.push(`NOT (${a}.${this.GRP} <=> ?)`);
      params.push(this.deadGroup);
    }
    if (o.head && this.GRP) {
      // The head: no unsettled row of the group before it (R-FIFO-1). A NULL group is no group.
      parts.push(
        `(${a}.${this.GRP} IS NULL OR NOT EXISTS (SELECT 1 FROM ${this.T} AS h WHERE h.${this.GRP} = ${a}.${this.GRP}` +
          ` AND h.${this.ID} < ${a}.${this.ID}${this.PA ? ` AND h.${this.PA} IS NULL` : ''}))`,
      );
    }
    if (this.exclude !== undefined && this.exclude.size > 0) {
      parts.push(`${a}.${this.ID} NOT IN (${placeholders(this.exclude.size)})`);
      params.push(...this.exclude);
    }
    return { sql: parts.length === 0 ? 'TRUE' : parts.join(' AND '), params };
  }

  /** The row's own condition in a settlement: its id, and its lease token when given (R-LEASE-3). */
  private row(id: unknown, token: Date | undefined): Frag {
    if (token !== undefined && this.LEASE) {
      return { sql: `${this.ID} = ? AND ${this.LEASE} = ?`, params: [id, utc(token)] };
    }
    return { sql: `${this.ID} = ?`, params: [id] };
  }

  // -------------------------------------------------------------------------------------------
  // Claims

  /**
   * Row lock form, inside the claim's transaction: up to `n` due rows in id order, `FOR UPDATE
   * SKIP LOCKED` (R-ROW-1); a FIFO table takes group heads only.
   */
  claimLocked(n: number, now: Date | null): Stmt {
    const d = this.due('r', now, { lease: false, head: this.GRP !== undefined });
    return {
      sql: `SELECT r.* FROM ${this.T} AS r WHERE ${d.sql} ORDER BY r.${this.ID} LIMIT ? FOR UPDATE SKIP LOCKED`,
      params: [...d.params, n],
    };
  }

  /**
   * Lease form, first statement of the claim transaction: the ids (and groups) of up to `n` due
   * rows whose lease has ended, locked `FOR UPDATE SKIP LOCKED`.
   */
  claimLease(n: number, now: Date): Stmt {
    const d = this.due('r', now, { lease: true, head: this.GRP !== undefined });
    const grp = this.GRP ? `, r.${this.GRP} AS \`grp\`` : '';
    return {
      sql:
        `SELECT r.${this.ID} AS \`id\`${grp} FROM ${this.T} AS r WHERE ${d.sql}` +
        ` ORDER BY r.${this.ID} LIMIT ? FOR UPDATE SKIP LOCKED`,
      params: [...d.params, n],
    };
  }

  /**
   * The FIFO guard (R-FIFO-2) for one claimed head: a locking read of the unsettled rows of its
   * group that come before it. The head check reads committed rows without locks; this read also
   * meets a row another transaction is still writing (an insert with a lower id not yet committed)
   * and waits for it, so two processes never take one group out of order. Any row found means the
   * claimed row is not its group's head, and the claim puts it back. A NULL group has no guard.
   */
  fifoGuard(head: { id: unknown; group: unknown }): Stmt | undefined {
    if (!this.GRP || head.group === null || head.group === undefined) return undefined;
    return {
      sql:
        `SELECT h.${this.ID} AS \`id\` FROM ${this.T} AS h WHERE h.${this.GRP} = ? AND h.${this.ID} < ?` +
        `${this.PA ? ` AND h.${this.PA} IS NULL` : ''} ORDER BY h.${this.ID} FOR UPDATE`,
      params: [head.group, head.id],
    };
  }

  /** Lease form, second statement: writes the lease and counts the attempt of the locked rows. */
  claimLeaseUpdate(ids: readonly unknown[], expiry: Date): Stmt {
    const att = this.ATT ? `, ${this.ATT} = ${this.ATT} + 1` : '';
    return {
      sql: `UPDATE ${this.T} SET ${this.LEASE} = ?${att} WHERE ${this.ID} IN (${placeholders(ids.length)})`,
      params: [utc(expiry), ...ids],
    };
  }

  /** The rows of these ids as they stand, in id order. */
  claimLeaseRows(ids: readonly unknown[]): Stmt {
    return {
      sql: `SELECT * FROM ${this.T} WHERE ${this.ID} IN (${placeholders(ids.length)}) ORDER BY ${this.ID}`,
      params: [...ids],
    };
  }

  /** Moves each lease that still holds its token to `expiry`, in one statement (R-LEASE-4). */
  extendLeases(leases: readonly { id: unknown; token: Date }[], expiry: Date): Stmt {
    const pairs = leases.map(() => `(${this.ID} = ? AND ${this.LEASE} = ?)`).join(' OR ');
    return {
      sql:
        `UPDATE ${this.T} SET ${this.LEASE} = ? WHERE ${this.ID} IN (${placeholders(leases.length)})` +
        ` AND (${pairs})`,
      params: [utc(expiry), ...leases.map((l) => l.id), ...leases.flatMap((l) => [l.id, utc(l.token)])],
    };
  }

  /** Which of these ids hold `expiry` now: the ids an extension moved, when not all moved. */
  extendLeasesMoved(ids: readonly unknown[], expiry: Date): Stmt {
    return {
      sql: `SELECT ${this.ID} AS \`id\` FROM ${this.T} WHERE ${this.ID} IN (${placeholders(ids.length)}) AND ${this.LEASE} = ?`,
      params: [...ids, utc(expiry)],
    };
  }

  // -------------------------------------------------------------------------------------------
  // Settlements

  /** `ack`/`drop`: delete the row, or stamp `processed_at` (and clear the lease). */
  settleFinish(id: unknown, token: Date | undefined, now: Date): Stmt {
    const w = this.row(id, token);
    if (this.PA) {
      const lease = this.LEASE ? `, ${this.LEASE} = NULL` : '';
      return {
        sql: `UPDATE ${this.T} SET ${this.PA} = ?${lease} WHERE ${w.sql}`,
        params: [utc(now), ...w.params],
      };
    }
    return { sql: `DELETE FROM ${this.T} WHERE ${w.sql}`, params: w.params };
  }

  /**
   * Of these leases, the rows that still hold their tokens, locked (`FOR UPDATE`, in id order as the
   * claim locks them) for a batched ack.
   */
  settleManyHeld(leases: readonly { id: unknown; token: Date }[]): Stmt {
    const pairs = leases.map(() => `(${this.ID} = ? AND ${this.LEASE} = ?)`).join(' OR ');
    return {
      sql:
        `SELECT ${this.ID} AS \`id\` FROM ${this.T} WHERE ${this.ID} IN (${placeholders(leases.length)})` +
        ` AND (${pairs}) ORDER BY ${this.ID} FOR UPDATE`,
      params: [...leases.map((l) => l.id), ...leases.flatMap((l) => [l.id, utc(l.token)])],
    };
  }

  /** `ack`/`drop` of many rows by id (their tokens already checked under lock): delete, or stamp. */
  settleManyFinish(ids: readonly unknown[], now: Date): Stmt {
    const where = `${this.ID} IN (${placeholders(ids.length)})`;
    if (this.PA) {
      const lease = this.LEASE ? `, ${this.LEASE} = NULL` : '';
      return {
        sql: `UPDATE ${this.T} SET ${this.PA} = ?${lease} WHERE ${where}`,
        params: [utc(now), ...ids],
      };
    }
    return { sql: `DELETE FROM ${this.T} WHERE ${where}`, params: [...ids] };
  }

  /**
   * Puts the row back: counts an attempt, sets `retry_after`, clears the lease, each as asked and
   * where the column exists. With nothing to write it only counts the row (a select of the same
   * condition), so the answer still says whether the row (and its token) was there.
   */
  settleReturn(
    id: unknown,
    token: Date | undefined,
    o: { countAttempt: boolean; retryAfter?: Date | undefined; clearLease: boolean },
  ): Stmt & { readonly countOnly: boolean } {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (o.countAttempt && this.ATT) sets.push(`${this.ATT} = ${this.ATT} + 1`);
    if (o.retryAfter !== undefined && this.RA) {
      sets.push(`${this.RA} = ?`);
      params.push(utc(o.retryAfter));
    }
    if (o.clearLease && this.LEASE) sets.push(`${this.LEASE} = NULL`);
    const w = this.row(id, token);
    if (sets.length === 0) {
      return {
        sql: `SELECT COUNT(*) AS \`n\` FROM ${this.T} WHERE ${w.sql}`,
        params: w.params,
        countOnly: true,
      };
    }
    return {
      sql: `UPDATE ${this.T} SET ${sets.join(', ')} WHERE ${w.sql}`,
      params: [...params, ...w.params],
      countOnly: false,
    };
  }

  /** Dead letter as a group (R-DLQ-2): one update of the row's group; the lease is cleared. */
  settleDeadLetterGroup(id: unknown, token: Date | undefined, group: string): Stmt {
    const lease = this.LEASE ? `, ${this.LEASE} = NULL` : '';
    const w = this.row(id, token);
    return {
      sql: `UPDATE ${this.T} SET ${this.GRP} = ?${lease} WHERE ${w.sql}`,
      params: [group, ...w.params],
    };
  }

  /**
   * Dead letter as a table (R-DLQ-2), in order: copy the row (`INSERT .. SELECT *`), delete it
   * from the queue, and in the lease form clear the copy's lease. The caller runs them in one
   * transaction and compares the copy's and the delete's counts.
   */
  moveToDeadLetter(
    id: unknown,
    token: Date | undefined,
  ): { copy: Stmt; remove: Stmt; clearLease: Stmt | undefined } {
    if (!this.DLQ) throw new Error('sqlinbox: this table has no dead-letter table');
    const w = this.row(id, token);
    return {
      copy: { sql: `INSERT INTO ${this.DLQ} SELECT * FROM ${this.T} WHERE ${w.sql}`, params: w.params },
      remove: { sql: `DELETE FROM ${this.T} WHERE ${w.sql}`, params: w.params },
      clearLease: this.LEASE
        ? { sql: `UPDATE ${this.DLQ} SET ${this.LEASE} = NULL WHERE ${this.ID} = ?`, params: [id] }
        : undefined,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Insert

  /**
   * One multi-row `INSERT` of these messages: id (when not generated), payload, attempt = 1 (when
   * not generated), group, partition key, `retry_after` = notBefore, and the extra columns. A
   * message without a value for an extra column another message gives gets the column's DEFAULT.
   */
  insert(messages: readonly Insert[]): Stmt {
    const t = this.t;
    const roles = new Set(
      [t.id.column, t.payload?.column, t.attempt?.column, t.group, t.partitionKey, t.retryAfter].filter(
        (c): c is string => c !== undefined,
      ),
    );
    const extra: string[] = [];
    for (const m of messages) {
      for (const c of Object.keys(m.columns ?? {})) {
        // Column names were validated by publish: here they are only quoted.
        if (!roles.has(c) && !extra.includes(c)) extra.push(c);
      }
    }
    const cols: string[] = [];
    const cells: ((m: Insert) => { value: unknown } | 'DEFAULT')[] = [];
    const col = (name: string, cell: (m: Insert) => { value: unknown } | 'DEFAULT') => {
      cols.push(quoteIdent(name));
      cells.push(cell);
    };
    if (!t.id.generated) {
      col(t.id.column, (m) => {
        const v = m.columns?.[t.id.column];
        if (v === undefined || v === null) {
          throw new EncodeError(
            t.table,
            `the id column ${t.id.column} is not generated: give its value in columns`,
          );
        }
        return { value: v };
      });
    }
    if (t.payload) col(t.payload.column, (m) => ({ value: m.payload ?? null }));
    if (t.attempt && !t.attempt.generated) col(t.attempt.column, () => ({ value: 1 }));
    if (t.group) col(t.group, (m) => ({ value: m.group ?? m.columns?.[t.group!] ?? null }));
    if (t.partitionKey)
      col(t.partitionKey, (m) => ({ value: m.partitionKey ?? m.columns?.[t.partitionKey!] ?? null }));
    if (t.retryAfter)
      col(t.retryAfter, (m) => ({ value: m.notBefore ?? m.columns?.[t.retryAfter!] ?? null }));
    for (const c of extra) col(c, (m) => (m.columns && c in m.columns ? { value: m.columns[c] } : 'DEFAULT'));

    const params: unknown[] = [];
    const rows = messages.map((m) => {
      const vals = cells.map((cell) => {
        const v = cell(m);
        if (v === 'DEFAULT') return 'DEFAULT';
        params.push(v.value instanceof Date ? utc(v.value) : v.value);
        return '?';
      });
      return `(${vals.join(', ')})`;
    });
    if (cols.length === 0)
      return { sql: `INSERT INTO ${this.T} () VALUES ${rows.map(() => '()').join(', ')}`, params };
    return { sql: `INSERT INTO ${this.T} (${cols.join(', ')}) VALUES ${rows.join(', ')}`, params };
  }

  // -------------------------------------------------------------------------------------------
  // Stats

  /** Ready, delayed, in work (lease form: unexpired leases) and dead, in one statement. */
  stats(now: Date): Stmt {
    const params: unknown[] = [];
    const where: string[] = [];
    if (this.PA) where.push(`r.${this.PA} IS NULL`);
    if (this.GRP && this.deadGroup !== undefined) {
      where.push(`NOT (r.${this.GRP} <=> ?)`);
      params.push(this.deadGroup);
    }
    const n = utc(now);
    const inWork = this.LEASE ? `r.${this.LEASE} > ?` : 'FALSE';
    const delayed = this.RA ? `r.${this.RA} > ?` : 'FALSE';
    const selParams: unknown[] = [];
    if (this.LEASE) selParams.push(n);
    if (this.LEASE) selParams.push(n);
    if (this.RA) selParams.push(n);
    let dead = '0';
    const deadParams: unknown[] = [];
    if (this.DLQ) dead = `(SELECT COUNT(*) FROM ${this.DLQ})`;
    else if (this.GRP && this.deadGroup !== undefined) {
      dead = `(SELECT COUNT(*) FROM ${this.T} AS d WHERE d.${this.GRP} = ?)`;
      deadParams.push(this.deadGroup);
    }
    return {
      sql:
        `SELECT COUNT(*) AS \`total\`,` +
        ` COALESCE(SUM(CASE WHEN ${inWork} THEN 1 ELSE 0 END), 0) AS \`in_work\`,` +
        ` COALESCE(SUM(CASE WHEN ${inWork} THEN 0 WHEN ${delayed} THEN 1 ELSE 0 END), 0) AS \`delayed\`,` +
        ` ${dead} AS \`dead\`` +
        ` FROM ${this.T} AS r${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
      params: [...selParams, ...deadParams, ...params],
    };
  }

  // -------------------------------------------------------------------------------------------
  // Advisory form

  /** The key of row alias `a` rendered in SQL exactly as core's `keyOf()` renders it. */
  private keySql(a: string): Frag {
    const parts: string[] = [];
    const params: unknown[] = [];
    for (const p of this.t.key ?? []) {
      if ('literal' in p) {
        parts.push('?');
        params.push(p.literal);
      } else {
        parts.push(`COALESCE(CAST(${a}.${quoteIdent(p.column)} AS CHAR), '')`);
      }
    }
    return { sql: parts.length === 0 ? "''" : `CONCAT(${parts.join(', ')})`, params };
  }

  /**
   * Up to `n` due rows in id order with their keys (R-ADV-1), leaving out keys in `own` and, unless
   * the table brings its own lock, keys whose lock name another session holds
   * (`IS_USED_LOCK(name) IS NULL`). FIFO: group heads only.
   */
  candidates(n: number, now: Date | null, own: ReadonlySet<string>, leaveOutUsed: boolean): Stmt {
    const d = this.due('r', now, { lease: false, head: this.GRP !== undefined });
    const k = this.keySql('r');
    const where: string[] = [];
    const params: unknown[] = [];
    if (own.size > 0) {
      // Keys compare as bytes: the table's collation must not make two keys one.
      where.push(`CAST(c.\`key\` AS BINARY) NOT IN (${placeholders(own.size)})`);
      params.push(...own);
    }
    if (leaveOutUsed) {
      const name = lockNameSql(this.db, { sql: 'c.`key`', params: [] });
      where.push(`IS_USED_LOCK(${name.sql}) IS NULL`);
      params.push(...name.params);
    }
    return {
      sql:
        `SELECT c.\`id\`, c.\`key\` FROM (SELECT r.${this.ID} AS \`id\`, ${k.sql} AS \`key\` FROM ${this.T} AS r` +
        ` WHERE ${d.sql}) AS c${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY c.\`id\` LIMIT ?`,
      params: [...k.params, ...d.params, ...params, n],
    };
  }

  /** `GET_LOCK(name, 0)`: tries the key's lock without waiting; answers `ok` = 1 when taken. */
  lock(key: string): Stmt {
    const n = lockNameSql(this.db, { sql: '?', params: [key] });
    return { sql: `SELECT GET_LOCK(${n.sql}, 0) AS \`ok\``, params: n.params };
  }

  /** `RELEASE_LOCK(name)`: answers `ok` = 1 when this session held the key's lock. */
  unlock(key: string): Stmt {
    const n = lockNameSql(this.db, { sql: '?', params: [key] });
    return { sql: `SELECT RELEASE_LOCK(${n.sql}) AS \`ok\``, params: n.params };
  }

  /** The lock name of a key as the server computes it (for tests and diagnostics). */
  lockName(key: string): Stmt {
    const n = lockNameSql(this.db, { sql: '?', params: [key] });
    return { sql: `SELECT ${n.sql} AS \`name\``, params: n.params };
  }

  /**
   * Advisory take (R-ADV-1, R-ADV-2): counts the attempt while the row is still due and (FIFO) still
   * its group's head; an older row of the group that appeared or came back unsettled since the
   * candidate select holds it back (R-OPS-7). MySQL refuses a subquery on the table an UPDATE
   * writes (error 1093), so the update's head check is an anti-join on the group's older unsettled
   * rows (`LEFT JOIN .. WHERE o.id IS NULL`); a NULL group joins nothing, as it is no group.
   */
  take(id: unknown, now: Date | null): Stmt {
    if (!this.ATT) {
      const d = this.due('r', now, { lease: false, head: this.GRP !== undefined });
      return {
        sql: `SELECT r.* FROM ${this.T} AS r WHERE r.${this.ID} = ? AND ${d.sql}`,
        params: [id, ...d.params],
      };
    }
    const d = this.due('r', now, { lease: false, head: false });
    const older = this.GRP
      ? ` LEFT JOIN ${this.T} AS o ON o.${this.GRP} = r.${this.GRP} AND o.${this.ID} < r.${this.ID}` +
        `${this.PA ? ` AND o.${this.PA} IS NULL` : ''}`
      : '';
    const head = this.GRP ? ` AND o.${this.ID} IS NULL` : '';
    return {
      sql:
        `UPDATE ${this.T} AS r${older} SET r.${this.ATT} = r.${this.ATT} + 1` +
        ` WHERE r.${this.ID} = ? AND ${d.sql}${head}`,
      params: [id, ...d.params],
    };
  }

  /** The row of an id, as it stands. */
  takeRow(id: unknown): Stmt {
    return { sql: `SELECT * FROM ${this.T} WHERE ${this.ID} = ?`, params: [id] };
  }
}

/**
 * The `GET_LOCK` name of a key, computed as the server computes it (R-ADV-4): `database` in lower
 * case, a dot and the key; over 64 characters, the SHA-256 of that text in lower-case hex.
 */
export function lockNameOf(database: string, key: string): string {
  const name = `${database.toLowerCase()}.${key}`;
  return [...name].length > LOCK_NAME_MAX ? createHash('sha256').update(name, 'utf8').digest('hex') : name;
}

// ---------------------------------------------------------------------------------------------
// Admin (R-ADM-1, R-ADM-2, R-ADM-3)

/** A row's state as SQL sees it, for the admin API. */
type ListState = 'ready' | 'delayed' | 'inWork' | 'dead' | 'done' | 'all';

/**
 * The admin API's statements of one table, over the names {@link TableStatements} quoted. Every
 * value is bound; `ids` go in as one `?` each.
 */
export class AdminStatements {
  constructor(private readonly s: TableStatements) {}

  /** Unsettled and out of the dead-letter group, on alias `a`. */
  private live(a: string): Frag {
    const s = this.s;
    const parts: string[] = [];
    const params: unknown[] = [];
    if (s.PA) parts.push(`${a}.${s.PA} IS NULL`);
    if (s.GRP && s.deadGroup !== undefined) {
      parts.push(`NOT (${a}.${s.GRP} <=> ?)`);
      params.push(s.deadGroup);
    }
    return { sql: parts.length === 0 ? 'TRUE' : parts.join(' AND '), params };
  }

  /** Due at `now` on alias `a`: live, `retry_after` reached, lease absent or ended. */
  due(a: string, now: Date): Frag {
    const s = this.s;
    const l = this.live(a);
    const parts = [l.sql];
    const params = [...l.params];
    for (const c of [s.RA, s.LEASE]) {
      if (c === undefined) continue;
      parts.push(`(${a}.${c} IS NULL OR ${a}.${c} <= ?)`);
      params.push(utc(now));
    }
    return { sql: parts.join(' AND '), params };
  }

  /** The state of row `a` as a CASE expression (`dead`, `done`, `inWork`, `delayed`, `ready`). */
  private state(a: string, now: Date): Frag {
    const s = this.s;
    const when: string[] = [];
    const params: unknown[] = [];
    if (s.GRP && s.deadGroup !== undefined) {
      when.push(`WHEN ${a}.${s.GRP} = ? THEN 'dead'`);
      params.push(s.deadGroup);
    }
    if (s.PA) when.push(`WHEN ${a}.${s.PA} IS NOT NULL THEN 'done'`);
    if (s.LEASE) {
      when.push(`WHEN ${a}.${s.LEASE} > ? THEN 'inWork'`);
      params.push(utc(now));
    }
    if (s.RA) {
      when.push(`WHEN ${a}.${s.RA} > ? THEN 'delayed'`);
      params.push(utc(now));
    }
    return { sql: when.length === 0 ? `'ready'` : `CASE ${when.join(' ')} ELSE 'ready' END`, params };
  }

  /** Rows of one state in id order after `after`, each with `sqlinbox_state`. */
  list(q: { state: ListState; after?: unknown; limit: number; ids?: readonly unknown[]; now: Date }): Stmt {
    const s = this.s;
    const st = this.state('r', q.now);
    const fromDead = q.state === 'dead' && s.DLQ !== undefined;
    const source = fromDead
      ? { sql: `SELECT r.*, 'dead' AS \`sqlinbox_state\` FROM ${s.DLQ} AS r`, params: [] as unknown[] }
      : { sql: `SELECT r.*, ${st.sql} AS \`sqlinbox_state\` FROM ${s.T} AS r`, params: st.params };
    const where: string[] = [];
    const params: unknown[] = [...source.params];
    if (q.state !== 'all') {
      where.push('x.`sqlinbox_state` = ?');
      params.push(q.state);
    }
    if (q.after !== undefined) {
      where.push(`x.${s.ID} > ?`);
      params.push(q.after);
    }
    if (q.ids !== undefined) {
      if (q.ids.length === 0) where.push('FALSE');
      else {
        where.push(`x.${s.ID} IN (${placeholders(q.ids.length)})`);
        params.push(...q.ids);
      }
    }
    params.push(q.limit);
    return {
      sql:
        `SELECT x.* FROM (${source.sql}) AS x${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
        ` ORDER BY x.${s.ID} LIMIT ?`,
      params,
    };
  }

  /**
   * The rows a change may touch, `FOR UPDATE SKIP LOCKED` (in the caller's READ COMMITTED
   * transaction): dead ones, or live ones whose lease is absent or ended; by ids and group.
   */
  pick(q: {
    dead: boolean;
    ids?: readonly unknown[] | undefined;
    group?: string | undefined;
    now: Date;
  }): Stmt | null {
    const s = this.s;
    const where: string[] = [];
    const params: unknown[] = [];
    let from = s.T;
    if (q.dead && s.DLQ !== undefined) from = s.DLQ;
    else if (q.dead) {
      if (!s.GRP || s.deadGroup === undefined) return null;
      where.push(`r.${s.GRP} = ?`);
      params.push(q.group ?? s.deadGroup);
      if (s.PA) where.push(`r.${s.PA} IS NULL`);
    } else {
      const l = this.live('r');
      where.push(l.sql);
      params.push(...l.params);
      if (s.LEASE) {
        where.push(`(r.${s.LEASE} IS NULL OR r.${s.LEASE} <= ?)`);
        params.push(utc(q.now));
      }
    }
    if (q.group !== undefined && !(q.dead && s.DLQ === undefined)) {
      if (!s.GRP) return null;
      where.push(`r.${s.GRP} = ?`);
      params.push(q.group);
    }
    if (q.ids !== undefined) {
      where.push(`r.${s.ID} IN (${placeholders(q.ids.length)})`);
      params.push(...q.ids);
    }
    return {
      sql:
        `SELECT r.* FROM ${from} AS r${where.length ? ` WHERE ${where.join(' AND ')}` : ''}` +
        ` ORDER BY r.${s.ID} FOR UPDATE SKIP LOCKED`,
      params,
    };
  }

  /** `attempt = 1, retry_after = NULL, lease = NULL`, and the group when given. */
  fresh(ids: readonly unknown[], group: { value: string | null } | undefined): Stmt | null {
    const s = this.s;
    const set: string[] = [];
    const params: unknown[] = [];
    if (s.ATT) set.push(`${s.ATT} = 1`);
    if (s.RA) set.push(`${s.RA} = NULL`);
    if (s.LEASE) set.push(`${s.LEASE} = NULL`);
    if (group !== undefined && s.GRP) {
      set.push(`${s.GRP} = ?`);
      params.push(group.value);
    }
    if (set.length === 0) return null;
    return {
      sql: `UPDATE ${s.T} SET ${set.join(', ')} WHERE ${s.ID} IN (${placeholders(ids.length)})`,
      params: [...params, ...ids],
    };
  }

  /** Copies dead-letter table rows back into the queue table (the caller deletes them after). */
  copyBack(ids: readonly unknown[]): Stmt {
    const s = this.s;
    return {
      sql: `INSERT INTO ${s.T} SELECT * FROM ${s.DLQ} WHERE ${s.ID} IN (${placeholders(ids.length)})`,
      params: [...ids],
    };
  }

  /** Deletes rows by id from the queue table, or from the dead-letter table. */
  remove(ids: readonly unknown[], fromDead: boolean): Stmt {
    const s = this.s;
    const from = fromDead && s.DLQ !== undefined ? s.DLQ : s.T;
    return { sql: `DELETE FROM ${from} WHERE ${s.ID} IN (${placeholders(ids.length)})`, params: [...ids] };
  }

  /** `retry_after = at` by id. */
  reschedule(ids: readonly unknown[], at: Date): Stmt | null {
    const s = this.s;
    if (!s.RA) return null;
    return {
      sql: `UPDATE ${s.T} SET ${s.RA} = ? WHERE ${s.ID} IN (${placeholders(ids.length)})`,
      params: [utc(at), ...ids],
    };
  }

  /** The oldest `retry_after` among due rows. */
  oldest(now: Date): Stmt {
    const s = this.s;
    const d = this.due('r', now);
    return {
      sql: s.RA
        ? `SELECT MIN(r.${s.RA}) AS \`oldest\` FROM ${s.T} AS r WHERE ${d.sql}`
        : 'SELECT NULL AS `oldest`',
      params: s.RA ? d.params : [],
    };
  }

  /** The ids of due rows no other transaction locks (row lock form), in the caller's transaction. */
  freeDue(now: Date): Stmt {
    const s = this.s;
    const d = this.due('r', now);
    return {
      sql: `SELECT r.${s.ID} AS \`id\` FROM ${s.T} AS r WHERE ${d.sql} FOR UPDATE SKIP LOCKED`,
      params: d.params,
    };
  }

  /**
   * Due rows whose advisory key's lock another session holds (`IS_USED_LOCK(name) IS NOT NULL`),
   * the key rendered as the claim renders it.
   */
  heldKeys(now: Date): Stmt {
    const s = this.s;
    const d = this.due('r', now);
    const parts: string[] = [];
    const keyParams: unknown[] = [];
    for (const p of s.t.key ?? []) {
      if ('literal' in p) {
        parts.push('?');
        keyParams.push(p.literal);
      } else parts.push(`COALESCE(CAST(r.${quoteIdent(p.column)} AS CHAR), '')`);
    }
    const key = { sql: parts.length === 0 ? "''" : `CONCAT(${parts.join(', ')})`, params: keyParams };
    const schema = schemaOf(s.t.table);
    const db: Frag =
      schema === undefined ? { sql: 'DATABASE()', params: [] } : { sql: '?', params: [schema] };
    const name = lockNameSql(db, key);
    return {
      sql: `SELECT COUNT(*) AS \`n\` FROM ${s.T} AS r WHERE ${d.sql} AND IS_USED_LOCK(${name.sql}) IS NOT NULL`,
      params: [...d.params, ...name.params],
    };
  }
}
