import { createHash } from 'node:crypto';
import { type AnyTable, type DdlOptions, validateIdentifier } from '@sqlinbox/core';
import { type ColumnUse, type IndexParts, QueueDdl, QueueSql } from '@sqlinbox/sql';
import { bareName, escapeString, MAX_IDENT, quoteIdent, quoteTable, schemaOf, wakeupChannel } from './sql.js';
import { postgresSyntax } from './statements.js';

/**
 * Schema help and the wake-up channel's names. Every function here answers
 * SQL text; none runs it.
 */

/** `base` + `suffix`, or a hash of both where that would pass 63 characters. */
function shortName(base: string, suffix: string): string {
  const name = `${base}${suffix}`;
  if (name.length <= MAX_IDENT) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${base.slice(0, MAX_IDENT - suffix.length - 17)}_${hash}${suffix}`;
}

/**
 * The storage parameters of a queue table (`WITH (..)`), for a queue's churn: every job is an
 * insert and a delete, and in the lease form an update between them.
 * - `fillfactor = 50` where the table has a lease column: pages are filled half, so the claim's
 *   update of a row (its lease and attempt) finds room on the row's own page and is a HOT update,
 *   which adds no index entry. At the default fillfactor of 100 almost none is: a claim updates the
 *   rows of a page together and the page has no room, so each update writes a new index entry,
 *   which the next claims walk past until vacuum removes it.
 * - autovacuum by a fixed count of dead rows (`autovacuum_vacuum_scale_factor = 0`,
 *   `autovacuum_vacuum_threshold = 10000`) and unthrottled (`autovacuum_vacuum_cost_delay = 0`):
 *   at the default scale factor (20% of the table) a table with a backlog of millions waits for
 *   hundreds of thousands of dead rows, and every claim walks their index entries (the claim reads
 *   the primary key from its lowest id, where the settled rows were).
 */
function storageParameters(t: AnyTable): string {
  const params = [
    ...(t.lease === undefined ? [] : ['fillfactor = 50']),
    'autovacuum_vacuum_scale_factor = 0',
    'autovacuum_vacuum_threshold = 10000',
    'autovacuum_vacuum_cost_delay = 0',
  ];
  return ` WITH (${params.join(', ')})`;
}

/**
 * The statements that create a queue table for a description, one per element, no trailing
 * semicolon; each creates only what does not exist yet (`IF NOT EXISTS`), so running them again
 * changes nothing:
 * - `CREATE TABLE`: id `bigserial PRIMARY KEY` when generated (else `bigint PRIMARY KEY`), payload
 *   `jsonb` / `text` / `bytea NOT NULL`, attempt `integer NOT NULL DEFAULT 0`, every time column
 *   `timestamptz`, group, partition key, key and extra columns `text`, the failure record's
 *   message and class `text`, its insert time `timestamptz DEFAULT now()`, the result `jsonb`
 *   (`text` beside a text payload); with the storage
 *   parameters of `storageParameters` (a half fillfactor in the lease form, autovacuum by a
 *   fixed count of dead rows);
 * - with `processed_at`: the partial index a claim walks, `(id) WHERE processed_at IS NULL`;
 * - with a group: `(group, id)` (partial likewise), which finds a group's head;
 * - with a priority column (`integer NOT NULL DEFAULT 0`): `(priority DESC, id)` (partial
 *   likewise), which serves the claim's order, highest priority first;
 * - with a unique key column (`text`): a unique index on it (partial likewise, so a settled row
 *   frees its key), which a keyed publish's `ON CONFLICT` reads;
 * - with a concurrency key (`text`): `(key, lease, id)` (partial likewise), which a lease claim
 *   reads to count each key's rows in work and to pick a key's next rows in id order;
 * - the wake-up trigger ({@link wakeupTriggerDdl}), so a row inserted by plain SQL wakes idle
 *   subscriptions as a publish does; `wakeupTrigger: false` leaves it out;
 * - with `deadLetterTable`: that table with the same columns in the same order (the move is
 *   `INSERT .. SELECT *`) and a plain `bigint` id, since moved rows keep theirs.
 */
export function ddl(t: AnyTable, opts: DdlOptions = {}): string[] {
  return new PostgresDdl(new QueueSql(postgresSyntax, t)).ddl(opts);
}

/** PostgreSQL's DDL on the shared writer ({@link ddl} says what it prints). */
export class PostgresDdl extends QueueDdl {
  /** An older table's attempt default (1) becomes 0 in place: a change of the catalogue only. */
  override attemptDefault(table: string, column: string): string {
    return `ALTER TABLE ${table} ALTER COLUMN ${column} SET DEFAULT 0`;
  }

  /** Quoted names are case-sensitive: `"Id"` and `"id"` are two columns. */
  override fold(name: string): string {
    return name;
  }

  override column(use: ColumnUse, generatedId: boolean): string {
    const payload = this.s.t.payload?.type;
    const types: Record<ColumnUse, string> = {
      // A dead-letter table takes the ids of the rows moved into it: no sequence of its own.
      id: generatedId ? 'bigserial PRIMARY KEY' : 'bigint PRIMARY KEY',
      payload: `${payload === 'json' ? 'jsonb' : payload === 'bytes' ? 'bytea' : 'text'} NOT NULL`,
      attempt: 'integer NOT NULL DEFAULT 0',
      time: 'timestamptz',
      text: 'text',
      priority: 'integer NOT NULL DEFAULT 0',
      error: 'text',
      created: 'timestamptz DEFAULT now()',
      result: payload === 'text' ? 'text' : 'jsonb',
    };
    return types[use];
  }

  /** The queue table's storage parameters; the dead-letter table keeps the defaults. */
  override tableOptions(deadLetter: boolean): string {
    return deadLetter ? '' : storageParameters(this.s.t);
  }

  /** The unique key's index is partial over unsettled rows only: a keyed publish's `ON CONFLICT` infers it. */
  override indexes(): IndexParts[] {
    const where = this.unsettled();
    return super.indexes().map((i) =>
      i.name === 'unique_key'
        ? { ...i, where }
        : // (key, lease, id): the per-key claim's bounded pick reads a key's rows in id order from it.
          i.name === 'concurrency'
          ? { ...i, columns: [...i.columns, this.s.id] }
          : i,
    );
  }

  /** `<table>_sqlinbox_{due,group,priority,key,concurrency,processed}`, hashed where longer than 63 characters. */
  override indexName(name: IndexParts['name']): string {
    const suffix = {
      claim: 'due',
      fifo: 'group',
      priority: 'priority',
      unique_key: 'key',
      concurrency: 'concurrency',
      processed: 'processed',
    }[name];
    return shortName(bareName(this.s.t.table), `_sqlinbox_${suffix}`);
  }

  /** The wake-up trigger, unless `wakeupTrigger: false`. */
  override extras(opts: DdlOptions): string[] {
    return opts.wakeupTrigger === false ? [] : wakeupTriggerDdl(this.s.t.table);
  }
}

/**
 * The statements that make rows inserted by plain SQL (another service, `psql`) wake idle
 * subscriptions too, which {@link ddl} prints by default: one shared trigger function
 * `sqlinbox_wakeup` in the table's schema (the first schema of the search path when the name is
 * unqualified) that runs `pg_notify(<channel>, '')`, and a statement-level `AFTER INSERT` trigger
 * on the table, so one INSERT statement sends one notification however many rows it writes. The
 * server folds equal notifications of one transaction into one, so a broker's own notify beside
 * the trigger costs nothing; an insert of a publish that leaves its notification to another
 * publish sets `sqlinbox.quiet` for its transaction, and the trigger sends nothing for it (a
 * notifying commit holds the server's notification lock, so publishes side by side would wait on
 * each other). The function is made in a `DO` block that first takes a transaction
 * advisory lock, so tables created at once in several sessions do not replace it at once (which
 * fails with "tuple concurrently updated"). Re-running the statements replaces the trigger. Needs
 * PostgreSQL 11 (`EXECUTE FUNCTION`). The name is validated first (letters, digits, underscores,
 * an optional `schema.`): any other name throws a `ConfigError`, so no server setting can change
 * what runs.
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
    `DO $sqlinbox_ddl$\nBEGIN\n  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));\n` +
      `  CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$\n` +
      `  BEGIN\n    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN\n` +
      `      PERFORM pg_notify(TG_ARGV[0], '');\n    END IF;\n    RETURN NULL;\n  END\n  $sqlinbox$;\n` +
      `END\n$sqlinbox_ddl$`,
    `DROP TRIGGER IF EXISTS ${quoteIdent('sqlinbox_wakeup')} ON ${target}`,
    `CREATE TRIGGER ${quoteIdent('sqlinbox_wakeup')} AFTER INSERT ON ${target} ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${channel})`,
  ];
}
