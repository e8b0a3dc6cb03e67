import {
  type AnyTable,
  type BeginOptions,
  type ColumnInfo,
  type ColumnKind,
  type Connection,
  capabilities,
  type DdlOptions,
  type Dialect,
  type ErrorKind,
  type Form,
  type IsolationLevel,
  type PrepareOptions,
  type Row,
  ServerTooOldError,
  type TableOps,
} from '@sqlinbox/core';
import {
  AdvisoryStatements,
  ConcurrencyStatements,
  describeWith,
  featureDdl,
  informationSchemaColumn,
  informationSchemaSql,
  type Params,
  PublishStatements,
  QueueDdl,
  QueueSql,
  QueueStatements,
  SqlSyntax,
  SqlTable,
  type Statement,
} from '@sqlinbox/sql';

/**
 * The oldest PostgreSQL these statements run on: `hashtextextended` (the advisory key's 64-bit
 * hash) arrived in PostgreSQL 11. Every PGlite release ships a newer one (0.5 ships 18).
 */
export const FLOOR = '11.0';

/**
 * PGlite is one PostgreSQL backend inside this process: one session, shared by everything that
 * opens it. The pool hands that session to one connection at a time, so two transactions or two
 * advisory-lock owners never share it unknowingly. Hence one connection at a time, and no FIFO
 * guard: no second connection can claim a group's head while another holds it.
 */
export const pgliteCapabilities = capabilities({
  forms: ['rowlock', 'lease'],
  formsRefused: {
    advisory: 'every connection shares one PGlite session, and a session lock cannot tell them apart',
  },
  multipleConnections: false,
  oneClaimAtATime: true,
  fifoGuard: false,
});

/** PostgreSQL's syntax with PGlite's `$n` placeholders. */
export class PgliteSyntax extends SqlSyntax {
  /** A Date is typed, so PGlite serializes it as an instant wherever the server cannot infer a type. */
  override placeholder(index: number, value: unknown): string {
    if (value instanceof Date) return `$${index}::timestamptz`;
    // In `VALUES (..)` (the lease tokens' pairs) an untyped parameter is text, and `bigint = text`
    // has no operator: type integers.
    if (typeof value === 'number' && Number.isInteger(value)) return `$${index}::bigint`;
    return `$${index}`;
  }
  override readonly tickTimeType = 'TIMESTAMPTZ';
}

/** Publishing: the keyed insert names the partial unique index's condition. */
export class PglitePublish extends PublishStatements {
  /**
   * PostgreSQL picks the partial unique index only when this `WHERE` implies the index's own, and
   * the builder's index says `key IS NOT NULL` too.
   */
  override onConflict(keyColumn: string): string {
    return `${this.target(keyColumn)} DO NOTHING`;
  }

  /** A replacing publish (debounce) meets the same index: the builder's update of an unstarted holder. */
  override onReplace(keyColumn: string, columns: readonly string[]): string {
    const id = this.q.id;
    const set = columns.length === 0 ? [`${id} = q.${id}`] : columns.map((c) => `${c} = EXCLUDED.${c}`);
    return `${this.target(keyColumn)} DO UPDATE SET ${set.join(', ')} WHERE ${this.unstarted('q')}`;
  }

  /** The conflict target naming the partial unique index's condition. */
  private target(keyColumn: string): string {
    const key = this.q.ident(keyColumn); // the hook gets the bare name, and writes its own leading space
    const where = [`${key} IS NOT NULL`];
    if (this.t.processedAt !== undefined) where.push(`${this.q.ident(this.t.processedAt)} IS NULL`);
    return ` ON CONFLICT (${key}) WHERE ${where.join(' AND ')}`;
  }
}

/** The advisory form on PostgreSQL's advisory locks. */
export class PgliteAdvisory extends AdvisoryStatements {
  /** A 64-bit key from the text: `pg_try_advisory_lock(bigint)` takes no text. */
  advisoryKey(p: Params, key: string): string {
    return `hashtextextended(${p.bind(key)}, 0)`;
  }
  override lock(key: string): Statement {
    const p = this.q.params();
    return p.statement(`SELECT pg_try_advisory_lock(${this.advisoryKey(p, key)}) AS ok`);
  }
  override unlock(key: string): Statement {
    const p = this.q.params();
    return p.statement(`SELECT pg_advisory_unlock(${this.advisoryKey(p, key)}) AS ok`);
  }
}

/**
 * Per-key concurrency in the lease form: every connection shares PGlite's one session, which runs
 * one statement at a time, and a claim's transaction owns it until it ends, so two claims of a
 * table never overlap and the builder's claim needs no turn.
 */
export class PgliteConcurrency extends ConcurrencyStatements {
  override readonly forms: readonly Form[] = ['lease'];
}

const syntax = new PgliteSyntax();

/** PostgreSQL's statements, with PGlite's `$n` placeholders and its advisory locks. */
export class PgliteStatements extends QueueStatements {
  constructor(t: AnyTable, opts?: PrepareOptions) {
    super(new QueueSql(syntax, t, opts), {
      publish: PglitePublish,
      advisory: PgliteAdvisory,
      concurrency: PgliteConcurrency,
    });
  }
}

/** A connection that can say whether its session is inside a transaction (PGlite's can). */
function inTransaction(conn: Connection): boolean | undefined {
  const c = conn as { inTransaction?: () => boolean };
  return typeof c.inTransaction === 'function' ? c.inTransaction() : undefined;
}

export class PgliteTable extends SqlTable<PgliteStatements> {
  /**
   * The runner opens a savepoint for a multi-statement insert whether or not a transaction is
   * open; PostgreSQL refuses `SAVEPOINT` outside one. Ask the session instead.
   */
  override atomically<T>(conn: Connection, nested: boolean, body: () => Promise<T>): Promise<T> {
    return super.atomically(conn, inTransaction(conn) ?? nested, body);
  }
}

export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new PgliteTable(new PgliteStatements(t, opts));
}

const ISOLATION_SQL: Record<IsolationLevel, string> = {
  read_uncommitted: 'READ UNCOMMITTED',
  read_committed: 'READ COMMITTED',
  repeatable_read: 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
};

/** SQLSTATE classes and codes the engine acts on. */
const SQLSTATE: Readonly<Record<string, ErrorKind>> = {
  '40001': 'serialization',
  '40P01': 'deadlock',
  '55P03': 'lock_timeout',
  '57P01': 'shutdown',
  '57P02': 'shutdown',
  '57P03': 'shutdown',
};

/** The error a query on a closed or destroyed connection rejects with. */
export class PgliteClosedError extends Error {
  constructor(id: string) {
    super(`PGlite connection ${id} is closed`);
    this.name = 'PgliteClosedError';
  }
}

/** `acquire` waited longer than the adapter's `acquireTimeoutMs`: another connection holds the session. */
export class PgliteBusyError extends Error {
  constructor(holder: string, ms: number) {
    super(`PGlite's one session is held by connection ${holder}; waited ${ms} ms`);
    this.name = 'PgliteBusyError';
  }
}

export function classifyPgliteError(err: unknown): ErrorKind {
  if (err instanceof PgliteClosedError) return 'connection';
  if (err instanceof PgliteBusyError) return 'lock_timeout';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'other';
  if (code in SQLSTATE) return SQLSTATE[code] as ErrorKind;
  if (code.startsWith('23')) return 'constraint';
  if (code.startsWith('08')) return 'connection';
  return 'other';
}

function kindOf(type: string): ColumnKind {
  if (['smallint', 'integer', 'bigint'].includes(type)) return 'integer';
  if (['text', 'character varying', 'character'].includes(type)) return 'text';
  if (type === 'bytea') return 'bytes';
  if (type === 'json' || type === 'jsonb') return 'json';
  if (type.startsWith('timestamp')) return 'timestamp';
  return 'other';
}

function major(version: string): number {
  return Number.parseFloat(version);
}

export function createPgliteDialect(opts: { serverVersion?: string | undefined } = {}): Dialect {
  return {
    name: 'pglite',
    capabilities: pgliteCapabilities,
    async checkServer(conn: Connection) {
      const version =
        opts.serverVersion ??
        String(
          (await conn.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ??
            '0',
        );
      if (major(version) < major(FLOOR)) throw new ServerTooOldError('PGlite', version, FLOOR);
      return { version };
    },
    describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null> {
      // The builder's information_schema query and row reading; an unqualified name is in the
      // current schema. An identity column is one the database fills.
      const sql = informationSchemaSql('COALESCE($1, current_schema())', '$2', [
        'c.is_identity AS generated',
      ]);
      const read = (r: Row) =>
        informationSchemaColumn(r, kindOf, { type: String(r.data_type), generated: r.generated === 'YES' });
      return describeWith(conn, sql, table, read);
    },
    prepare: prepareTable,
    async begin(conn: Connection, o: BeginOptions) {
      await conn.query(`BEGIN ISOLATION LEVEL ${ISOLATION_SQL[o.isolation ?? 'read_committed']}`);
    },
    async commit(conn: Connection) {
      await conn.query('COMMIT');
    },
    async rollback(conn: Connection) {
      await conn.query('ROLLBACK');
    },
    async savepoint(conn: Connection, name: string) {
      await conn.query(`SAVEPOINT ${name}`);
    },
    async rollbackToSavepoint(conn: Connection, name: string) {
      await conn.query(`ROLLBACK TO SAVEPOINT ${name}`);
    },
    classifyError: classifyPgliteError,
    ddl(table: AnyTable, o: DdlOptions = {}): string[] {
      const s = new PgliteStatements(table);
      const out = new QueueDdl(s.q).ddl({
        deadLetterTable: o.deadLetterTable,
        existingColumns: o.existingColumns,
      });
      return [...out, ...featureDdl(s, o)];
    },
  };
}

export const pgliteDialect: Dialect = createPgliteDialect();
