import { createHash } from 'node:crypto';
import { type AnyTable, validateIdentifier } from '@sqlinbox/core';
import { type ColumnUse, tableColumns } from '@sqlinbox/sql';
import { bareName, escapeString, quoteIdent, quoteTable, schemaOf } from './sql.js';

/**
 * Schema help and the wake-up channel's names. Every function here answers
 * SQL text; none runs it.
 */

/** PostgreSQL truncates identifiers to 63 bytes (NAMEDATALEN - 1); longer names are hashed instead. */
const MAX_IDENT = 63;

/** `base` + `suffix`, or a hash of both where that would pass 63 characters. */
function shortName(base: string, suffix: string): string {
  const name = `${base}${suffix}`;
  if (name.length <= MAX_IDENT) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${base.slice(0, MAX_IDENT - suffix.length - 17)}_${hash}${suffix}`;
}

/** The column definitions of a queue table (or its dead-letter twin), in the order they are declared. */
function columnDefinitions(t: AnyTable, deadLetter: boolean): string[] {
  const payload = t.payload?.type === 'json' ? 'jsonb' : t.payload?.type === 'bytes' ? 'bytea' : 'text';
  const types: Record<ColumnUse, string> = {
    // A dead-letter table takes the ids of the rows moved into it: no sequence of its own.
    id: !deadLetter && t.id.generated ? 'bigserial PRIMARY KEY' : 'bigint PRIMARY KEY',
    payload: `${payload} NOT NULL`,
    attempt: 'integer NOT NULL DEFAULT 1',
    time: 'timestamptz',
    text: 'text',
    priority: 'integer NOT NULL DEFAULT 0',
  };
  return tableColumns(t).map((c) => `${quoteIdent(c.name)} ${types[c.role]}`);
}

/**
 * The statements that create a queue table for a description, one per element, no trailing
 * semicolon:
 * - `CREATE TABLE`: id `bigserial PRIMARY KEY` when generated (else `bigint PRIMARY KEY`), payload
 *   `jsonb` / `text` / `bytea NOT NULL`, attempt `integer NOT NULL DEFAULT 1`, every time column
 *   `timestamptz`, group, partition key, key and extra columns `text`;
 * - with `processed_at`: the partial index a claim walks, `(id) WHERE processed_at IS NULL`;
 * - with a group: `(group, id)` (partial likewise), which finds a group's head;
 * - with a priority column (`integer NOT NULL DEFAULT 0`): `(priority DESC, id)` (partial
 *   likewise), which serves the claim's order, highest priority first;
 * - with a unique key column (`text`): a unique index on it (partial likewise, so a settled row
 *   frees its key), which a keyed publish's `ON CONFLICT` reads;
 * - with a concurrency key (`text`): `(key, lease)` (partial likewise), which a lease claim reads
 *   to count each key's rows in work;
 * - with `deadLetterTable`: that table with the same columns in the same order (the move is
 *   `INSERT .. SELECT *`) and a plain `bigint` id, since moved rows keep theirs.
 */
export function ddl(t: AnyTable, opts: { deadLetterTable?: string } = {}): string[] {
  const table = quoteTable(t.table);
  const out = [`CREATE TABLE ${table} (\n  ${columnDefinitions(t, false).join(',\n  ')}\n)`];
  const unsettled = t.processedAt === undefined ? '' : ` WHERE ${quoteIdent(t.processedAt)} IS NULL`;
  const base = bareName(t.table);
  if (t.processedAt !== undefined) {
    out.push(
      `CREATE INDEX ${quoteIdent(shortName(base, '_sqlinbox_due'))} ON ${table} (${quoteIdent(t.id.column)})${unsettled}`,
    );
  }
  if (t.group !== undefined) {
    out.push(
      `CREATE INDEX ${quoteIdent(shortName(base, '_sqlinbox_group'))} ON ${table} ` +
        `(${quoteIdent(t.group)}, ${quoteIdent(t.id.column)})${unsettled}`,
    );
  }
  if (t.priority !== undefined) {
    out.push(
      `CREATE INDEX ${quoteIdent(shortName(base, '_sqlinbox_priority'))} ON ${table} ` +
        `(${quoteIdent(t.priority)} DESC, ${quoteIdent(t.id.column)})${unsettled}`,
    );
  }
  if (t.uniqueKey !== undefined) {
    out.push(
      `CREATE UNIQUE INDEX ${quoteIdent(shortName(base, '_sqlinbox_key'))} ON ${table} (${quoteIdent(t.uniqueKey)})${unsettled}`,
    );
  }
  if (t.concurrency !== undefined && t.lease !== undefined) {
    out.push(
      `CREATE INDEX ${quoteIdent(shortName(base, '_sqlinbox_concurrency'))} ON ${table} ` +
        `(${quoteIdent(t.concurrency.column)}, ${quoteIdent(t.lease)})${unsettled}`,
    );
  }
  if (opts.deadLetterTable !== undefined) {
    validateIdentifier(opts.deadLetterTable, 'dead-letter table', t.table, true);
    out.push(
      `CREATE TABLE ${quoteTable(opts.deadLetterTable)} (\n  ${columnDefinitions(t, true).join(',\n  ')}\n)`,
    );
  }
  return out;
}

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
 * Statements a user may install so that rows inserted by plain SQL (another service, `psql`) wake
 * idle subscriptions too: one shared trigger function `sqlinbox_wakeup` in the table's
 * schema (the first schema of the search path when the name is unqualified) that runs
 * `pg_notify(<channel>, '')`, and a statement-level `AFTER INSERT` trigger on the table, so one
 * INSERT statement sends one notification however many rows it writes. The server folds equal
 * notifications of one transaction into one, so a broker's own notify beside the trigger costs
 * nothing. Re-running the statements replaces the trigger. Needs PostgreSQL 11
 * (`EXECUTE FUNCTION`). The name is validated first (letters, digits, underscores, an optional
 * `schema.`): any other name throws a `ConfigError`, so no server setting can change what runs.
 */
export function wakeupTriggerDdl(table: string): string[] {
  validateIdentifier(table, 'table', undefined, true);
  const schema = schemaOf(table);
  const fn =
    schema === undefined
      ? quoteIdent('sqlinbox_wakeup')
      : `${quoteIdent(schema)}.${quoteIdent('sqlinbox_wakeup')}`;
  const target = quoteTable(table);
  // The channel is made of a validated identifier or a hex digest. It is written as an escape
  // string (E'..'), whose backslashes mean the same whatever standard_conforming_strings says.
  const channel = escapeString(wakeupChannel(table));
  return [
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$\n` +
      `BEGIN\n  PERFORM pg_notify(TG_ARGV[0], '');\n  RETURN NULL;\nEND\n$sqlinbox$`,
    `DROP TRIGGER IF EXISTS ${quoteIdent('sqlinbox_wakeup')} ON ${target}`,
    `CREATE TRIGGER ${quoteIdent('sqlinbox_wakeup')} AFTER INSERT ON ${target} ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${channel})`,
  ];
}
