import type { AnyTable, Connection, PrepareOptions, Row, TableOps } from '@sqlinbox/core';
import { SqlTable } from '@sqlinbox/sql';
import { MssqlStatements } from './statements.js';

const held = new WeakMap<Connection, Set<string>>();

/** The keys the dialect locked on `conn` and has not released: the pool never pools such a session. */
export function keysHeld(conn: Connection): readonly string[] {
  return [...(held.get(conn) ?? [])];
}

/** The statements of one SQL Server queue table, run on the engine's connections. */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new MssqlTable(new MssqlStatements(t, opts));
}

/** SQL Server's runner: the FIFO guard after the row lock claim, savepoints only inside a transaction, the held keys. */
export class MssqlTable extends SqlTable<MssqlStatements> {
  /** Numbers, bigints and the decimal text tedious returns for BIGINT by value; other text as text. */
  override compareIds(a: unknown, b: unknown): number {
    const big = (v: unknown) => (/^-?\d+$/.test(String(v)) ? BigInt(String(v)) : undefined);
    const [x, y] = [big(a), big(b)];
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  }

  /** A head whose group guard another transaction holds is left out (its row lock ends with the claim). */
  override async claimLocked(conn: Connection, n: number, now: Date | null): Promise<Row[]> {
    const group = this.sql.t.group;
    const kept: Row[] = [];
    for (const row of await super.claimLocked(conn, n, now)) {
      const g = group === undefined ? null : row[group];
      const guard = async () => Number((await this.rows(conn, this.sql.fifoGuard(String(g))))[0]?.ok) === 1;
      if (g === null || g === undefined || (await guard())) kept.push(row);
    }
    return kept;
  }

  override async lock(conn: Connection, key: string): Promise<boolean> {
    const taken = await super.lock(conn, key);
    if (taken) held.set(conn, (held.get(conn) ?? new Set()).add(key));
    return taken;
  }

  override async unlock(conn: Connection, key: string): Promise<boolean> {
    const released = await super.unlock(conn, key);
    held.get(conn)?.delete(key); // released, or not held: either way no longer held
    return released;
  }

  /** `SAVE TRANSACTION` needs an open transaction: without one, a transaction of its own. */
  override async atomically<T>(conn: Connection, nested: boolean, body: () => Promise<T>): Promise<T> {
    const open = nested && Number((await conn.query<Row>('SELECT @@TRANCOUNT AS [n]')).rows[0]?.n) > 0;
    return super.atomically(conn, open, body);
  }

  override async heldKeys(conn: Connection, keys: readonly string[]): Promise<number> {
    let n = 0;
    for (const part of this.sql.chunks(keys, this.sql.maxParams)) {
      n += Number((await this.rows(conn, this.sql.heldKeys(part)))[0]?.n ?? 0);
    }
    return n;
  }
}
