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
import { ConfigError } from '@sqlinbox/core';
import { fileOf, SqliteConnection } from './driver.js';
import type { Statement } from './sql.js';
import * as sql from './statements.js';

const run = (conn: Connection, st: Statement) => conn.query(st.sql, st.params);

/** The statements of one SQLite queue table (lease and advisory forms). */
export function prepareTable(t: AnyTable, opts: PrepareOptions = {}): TableOps {
  const dead = opts.deadLetter;
  const scope: sql.Scope = {
    deadGroup: dead !== undefined && 'group' in dead ? dead.group : undefined,
    exclude: opts.exclude,
  };
  const deadTable = dead !== undefined && 'table' in dead ? dead.table : undefined;
  const id = t.id.column;

  return {
    async claimLocked(): Promise<Row[]> {
      throw new ConfigError('SQLite has no row locks, so the row lock form is unavailable (R-ROW-6)', {
        table: t.table,
        fix: 'describe a lease column or an advisory key',
      });
    },

    async claimLease(conn, n, now, expiry) {
      if (n <= 0) return [];
      const { rows } = await run(conn, sql.claimLease(t, scope, n, now, expiry));
      // RETURNING gives no order; the engine hands rows out in claim order.
      return rows.sort((a, b) => compareIds(a[id], b[id]));
    },

    async extendLeases(conn, leases, expiry) {
      const moved: unknown[] = [];
      for (const st of sql.extendLeases(t, leases, expiry)) {
        for (const row of (await run(conn, st)).rows) moved.push(row[id]);
      }
      return moved;
    },

    async settleMany(conn, settlements) {
      const changed: unknown[] = [];
      for (const st of sql.settleMany(t, settlements)) {
        for (const row of (await run(conn, st)).rows) changed.push(row[id]);
      }
      return changed;
    },

    advisory: advisory(t, scope),

    async settle(conn, s) {
      if (s.kind === 'deadLetter' && 'table' in s.target) return moveToDeadLetter(conn, t, s, s.target.table);
      return (await run(conn, sql.settle(t, s))).rowCount;
    },

    insert: (conn, messages) => insertAll(conn, t, messages),

    async stats(conn, now, opts = {}): Promise<QueueStats> {
      const row = (await run(conn, sql.stats(t, scope, deadTable, now))).rows[0] ?? {};
      const base = {
        ready: Number(row.ready ?? 0),
        delayed: Number(row.delayed ?? 0),
        inWork: Number(row.in_work ?? 0),
        dead: Number(row.dead ?? 0),
      };
      return opts.inWork === true ? statsInWork(conn, t, scope, base, now) : base;
    },
    ...adminOps(t, scope, deadTable),
  };
}

/**
 * The advisory form on SQLite: keys live in a registry of this process, by database file and key,
 * since SQLite has no lock a session holds (one process per file, R-DB-3).
 */
function advisory(t: AnyTable, scope: sql.Scope): Advisory {
  return {
    async candidates(conn, n, now, own): Promise<Candidate[]> {
      if (n <= 0) return [];
      const { rows } = await run(conn, sql.candidates(t, scope, n, now, own));
      return rows.map((r) => ({ id: r.id, key: String(r.key) }));
    },
    async lock(conn, key) {
      return fileOf(openConnection(conn)).keys.lock(conn.id, key);
    },
    async unlock(conn, key) {
      return fileOf(conn).keys.unlock(conn.id, key);
    },
    async take(conn, rowId, now) {
      return (await run(conn, sql.take(t, scope, rowId, now))).rows[0] ?? null;
    },
  };
}

/** A closed handle's keys are already gone; a key taken on it would never be released. */
function openConnection(conn: Connection): Connection {
  if (conn instanceof SqliteConnection && !conn.open) {
    throw new TypeError(`sqlinbox: connection ${conn.id}: The database connection is not open`);
  }
  return conn;
}

/** R-DLQ-2: copy then delete, in a transaction of its own unless the caller has one open. */
async function moveToDeadLetter(
  conn: Connection,
  t: AnyTable,
  s: Settlement,
  deadTable: string,
): Promise<number> {
  const [copy, remove] = sql.moveToDeadLetter(t, deadTable, s.id, s.token);
  if (s.kind === 'deadLetter' && s.inTransaction) {
    await run(conn, copy);
    return (await run(conn, remove)).rowCount;
  }
  // IMMEDIATE takes the write lock at BEGIN, so the copy never has to upgrade a read lock.
  await conn.query('BEGIN IMMEDIATE');
  try {
    await run(conn, copy);
    const moved = (await run(conn, remove)).rowCount;
    await conn.query('COMMIT');
    return moved;
  } catch (err) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Inserts, answering ids in message order. Several statements (past the parameter limit) run under
 * a savepoint, which nests in a caller's transaction and opens one where none is open.
 */
async function insertAll(conn: Connection, t: AnyTable, messages: readonly Insert[]): Promise<unknown[]> {
  if (messages.length === 0) return [];
  const statements = sql.insert(t, messages);
  const returned: unknown[] = [];
  const runAll = async () => {
    for (const st of statements) returned.push(...idsOf(t, (await run(conn, st)).rows));
  };
  if (statements.length === 1) await runAll();
  else await inSavepoint(conn, runAll);
  const given = messages.map((m) => m.columns?.[t.id.column]);
  // Given ids are known already (RETURNING promises no order); generated ones ascend in insert order.
  return !t.id.generated && given.every((v) => v !== undefined) ? given : returned;
}

function idsOf(t: AnyTable, rows: Row[]): unknown[] {
  return rows.map((r) => r[t.id.column]).sort(compareIds);
}

async function inSavepoint(conn: Connection, body: () => Promise<void>): Promise<void> {
  await conn.query('SAVEPOINT sqlinbox_insert');
  try {
    await body();
  } catch (err) {
    await conn.query('ROLLBACK TO sqlinbox_insert').catch(() => undefined);
    await conn.query('RELEASE sqlinbox_insert').catch(() => undefined);
    throw err;
  }
  await conn.query('RELEASE sqlinbox_insert');
}

/** Id order as SQLite sorts them where it matters: numbers by value, text by text. */
function compareIds(a: unknown, b: unknown): number {
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'bigint';
  if ((numeric(a) && numeric(b)) || (typeof a === 'string' && typeof b === 'string')) {
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Admin (R-ADM-1, R-ADM-2, R-ADM-3)

/** Most ids in one admin statement: under SQLite's bound-value limit. */
const ADMIN_CHUNK = 5_000;

async function chunked(
  ids: readonly unknown[],
  body: (part: readonly unknown[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < ids.length; i += ADMIN_CHUNK) await body(ids.slice(i, i + ADMIN_CHUNK));
}

/**
 * The counts with rows in work: leases running at `now`; in the advisory form the due rows whose
 * key a connection of this process holds (keys live in the process, so another process's are not
 * seen; a table with its own lock functions: not seen). And the oldest ready row's `retry_after`.
 */
async function statsInWork(
  conn: Connection,
  t: AnyTable,
  scope: sql.Scope,
  base: QueueStats,
  now: Date,
): Promise<QueueStats> {
  const due = (await run(conn, sql.adminDue(t, scope, now))).rows;
  let oldest: number | null = null;
  for (const r of due) {
    const at = r.due_at == null ? null : Number(r.due_at);
    if (at !== null && (oldest === null || at < oldest)) oldest = at;
  }
  const seesKeys = t.form === 'advisory' && t.lock === undefined;
  const keys = seesKeys ? fileOf(conn).keys : undefined;
  const inWork = keys === undefined ? base.inWork : due.filter((r) => keys.held(String(r.key))).length;
  return {
    ...base,
    ready: t.form === 'advisory' ? Math.max(0, base.ready - inWork) : base.ready,
    inWork,
    inWorkSeen: t.form === 'lease' ? 'lease' : seesKeys ? 'keys' : 'none',
    oldestReadyAgeMs: oldest === null ? null : Math.max(0, now.getTime() - oldest),
  };
}

/** The admin members of the table's statements; the caller holds a `BEGIN IMMEDIATE` for changes. */
function adminOps(t: AnyTable, scope: sql.Scope, deadTable: string | undefined): Partial<TableOps> {
  return {
    async list(conn, q) {
      return (await run(conn, sql.adminList(t, scope, deadTable, q))).rows;
    },
    async pick(conn, q) {
      if (q.ids !== undefined && q.ids.length === 0) return [];
      const found: Row[] = [];
      const parts =
        q.ids === undefined
          ? [undefined]
          : Array.from({ length: Math.ceil(q.ids.length / ADMIN_CHUNK) }, (_, i) =>
              q.ids!.slice(i * ADMIN_CHUNK, (i + 1) * ADMIN_CHUNK),
            );
      for (const ids of parts) {
        const st = sql.adminPick(t, scope, deadTable, { ...q, ids });
        if (st !== null) found.push(...(await run(conn, st)).rows);
      }
      return found;
    },
    async requeue(conn, ids, opts) {
      await chunked(ids, async (part) => {
        if (deadTable !== undefined) {
          await run(conn, sql.adminCopyBack(t, deadTable, part));
          await run(conn, sql.adminRemove(t, deadTable, part));
        }
        const group = deadTable !== undefined && opts.toGroup === null ? undefined : { value: opts.toGroup };
        const reset = sql.adminFresh(t, part, group);
        if (reset !== null) await run(conn, reset);
      });
      return [...ids];
    },
    async remove(conn, ids, opts) {
      const from = opts.dead && deadTable !== undefined ? deadTable : t.table;
      await chunked(ids, async (part) => {
        await run(conn, sql.adminRemove(t, from, part));
      });
      return [...ids];
    },
    async reschedule(conn, ids, at) {
      await chunked(ids, async (part) => {
        await run(conn, sql.adminReschedule(t, part, at));
      });
      return [...ids];
    },
  };
}
