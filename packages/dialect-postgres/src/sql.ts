/**
 * Identifier quoting and the few text helpers the DDL needs. Statements are built by
 * {@link PostgresStatements} (`@sqlinbox/sql`); nothing here runs a statement.
 */
import { createHash } from 'node:crypto';
import { ansiIdent, qualified } from '@sqlinbox/sql';

/** Quotes one identifier (`jobs` -> `"jobs"`), doubling any embedded quote. */
export const quoteIdent = ansiIdent;

/** Quotes a table name that may be schema-qualified (`app.jobs` -> `"app"."jobs"`). */
export function quoteTable(name: string): string {
  return qualified(name);
}

/**
 * A string constant for the few places SQL takes no parameter (a trigger's arguments): an escape
 * string `E'..'` with `\` and `'` doubled, which reads the same whatever
 * `standard_conforming_strings` says. Values of a statement are always parameters instead.
 */
export function escapeString(text: string): string {
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The unqualified part of a table name (`app.jobs` -> `jobs`). */
export function bareName(table: string): string {
  const parts = table.split('.');
  return parts[parts.length - 1] ?? table;
}

/** The schema part of a table name, or undefined when the name is unqualified. */
export function schemaOf(table: string): string | undefined {
  const parts = table.split('.');
  return parts.length > 1 ? parts[0] : undefined;
}

/** PostgreSQL truncates identifiers to 63 bytes (NAMEDATALEN - 1); longer names are hashed instead. */
export const MAX_IDENT = 63;

/**
 * The LISTEN/NOTIFY channel of a table: `sqlinbox_<table>` (schema included, as written in the
 * description), or `sqlinbox_` and a SHA-256 prefix of the table name where that would pass the
 * server's 63-character limit. Case is kept: the channel is always used quoted or as a value.
 */
export function wakeupChannel(table: string): string {
  const name = `sqlinbox_${table}`;
  if (name.length <= MAX_IDENT) return name;
  return `sqlinbox_${createHash('sha256').update(table).digest('hex').slice(0, 40)}`;
}

/**
 * The LISTEN/NOTIFY channel of one topic of a table (`Wakeup.listenTopic`): `sqlinbox:<topic>:<table>`,
 * or the topic and a SHA-256 prefix of the table name where that would pass 63 characters. The
 * colons, which no validated table name holds, keep it apart from every table's wake-up channel.
 */
export function topicChannel(table: string, topic: 'control' | 'result'): string {
  const name = `sqlinbox:${topic}:${table}`;
  if (name.length <= MAX_IDENT) return name;
  return `sqlinbox:${topic}:${createHash('sha256').update(table).digest('hex').slice(0, 40)}`;
}

/**
 * How long an adapter's LISTEN connection stays open after its last listener left, so that waits
 * one after another reuse it; then it is ended (the next listen opens it again).
 */
export const LISTEN_IDLE_MS = 1000;
