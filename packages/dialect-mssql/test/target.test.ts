/**
 * The conformance target for a real SQL Server, checked as far as it can be without one: it
 * type-checks as a `ConformanceTarget` (this file and `target.ts` are in `tsc -p tsconfig.json`),
 * its settings come from `SQLINBOX_MSSQL_URL`, and its admin statements say what they do. Running
 * it is `conformance.mssql.ts`, against a reachable server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConformanceTarget } from '@sqlinbox/conformance';
import { describe, expect, expectTypeOf, test } from 'vitest';
import {
  ADVISORY_LOCKS_HELD_SQL,
  configFromEnv,
  configFromUrl,
  KILL_SESSION_SQL,
  MSSQL_URL_ENV,
  mssqlTarget,
  SESSION_EXISTS_SQL,
} from './target.js';

const config = configFromUrl('mssql://sa:Secret_123@127.0.0.1:1433/test?trustServerCertificate=true');

describe('the SQL Server conformance target', () => {
  test('R-SHAPE-5 R-SHAPE-6 it is a ConformanceTarget with killSession and advisoryLocksHeld, opening nothing until used', async () => {
    expectTypeOf(mssqlTarget).returns.toEqualTypeOf<ConformanceTarget>();
    const target = mssqlTarget(config);
    expect(target.name).toBe('mssql (tedious)');
    expect(target.tooOldVersion).toBe('13.0.5026.0');
    expect(typeof target.killSession).toBe('function');
    expect(typeof target.advisoryLocksHeld).toBe('function');
    expect(existsSync(target.childModule ?? '')).toBe(true);
    await target.close?.();
  });

  test('the crash child opens the built adapter on the settings the parent hands it', () => {
    const child = readFileSync(mssqlTarget(config).childModule ?? '', 'utf8');
    expect(child).toContain("from '@sqlinbox/dialect-mssql/tedious'");
    expect(child).toContain('process.env.SQLINBOX_MSSQL_CONFIG');
  });

  test('killSession runs KILL on an int parameter through dynamic SQL (KILL takes no variable)', () => {
    expect(KILL_SESSION_SQL).toBe(
      "DECLARE @sqlinbox_kill NVARCHAR(64) = N'KILL ' + CAST(CAST(@p1 AS INT) AS NVARCHAR(11)); EXEC (@sqlinbox_kill)",
    );
    expect(SESSION_EXISTS_SQL).toContain('sys.dm_exec_sessions WHERE session_id = @p1');
  });

  test('R-ADV-8 advisoryLocksHeld counts session-owned APPLICATION locks of other sessions in this database', () => {
    expect(ADVISORY_LOCKS_HELD_SQL).toBe(
      'SELECT COUNT(*) AS [n] FROM sys.dm_tran_locks' +
        " WHERE resource_type = 'APPLICATION' AND request_owner_type = 'SESSION'" +
        ' AND resource_database_id = DB_ID() AND request_session_id <> @@SPID',
    );
  });

  test('SQLINBOX_MSSQL_URL becomes a tedious config; without it the target says what to set', () => {
    expect(config).toEqual({
      server: '127.0.0.1',
      authentication: { type: 'default', options: { userName: 'sa', password: 'Secret_123' } },
      options: { port: 1433, database: 'test', trustServerCertificate: true },
    });
    expect(configFromUrl('mssql://u%40x:p%3Aw@db.local/app?encrypt=false&instanceName=SQLEXPRESS')).toEqual({
      server: 'db.local',
      authentication: { type: 'default', options: { userName: 'u@x', password: 'p:w' } },
      options: { instanceName: 'SQLEXPRESS', database: 'app', encrypt: false },
    });
    expect(() => configFromUrl('postgres://x@y/z')).toThrow(/mssql:\/\//);
    expect(() => configFromEnv({})).toThrow(new RegExp(MSSQL_URL_ENV));
  });

  test('R-RUN-3 conformance.mssql.ts is the three lines a user runs, skipped with the reason when no server was found', () => {
    const file = fileURLToPath(new URL('./conformance.mssql.ts', import.meta.url));
    expect(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    ).toEqual([
      "import { runConformance, skipWithoutServer } from '@sqlinbox/conformance';",
      "import { mssqlTarget } from './target.js';",
      "if (skipWithoutServer('SQLINBOX_MSSQL_SKIP') === undefined) await runConformance(mssqlTarget());",
    ]);
    expect(file).not.toMatch(/\.test\.ts$/);
  });

  test('R-KIT-2 R-RUN-3 contract.mssql.ts runs the per-method contract the same way, skipped with the reason when no server was found', () => {
    const file = fileURLToPath(new URL('./contract.mssql.ts', import.meta.url));
    expect(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    ).toEqual([
      "import { runContract, skipWithoutServer } from '@sqlinbox/conformance';",
      "import { mssqlTarget } from './target.js';",
      "if (skipWithoutServer('SQLINBOX_MSSQL_SKIP') === undefined) await runContract(mssqlTarget());",
    ]);
    const config = readFileSync(fileURLToPath(new URL('../vitest.config.ts', import.meta.url)), 'utf8');
    expect(config).toContain("'test/contract.mssql.ts'");
  });
});
