import { DatabaseSync } from 'node:sqlite';
import { ConfigError, inbox, ServerTooOldError, SqlInboxError, table } from '@sqlinbox/core';
import { compareVersions } from '@sqlinbox/sql';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { classifyError } from '../src/classify.js';
import { kindOf } from '../src/describe.js';
import { createSqliteDialect, sqliteDialect } from '../src/dialect.js';
import { sqlite } from '../src/index.js';
import { type TestDb, tempDb } from './helpers.js';

let db: TestDb;
beforeEach(() => {
  db = tempDb();
});
afterEach(async () => {
  await db.cleanup();
});

describe('classifyError', () => {
  const sqliteError = (code: string) => new Database.SqliteError('boom', code);

  test('SQLITE_BUSY is lock_timeout', () =>
    expect(classifyError(sqliteError('SQLITE_BUSY'))).toBe('lock_timeout'));
  test('SQLITE_BUSY_SNAPSHOT is lock_timeout', () =>
    expect(classifyError(sqliteError('SQLITE_BUSY_SNAPSHOT'))).toBe('lock_timeout'));
  test('SQLITE_BUSY_TIMEOUT is lock_timeout', () =>
    expect(classifyError(sqliteError('SQLITE_BUSY_TIMEOUT'))).toBe('lock_timeout'));
  test('SQLITE_LOCKED is lock_timeout', () =>
    expect(classifyError(sqliteError('SQLITE_LOCKED'))).toBe('lock_timeout'));
  test('SQLITE_LOCKED_SHAREDCACHE is lock_timeout', () =>
    expect(classifyError(sqliteError('SQLITE_LOCKED_SHAREDCACHE'))).toBe('lock_timeout'));
  test('SQLITE_CONSTRAINT is constraint', () =>
    expect(classifyError(sqliteError('SQLITE_CONSTRAINT'))).toBe('constraint'));
  test('SQLITE_CONSTRAINT_UNIQUE is constraint', () =>
    expect(classifyError(sqliteError('SQLITE_CONSTRAINT_UNIQUE'))).toBe('constraint'));
  test('SQLITE_CONSTRAINT_NOTNULL is constraint', () =>
    expect(classifyError(sqliteError('SQLITE_CONSTRAINT_NOTNULL'))).toBe('constraint'));
  test('SQLITE_ERROR, SQLITE_IOERR and SQLITE_FULL are other', () => {
    for (const code of ['SQLITE_ERROR', 'SQLITE_IOERR_WRITE', 'SQLITE_FULL']) {
      expect(classifyError(sqliteError(code))).toBe('other');
    }
  });
  test('a statement on a closed handle is connection', () => {
    const raw = new Database(':memory:');
    raw.close();
    const err = (() => {
      try {
        raw.prepare('SELECT 1');
      } catch (e) {
        return e;
      }
    })();
    expect(classifyError(err)).toBe('connection');
  });
  test('a wrapped driver error is classified by its cause; a non-SQLite code is not read as one', () => {
    const wrapped = new SqlInboxError('SETTLEMENT', 'settlement failed', {
      cause: sqliteError('SQLITE_BUSY'),
    });
    expect(classifyError(wrapped)).toBe('lock_timeout');
    expect(classifyError(new SqlInboxError('SETTLEMENT', 'no cause'))).toBe('other');
    expect(classifyError('a string')).toBe('other');
    expect(classifyError(undefined)).toBe('other');
  });
  test('a statement on a closed node:sqlite handle is connection', async () => {
    const conn = await db.pool.acquire();
    await db.pool.destroy(conn);
    const err = await conn.query('SELECT 1').catch((e: unknown) => e);
    expect(classifyError(err)).toBe('connection');
  });
  // Each driver reports SQLite's code its own way: better-sqlite3 as `code` (SQLITE_BUSY),
  // node:sqlite as the number `errcode` (5) under `code` ERR_SQLITE_ERROR.
  describe.each([
    ['node:sqlite', undefined],
    ['better-sqlite3', Database],
  ] as const)('on %s', (_name, driver) => {
    let own: TestDb;
    beforeEach(() => {
      own = tempDb(driver === undefined ? {} : { driver });
    });
    afterEach(async () => {
      await own.cleanup();
    });
    test('a real duplicate key from SQLite is constraint', async () => {
      await own.exec('CREATE TABLE u (id INTEGER PRIMARY KEY)');
      await own.exec('INSERT INTO u VALUES (1)');
      const err = await own.exec('INSERT INTO u VALUES (1)').catch((e: unknown) => e);
      expect(String(err)).toMatch(/UNIQUE constraint failed/);
      expect(classifyError(err)).toBe('constraint');
    });
    test("a real SQLITE_BUSY from another process's lock, held past writeWaitMs, is lock_timeout", async () => {
      await own.cleanup();
      own = tempDb({ ...(driver === undefined ? {} : { driver }), writeWaitMs: 250 });
      await own.exec('CREATE TABLE u (id INTEGER PRIMARY KEY)');
      // A handle outside the pool stands for another process: the in-process lock cannot see it.
      // It is of the same driver: two copies of SQLite in one process do not see each other's locks.
      const outsider = new (driver ?? DatabaseSync)(own.file);
      outsider.exec('BEGIN IMMEDIATE');
      const err = await own.exec('INSERT INTO u VALUES (2)').catch((e: unknown) => e);
      outsider.exec('ROLLBACK');
      outsider.close();
      expect(String(err)).toMatch(/database is locked/);
      expect(classifyError(err)).toBe('lock_timeout');
    });
  });
});

describe('capabilities', () => {
  test('R-ROW-6 lease and advisory forms only; modes, not isolation levels (R-TX-6)', () => {
    expect(sqliteDialect.name).toBe('sqlite');
    expect(sqliteDialect.capabilities).toMatchObject({
      forms: ['lease', 'advisory'],
      isolationLevels: [],
      transactionModes: ['deferred', 'immediate', 'exclusive'],
      multipleConnections: false,
      fifoGuard: false,
      oneClaimAtATime: true,
      claimAhead: true,
      timeKinds: ['integer'],
      transactional: true,
    });
  });

  test('R-ROW-6 claimLocked refuses with a ConfigError naming the table', async () => {
    const t = table('jobs', 'id', { generated: true }).payload('payload').build();
    const ops = sqliteDialect.prepare(t);
    const err = await db.withConn((c) => ops.claimLocked(c, 1, new Date())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/jobs.*row lock form is unavailable/);
  });
});

describe('checkServer', () => {
  test('R-DB-1 reads sqlite_version() and passes at or above 3.35.0', async () => {
    const { version } = await db.withConn((c) => sqliteDialect.checkServer(c));
    expect(version).toMatch(/^3\.\d+\.\d+$/);
    expect(compareVersions(version, '3.35.0')).toBeGreaterThanOrEqual(0);
  });

  test("R-DB-1 ServerTooOldError with serverVersion: '3.30.0', naming the version and the floor", async () => {
    const adapter = sqlite(db.file, { serverVersion: '3.30.0' });
    const conn = await adapter.pool.acquire();
    const err = await adapter.dialect.checkServer(conn).catch((e: unknown) => e);
    adapter.pool.release(conn);
    await adapter.close();
    expect(err).toBeInstanceOf(ServerTooOldError);
    expect(err).toMatchObject({ code: 'SERVER_TOO_OLD', found: '3.30.0', floor: '3.35.0' });
  });

  test('R-DB-1 the floor itself passes; versions compare by number, not text', async () => {
    const dialect = createSqliteDialect({ serverVersion: '3.35.0' });
    expect(await db.withConn((c) => dialect.checkServer(c))).toEqual({ version: '3.35.0' });
    expect(compareVersions('3.9.0', '3.35.0')).toBe(-1);
    expect(compareVersions('3.35', '3.35.0')).toBe(0);
    expect(compareVersions('3.45.1', '3.35.0')).toBe(1);
  });
});

describe('describeTable', () => {
  test('R-DESC-8 kinds from declared types, nullability and defaults; null for a missing table', async () => {
    await db.exec(
      `CREATE TABLE d (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, body BLOB, doc JSON, attempt INTEGER NOT NULL DEFAULT 1,
         at DATETIME, name VARCHAR(20), price REAL, anything)`,
    );
    const cols = await db.withConn((c) => sqliteDialect.describeTable(c, 'd'));
    expect(cols).toEqual([
      { name: 'id', type: 'INTEGER', kind: 'integer', nullable: false, hasDefault: true },
      { name: 'payload', type: 'TEXT', kind: 'text', nullable: false, hasDefault: false },
      { name: 'body', type: 'BLOB', kind: 'bytes', nullable: true, hasDefault: false },
      { name: 'doc', type: 'JSON', kind: 'json', nullable: true, hasDefault: false },
      { name: 'attempt', type: 'INTEGER', kind: 'integer', nullable: false, hasDefault: true },
      { name: 'at', type: 'DATETIME', kind: 'timestamp', nullable: true, hasDefault: false },
      { name: 'name', type: 'VARCHAR(20)', kind: 'text', nullable: true, hasDefault: false },
      { name: 'price', type: 'REAL', kind: 'other', nullable: true, hasDefault: false },
      { name: 'anything', type: '', kind: 'other', nullable: true, hasDefault: false },
    ]);
    expect(await db.withConn((c) => sqliteDialect.describeTable(c, 'nope'))).toBeNull();
  });

  test('a schema-qualified name reads that schema', async () => {
    await db.exec('CREATE TABLE q (id INTEGER PRIMARY KEY)');
    const cols = await db.withConn((c) => sqliteDialect.describeTable(c, 'main.q'));
    expect(cols?.map((c) => c.name)).toEqual(['id']);
    expect(await db.withConn((c) => sqliteDialect.describeTable(c, 'temp.q'))).toBeNull();
  });

  test('kindOf follows SQLite affinity (INT anywhere is integer)', () => {
    expect(kindOf('BIGINT')).toBe('integer');
    expect(kindOf('int8')).toBe('integer');
    expect(kindOf('NVARCHAR(10)')).toBe('text');
    expect(kindOf('CLOB')).toBe('text');
    expect(kindOf('JSONB')).toBe('json');
    expect(kindOf('TIMESTAMP')).toBe('timestamp');
    expect(kindOf('NUMERIC')).toBe('other');
  });
});

describe('ddl', () => {
  test('R-PLUS-2 a lease table with every role, its indexes and a dead-letter table execute cleanly', async () => {
    const t = inbox({
      table: 'jobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      retryAfter: 'retry_after',
      processedAt: 'processed_at',
      group: 'group',
      partitionKey: 'partition_key',
      columns: ['tenant'],
    });
    const ddl = sqliteDialect.ddl(t, { deadLetterTable: 'jobs_dead' });
    expect(ddl.every((s) => !s.trimEnd().endsWith(';'))).toBe(true);
    expect(ddl).toHaveLength(4);
    for (const statement of ddl) await db.exec(statement);
    // Idempotent: a second run changes nothing.
    for (const statement of ddl) await db.exec(statement);

    const cols = await db.withConn((c) => sqliteDialect.describeTable(c, 'jobs'));
    expect(Object.fromEntries(cols!.map((c) => [c.name, c.kind]))).toEqual({
      id: 'integer',
      payload: 'text',
      attempt: 'integer',
      locked_until: 'integer',
      retry_after: 'integer',
      processed_at: 'integer',
      group: 'text',
      partition_key: 'text',
      tenant: 'text',
    });
    const dead = await db.withConn((c) => sqliteDialect.describeTable(c, 'jobs_dead'));
    expect(dead!.map((c) => c.name)).toEqual(cols!.map((c) => c.name));
    const indexes = await db.exec(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'",
    );
    expect(indexes.map((i) => i.name).sort()).toEqual(['jobs_due', 'jobs_group_head']);
    expect(String(indexes.find((i) => i.name === 'jobs_due')!.sql)).toMatch(/WHERE "processed_at" IS NULL$/);
  });

  test('R-PLUS-2 an advisory table with a bytes payload and a schema-qualified name', async () => {
    const t = table('main.acct_jobs', 'job_id')
      .advisory([{ literal: 'acct-' }, { column: 'account' }])
      .payload('body', 'bytes')
      .attempt('attempt', { generated: true })
      .build();
    const ddl = sqliteDialect.ddl(t);
    for (const statement of ddl) await db.exec(statement);
    const cols = await db.withConn((c) => sqliteDialect.describeTable(c, 'acct_jobs'));
    expect(cols!.map((c) => [c.name, c.type])).toEqual([
      ['job_id', 'INTEGER'],
      ['body', 'BLOB'],
      ['attempt', 'INTEGER'],
      ['account', 'TEXT'],
    ]);
    expect(ddl.some((s) => s.includes('CREATE INDEX'))).toBe(false);
  });
});

describe('per-key concurrency', () => {
  test('R-FLOW-3 ddl prints the key column (TEXT) and a (key, lease) index, partial on unsettled rows; it executes', async () => {
    const t = inbox({
      table: 'jobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      lease: 'locked_until',
      processedAt: 'processed_at',
      concurrency: { key: 'account', limit: 2 },
    });
    const ddl = sqliteDialect.ddl(t);
    expect(ddl).toContain(
      'CREATE INDEX IF NOT EXISTS "jobs_concurrency" ON "jobs" ("account", "locked_until") WHERE "processed_at" IS NULL',
    );
    for (const statement of ddl) await db.exec(statement);
    const cols = await db.withConn((c) => sqliteDialect.describeTable(c, 'jobs'));
    expect(cols!.find((c) => c.name === 'account')?.kind).toBe('text');
  });

  test('R-FLOW-3 the statements hold per-key concurrency in the lease form', () => {
    const limited = inbox({
      table: 'jobs',
      id: 'id',
      payload: 'payload',
      lease: 'locked_until',
      concurrency: { key: 'k', limit: 2 },
    });
    expect(sqliteDialect.prepare(limited).concurrency?.forms).toEqual(['lease']);
  });
});

describe('transactions', () => {
  test('R-TX-6 begin is DEFERRED by default and takes IMMEDIATE and EXCLUSIVE', async () => {
    await db.exec('CREATE TABLE t (v INTEGER)');
    for (const mode of [undefined, 'deferred', 'immediate', 'exclusive'] as const) {
      await db.withConn(async (c) => {
        await sqliteDialect.begin(c, { mode });
        await c.query('INSERT INTO t VALUES (1)');
        await sqliteDialect.savepoint(c, 'sqlinbox_claim');
        await c.query('INSERT INTO t VALUES (2)');
        await sqliteDialect.rollbackToSavepoint(c, 'sqlinbox_claim');
        await sqliteDialect.commit(c);
      });
    }
    expect(await db.exec('SELECT COUNT(*) AS n FROM t WHERE v = 1')).toEqual([{ n: 4 }]);
    expect(await db.exec('SELECT COUNT(*) AS n FROM t WHERE v = 2')).toEqual([{ n: 0 }]);
    await db.withConn(async (c) => {
      await sqliteDialect.begin(c, {});
      await c.query('INSERT INTO t VALUES (3)');
      await sqliteDialect.rollback(c);
    });
    expect(await db.exec('SELECT COUNT(*) AS n FROM t WHERE v = 3')).toEqual([{ n: 0 }]);
  });

  test('R-TX-6 an isolation level is refused: SQLite takes a mode', async () => {
    const err = await db
      .withConn((c) => sqliteDialect.begin(c, { isolation: 'serializable' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
  });
});
