import type {
  AnyTable,
  Connection,
  Insert,
  InsertOptions,
  PrepareOptions,
  QueueStats,
  Row,
  TableOps,
} from '@sqlinbox/core';
import { EncodeError } from '@sqlinbox/core';
import { SqlTable, type Statement, timeOf } from '@sqlinbox/sql';
import { PostgresStatements } from './statements.js';

/** Prepares the statements of one table (see {@link PostgresTable}). */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  return new PostgresTable(new PostgresStatements(t, opts));
}

/**
 * PostgreSQL's runner: the builder's, with one statement where PostgreSQL needs one (the lease
 * claim, the dead-letter move, a keyed publish of many messages, the counts of rows in work), a
 * publish of several statements run as it comes (a savepoint needs an open transaction), and the
 * server's refusal of a NUL character answered as an `EncodeError`.
 */
export class PostgresTable extends SqlTable<PostgresStatements> {
  /** The claim's statement orders its rows already (`ORDER BY` over the update's `RETURNING`). */
  override inClaimOrder(rows: Row[]): Row[] {
    return rows;
  }

  /** Runs an insert; a text or JSON value holding NUL is an `EncodeError` (`unstorable`). */
  async insertRows(conn: Connection, st: Statement): Promise<Row[]> {
    try {
      return await this.rows(conn, st);
    } catch (err) {
      throw unstorable(this.sql.t.table, err) ?? err;
    }
  }

  override async insertIds(conn: Connection, st: Statement): Promise<unknown[]> {
    return (await this.insertRows(conn, st)).map((r) => this.idOf(r));
  }

  /**
   * Inserts messages as multi-row `INSERT .. VALUES (..), (..) RETURNING id` statements, answering
   * the ids in message order (PostgreSQL returns the rows of `INSERT .. VALUES` in the order of
   * the list). Messages with a unique key go through {@link insertKeyed}.
   */
  override async insert(
    conn: Connection,
    messages: readonly Insert[],
    opts?: InsertOptions,
  ): Promise<unknown[]> {
    if (messages.length === 0) return [];
    const key = this.sql.t.uniqueKey;
    const wake = opts?.quiet !== true;
    if (key !== undefined && messages.some((m) => m.key !== undefined))
      return this.insertKeyed(conn, messages, key, wake);
    const ids: unknown[] = [];
    for (const st of this.sql.insert(messages, false, wake)) ids.push(...(await this.insertIds(conn, st)));
    return ids;
  }

  /**
   * Inserts messages some of which carry a unique key: `INSERT .. ON CONFLICT (key)
   * WHERE processed_at IS NULL DO NOTHING RETURNING id, key` per chunk, which the unique index
   * decides (the partial one where the table stamps settled rows), so racing publishers insert one
   * row. A keyed message that inserted nothing (its key held by an unsettled row, or by an earlier
   * message of this call) answers the holder's id, read by one more select of the keys that
   * conflicted. Where that holder was settled between the two statements, the messages go round
   * again.
   */
  async insertKeyed(
    conn: Connection,
    messages: readonly Insert[],
    key: string,
    wake = true,
  ): Promise<unknown[]> {
    const ids: unknown[] = new Array(messages.length).fill(undefined);
    for (let round = 0; round < 5; round++) {
      const todo = messages.map((m, i) => ({ m, i })).filter(({ i }) => ids[i] === undefined);
      if (todo.length === 0) return ids;
      const statements = this.sql.insert(
        todo.map(({ m }) => m),
        true,
        wake,
      );
      const found: Row[] = [];
      for (const st of statements) found.push(...(await this.insertRows(conn, st)));
      // RETURNING follows the VALUES lists, leaving out the rows that inserted nothing.
      const conflicts = new Set<string>();
      let r = 0;
      for (const { m, i } of todo) {
        const got = found[r];
        if (m.key === undefined || (got !== undefined && got[key] === m.key)) {
          ids[i] = got === undefined ? undefined : this.idOf(got);
          r++;
        } else conflicts.add(m.key);
      }
      if (conflicts.size === 0) return ids;
      const held = await this.rows(conn, this.sql.keyHolder([...conflicts]));
      const byKey = new Map(held.map((h) => [String(h[key]), this.idOf(h)]));
      for (const [i, m] of messages.entries()) {
        if (ids[i] === undefined && m.key !== undefined && byKey.has(m.key)) ids[i] = byKey.get(m.key);
      }
    }
    throw new Error(`table ${this.sql.t.table}: a unique key kept changing hands while it was published`);
  }

  /**
   * The counts with rows in work in every form, aggregated by the server in one statement
   * ({@link PostgresStatements.statsInWork}) instead of reading every due row.
   */
  override async statsInWork(conn: Connection, now: Date, base: QueueStats): Promise<QueueStats> {
    const t = this.sql.t;
    const r = (await this.rows(conn, this.sql.statsInWork(now)))[0] ?? {};
    let seen: QueueStats['inWorkSeen'] = t.form === 'lease' ? 'lease' : 'none';
    if (t.form === 'rowlock') seen = 'locks';
    else if (t.form === 'advisory' && t.lock === undefined) seen = 'keys';
    const inWork = t.form === 'lease' ? base.inWork : Math.max(0, Number(r.busy ?? 0));
    return this.withInWork(base, now, inWork, seen, timeOf(r.oldest));
  }
}

/**
 * The server's refusal of a character it cannot store, as an `EncodeError` that says so: text and
 * jsonb hold no NUL (U+0000; SQLSTATE 22021 for a text value, 22P05 for `\u0000` in JSON). Other
 * errors answer undefined. Nothing is stored: the INSERT failed as a whole.
 */
function unstorable(table: string, err: unknown): EncodeError | undefined {
  const e = err as { code?: unknown; message?: unknown; detail?: unknown };
  if (e.code !== '22021' && e.code !== '22P05') return undefined;
  const detail = typeof e.detail === 'string' ? ` (${e.detail})` : '';
  return new EncodeError(
    table,
    `PostgreSQL text and jsonb cannot hold the NUL character U+0000: ${String(e.message)}${detail}; store such messages in a bytes (bytea) payload`,
    err,
  );
}
