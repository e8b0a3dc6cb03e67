/**
 * Shared test setup: the server test/global-setup.ts found (`SQLINBOX_MYSQL_URL`, else the MariaDB
 * at 127.0.0.1:3306, root, no password, database `SQLINBOX_MYSQL_DATABASE` or `test`), both
 * drivers, an admin connection of the tests' own, and uniquely named tables dropped after use.
 */
import { randomBytes } from 'node:crypto';
import { skipWithoutServer } from '@sqlinbox/conformance';
import type { Adapter, AnyTable, Connection, Row } from '@sqlinbox/core';
import * as connector from 'mariadb';
import mysql from 'mysql2/promise';
import { ddl } from '../src/ddl.js';
import { mariadb } from '../src/mariadb.js';
import { mysql2 } from '../src/mysql2.js';
import { dbFromEnv } from './connection.mjs';

/** Why there is no server (the global setup found none), or `undefined`; the file's tests then skip. */
export const NO_SERVER = skipWithoutServer('SQLINBOX_MYSQL_SKIP');

/** The server and database the tests use (see connection.mjs). */
export const DB = dbFromEnv();

/** An adapter with a pool of its own. */
export interface Opened {
  readonly adapter: Adapter;
  close(): Promise<void>;
}

export interface DriverCase {
  readonly name: 'mysql2' | 'mariadb';
  open(opts?: {
    size?: number;
    serverVersion?: string;
    poolOptions?: Record<string, unknown>;
  }): Promise<Opened>;
}

export const drivers: readonly DriverCase[] = [
  {
    name: 'mysql2',
    async open(opts = {}) {
      const pool = mysql.createPool({ ...DB, connectionLimit: opts.size ?? 5, ...opts.poolOptions });
      return { adapter: mysql2(pool, { serverVersion: opts.serverVersion }), close: () => pool.end() };
    },
  },
  {
    name: 'mariadb',
    async open(opts = {}) {
      const size = opts.size ?? 5;
      const pool = connector.createPool({
        ...DB,
        connectionLimit: size,
        minimumIdle: 0,
        ...opts.poolOptions,
      });
      return {
        adapter: mariadb(pool, { serverVersion: opts.serverVersion, connectionLimit: size }),
        close: () => pool.end(),
      };
    },
  },
];

/** A connection of the tests' own, outside every pool under test. */
export async function openAdmin(): Promise<{
  q(sql: string, params?: unknown[]): Promise<Row[]>;
  id: number;
  end(): Promise<void>;
}> {
  const c = await mysql.createConnection({ ...DB, timezone: 'Z', jsonStrings: true });
  await c.query("SET time_zone = '+00:00'");
  return {
    id: c.threadId,
    async q(sql, params = []) {
      const [rows] = await c.query(sql, params);
      return (Array.isArray(rows) ? rows : []) as Row[];
    },
    end: () => c.end(),
  };
}

/** A table name no other test uses. */
export function uniqueName(prefix: string): string {
  return `sqi_${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Creates the description's tables with the dialect's own DDL; answers a dropper. */
export async function createTables(
  admin: { q(sql: string): Promise<Row[]> },
  table: AnyTable,
  deadLetterTable?: string,
): Promise<() => Promise<void>> {
  for (const stmt of ddl(table, deadLetterTable === undefined ? {} : { deadLetterTable }))
    await admin.q(stmt);
  return async () => {
    await admin.q(
      `DROP TABLE IF EXISTS ${table.table
        .split('.')
        .map((p) => `\`${p}\``)
        .join('.')}`,
    );
    if (deadLetterTable !== undefined) await admin.q(`DROP TABLE IF EXISTS \`${deadLetterTable}\``);
  };
}

/** Rejects when `p` takes longer than `ms`. */
export async function within<T>(ms: number, p: Promise<T>, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `p` is still pending after `ms`. */
export async function stillPending(p: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol('pending');
  const r = await Promise.race([
    p.then(
      () => 'done',
      () => 'failed',
    ),
    new Promise((res) => setTimeout(() => res(marker), ms)),
  ]);
  return r === marker;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Ids as text, for comparing across number and bigint. */
export const ids = (rows: readonly Row[], column = 'id'): string[] => rows.map((r) => String(r[column]));

/** Runs a statement on a core connection and answers its rows. */
export async function rowsOf(conn: Connection, sql: string, params: unknown[] = []): Promise<Row[]> {
  return (await conn.query<Row>(sql, params)).rows;
}

/**
 * A session of its own (mysql2, UTC) as a core connection, with the rows the storage engine read
 * for it so far (every `Handler_read_` counter): what a statement read is the difference.
 */
export async function countingSession(id: string): Promise<{
  session: mysql.Connection;
  conn: Connection;
  reads: () => Promise<number>;
}> {
  const session = await mysql.createConnection({ ...DB, timezone: 'Z' });
  await session.query("SET time_zone = '+00:00'");
  const conn: Connection = {
    id,
    async query<R = Row>(sql: string, params: readonly unknown[] = []) {
      const [rows] = await session.query(sql, [...params]);
      return Array.isArray(rows)
        ? { rows: rows as R[], rowCount: rows.length }
        : { rows: [] as R[], rowCount: (rows as { affectedRows: number }).affectedRows };
    },
  };
  const reads = async () => {
    const [rows] = await session.query("SHOW SESSION STATUS LIKE 'Handler_read%'");
    return (rows as Row[]).reduce((sum, r) => sum + Number(r.Value), 0);
  };
  return { session, conn, reads };
}
