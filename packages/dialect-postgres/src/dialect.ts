import {
  type AnyTable,
  type Capabilities,
  type ColumnInfo,
  type ColumnKind,
  type Connection,
  capabilities,
  type DdlOptions,
  type PrepareOptions,
  type TableOps,
} from '@sqlinbox/core';
import { SqlDialect, type SqlDialectOptions } from '@sqlinbox/sql';
import { ddl } from './ddl.js';
import { classifyError } from './errors.js';
import { quoteTable } from './sql.js';
import { POSTGRES_TRANSACTIONS, PostgresStatements } from './statements.js';
import { prepareTable } from './table.js';

/** The isolation levels PostgreSQL tables may declare. READ UNCOMMITTED runs as READ COMMITTED there, so it is not offered. */
export type PostgresIsolation = 'read_committed' | 'repeatable_read' | 'serializable';

/** The oldest PostgreSQL sqlinbox runs on: `hashtextextended` arrived in 11. */
export const POSTGRES_FLOOR = '11';

/**
 * A connection pooler between the adapter and PostgreSQL, by its pool mode. `transaction`
 * (PgBouncer's `pool_mode = transaction`, and poolers like it): each transaction, and each
 * statement outside one, may run on another server session, so nothing may live in a session
 * between transactions: no named prepared statement, no LISTEN, no session advisory lock.
 * `session`: a client keeps one server session while it is connected, as on a direct connection.
 */
export type PostgresPooler = 'transaction' | 'session';

/** The claim forms that run through a transaction pooler: row lock and lease, never advisory. */
export type TransactionPoolerForm = 'rowlock' | 'lease';

/** What {@link createPostgresDialect} takes: `serverVersion` (e.g. `'10.5'`) and the pooler. */
export interface PostgresDialectOptions extends SqlDialectOptions {
  /**
   * The pooler the connections go through (see {@link PostgresPooler}). With `transaction` the
   * dialect takes the row lock and lease forms only ({@link transactionPoolerCapabilities}).
   * Default: none, a direct connection.
   */
  readonly pooler?: PostgresPooler | undefined;
}

/**
 * What each PostgreSQL form needs: all three claim forms, the FIFO guard, transactional mode, and
 * the isolation levels read_committed, repeatable_read and serializable (never read_uncommitted).
 */
export const postgresCapabilities: Capabilities = capabilities({
  forms: ['rowlock', 'lease', 'advisory'],
  isolationLevels: ['read_committed', 'repeatable_read', 'serializable'],
  transactionModes: [],
  multipleConnections: true,
  fifoGuard: true,
  transactional: true,
  oneClaimAtATime: false,
  oneLeaseClaimAtATime: false,
  // A lease claim takes a row per worker in one statement and keeps the extra rows leased in the
  // subscription until a worker frees: rows per claim rise from ~1 to ~workers (docs/benchmarks.md).
  claimAhead: true,
  timeKinds: ['timestamp'],
});

/** Why the advisory form cannot run through a transaction pooler, for the error that refuses it. */
const ADVISORY_THROUGH_A_TRANSACTION_POOLER =
  "its connections go through a transaction pooler (pooler: 'transaction'), and the advisory form holds a" +
  ' session advisory lock for each delivery, which a pooler that hands each transaction to any server session' +
  ' cannot keep (an adapter that connects directly or through a session pooler can)';

/**
 * What PostgreSQL does through a transaction pooler: {@link postgresCapabilities} without the
 * advisory form, which a table is refused with the reason (`formsRefused`).
 */
export const transactionPoolerCapabilities: Capabilities = capabilities({
  ...postgresCapabilities,
  forms: ['rowlock', 'lease'] satisfies TransactionPoolerForm[],
  formsRefused: { advisory: ADVISORY_THROUGH_A_TRANSACTION_POOLER },
});

/** Type names (of a column's base type) and the kind the core checks a role against. */
const KINDS: Readonly<Record<string, ColumnKind>> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'integer',
  numeric: 'integer',
  text: 'text',
  varchar: 'text',
  bpchar: 'text',
  bytea: 'bytes',
  json: 'json',
  jsonb: 'json',
  timestamptz: 'timestamp',
  timestamp: 'timestamp',
};

/**
 * A timestamp column's digits of a second: its type modifier (`timestamptz(3)`: 3), else its
 * domain's, else PostgreSQL's default, 6. A modifier of -1 means none was declared.
 */
function timestampPrecision(typmod: number | null, baseTypmod: number | null): number {
  for (const m of [typmod, baseTypmod]) if (m !== null && Number(m) >= 0) return Number(m);
  return 6;
}

/**
 * The PostgreSQL dialect (PostgreSQL 11 or later), shared by the `pg` and postgres.js adapters.
 * It holds SQL and facts only; each adapter makes one with its own `serverVersion` option.
 */
export class PostgresDialect extends SqlDialect {
  /** Always `postgres`. */
  readonly name = 'postgres';
  readonly server = 'PostgreSQL';
  readonly floor = POSTGRES_FLOOR;
  /** `server_version`: its first word is the version reported (`15.4`). */
  readonly versionSql = `SELECT current_setting('server_version') AS version`;
  readonly transactions = POSTGRES_TRANSACTIONS;
  classifyError = classifyError;
  /**
   * See {@link postgresCapabilities}; through a transaction pooler (`pooler: 'transaction'`),
   * {@link transactionPoolerCapabilities}.
   */
  readonly capabilities: Capabilities;
  /** The pooler the connections go through, or undefined (a direct connection). */
  readonly pooler: PostgresPooler | undefined;

  constructor(opts: PostgresDialectOptions = {}) {
    super(opts);
    this.pooler = opts.pooler;
    this.capabilities = opts.pooler === 'transaction' ? transactionPoolerCapabilities : postgresCapabilities;
  }

  /**
   * The table's columns from `pg_catalog` (the name may be schema-qualified; an unqualified one
   * resolves through the search path as every statement does), or null when there is no such
   * table. Kinds: int2/int4/int8/numeric integer, text/varchar/char text, bytea bytes, json/jsonb
   * json, timestamptz/timestamp timestamp, anything else other; a domain takes its base type's kind.
   * `hasDefault` counts a default and an identity column. A timestamp's `precision` is its declared
   * digits of a second (`timestamptz(0)`: 0; a domain's, where the column declares none), else 6.
   */
  async describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null> {
    const r = await conn.query<{
      oid: unknown;
      name: string | null;
      type: string | null;
      typname: string | null;
      notnull: boolean | null;
      hasdefault: boolean | null;
      typmod: number | null;
      basetypmod: number | null;
    }>(
      `SELECT c.oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,` +
        ` coalesce(bt.typname, ty.typname) AS typname, a.attnotnull AS notnull,` +
        ` (a.atthasdef OR a.attidentity <> '') AS hasdefault, a.atttypmod AS typmod,` +
        ` CASE WHEN ty.typtype = 'd' THEN ty.typtypmod END AS basetypmod` +
        ` FROM (SELECT to_regclass($1) AS oid) c` +
        ` LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped` +
        ` LEFT JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid` +
        ` LEFT JOIN pg_catalog.pg_type bt ON ty.typtype = 'd' AND bt.oid = ty.typbasetype` +
        ` ORDER BY a.attnum`,
      [quoteTable(table)],
    );
    if (r.rows.length === 0 || r.rows[0]?.oid === null || r.rows[0]?.oid === undefined) return null;
    return r.rows
      .filter((c) => c.name !== null)
      .map((c) => {
        const kind = KINDS[String(c.typname)] ?? 'other';
        return {
          name: String(c.name),
          type: String(c.type),
          kind,
          nullable: c.notnull !== true,
          hasDefault: c.hasdefault === true,
          ...(kind === 'timestamp' ? { precision: timestampPrecision(c.typmod, c.basetypmod) } : {}),
        };
      });
  }

  /** Prepares the statements of one table; see `PostgresTable` for each statement. */
  override prepare(table: AnyTable, opts?: PrepareOptions): TableOps {
    return prepareTable(table, opts);
  }

  readonly Statements = PostgresStatements;

  /** See the `ddl` function: `CREATE TABLE`, the claim's partial indexes, the dead-letter table. */
  tableDdl(table: AnyTable, opts: DdlOptions): string[] {
    return ddl(table, opts);
  }
}

/**
 * A PostgreSQL dialect; `serverVersion` overrides the version the server reports (default: ask),
 * `pooler` names the pooler the connections go through (default: none).
 */
export function createPostgresDialect(opts: PostgresDialectOptions = {}): PostgresDialect {
  return new PostgresDialect(opts);
}

/** The PostgreSQL dialect that asks the server for its version. */
export const postgresDialect: PostgresDialect = new PostgresDialect();
