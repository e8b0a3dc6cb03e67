/**
 * The pure parts of the tedious adapter and of names: parameter types from values, the config the
 * adapter forces, quoting, lock names, id order, and the adapter's shape before it connects. No
 * test here opens a connection.
 */
import { createHash } from 'node:crypto';
import type { SqlTable } from '@sqlinbox/sql';
import { describe, expect, test } from 'vitest';
import { classifyError, mssqlDialect } from '../src/dialect.js';
import { RESOURCE_MAX, resourceName } from '../src/statements.js';
import {
  adapterConfig,
  MssqlConnectionClosedError,
  MssqlPool,
  mssql,
  parameterType,
  parameterValue,
} from '../src/tedious.js';
import { statements, table } from './helpers.js';

const config = {
  server: '127.0.0.1',
  authentication: { type: 'default' as const, options: { userName: 'sa', password: 'x' } },
  options: { database: 'test', trustServerCertificate: true },
};

describe('parameter types (R-DESC-7: every value bound with an explicit type)', () => {
  test.each([
    [0, 'Int'],
    [-(2 ** 31), 'Int'],
    [2 ** 31 - 1, 'Int'],
    [2 ** 31, 'BigInt'],
    [Number.MAX_SAFE_INTEGER, 'BigInt'],
    [12n, 'BigInt'],
    [1.5, 'Float'],
    ['text', 'NVarChar'],
    ['x'.repeat(5000), 'NVarChar'],
    [new Date(0), 'DateTime2'],
    [Buffer.from('ab'), 'VarBinary'],
    [new Uint8Array([1, 2]), 'VarBinary'],
    [true, 'Bit'],
    [null, 'NVarChar'],
    [undefined, 'NVarChar'],
  ] as const)('%s is sent as %s', (value, type) => {
    expect(parameterType(value)).toBe(type);
  });

  test('objects and symbols are refused: the engine never binds them', () => {
    expect(() => parameterType({ a: 1 })).toThrow(TypeError);
    expect(() => parameterType(Symbol('s'))).toThrow(TypeError);
  });

  test('undefined goes as NULL; a Uint8Array as a Buffer over the same bytes; the rest unchanged', () => {
    expect(parameterValue(undefined)).toBeNull();
    const bytes = new Uint8Array([0, 1, 2, 3]).subarray(1, 3);
    const sent = parameterValue(bytes);
    expect(Buffer.isBuffer(sent)).toBe(true);
    expect([...(sent as Buffer)]).toEqual([1, 2]);
    const d = new Date();
    expect(parameterValue(d)).toBe(d);
  });
});

describe('names', () => {
  test('R-DESC-7 identifiers are bracket-quoted, a schema-qualified table part by part', () => {
    const s = statements(table());
    expect(s.s.ident('group')).toBe('[group]');
    expect(s.s.ident('a]b')).toBe('[a]]b]');
    expect(s.s.tableName('app.jobs')).toBe('[app].[jobs]');
  });

  test('application lock names: a key up to 255 characters is its own name, a longer one its SHA-256', () => {
    expect(RESOURCE_MAX).toBe(255);
    const short = 'ключ-'.repeat(51); // 255 UTF-16 code units
    expect(resourceName(short)).toBe(short);
    const long = `${short}!`;
    const name = resourceName(long);
    expect(name).toBe(createHash('sha256').update(Buffer.from(long, 'utf16le')).digest('hex').toUpperCase());
    expect(name).toMatch(/^[0-9A-F]{64}$/);
    // Two long keys with one 255-character prefix stay two locks (sp_getapplock would truncate them to one).
    expect(resourceName(`${short}?`)).not.toBe(name);
  });

  test('the SQL twin hashes the same bytes (nvarchar is UTF-16LE) into the same upper-case hex', () => {
    expect(statements(table()).advisory.freeKey('@k')).toBe(
      "APPLOCK_TEST(N'public', CASE WHEN DATALENGTH(@k) / 2 > 255" +
        " THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', @k), 2) ELSE @k END, 'Exclusive', 'Session') = 1",
    );
  });

  test('ids sort by value, BIGINT ids arriving as decimal text included', () => {
    const runner = mssqlDialect.prepare(table()) as SqlTable;
    const compareIds = (a: unknown, b: unknown) => runner.compareIds(a, b);
    expect(['10', '9', '100', '-1'].sort(compareIds)).toEqual(['-1', '9', '10', '100']);
    expect([3, 1n, '2'].sort(compareIds)).toEqual([1n, '2', 3]);
    expect(['b', 'a'].sort(compareIds)).toEqual(['a', 'b']);
  });
});

describe('the tedious adapter before it connects', () => {
  test("the config keeps the caller's settings and forces UTC instants and plain column names", () => {
    const out = adapterConfig({
      ...config,
      options: {
        ...config.options,
        useUTC: false,
        camelCaseColumns: true,
        columnNameReplacer: (n: string) => n,
      },
    });
    expect(out.server).toBe('127.0.0.1');
    expect(out.options).toMatchObject({
      database: 'test',
      trustServerCertificate: true,
      useUTC: true,
      useColumnNames: false,
      camelCaseColumns: false,
      rowCollectionOnDone: false,
      rowCollectionOnRequestCompletion: false,
    });
    expect(out.options).not.toHaveProperty('columnNameReplacer');
  });

  test('mssql() pairs the SQL Server dialect with a pool of the size asked for, opening nothing yet', async () => {
    const adapter = mssql(config, { poolSize: 3 });
    expect(adapter.dialect.name).toBe('mssql');
    expect(adapter.pool.size).toBe(3);
    expect(adapter.pool.spare()).toBe(3);
    expect(mssql(config).pool.size).toBe(10);
    await adapter.close();
    await expect(adapter.pool.tryAcquire()).rejects.toThrow(/closed/);
  });

  test('R-DB-1 serverVersion reaches checkServer', async () => {
    const adapter = mssql(config, { serverVersion: '13.0.5026.0' });
    const conn = { id: '1', query: () => Promise.reject(new Error('not asked')) };
    await expect(adapter.dialect.checkServer(conn)).rejects.toMatchObject({
      code: 'SERVER_TOO_OLD',
      floor: '14.0',
    });
  });

  test('a pool takes at least one connection', () => {
    expect(() => new MssqlPool(config, 0)).toThrow(RangeError);
  });

  test('a statement on a closed connection fails as a connection error', () => {
    expect(classifyError(new MssqlConnectionClosedError('52'))).toBe('connection');
  });
});
