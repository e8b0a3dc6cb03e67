import type {
  Advisory,
  AnyTable,
  Candidate,
  Connection,
  Insert,
  PrepareOptions,
  QueueStats,
  Row,
  Settlement,
  TableOps,
} from '@sqlinbox/core';
import { noteLocked, noteUnlocked } from './session.js';
import type { Statement } from './sql.js';
import { AdminStatements, TableStatements } from './statements.js';

const run = (conn: Connection, st: Statement) => conn.query<Row>(st.sql, st.params);

/** The `result` column of a lock statement, as a number (`sp_getapplock` answers an int). */
const resultOf = (rows: Row[]): number => {
  const v = rows[0]?.result;
  return v === null || v === undefined ? Number.NaN : Number(v);
};

/** A count the driver returns as number, string (BIGINT) or bigint, as a number. */
const count = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/**
 * Id order as SQL Server sorts the ids the engine sees: numbers, bigints and the decimal strings
 * tedious returns for BIGINT compare by value; other strings as text.
 */
export function compareIds(a: unknown, b: unknown): number {
  const big = (v: unknown): bigint | undefined => {
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
    return undefined;
  };
  const x = big(a);
  const y = big(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  const s = String(a);
  const t = String(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

/** The statements of one SQL Server queue table, run on the engine's connections. */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  const s = new TableStatements(t, opts.deadLetter, opts.exclude);
  const id = t.id.column;
  const byId = (rows: Row[]) => rows.sort((a, b) => compareIds(a[id], b[id]));

  const advisory: Advisory = {
    async candidates(conn, n, now, own): Promise<Candidate[]> {
      if (n <= 0) return [];
      // A table with its own lock function: only its own keys are left out (R-ADV-10).
      const { rows } = await run(conn, s.candidates(n, now, own, t.lock === undefined));
      return rows.map((r) => ({ id: r.id, key: String(r.key) }));
    },
    async lock(conn, key) {
      const taken = resultOf((await run(conn, s.lock(key))).rows) >= 0;
      if (taken) noteLocked(conn, key);
      return taken;
    },
    async unlock(conn, key) {
      const released = resultOf((await run(conn, s.unlock(key))).rows) >= 0;
      // Released, or this session did not hold it: either way it holds it no more.
      noteUnlocked(conn, key);
      return released;
    },
    async take(conn, rowId, now) {
      return (await run(conn, s.take(rowId, now))).rows[0] ?? null;
    },
  };

  return {
    /**
     * The locking select, then (FIFO) the guard of each claimed head's group. A head whose guard
     * another transaction holds is left out; its row lock stays with this transaction until it
     * ends, which for the engine's one-row claims is at once (an empty claim rolls back).
     */
    async claimLocked(conn, n, now) {
      if (n <= 0) return [];
      const rows = (await run(conn, s.claimLocked(n, now))).rows;
      const group = t.group;
      if (group === undefined) return rows;
      const kept: Row[] = [];
      for (const row of rows) {
        const g = row[group];
        if (g === null || g === undefined) {
          kept.push(row);
          continue;
        }
        if (resultOf((await run(conn, s.fifoGuard(String(g)))).rows) >= 0) kept.push(row);
      }
      return kept;
    },

    async claimLease(conn, n, now, expiry) {
      if (n <= 0) return [];
      // OUTPUT returns rows in no particular order; the engine hands them out in claim order.
      return byId((await run(conn, s.claimLease(n, now, expiry))).rows);
    },

    async extendLeases(conn, leases, expiry) {
      const moved: unknown[] = [];
      for (const st of s.extendLeases(leases, expiry)) {
        for (const row of (await run(conn, st)).rows) moved.push(row.sqlinbox_id);
      }
      return moved;
    },

    advisory,

    async settle(conn, st: Settlement) {
      return (await run(conn, s.settle(st))).rowCount;
    },

    insert: (conn, messages) => insertAll(conn, t, s, messages),

    async stats(conn, now, statsOpts = {}): Promise<QueueStats> {
      const row = (await run(conn, s.stats(now))).rows[0] ?? {};
      const base = {
        ready: count(row.ready),
        delayed: count(row.delayed),
        inWork: count(row.in_work),
        dead: count(row.dead),
      };
      return statsOpts.inWork === true
        ? statsInWork(conn, t, new AdminStatements(t, opts.deadLetter), base, now)
        : base;
    },

    ...adminOps(new AdminStatements(t, opts.deadLetter)),
  };
}

/**
 * Inserts, answering ids in message order. Several statements (past the parameter limit) run in
 * one transaction: a savepoint inside the caller's transaction, else one of their own.
 */
async function insertAll(
  conn: Connection,
  t: AnyTable,
  s: TableStatements,
  messages: readonly Insert[],
): Promise<unknown[]> {
  if (messages.length === 0) return [];
  const statements = s.insert(messages);
  const ids: unknown[] = [];
  const runAll = async () => {
    for (const st of statements) {
      const rows = (await run(conn, st)).rows.map((r) => r.sqlinbox_id);
      // IDENTITY values follow the statement's ORDER BY; OUTPUT rows come in no order.
      ids.push(...rows.sort(compareIds));
    }
  };
  if (statements.length === 1) await runAll();
  else await atomically(conn, runAll);
  if (!t.id.generated) return messages.map((m) => m.columns?.[t.id.column]);
  return ids;
}

async function atomically(conn: Connection, body: () => Promise<void>): Promise<void> {
  const open = count((await conn.query<Row>('SELECT @@TRANCOUNT AS [n]')).rows[0]?.n) > 0;
  await conn.query(open ? 'SAVE TRANSACTION sqlinbox_insert' : 'BEGIN TRANSACTION');
  try {
    await body();
  } catch (err) {
    await conn
      .query(open ? 'ROLLBACK TRANSACTION sqlinbox_insert' : 'IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION')
      .catch(() => undefined);
    throw err;
  }
  if (!open) await conn.query('COMMIT TRANSACTION');
}

// ---------------------------------------------------------------------------------------------
// Admin (R-ADM-1, R-ADM-2, R-ADM-3)

/**
 * The counts with rows in work: leases; in the row lock form the due rows an `UPDLOCK, READPAST`
 * read passes over (in a transaction rolled back at once); in the advisory form the due rows whose
 * key `APPLOCK_TEST` says another session holds (a table with its own lock functions: not seen).
 */
async function statsInWork(
  conn: Connection,
  t: AnyTable,
  a: AdminStatements,
  base: QueueStats,
  now: Date,
): Promise<QueueStats> {
  const rowlock = t.form === 'rowlock';
  if (rowlock) await conn.query('BEGIN TRANSACTION');
  let row: Row;
  try {
    row = (await run(conn, a.inWork(now))).rows[0] ?? {};
  } finally {
    if (rowlock) await conn.query('IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION');
  }
  const seen: QueueStats['inWorkSeen'] =
    t.form === 'lease' ? 'lease' : rowlock ? 'locks' : t.lock === undefined ? 'keys' : 'none';
  const inWork = t.form === 'lease' ? base.inWork : Math.max(0, count(row.busy));
  const oldest = row.oldest instanceof Date ? row.oldest : null;
  return {
    ...base,
    ready: t.form === 'lease' ? base.ready : Math.max(0, base.ready - inWork),
    inWork,
    inWorkSeen: seen,
    oldestReadyAgeMs: oldest === null ? null : Math.max(0, now.getTime() - oldest.getTime()),
  };
}

/** The admin members of the table's statements; changes run in the caller's transaction. */
function adminOps(a: AdminStatements): Partial<TableOps> {
  return {
    async list(conn, q) {
      return (await run(conn, a.list(q))).rows;
    },
    async pick(conn, q) {
      const st = a.pick(q);
      return st === null ? [] : (await run(conn, st)).rows;
    },
    async requeue(conn, ids, opts) {
      for (const st of a.requeue(ids, opts.toGroup)) await run(conn, st);
      return [...ids];
    },
    async remove(conn, ids, opts) {
      await run(conn, a.remove(ids, opts.dead));
      return [...ids];
    },
    async reschedule(conn, ids, at) {
      const st = a.reschedule(ids, at);
      if (st !== null) await run(conn, st);
      return [...ids];
    },
  };
}
