import { createHash } from 'node:crypto';
import { Admin } from './admin.js';
import type { AnyTable } from './description.js';
import type { Adapter, AdminOps, DdlOptions, TableOps } from './dialect.js';
import type { Connection } from './driver.js';
import { ConfigError, SqlInboxError } from './errors.js';
import { inbox } from './inbox.js';

/** One table `migrate` creates or brings up to date, with the tables beside it. */
export interface MigrationTarget extends DdlOptions {
  /** The queue table's description. */
  readonly table: AnyTable;
}

/** One table's migration: the dialect's DDL for it, and the version that text is. */
export interface MigrationStep {
  /** The queue table. */
  readonly table: string;
  /** The version: a number made from the table's name and its DDL, so a changed description is a new one. */
  readonly version: number;
  /** The statements, as the dialect's `ddl()` prints them (each creates only what is missing). */
  readonly statements: readonly string[];
  /** Whether the version was recorded before this run (a dry run applies nothing either way). */
  readonly recorded: boolean;
}

/** What {@link migrate} answers. */
export interface MigrationReport {
  /** The table of applied migrations, as it is created where missing. */
  readonly setup: readonly string[];
  /** Each table, in the order given. */
  readonly steps: readonly MigrationStep[];
  /** Whether this was a dry run: nothing was run or recorded. */
  readonly dryRun: boolean;
}

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Print nothing, run nothing: answer the statements and which versions are not recorded yet. Default false. */
  readonly dryRun?: boolean;
  /** How long to wait for another process's migration to finish, in ms. Default 60,000. */
  readonly lockTimeoutMs?: number;
}

/** The name of the table of applied migrations. */
export const MIGRATIONS_TABLE = 'sqlinbox_migrations';

/**
 * The table of applied migrations, described as sqlinbox describes any table, so every dialect
 * prints its DDL, inserts its rows and takes its lock: one row per version, the DDL it ran as its
 * payload, the migrated table beside it; its advisory key is the lock of migrations.
 */
const migrations = inbox({
  table: MIGRATIONS_TABLE,
  id: { column: 'version', generated: false },
  payload: { column: 'statements', type: 'text' },
  advisory: 'sqlinbox-migrate-{target}',
  columns: ['target'],
});

/** A version: the first 52 bits of the SHA-256 of the table's name and its statements. */
function versionOf(table: string, statements: readonly string[]): number {
  const hex = createHash('sha256')
    .update(`${table}\n${statements.join(';\n')}`)
    .digest('hex');
  return Number.parseInt(hex.slice(0, 13), 16);
}

/**
 * Creates the tables a set of descriptions needs, or brings them up to date, and records what ran:
 * the queue table and its indexes, its dead-letter table and the schedules' tick table where asked,
 * and the table of applied migrations (`sqlinbox_migrations`). Each table's DDL is the dialect's
 * `ddl()`, whose statements create only what is missing, so a run after a description changed adds
 * its new tables and indexes, and a run with nothing new changes nothing. A column a description
 * gained is added to the queue table (and its dead-letter table) that exists, nullable or with its
 * default; on SQLite the insert time (whose default is the clock) cannot be, and the run stops
 * with a `ConfigError` naming it. The id and the payload are never added.
 *
 * Two processes migrating at once are safe: one holds the migrations' lock while it runs (the
 * database's own lock: an advisory lock where the database has several connections, the file's write
 * lock on SQLite) and the other waits for it, then finds the versions recorded. `dryRun` answers
 * the statements and which versions are not recorded, and runs nothing.
 */
export async function migrate(
  adapter: Adapter,
  targets: readonly MigrationTarget[],
  opts: MigrateOptions = {},
): Promise<MigrationReport> {
  const { dialect, pool } = adapter;
  const setup = dialect.ddl(migrations);
  const admin = new Admin(adapter);
  const recorded = async (version: number) =>
    // Before the first run the table is missing: nothing is recorded.
    (await admin.get(migrations, version).catch(() => null)) !== null;
  // The statements of a target against the tables as they are now: the columns a table that
  // exists lacks are added after its CREATE TABLE.
  const statementsOn = async (conn: Connection, { table, ...ddl }: MigrationTarget) => {
    const columns = async (name: string | undefined) =>
      name === undefined ? null : ((await dialect.describeTable(conn, name))?.map((c) => c.name) ?? null);
    const existingColumns = {
      table: await columns(table.table),
      deadLetter: await columns(ddl.deadLetterTable),
    };
    return dialect.ddl(table, { ...ddl, existingColumns });
  };
  const steps: MigrationStep[] = [];
  for (const { table, ...ddl } of targets) {
    // The version is the description's DDL, whatever the tables hold now.
    const statements = dialect.ddl(table, ddl);
    const version = versionOf(table.table, statements);
    steps.push({ table: table.table, version, statements, recorded: await recorded(version) });
  }
  if (opts.dryRun) {
    const conn = await pool.acquire();
    try {
      const now: MigrationStep[] = [];
      for (const [i, step] of steps.entries())
        now.push({ ...step, statements: await statementsOn(conn, targets[i]!) });
      return { setup, steps: now, dryRun: true };
    } finally {
      pool.release(conn);
    }
  }

  const conn = await pool.acquire();
  const ops = dialect.prepare(migrations);
  const oneWriter = !dialect.capabilities.multipleConnections;
  let ok = false;
  try {
    await lock(conn, opts.lockTimeoutMs ?? 60_000, async () => {
      if (oneWriter) {
        // SQLite: the write transaction is the lock, across processes too; its DDL commits with it.
        await dialect.begin(conn, { mode: 'immediate' });
        return true;
      }
      return ops.advisory.lock(conn, 'sqlinbox-migrate');
    });
    for (const statement of setup) await conn.query(statement);
    const done: MigrationStep[] = [];
    // Read on the lock's own connection: another one from the pool would wait forever where the
    // pool has one connection (and on SQLite could not see this transaction's records).
    const recordedHere = async (version: number) =>
      (await need(ops).list(conn, { state: 'all', ids: [version], limit: 1, now: new Date() })).length > 0;
    for (const [i, planned] of steps.entries()) {
      // Read under the lock: no other migration adds a column between this read and the ALTER.
      const step = { ...planned, statements: await statementsOn(conn, targets[i]!) };
      for (const statement of step.statements) await conn.query(statement);
      // Under the lock no other process records a version: what another run recorded is seen here.
      const before = step.recorded || (await recordedHere(step.version));
      if (!before) {
        await ops.insert(conn, [
          { payload: step.statements.join(';\n'), columns: { version: step.version, target: step.table } },
        ]);
      }
      done.push({ ...step, recorded: before });
    }
    ok = true;
    return { setup, steps: done, dryRun: false };
  } finally {
    try {
      if (oneWriter) await (ok ? dialect.commit(conn) : dialect.rollback(conn)).catch(() => undefined);
      else await ops.advisory.unlock(conn, 'sqlinbox-migrate').catch(() => undefined);
    } finally {
      pool.release(conn);
    }
  }
}

/** The admin statements, which read the recorded versions. */
function need(ops: TableOps): AdminOps {
  if (ops.admin === undefined) {
    throw new ConfigError(
      'migrate reads the recorded versions through the admin statements, which the dialect lacks',
      {
        table: MIGRATIONS_TABLE,
        fix: 'use a dialect that implements the admin feature of TableOps',
      },
    );
  }
  return ops.admin;
}

/** Takes the migrations' lock, trying again every 100 ms while another process holds it. */
async function lock(conn: Connection, timeoutMs: number, take: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let taken = false;
    let busy: unknown;
    try {
      taken = await take();
    } catch (err) {
      busy = err; // SQLite's SQLITE_BUSY while another process writes: try again
    }
    if (taken) return;
    if (Date.now() > deadline) {
      throw new SqlInboxError(
        'MIGRATE_LOCK',
        `another migration held the migrations' lock for ${timeoutMs} ms (connection ${conn.id})`,
        { table: MIGRATIONS_TABLE, cause: busy },
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
