import { randomBytes } from 'node:crypto';
import { skipWithoutServer } from '@sqlinbox/conformance';
import { type AnyTable, type Connection, inbox } from '@sqlinbox/core';
import pgModule from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { ddl } from '../src/ddl.js';
import { type PgAdapter, pg } from '../src/pg.js';
import { type PostgresJsAdapter, postgresJs } from '../src/postgres.js';
import { quoteTable } from '../src/sql.js';

/** Why there is no server (the global setup found none), or `undefined`; the file's tests then skip. */
export const NO_SERVER = skipWithoutServer('SQLINBOX_PG_SKIP');

/** The test database (trust auth): the one test/global-setup.ts found. */
export const URL = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A table name no other test uses. */
export function uniqueName(prefix = 'pgt'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** One admin connection of the tests' own (pg.Client), for setup, inspection and cleanup. */
export async function adminClient(): Promise<pgModule.Client> {
  const c = new pgModule.Client({ connectionString: URL });
  await c.connect();
  return c;
}

/**
 * A describe block's admin connection, opened before its tests, and the tables its tests create
 * through {@link createTable}, dropped after them.
 */
export function suiteAdmin(): { admin(): pgModule.Client; create(t: AnyTable): Promise<void> } {
  let client: pgModule.Client | undefined;
  const drops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    client = await adminClient();
  });
  afterAll(async () => {
    for (const drop of drops) await drop();
    await client?.end();
  });
  const admin = () => client!;
  return { admin, create: async (t) => void drops.push(await createTable(admin(), t)) };
}

/** A node of a plan as `EXPLAIN (FORMAT JSON)` answers it. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** A plan's nodes, each before its children. */
export function planNodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(planNodes)];
}

/** The planner's plan of a statement, as nodes and as text, in a transaction rolled back after. */
export async function explain(
  admin: pgModule.Client,
  st: { sql: string; params: readonly unknown[] },
): Promise<{ nodes: PlanNode[]; text: string }> {
  await admin.query('BEGIN');
  try {
    const json = await admin.query(`EXPLAIN (FORMAT JSON) ${st.sql}`, [...st.params]);
    const text = await admin.query(`EXPLAIN ${st.sql}`, [...st.params]);
    return {
      nodes: planNodes((json.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan),
      text: text.rows.map((x) => x['QUERY PLAN']).join('\n'),
    };
  } finally {
    await admin.query('ROLLBACK');
  }
}

/** An opened adapter over a pool of its own. */
export interface Opened {
  readonly adapter: PgAdapter | PostgresJsAdapter;
  /** Ends the adapter and the pool. */
  end(): Promise<void>;
}

/** Both drivers, each opening an adapter over a new pool of `max` connections. */
export const drivers: { name: string; open(max?: number, serverVersion?: string): Opened }[] = [
  {
    name: 'pg',
    open(max = 5, serverVersion) {
      const pool = new pgModule.Pool({ connectionString: URL, max });
      const adapter = pg(pool, { serverVersion });
      return {
        adapter,
        async end() {
          await adapter.close();
          await pool.end();
        },
      };
    },
  },
  {
    name: 'postgres.js',
    open(max = 5, serverVersion) {
      const sql = postgres(URL, { max, onnotice: () => {} });
      const adapter = postgresJs(sql, { serverVersion });
      return {
        adapter,
        async end() {
          await adapter.close();
          await sql.end({ timeout: 5 });
        },
      };
    },
  },
];

/** Creates the table (and its dead-letter table) from the dialect's own DDL; answers a drop. */
export async function createTable(
  admin: pgModule.Client,
  t: AnyTable,
  deadLetterTable?: string,
): Promise<() => Promise<void>> {
  for (const stmt of ddl(t, deadLetterTable === undefined ? {} : { deadLetterTable }))
    await admin.query(stmt);
  return async () => {
    await admin.query(`DROP TABLE IF EXISTS ${quoteTable(t.table)}`);
    if (deadLetterTable !== undefined)
      await admin.query(`DROP TABLE IF EXISTS ${quoteTable(deadLetterTable)}`);
  };
}

/** A lease table description. */
export function leaseTable(
  name: string,
  extra: { group?: boolean; processedAt?: boolean; concurrency?: { key: string; limit: number } } = {},
) {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    lease: 'locked_until',
    retryAfter: 'retry_after',
    ...(extra.group ? { group: 'grp' } : {}),
    ...(extra.processedAt ? { processedAt: 'processed_at' } : {}),
    ...(extra.concurrency ? { concurrency: extra.concurrency } : {}),
  } as never) as AnyTable;
}

/** A row lock table description. */
export function rowlockTable(name: string, extra: { group?: boolean; processedAt?: boolean } = {}) {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    retryAfter: 'retry_after',
    ...(extra.group ? { group: 'grp' } : {}),
    ...(extra.processedAt ? { processedAt: 'processed_at' } : {}),
  } as const) as AnyTable;
}

/** Runs `fn` on a connection and releases it. */
export async function withConn<T>(opened: Opened, fn: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await opened.adapter.pool.acquire();
  try {
    return await fn(conn);
  } finally {
    opened.adapter.pool.release(conn);
  }
}

/** The ids of rows as numbers (int8 arrives as a string). */
export function ids(rows: readonly Record<string, unknown>[], column = 'id'): number[] {
  return rows.map((r) => Number(r[column]));
}

/** Milliseconds from now, as a Date with millisecond precision. */
export function at(offsetMs: number, from = Date.now()): Date {
  return new Date(from + offsetMs);
}

/** A connection that records every statement it runs (to prove "one statement"). */
export function recording(conn: Connection): { conn: Connection; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    conn: {
      id: conn.id,
      query(sql, params) {
        statements.push(sql);
        return conn.query(sql, params);
      },
    },
  };
}
