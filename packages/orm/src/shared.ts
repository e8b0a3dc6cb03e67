/**
 * What every bridge shares: which database family an ORM talks to, how that family's sqlinbox
 * adapter binds values (so a message published through the ORM's connection is stored as one
 * published through the adapter's), and the statements that answer rows.
 */
import type { QueryResult, Row } from '@sqlinbox/core';

/** The database families the bridges know. */
export type Family = 'postgres' | 'mysql' | 'sqlite';

/** A statement's result as the core reads it, with MySQL's generated id where the driver tells it. */
export type BridgeResult<R = Row> = QueryResult<R> & {
  /** The first id an INSERT generated (MySQL), where the ORM answers it. */
  readonly insertId?: unknown;
};

/**
 * Whether a statement answers rows: a `SELECT`, `WITH` that only reads, `VALUES`, or any statement
 * with `RETURNING`. For an ORM whose raw call answers either rows or a change count, never both.
 */
export function answersRows(sql: string): boolean {
  if (/\bRETURNING\b/i.test(sql)) return true;
  if (/^\s*(?:SELECT|VALUES|PRAGMA|EXPLAIN|SHOW)\b/i.test(sql)) return true;
  return /^\s*WITH\b/i.test(sql) && !/\b(?:INSERT|UPDATE|DELETE|REPLACE)\b/i.test(sql);
}

/**
 * How the family's sqlinbox adapter binds a value: on MySQL an instant as UTC `DATETIME(3)` text,
 * on SQLite as epoch milliseconds (from the dialect packages, loaded on first use: a service on
 * MySQL has `@sqlinbox/dialect-mysql`, one on SQLite `@sqlinbox/dialect-sqlite`); PostgreSQL's
 * drivers bind them as they are.
 */
export async function binderOf(family: Family): Promise<(value: unknown) => unknown> {
  if (family === 'mysql') return (await import('@sqlinbox/dialect-mysql')).toMysqlValue;
  if (family === 'sqlite') return (await import('@sqlinbox/dialect-sqlite')).toSqliteValue;
  return (value) => value;
}
