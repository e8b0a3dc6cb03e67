/**
 * Small pieces every MySQL/MariaDB statement is built from: identifier quoting, the UTC text form
 * of an instant, a driver's answer. Nothing here talks to a driver.
 */
import type { QueryResult, Row } from '@sqlinbox/core';
import { qualified } from '@sqlinbox/sql';

/**
 * What this package's driver wrappers answer for a statement: the core's result plus, for an
 * `INSERT`, the first id the server generated (`insertId` of the OK packet). A connection from
 * elsewhere may leave `insertId` out; the dialect then asks `LAST_INSERT_ID()`.
 */
export interface MysqlQueryResult<R = Row> extends QueryResult<R> {
  readonly insertId?: number | bigint | string;
}

/** Quotes one identifier with backticks (a backtick inside is doubled). */
export function quoteIdent(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/**
 * A name as a string constant, `'name'`: a validated identifier's text (letters, digits,
 * underscores), which reads the same under every server setting (`NO_BACKSLASH_ESCAPES`,
 * `ANSI_QUOTES`); any other character throws, as it would have been refused before.
 */
export function escapeString(name: string): string {
  if (!/^[A-Za-z0-9_]*$/.test(name)) throw new Error(`not an identifier's text: ${JSON.stringify(name)}`);
  return `'${name}'`;
}

/** Quotes a table name, `schema.table` as two identifiers. */
export function quoteTable(name: string): string {
  return qualified(name, quoteIdent);
}

/**
 * An instant as MySQL `DATETIME(3)` text in UTC, `YYYY-MM-DD HH:MM:SS.mmm`. Every Date this
 * package binds goes through here, so what reaches the server never depends on the driver's
 * `timezone` option or the host's zone.
 */
export function utc(d: Date): string {
  const iso = d.toISOString();
  if (iso.length !== 24) throw new RangeError(`sqlinbox: ${iso} is outside the years MySQL DATETIME holds`);
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/**
 * Reads `DATETIME`/`TIMESTAMP` text the server sent (`YYYY-MM-DD HH:MM:SS[.ffffff]`) as a UTC
 * instant; the zero date reads as null.
 */
export function parseUtc(text: string | null): Date | null {
  if (text === null) return null;
  if (text.startsWith('0000-00-00')) return null;
  const [date, time = '00:00:00'] = text.split(' ');
  const [hms = '00:00:00', frac = ''] = time.split('.');
  const ms = frac.length === 0 ? '000' : frac.padEnd(3, '0').slice(0, 3);
  return new Date(`${date}T${hms}.${ms}Z`);
}

/**
 * A bound value as the drivers should see it: Dates become UTC text (see {@link utc}), a
 * Uint8Array becomes a Buffer (both drivers send Buffers as binary), everything else is unchanged.
 */
export function toDriverValue(v: unknown): unknown {
  if (v instanceof Date) return utc(v);
  if (v instanceof Uint8Array && !Buffer.isBuffer(v))
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return v;
}

/** A count the drivers return as number, string (DECIMAL) or bigint, as a number. */
export function toCount(v: unknown): number {
  if (v === null || v === undefined) return 0;
  return Number(v);
}
