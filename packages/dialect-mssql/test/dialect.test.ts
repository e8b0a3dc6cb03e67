/** The dialect's pure facts: versions and the floor, errors by code, DDL, transactions, columns. */
import {
  type BeginOptions,
  ConfigError,
  defaultCapabilities,
  inbox,
  ServerTooOldError,
} from '@sqlinbox/core';
import { versionParts } from '@sqlinbox/sql';
import { describe, expect, test } from 'vitest';
import {
  classifyError,
  columnInfo,
  createMssqlDialect,
  DESCRIBE_SQL,
  kindOf,
  MSSQL_FLOOR,
  mssqlCapabilities,
  mssqlDialect,
  VERSION_SQL,
} from '../src/dialect.js';
import { MSSQL_TRANSACTIONS } from '../src/statements.js';

const checkVersion = (raw: string, edition?: number) => mssqlDialect.checkVersion(raw, { edition });
const beginSql = (opts: BeginOptions) => MSSQL_TRANSACTIONS.begin(opts).join('; ');

import { advisoryTable, leaseTable, table } from './helpers.js';

/** A tedious RequestError as the driver builds one for a server error. */
class RequestError extends Error {
  code = 'EREQUEST';
  constructor(
    message: string,
    readonly number: number,
  ) {
    super(message);
  }
}
/** tedious's ConnectionError, by name, as the dialect recognises it (it never imports tedious). */
class ConnectionError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

describe('server version', () => {
  test('reads the version from ProductVersion or a @@VERSION line', () => {
    expect(versionParts('14.0.3456.2')).toEqual([14, 0, 3456, 2]);
    expect(versionParts('Microsoft SQL Server 2017 (RTM) - 14.0.1000.169 (X64)')).toEqual([14, 0, 1000, 169]);
    expect(() => checkVersion('unknown')).toThrow(ServerTooOldError);
  });

  test('R-DB-1 below 14.0 (SQL Server 2017) is ServerTooOldError naming the version found and the floor', () => {
    expect(MSSQL_FLOOR).toBe('14.0');
    for (const old of ['13.0.5026.0', '12.0.6024.0', '11.0.7001.0']) {
      const err = (() => {
        try {
          checkVersion(old);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ServerTooOldError);
      expect(err).toMatchObject({ code: 'SERVER_TOO_OLD', found: old, floor: '14.0' });
      expect((err as Error).message).toBe(
        `SQL Server ${old} is too old: sqlinbox needs SQL Server 14.0 or later`,
      );
    }
    for (const ok of ['14.0.1000.169', '15.0.2000.5', '16.0.4135.4', '17.0.100.1']) {
      expect(checkVersion(ok)).toBe(ok);
    }
  });

  test('Azure SQL Database and Managed Instance report 12.0 for a current engine and pass', () => {
    expect(() => checkVersion('12.0.2000.8')).toThrow(ServerTooOldError);
    expect(checkVersion('12.0.2000.8', 5)).toBe('12.0.2000.8');
    expect(checkVersion('12.0.2000.8', 8)).toBe('12.0.2000.8');
    expect(() => checkVersion('12.0.2000.8', 3)).toThrow(ServerTooOldError);
  });

  test('R-DB-1 the adapter option serverVersion is reported without asking the server', async () => {
    const never = {
      id: 'x',
      query: () =>
        Promise.reject(new Error('checkServer must not ask the server when serverVersion is given')),
    };
    await expect(
      createMssqlDialect({ serverVersion: '13.0.5026.0' }).checkServer(never),
    ).rejects.toBeInstanceOf(ServerTooOldError);
    await expect(createMssqlDialect({ serverVersion: '15.0.2000.5' }).checkServer(never)).resolves.toEqual({
      version: '15.0.2000.5',
    });
  });

  test('checkServer reads SERVERPROPERTY ProductVersion and EngineEdition', () => {
    expect(VERSION_SQL).toBe(
      "SELECT CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS [version]," +
        " CAST(SERVERPROPERTY('EngineEdition') AS INT) AS [edition]",
    );
  });
});

describe('classifyError', () => {
  test.each([
    [1205, 'deadlock'],
    [3960, 'serialization'],
    [1222, 'lock_timeout'],
    [2627, 'constraint'],
    [2601, 'constraint'],
    [547, 'constraint'],
    [515, 'constraint'],
    [6005, 'shutdown'],
    [6006, 'shutdown'],
    [596, 'connection'],
    [208, 'other'],
    [50000, 'other'],
  ] as const)('server error %i is %s', (number, kind) => {
    expect(classifyError(new RequestError(`error ${number}`, number))).toBe(kind);
  });

  test('a deadlock among several server errors (tedious AggregateError) is a deadlock', () => {
    const agg = new AggregateError([
      new RequestError('Transaction was deadlocked', 1205),
      new RequestError('The statement has been terminated.', 3621),
    ]);
    expect(classifyError(agg)).toBe('deadlock');
    expect(classifyError(new AggregateError([new RequestError('x', 3621)]))).toBe('other');
  });

  test.each(['ESOCKET', 'ETIMEOUT', 'ELOGIN', 'ECLOSE'])(
    'a tedious ConnectionError (%s) is connection',
    (code) => {
      expect(classifyError(new ConnectionError('Connection lost - read ECONNRESET', code))).toBe(
        'connection',
      );
    },
  );

  test.each(['ECLOSE', 'EINVALIDSTATE', 'ECONNRESET', 'ECONNCLOSED'])(
    'a request that failed with %s is connection',
    (code) => {
      expect(classifyError(Object.assign(new Error('gone'), { code }))).toBe('connection');
    },
  );

  test('a request timeout (RequestError ETIMEOUT) is other: the connection lives on', () => {
    expect(
      classifyError(Object.assign(new Error('Timeout: Request failed to complete'), { code: 'ETIMEOUT' })),
    ).toBe('other');
  });

  test('a wrapper is read through its cause; non-errors are other', () => {
    expect(classifyError(new Error('settlement failed', { cause: new RequestError('deadlock', 1205) }))).toBe(
      'deadlock',
    );
    expect(classifyError(undefined)).toBe('other');
    expect(classifyError('1205')).toBe('other');
    expect(classifyError(new Error('plain'))).toBe('other');
  });

  test('the dialect answers the same', () => {
    expect(mssqlDialect.classifyError(new RequestError('deadlock', 1205))).toBe('deadlock');
  });
});

describe('transactions', () => {
  test('R-TX-6 begin sets the level, READ COMMITTED when none is declared, then BEGIN TRANSACTION', () => {
    expect(beginSql({})).toBe('SET TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN TRANSACTION');
    expect(beginSql({ isolation: 'read_uncommitted' })).toBe(
      'SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED; BEGIN TRANSACTION',
    );
    expect(beginSql({ isolation: 'repeatable_read' })).toBe(
      'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; BEGIN TRANSACTION',
    );
    expect(beginSql({ isolation: 'serializable' })).toBe(
      'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; BEGIN TRANSACTION',
    );
  });

  test('R-TX-3 savepoints are SAVE TRANSACTION / ROLLBACK TRANSACTION <name>; names are checked', () => {
    expect(MSSQL_TRANSACTIONS.savepoint('sqlinbox_claim')).toBe('SAVE TRANSACTION sqlinbox_claim');
    expect(MSSQL_TRANSACTIONS.rollbackToSavepoint('sqlinbox_claim')).toBe(
      'ROLLBACK TRANSACTION sqlinbox_claim',
    );
    expect(() => MSSQL_TRANSACTIONS.savepoint('x; DROP TABLE jobs')).toThrow(ConfigError);
    expect(() => MSSQL_TRANSACTIONS.rollbackToSavepoint('a'.repeat(33))).toThrow(ConfigError);
  });

  test('rollback is conditional: a deadlock victim has no transaction left to roll back', () => {
    expect(MSSQL_TRANSACTIONS.rollback).toBe('IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION');
    expect(MSSQL_TRANSACTIONS.commit).toBe('COMMIT TRANSACTION');
  });
});

describe('capabilities', () => {
  test('R-SHAPE-5 all three forms, all four isolation levels, FIFO guard, transactional, claims side by side', () => {
    expect(mssqlDialect.name).toBe('mssql');
    expect(mssqlCapabilities).toEqual({
      ...defaultCapabilities,
      forms: ['rowlock', 'lease', 'advisory'],
      isolationLevels: ['read_uncommitted', 'read_committed', 'repeatable_read', 'serializable'],
    });
    const limited = inbox({
      table: 'jobs',
      id: 'id',
      payload: 'payload',
      lease: 'locked_until',
      concurrency: { key: 'k', limit: 2 },
    });
    expect(mssqlDialect.prepare(limited).concurrency?.forms).toEqual(['lease']);
  });
});

describe('ddl', () => {
  test('R-FLOW-1 R-FLOW-2 a priority column gets (priority DESC, id), a unique key a filtered unique index', () => {
    const t = table({ priority: 'priority', uniqueKey: 'job_key', processedAt: 'processed_at' });
    const out = mssqlDialect.ddl(t);
    expect(out[0]).toContain('[priority] INT NOT NULL DEFAULT 0');
    expect(out[0]).toContain('[job_key] NVARCHAR(255) NULL');
    expect(out).toContain(
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_priority' AND object_id = OBJECT_ID(N'[jobs]'))\nCREATE INDEX [sqlinbox_priority] ON [jobs] ([priority] DESC, [id]) WHERE [processed_at] IS NULL",
    );
    expect(out).toContain(
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_unique_key' AND object_id = OBJECT_ID(N'[jobs]'))\nCREATE UNIQUE INDEX [sqlinbox_unique_key] ON [jobs] ([job_key]) WHERE [job_key] IS NOT NULL AND [processed_at] IS NULL",
    );
  });

  test('R-PLUS-2 a lease table: BIGINT IDENTITY id, NVARCHAR(MAX) payload, INT attempt DEFAULT 0, DATETIME2(3) times', () => {
    const t = leaseTable({ retryAfter: 'retry_after', processedAt: 'processed_at' });
    expect(mssqlDialect.ddl(t)).toEqual([
      "IF OBJECT_ID(N'[jobs]', N'U') IS NULL\nCREATE TABLE [jobs] (\n" +
        '  [id] BIGINT IDENTITY(1,1) NOT NULL PRIMARY KEY,\n' +
        '  [payload] NVARCHAR(MAX) NOT NULL,\n' +
        '  [attempt] INT NOT NULL DEFAULT 0,\n' +
        '  [locked_until] DATETIME2(3) NULL,\n' +
        '  [retry_after] DATETIME2(3) NULL,\n' +
        '  [processed_at] DATETIME2(3) NULL\n' +
        ')',
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_claim' AND object_id = OBJECT_ID(N'[jobs]'))\nCREATE INDEX [sqlinbox_claim] ON [jobs] ([id]) INCLUDE ([locked_until], [retry_after]) WHERE [processed_at] IS NULL",
    ]);
  });

  test('bytes payloads are VARBINARY(MAX); group, partition key, key and other columns NVARCHAR(255)', () => {
    const t = advisoryTable({
      payload: { column: 'body', type: 'bytes' },
      advisory: 'acct-{account}',
      columns: ['account', 'note'],
      group: 'grp',
      partitionKey: 'pkey',
    });
    const [create, fifo] = mssqlDialect.ddl(t);
    expect(create).toBe(
      "IF OBJECT_ID(N'[jobs]', N'U') IS NULL\nCREATE TABLE [jobs] (\n" +
        '  [id] BIGINT IDENTITY(1,1) NOT NULL PRIMARY KEY,\n' +
        '  [body] VARBINARY(MAX) NOT NULL,\n' +
        '  [attempt] INT NOT NULL DEFAULT 0,\n' +
        '  [grp] NVARCHAR(255) NULL,\n' +
        '  [pkey] NVARCHAR(255) NULL,\n' +
        '  [account] NVARCHAR(255) NULL,\n' +
        '  [note] NVARCHAR(255) NULL\n' +
        ')',
    );
    expect(fifo).toBe(
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_fifo' AND object_id = OBJECT_ID(N'[jobs]'))\nCREATE INDEX [sqlinbox_fifo] ON [jobs] ([grp], [id])",
    );
  });

  test("R-USER-3 every CREATE runs again to no effect: each table and index, sqlinbox's own tables included, only where the catalog has none", () => {
    const queueDdl = mssqlDialect.ddl(
      leaseTable({
        table: 'app.jobs',
        retryAfter: 'retry_after',
        group: 'grp',
        rateLimit: { max: 50, per: '1s' },
        control: true,
        steps: true,
        flows: true,
      }),
      { schedules: 'app.ticks', deadLetterTable: 'app.jobs_dlq' },
    );
    const creates = queueDdl.filter((st) => /\bCREATE\b/.test(st));
    // The queue table, the dead-letter table, and the schedules, rates, control, steps and flow tables.
    expect(creates.filter((st) => st.includes('CREATE TABLE')).length).toBeGreaterThanOrEqual(8);
    for (const st of creates) {
      const name = /CREATE (?:UNIQUE )?(?:TABLE|INDEX) (\S+)/.exec(st)?.[1];
      const guard = st.includes('CREATE TABLE')
        ? `IF OBJECT_ID(N'${name}', N'U') IS NULL\nCREATE TABLE ${name} (`
        : `IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'${name!.slice(1, -1)}'`;
      expect(st.startsWith(guard), st).toBe(true);
    }
  });

  test("R-USER-3 the schedules' tick table named to ddl() is an identifier, as a schedule's ticksTable is: its guard's N'..' never holds a quote", () => {
    const t = inbox({ table: 'jobs', id: 'id', payload: 'payload', lease: 'locked_until' });
    expect(() => mssqlDialect.ddl(t, { schedules: "o'x" })).toThrow(ConfigError);
    expect(() => mssqlDialect.ddl(t, { schedules: 'a.b.c' })).toThrow(ConfigError);
    expect(mssqlDialect.ddl(t, { schedules: 'app.ticks' }).at(-1)).toMatch(
      /^IF OBJECT_ID\(N'\[app\]\.\[ticks\]', N'U'\) IS NULL\nCREATE TABLE \[app\]\.\[ticks\] \(/,
    );
  });

  test('a plain table needs no index beyond its clustered primary key; a given id is no IDENTITY', () => {
    const out = mssqlDialect.ddl(table({ id: 'id', payload: { column: 'payload', type: 'text' } }));
    expect(out).toHaveLength(1);
    expect(out[0]).toContain('[id] BIGINT NOT NULL PRIMARY KEY');
    expect(out[0]).toContain('[payload] NVARCHAR(MAX) NOT NULL');
  });

  test('R-DLQ-2 the dead-letter table takes the same columns in the same order, its id not generated', () => {
    const t = table({ table: 'app.jobs', group: 'grp', processedAt: 'processed_at' });
    const out = mssqlDialect.ddl(t, { deadLetterTable: 'app.jobs_dlq' });
    expect(out).toHaveLength(4);
    expect(out[1]).toBe(
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_claim' AND object_id = OBJECT_ID(N'[app].[jobs]'))\nCREATE INDEX [sqlinbox_claim] ON [app].[jobs] ([id]) WHERE [processed_at] IS NULL",
    );
    expect(out[2]).toBe(
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_fifo' AND object_id = OBJECT_ID(N'[app].[jobs]'))\nCREATE INDEX [sqlinbox_fifo] ON [app].[jobs] ([grp], [id]) WHERE [processed_at] IS NULL",
    );
    expect(out[3]).toBe(out[0]!.replaceAll('[app].[jobs]', '[app].[jobs_dlq]').replace(' IDENTITY(1,1)', ''));
    expect(out.every((s) => !s.endsWith(';'))).toBe(true);
  });

  test('R-USER-3 columns a table that exists lacks are added right after its CREATE TABLE, before the indexes over them', () => {
    const t = table({ table: 'app.jobs', priority: 'priority', processedAt: 'processed_at' });
    const out = mssqlDialect.ddl(t, {
      deadLetterTable: 'app.jobs_dlq',
      existingColumns: {
        table: ['id', 'payload', 'attempt'],
        deadLetter: ['id', 'payload', 'attempt', 'processed_at'],
      },
    });
    expect(out[1]).toBe('ALTER TABLE [app].[jobs] ADD [processed_at] DATETIME2(3) NULL');
    expect(out[2]).toBe('ALTER TABLE [app].[jobs] ADD [priority] INT NOT NULL DEFAULT 0');
    expect(out[3]).toContain('CREATE INDEX [sqlinbox_claim] ON [app].[jobs]');
    expect(out.at(-1)).toBe('ALTER TABLE [app].[jobs_dlq] ADD [priority] INT NOT NULL DEFAULT 0');
    // The id and the payload are never added; a new table (null) gets no ALTER.
    const fresh = mssqlDialect.ddl(t, { existingColumns: { table: null } });
    expect(fresh.some((s) => s.startsWith('ALTER'))).toBe(false);
    expect(
      mssqlDialect.ddl(t, { existingColumns: { table: [] } }).filter((s) => s.startsWith('ALTER')),
    ).toHaveLength(3);
  });
});

describe('describeTable', () => {
  test('reads INFORMATION_SCHEMA.COLUMNS; an unqualified name resolves to the default schema, then dbo', () => {
    expect(DESCRIBE_SQL).toContain(
      'FROM INFORMATION_SCHEMA.COLUMNS AS c WHERE c.TABLE_SCHEMA = COALESCE(@p1, CASE WHEN EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.TABLES',
    );
    expect(DESCRIBE_SQL).toContain(' AND c.TABLE_NAME = @p2 ORDER BY c.ORDINAL_POSITION');
    expect(DESCRIBE_SQL).toContain(
      "COLUMNPROPERTY(OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)),",
    );
    expect(DESCRIBE_SQL).toContain("THEN SCHEMA_NAME() ELSE N'dbo' END)");
  });

  test.each([
    ['bigint', 'integer'],
    ['int', 'integer'],
    ['smallint', 'integer'],
    ['nvarchar', 'text'],
    ['varchar', 'text'],
    ['ntext', 'text'],
    ['varbinary', 'bytes'],
    ['image', 'bytes'],
    ['json', 'json'],
    ['datetime2', 'timestamp'],
    ['datetimeoffset', 'timestamp'],
    ['datetime', 'timestamp'],
    ['uniqueidentifier', 'other'],
    ['decimal', 'other'],
  ] as const)('%s is kind %s', (dataType, kind) => {
    expect(kindOf(dataType)).toBe(kind);
  });

  test('R-OPS-6 R-BAD-4 a time column reports its digits of a second, and its type shows them: datetime keeps hundredths, smalldatetime none', () => {
    expect(DESCRIBE_SQL).toContain('c.DATETIME_PRECISION AS datetime_precision');
    const time = (data_type: string, datetime_precision: number | null) =>
      columnInfo({ name: 'locked_until', data_type, max_length: null, datetime_precision, nullable: 'YES' });
    expect(time('datetime2', 0)).toMatchObject({ type: 'datetime2(0)', kind: 'timestamp', precision: 0 });
    expect(time('datetime2', 3)).toMatchObject({ type: 'datetime2(3)', kind: 'timestamp', precision: 3 });
    expect(time('datetimeoffset', 7)).toMatchObject({ type: 'datetimeoffset(7)', precision: 7 });
    // DATETIME_PRECISION says 3, but DATETIME rounds to 1/300 s: .001 is stored as .000.
    expect(time('datetime', 3)).toMatchObject({ type: 'datetime', kind: 'timestamp', precision: 2 });
    expect(time('smalldatetime', 0)).toMatchObject({ type: 'smalldatetime', precision: 0 });
    // Types that hold no instant are kind other, which the core refuses for every time column.
    expect(time('date', 0)).toMatchObject({ kind: 'other' });
    expect(time('time', 7)).toMatchObject({ type: 'time(7)', kind: 'other' });
    expect(time('bit', null)).toMatchObject({ kind: 'other' });
    expect(time('bit', null).precision).toBeUndefined();
  });

  test('a row becomes ColumnInfo: type with its length, nullability, default or identity', () => {
    expect(
      columnInfo({
        name: 'payload',
        data_type: 'nvarchar',
        max_length: -1,
        nullable: 'NO',
        column_default: null,
      }),
    ).toEqual({ name: 'payload', type: 'nvarchar(max)', kind: 'text', nullable: false, hasDefault: false });
    expect(
      columnInfo({
        name: 'id',
        data_type: 'bigint',
        max_length: null,
        nullable: 'NO',
        column_default: null,
        is_identity: 1,
      }),
    ).toEqual({ name: 'id', type: 'bigint', kind: 'integer', nullable: false, hasDefault: true });
    expect(
      columnInfo({
        name: 'attempt',
        data_type: 'int',
        max_length: null,
        nullable: 'NO',
        column_default: '((1))',
      }),
    ).toMatchObject({ hasDefault: true });
    expect(
      columnInfo({ name: 'grp', data_type: 'nvarchar', max_length: 255, nullable: 'YES' }),
    ).toMatchObject({
      type: 'nvarchar(255)',
      nullable: true,
    });
  });
});
