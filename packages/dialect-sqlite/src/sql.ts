/** SQL text helpers: quoting, bound parameters, the database clock. */

/** One statement and its bound values, in the order of their `?`. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Quotes one identifier (the core has validated it; quoting keeps keywords such as `group` usable). */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes a table name; `schema.table` names an attached database's table. */
export function tableName(name: string): string {
  return name.split('.').map(ident).join('.');
}

/**
 * Collects bound values while a statement's text is written left to right, so each `?` lands in
 * the order SQLite numbers them (better-sqlite3 takes no `?NNN` reuse across builders).
 */
export class Params {
  readonly values: unknown[] = [];

  /** Binds a value; answers its placeholder. */
  bind(value: unknown): string {
    this.values.push(value);
    return '?';
  }

  /** Binds several values; answers `?, ?, ..`. */
  list(values: Iterable<unknown>): string {
    return Array.from(values, (v) => this.bind(v)).join(', ');
  }

  /** The statement written with these values. */
  statement(sql: string): Statement {
    return { sql, params: this.values };
  }
}

/**
 * The database clock in epoch milliseconds. `unixepoch('subsec')` arrived only in 3.42; this
 * spelling works from the 3.35 floor. 'now' is fixed for the whole statement, so both halves agree.
 */
export const DB_NOW_MS =
  "(CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER))";

/** The instant a statement compares with: the host's, bound, or the database's clock when null. */
export function nowExpr(p: Params, now: Date | null): string {
  return now === null ? DB_NOW_MS : p.bind(now);
}
