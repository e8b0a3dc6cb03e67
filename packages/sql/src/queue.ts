import { type AnyTable, ConfigError, type PrepareOptions, validateIdentifier } from '@sqlinbox/core';
import type { Params } from './params.js';
import type { SqlSyntax } from './syntax.js';

/** Private aliases in derived tables and answers, chosen so they never meet a user's column name. */
export const ID = 'sqlinbox_id';
/** The alias of a row's advisory key in a derived table or answer. */
export const KEY = 'sqlinbox_key';
/** The alias of a row's rank within its concurrency key in a claim's derived table. */
export const RANK = 'sqlinbox_rank';
/** The alias of a concurrency key's rows in work in a claim's derived table. */
export const IN_WORK = 'sqlinbox_in_work';
/** The alias of a row's state in the admin list's answer (see `TableOps.list`). */
export const STATE = 'sqlinbox_state';

/**
 * The rows a FIFO claim of `n` reads in id order before it looks for heads group by group (where a
 * dialect walks the groups: PostgreSQL, SQLite): four per row it may take, at least 64, at most
 * 1,024.
 */
export function fifoWindow(n: number): number {
  return Math.min(1024, Math.max(64, 4 * n));
}

/**
 * One queue table's description read through a database's syntax: its quoted names, the
 * subscription's dead letter and skipped ids, and the fragments every feature's statements share
 * (the due condition, the FIFO group head, the claim order, the advisory key, the claims' locking
 * select). The feature builders read it and the syntax; a dialect extends it with fragments its own
 * features share (PostgreSQL's FIFO guard).
 *
 * Aliases: `q` the row being judged, `s` a sibling of the same group, `r` a row an admin statement
 * reads, `x` a derived table.
 */
export class QueueSql<S extends SqlSyntax = SqlSyntax> {
  /** The quoted table. */
  readonly table: string;
  /** The quoted id column. */
  readonly id: string;
  /** The dead-letter group claims leave out, when the subscription has one. */
  readonly deadGroup: string | undefined;
  /** The dead-letter table's name (validated, unquoted), when the subscription has one. */
  readonly deadTable: string | undefined;
  /** Ids claims pass over (a relay's held-back records), read at each statement. */
  readonly exclude: ReadonlySet<unknown> | undefined;

  constructor(
    /** The database's syntax. */
    readonly s: S,
    /** The table the statements are written for. */
    readonly t: AnyTable,
    opts: PrepareOptions = {},
  ) {
    const dead = opts.deadLetter;
    this.deadGroup = dead !== undefined && 'group' in dead ? dead.group : undefined;
    this.deadTable =
      dead !== undefined && 'table' in dead
        ? validateIdentifier(dead.table, 'dead-letter table', t.table, true)
        : undefined;
    this.exclude = opts.exclude;
    this.table = s.tableName(t.table);
    this.id = s.ident(t.id.column);
  }

  /** New parameters for one statement. */
  params(): Params {
    return this.s.params();
  }

  /** `alias.column`, quoted; the bare column without an alias. */
  col(alias: string | undefined, column: string): string {
    return this.s.col(alias, column);
  }

  /** Quotes one identifier. */
  ident(name: string): string {
    return this.s.ident(name);
  }

  /** Claim order on alias `a`: the highest priority first, then id; id alone without one. */
  order(a: string): string {
    const id = this.col(a, this.t.id.column);
    return this.t.priority === undefined ? id : `${this.col(a, this.t.priority)} DESC, ${id}`;
  }

  /** A role's column, or a ConfigError saying the description lacks it. */
  role(column: string | undefined, role: string): string {
    if (column !== undefined) return column;
    throw new ConfigError(`the description names no ${role} column`, {
      table: this.t.table,
      fix: `describe the ${role} column`,
    });
  }

  /**
   * A FIFO claim's window: the first {@link fifoWindow}(n) unsettled rows by id, with the columns
   * its heads are tested on (id, group, and the due condition's). Binds its limit where written.
   */
  fifoWindowSelect(p: Params, n: number): string {
    const t = this.t;
    const cols = [t.id.column, this.role(t.group, 'group'), t.processedAt, t.retryAfter, t.lease]
      .filter((c): c is string => c !== undefined)
      .map((c) => this.ident(c));
    const live = t.processedAt === undefined ? '' : ` WHERE ${this.ident(t.processedAt)} IS NULL`;
    return `SELECT ${cols.join(', ')} FROM ${this.table}${live} ORDER BY ${this.id} LIMIT ${p.bind(fifoWindow(n))}`;
  }

  /** ` AND a.processed_at IS NULL` (the bare column without `a`) where the table stamps settled rows. */
  unsettled(a?: string): string {
    const pa = this.t.processedAt;
    return pa === undefined ? '' : ` AND ${this.col(a, pa)} IS NULL`;
  }

  /** Unsettled and out of the dead-letter group. */
  live(p: Params, a: string): string[] {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.col(a, t.processedAt)} IS NULL`);
    if (t.group !== undefined && this.deadGroup !== undefined) {
      parts.push(this.s.distinct(this.col(a, t.group), p.bind(this.deadGroup)));
    }
    return parts;
  }

  /**
   * A row is due: not processed, its `retry_after` reached, its lease absent or ended, not in the
   * dead-letter group (each where the table has the column), and not an excluded id.
   */
  due(p: Params, now: Date | null, a: string): string {
    const t = this.t;
    const parts: string[] = [];
    if (t.processedAt !== undefined) parts.push(`${this.col(a, t.processedAt)} IS NULL`);
    if (t.retryAfter !== undefined) {
      const c = this.col(a, t.retryAfter);
      parts.push(`(${c} IS NULL OR ${c} <= ${this.s.now(p, now)})`);
    }
    if (t.lease !== undefined) parts.push(this.leaseEnded(p, now, this.col(a, t.lease)));
    if (t.group !== undefined && this.deadGroup !== undefined) {
      parts.push(this.s.distinct(this.col(a, t.group), p.bind(this.deadGroup)));
    }
    if (this.exclude !== undefined && this.exclude.size > 0) {
      parts.push(this.s.notAmong(p, this.col(a, t.id.column), [...this.exclude]));
    }
    return parts.length === 0 ? this.s.always : parts.join(' AND ');
  }

  /** Lease column `c` (quoted, with its alias) is absent or ended at `now`; a dialect may word it its own way. */
  leaseEnded(p: Params, now: Date | null, c: string): string {
    return `(${c} IS NULL OR ${c} <= ${this.s.now(p, now)})`;
  }

  /**
   * FIFO: row `a` is its group's head when no unsettled row of its group has a smaller id. A NULL
   * group is no group (`=` never matches it). Rows of the dead-letter group have left their group.
   * Answers `` when the table has no group column, else ` AND ..`.
   */
  head(a: string): string {
    const t = this.t;
    if (t.group === undefined) return '';
    return (
      ` AND NOT EXISTS (SELECT 1 FROM ${this.table} s WHERE ${this.col('s', t.group)} = ${this.col(a, t.group)}` +
      ` AND ${this.col('s', t.id.column)} < ${this.col(a, t.id.column)}${this.unsettled('s')})`
    );
  }

  /** The advisory key of row `a` as SQL text, as core's `keyOf()` renders it. */
  keyExpr(p: Params, a: string): string {
    const parts = (this.t.key ?? []).map((part) =>
      'literal' in part ? this.s.text(p, part.literal) : this.s.keyColumn(this.col(a, part.column)),
    );
    return parts.length === 0 ? this.s.emptyText : this.s.concat(parts);
  }

  /** `attempt = attempt + 1` (`- 1` with `by` -1: a claim taken back). */
  countAttempt(by: 1 | -1 = 1): string {
    const a = this.ident(this.role(this.t.attempt?.column, 'attempt'));
    return `${a} = ${a} ${by === 1 ? '+' : '-'} 1`;
  }

  /** A claim's `SET` list: the lease written as `expiry`, and the attempt counted. */
  leaseSets(p: Params, expiry: Date): string[] {
    const set = [`${this.ident(this.role(this.t.lease, 'lease'))} = ${this.s.time(p, expiry)}`];
    return this.t.attempt === undefined ? set : [...set, this.countAttempt()];
  }

  /**
   * Bounds on the id of row `a`, each followed by ` AND `: at or above `from`, below `below`
   * (`ClaimRange`); empty where neither is given.
   */
  idRange(p: Params, a: string, from?: bigint, below?: bigint): string {
    const id = this.col(a, this.t.id.column);
    return (
      (from === undefined ? '' : `${id} >= ${this.s.bigint(p, from)} AND `) +
      (below === undefined ? '' : `${id} < ${this.s.bigint(p, below)} AND `)
    );
  }

  /**
   * The claims' locking select on alias `q`: up to `n` due rows (FIFO: heads) in claim order;
   * with `among`, of these ids only (a claim that read its candidates first); with `from` and
   * `below`, of ids in that range ({@link idRange}).
   */
  claimSelect(
    p: Params,
    n: number,
    now: Date | null,
    columns: string,
    among?: readonly unknown[],
    from?: bigint,
    below?: bigint,
  ): string {
    let where = this.idRange(p, 'q', from, below) + this.due(p, now, 'q') + this.head('q');
    if (among !== undefined) where += ` AND ${this.s.inList(p, this.col('q', this.t.id.column), among)}`;
    const table = `${this.table} q`;
    return this.s.select(p, {
      columns,
      table,
      alias: 'q',
      where,
      order: this.order('q'),
      limit: n,
      lock: true,
    });
  }
}

/**
 * What every feature's statement builder holds: the table's {@link QueueSql}, its syntax `s` and
 * description `t`. A builder reads these and never another feature's builder, so a feature lands
 * without touching the others.
 */
export abstract class Feature<Q extends QueueSql = QueueSql> {
  /** The database's syntax. */
  readonly s: Q['s'];
  /** The table description. */
  readonly t: AnyTable;

  constructor(
    /** The table read through the syntax. */
    readonly q: Q,
  ) {
    this.s = q.s;
    this.t = q.t;
  }
}
