/**
 * Small pieces every SQL Server statement is built from: identifier quoting, named parameters
 * (`@p1..@pN`), the database clock, and the name an application lock is taken under. Nothing here
 * talks to a driver.
 */
import { createHash } from 'node:crypto';

/** One statement: T-SQL text with `@p1..@pN` placeholders, and its values in number order. */
export interface Statement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Quotes one identifier with brackets (`jobs` -> `[jobs]`), doubling an embedded `]`. */
export function ident(name: string): string {
  return `[${name.replaceAll(']', ']]')}]`;
}

/** Quotes a table name that may be schema-qualified (`app.jobs` -> `[app].[jobs]`). */
export function tableName(name: string): string {
  return name.split('.').map(ident).join('.');
}

/** The schema part of a qualified table name, or undefined for an unqualified one. */
export function schemaOf(name: string): string | undefined {
  const dot = name.indexOf('.');
  return dot < 0 ? undefined : name.slice(0, dot);
}

/** The table part of a possibly qualified table name. */
export function bareName(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}

/**
 * SQL Server takes at most 2100 parameters per request; statements that grow with their input
 * (inserts, lease extensions, the candidates' own keys) stay under this many.
 */
export const MAX_PARAMS = 2000;

/** The database clock as a UTC instant, for a table that reads the database's "now". */
export const DB_NOW = 'SYSUTCDATETIME()';

/**
 * The parameters of one statement, named as they are added: `add(v)` answers `@p1`, `@p2`, ...
 * A value a statement uses in several places is added once and its name repeated (T-SQL reuses a
 * named parameter), so "now" is one value for the whole statement (R-LEASE-2).
 */
export class Params {
  readonly values: unknown[] = [];

  /** Adds a value and answers its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `@p${this.values.length}`;
  }

  /** Adds several values; answers `@p1, @p2, ..`. */
  list(values: Iterable<unknown>): string {
    return Array.from(values, (v) => this.add(v)).join(', ');
  }

  /** The statement written with these values. */
  statement(sql: string): Statement {
    return { sql, params: this.values };
  }
}

/**
 * `@Resource` of `sp_getapplock` is `nvarchar(255)`: a longer name is silently truncated, so two
 * long keys sharing their first 255 characters would be one lock. A key over 255 UTF-16 code units
 * is therefore locked under the SHA-256 of its UTF-16LE bytes, in upper-case hex (64 characters).
 * That is exactly what `CONVERT(nvarchar(64), HASHBYTES('SHA2_256', key), 2)` answers for an
 * `nvarchar` key, so the candidate select ({@link resourceSql}) computes the same name in SQL.
 */
export const RESOURCE_MAX = 255;

/** The application lock name of an advisory key (see {@link RESOURCE_MAX}). */
export function resourceName(key: string): string {
  return key.length > RESOURCE_MAX
    ? createHash('sha256').update(key, 'utf16le').digest('hex').toUpperCase()
    : key;
}

/**
 * {@link resourceName} in T-SQL, over an `nvarchar` expression. `DATALENGTH / 2` counts UTF-16 code
 * units as JavaScript's `length` does (`LEN` would ignore trailing spaces).
 */
export function resourceSql(key: string): string {
  return (
    `CASE WHEN DATALENGTH(${key}) / 2 > ${RESOURCE_MAX}` +
    ` THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', ${key}), 2) ELSE ${key} END`
  );
}
