/**
 * The T-SQL the builder writes for SQL Server (`MssqlStatements`): text, hints, `OUTPUT`, `TOP`,
 * application lock calls and bound values. Pure: no statement here reaches a server (there is none
 * on the machine these tests were written on); what a server does with them is the conformance
 * suite's to prove (`conformance.mssql.ts`).
 */
import type { Insert } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { mssqlDialect } from '../src/dialect.js';
import { advisoryTable, bindsExactly, leaseTable, statements, table } from './helpers.js';

const NOW = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 123));
const EXPIRY = new Date(NOW.getTime() + 30_000);
const CLAIM = 'WITH (UPDLOCK, READPAST, ROWLOCK)';
const SKIP = 'WITH (READCOMMITTEDLOCK, READPAST)';
const RC = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n';

describe('row lock claim', () => {
  test('R-ROW-1 selects TOP (@p1) due rows in id order WITH (UPDLOCK, READPAST, ROWLOCK)', () => {
    const st = statements(table()).rowLock.claim(1, NOW);
    expect(st.sql).toBe(`SELECT TOP (@p1) q.* FROM [jobs] q ${CLAIM} WHERE 1 = 1 ORDER BY q.[id]`);
    expect(st.params).toEqual([1]);
  });

  test('the due condition: unsettled, retry_after reached, out of the dead-letter group, every value bound', () => {
    const t = table({ retryAfter: 'retry_after', processedAt: 'processed_at' });
    const st = statements(t, { group: 'dead' }).rowLock.claim(3, NOW);
    expect(st.sql).toContain(
      'WHERE q.[processed_at] IS NULL AND (q.[retry_after] IS NULL OR q.[retry_after] <= @p1) ORDER BY',
    );
    const g = statements(table({ group: 'grp' }), { group: 'dead' }).rowLock.claim(3, NOW);
    expect(g.sql).toContain('WHERE (q.[grp] IS NULL OR q.[grp] <> @p1) AND NOT EXISTS');
    expect(st.params).toEqual([NOW, 3]);
    expect(g.params).toEqual(['dead', 3]);
    expect(bindsExactly(st) && bindsExactly(g)).toBe(true);
  });

  test('a table on the database clock compares with SYSUTCDATETIME() and binds no instant', () => {
    const st = statements(table({ retryAfter: 'retry_after', clock: 'database' })).rowLock.claim(1, null);
    expect(st.sql).toContain('(q.[retry_after] IS NULL OR q.[retry_after] <= SYSUTCDATETIME())');
    expect(st.params).toEqual([1]);
  });

  test.each([
    ['serializable', 'SERIALIZABLE'],
    ['repeatable_read', 'REPEATABLE READ'],
    ['read_uncommitted', 'READ UNCOMMITTED'],
  ] as const)(
    'R-TX-6 at %s the select runs at READ COMMITTED (READPAST is refused there) and the level is set back',
    (level, sql) => {
      const st = statements(table({ isolation: level })).rowLock.claim(1, NOW);
      expect(st.sql.split('\n')).toEqual([
        'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;',
        `SELECT TOP (@p1) q.* FROM [jobs] q ${CLAIM} WHERE 1 = 1 ORDER BY q.[id];`,
        `SET TRANSACTION ISOLATION LEVEL ${sql}`,
      ]);
    },
  );

  test('at read_committed or with no level the select stands alone', () => {
    for (const isolation of ['read_committed', undefined] as const) {
      const st = statements(table(isolation === undefined ? {} : { isolation })).rowLock.claim(1, NOW);
      expect(st.sql.startsWith('SELECT TOP (@p1)')).toBe(true);
    }
  });

  test('R-FIFO-1 a FIFO table takes group heads; the sibling read carries no hint, so it sees a held head', () => {
    const t = table({ group: 'grp', processedAt: 'processed_at' });
    const st = statements(t).rowLock.claim(1, NOW);
    expect(st.sql).toContain(
      ' AND NOT EXISTS (SELECT 1 FROM [jobs] s' +
        ' WHERE s.[grp] = q.[grp] AND s.[id] < q.[id] AND s.[processed_at] IS NULL)',
    );
    expect(st.sql.match(/WITH \(/g)).toHaveLength(1);
  });

  test('R-FIFO-2 the guard is sp_getapplock on <table>/<group>, owned by the transaction, with no wait', () => {
    const st = statements(table({ group: 'grp' })).fifo.headGuard(7, 'orders-1')!;
    expect(st.sql).toBe(
      'DECLARE @r INT = -1;\n' +
        "EXEC @r = sp_getapplock @Resource = @p1, @LockOwner = 'Transaction', @DbPrincipal = N'public'," +
        " @LockMode = 'Exclusive', @LockTimeout = 0;\n" +
        'SELECT CASE WHEN @r >= 0 THEN 1 ELSE 0 END AS [ok]',
    );
    expect(st.params).toEqual(['jobs/orders-1']);
  });

  test('R-FIFO-2 a guard name past 255 characters is its SHA-256', () => {
    const st = statements(table({ group: 'grp' })).fifo.headGuard(7, 'g'.repeat(300))!;
    expect(st.params).toEqual(['4BCD3FB761297F0EE62CDAC8A8585460550999356FCE4F4B6ECD17080DBC4CFD']);
  });
});

describe('lease claim under per-key concurrency', () => {
  const limited = (extra = {}) =>
    leaseTable({ retryAfter: 'retry_after', concurrency: { key: 'account', limit: 2 }, ...extra } as never);

  test("R-FLOW-3 one UPDATE .. OUTPUT inserted.*: the first n * limit due rows of keys with a free slot, ranked within their key, kept up to the limit less the key's rows in work, re-checked as due", () => {
    const st = statements(limited()).concurrency.claim(4, NOW, EXPIRY);
    const inWork = (a: string, n: number) =>
      `(SELECT COUNT(*) FROM [jobs] w WHERE w.[account] = ${a}.[account] AND w.[locked_until] > @p${n})`;
    expect(st.sql).toBe(
      RC +
        'UPDATE t SET [locked_until] = @p1, [attempt] = [attempt] + 1 OUTPUT inserted.* FROM [jobs] AS t' +
        ' WHERE t.[id] IN (SELECT TOP (@p9) x.[id] FROM (SELECT c.[id], c.[account],' +
        ' ROW_NUMBER() OVER (PARTITION BY c.[account] ORDER BY c.[id]) AS [sqlinbox_rank],' +
        ` ${inWork('c', 2)} AS [sqlinbox_in_work]` +
        ' FROM (SELECT TOP (@p7) q.[id], q.[account] FROM [jobs] q' +
        ' WHERE (q.[retry_after] IS NULL OR q.[retry_after] <= @p3) AND (q.[locked_until] IS NULL OR q.[locked_until] <= @p4)' +
        ` AND (q.[account] IS NULL OR ${inWork('q', 5)} < @p6) ORDER BY q.[id]) c) x` +
        ' WHERE (x.[account] IS NULL OR x.[sqlinbox_rank] <= @p8 - x.[sqlinbox_in_work]) ORDER BY x.[id])' +
        ' AND (t.[retry_after] IS NULL OR t.[retry_after] <= @p10) AND (t.[locked_until] IS NULL OR t.[locked_until] <= @p11)',
    );
    // The candidates: n * limit = 8.
    expect(st.params).toEqual([EXPIRY, NOW, NOW, NOW, NOW, 2, 8, 2, 4, NOW, NOW]);
    expect(bindsExactly(st)).toBe(true);
  });

  test('R-FLOW-3 R-FLOW-1 R-DLQ-2 priority orders within each key and overall; a dead row holds no slot; every value bound', () => {
    const t = limited({ priority: 'priority', group: 'grp' });
    const st = statements(t, { group: 'dead' }).concurrency.claim(4, NOW, EXPIRY);
    expect(st.sql).toContain('PARTITION BY c.[account] ORDER BY c.[priority] DESC, c.[id]');
    expect(st.sql).toContain('ORDER BY q.[priority] DESC, q.[id]) c) x');
    expect(st.sql).toContain('ORDER BY x.[priority] DESC, x.[id])');
    expect(st.sql).toMatch(/w\.\[locked_until\] > @p\d+ AND \(w\.\[grp\] IS NULL OR w\.\[grp\] <> @p\d+\)\)/);
    // Dead rows: left out of the due rows (twice), and of each count of rows in work (twice).
    expect(st.params.filter((v) => v === 'dead')).toHaveLength(4);
    expect(bindsExactly(st)).toBe(true);
  });

  test("R-FLOW-3 the claim's turn: sp_getapplock on the table's turn name, owned by the transaction, waiting up to 10 s", () => {
    const st = statements(limited()).concurrency.turn()!;
    expect(st.sql).toBe(
      "DECLARE @r INT = -1;\nEXEC @r = sp_getapplock @Resource = @p1, @LockOwner = 'Transaction', @DbPrincipal = N'public'," +
        " @LockMode = 'Exclusive', @LockTimeout = 10000;\nSELECT CASE WHEN @r >= 0 THEN 1 ELSE 0 END AS [ok]",
    );
    expect(st.params).toEqual(['sqlinbox.concurrency:jobs']);
  });

  test('R-FLOW-3 ddl prints the (key, lease) index a claim counts rows in work with', () => {
    expect(mssqlDialect.ddl(limited())).toContain(
      "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'sqlinbox_concurrency' AND object_id = OBJECT_ID(N'[jobs]'))\nCREATE INDEX [sqlinbox_concurrency] ON [jobs] ([account], [locked_until])",
    );
    expect(mssqlDialect.ddl(limited())[0]).toContain('[account] NVARCHAR(255) NULL');
  });
});

describe('lease claim', () => {
  test('R-LEASE-1 R-LEASE-2 one statement: an updatable CTE under READPAST, the update writes the lease and counts the attempt', () => {
    const t = leaseTable({ retryAfter: 'retry_after' });
    const st = statements(t).lease.claim(4, NOW, EXPIRY);
    expect(st.sql).toBe(
      RC +
        `WITH sqlinbox_claim AS (SELECT TOP (@p3) q.* FROM [jobs] q ${CLAIM}` +
        ' WHERE (q.[retry_after] IS NULL OR q.[retry_after] <= @p1)' +
        ' AND (q.[locked_until] IS NULL OR q.[locked_until] <= @p2) ORDER BY q.[id])\n' +
        'UPDATE sqlinbox_claim SET [locked_until] = @p4, [attempt] = [attempt] + 1 OUTPUT inserted.*',
    );
    // "now" for the due rows and for the ended leases is one instant; the expiry is the token.
    expect(st.params).toEqual([NOW, NOW, 4, EXPIRY]);
  });

  test('without an attempt column only the lease is written', () => {
    const t = table({ lease: 'locked_until', attempt: undefined });
    const st = statements(t).lease.claim(1, NOW, EXPIRY);
    expect(st.sql).toContain('UPDATE sqlinbox_claim SET [locked_until] = @p3 OUTPUT inserted.*');
    expect(st.sql).not.toContain('[attempt]');
  });

  test('R-FIFO-1 a FIFO lease table claims heads in the same statement', () => {
    const st = statements(leaseTable({ group: 'grp' })).lease.claim(2, NOW, EXPIRY);
    expect(st.sql).toContain(
      'NOT EXISTS (SELECT 1 FROM [jobs] s WHERE s.[grp] = q.[grp] AND s.[id] < q.[id])',
    );
    expect(bindsExactly(st)).toBe(true);
  });

  test('R-LEASE-4 extendLeases: one UPDATE, the ids grouped by token, answering the ids moved', () => {
    const t1 = new Date(NOW.getTime() + 1);
    const t2 = new Date(NOW.getTime() + 2);
    const leases = [
      { id: '7', token: t1 },
      { id: '9', token: t2 },
    ];
    const [st, ...rest] = statements(leaseTable()).lease.extendLeases(leases, EXPIRY);
    expect(rest).toEqual([]);
    expect(st!.sql).toBe(
      'UPDATE t SET [locked_until] = @p1 OUTPUT inserted.[id] FROM [jobs] AS t' +
        ' WHERE t.[id] IN (@p2, @p3) AND ((t.[locked_until] = @p4 AND t.[id] IN (@p5))' +
        ' OR (t.[locked_until] = @p6 AND t.[id] IN (@p7)))',
    );
    expect(st!.params).toEqual([EXPIRY, '7', '9', t1, '7', t2, '9']);
    // The leases of one claim share a token: bound once.
    const [same] = statements(leaseTable()).lease.extendLeases(
      leases.map((l) => ({ ...l, token: t1 })),
      EXPIRY,
    );
    expect(same!.sql).toBe(
      'UPDATE t SET [locked_until] = @p1 OUTPUT inserted.[id] FROM [jobs] AS t' +
        ' WHERE t.[locked_until] = @p2 AND t.[id] IN (@p3, @p4)',
    );
    expect(same!.params).toEqual([EXPIRY, t1, '7', '9']);
  });

  test('extendLeases stays under 2100 parameters a request', () => {
    const leases = Array.from({ length: 2500 }, (_, i) => ({ id: i, token: NOW }));
    const sts = statements(leaseTable()).lease.extendLeases(leases, EXPIRY);
    expect(sts).toHaveLength(3);
    for (const st of sts) {
      expect(st.params.length).toBeLessThanOrEqual(2000);
      expect(bindsExactly(st)).toBe(true);
    }
    // One token: each statement binds the expiry, the token and its ids.
    expect(sts.reduce((n, st) => n + st.params.length - 2, 0)).toBe(2500);
  });

  test('R-LEASE-3 settleMany: acks that still hold their tokens, deleted (or stamped), OUTPUT the ids changed', () => {
    const acks = [{ kind: 'finish' as const, id: 7, token: NOW, now: NOW }];
    const [del] = statements(leaseTable()).lease.settleMany(acks);
    expect(del!.sql).toBe(
      'DELETE FROM [jobs] OUTPUT deleted.[id] WHERE [locked_until] = @p1 AND [id] IN (@p2)',
    );
    expect(del!.params).toEqual([NOW, 7]);
    const [stamp] = statements(leaseTable({ processedAt: 'processed_at' })).lease.settleMany(acks);
    expect(stamp!.sql).toMatch(
      /^UPDATE t SET \[processed_at\] = @p1, \[locked_until\] = NULL OUTPUT inserted\.\[id\] FROM \[jobs\] AS t WHERE t\.\[locked_until\] = @p2 AND t\.\[id\] IN \(@p3\)$/,
    );
    expect(bindsExactly(stamp!)).toBe(true);
  });
});

describe('advisory form', () => {
  /** The key of row q, its literal part bound as `@pN`: binary collation, as lock names compare. */
  const key = (n: number) =>
    `(@p${n} + COALESCE(CAST(q.[id] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2`;
  const free = (n: number) =>
    `APPLOCK_TEST(N'public', CASE WHEN DATALENGTH(${key(n)}) / 2 > 255` +
    ` THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', ${key(n)}), 2) ELSE ${key(n)} END,` +
    " 'Exclusive', 'Session') = 1";

  test('R-ADV-1 candidates: due rows with their keys, READPAST, keys other sessions hold left out with APPLOCK_TEST', () => {
    const st = statements(advisoryTable()).advisory.candidates(5, NOW, new Set());
    expect(st.sql).toBe(
      RC +
        `SELECT TOP (@p3) q.[id] AS [id], ${key(1)} AS [key] FROM [jobs] q ${SKIP}` +
        ` WHERE 1 = 1 AND ${free(2)} ORDER BY q.[id]`,
    );
    expect(st.params).toEqual(['jobs-', 'jobs-', 5]);
  });

  test('R-ADV-1 the keys this process holds are left out, compared as binary strings', () => {
    const st = statements(advisoryTable()).advisory.candidates(2, NOW, new Set(['jobs-1', 'jobs-2']));
    expect(st.sql).toContain(`WHERE 1 = 1 AND ${key(2)} NOT IN (@p3, @p4) AND ${free(5)} ORDER BY`);
    expect(st.params).toEqual(['jobs-', 'jobs-', 'jobs-1', 'jobs-2', 'jobs-', 2]);
    expect(bindsExactly(st)).toBe(true);
  });

  test("R-ADV-10 with the table's own lock only its own keys are left out: no APPLOCK_TEST", () => {
    const own = { lock: async () => true, unlock: async () => true };
    const st = statements(advisoryTable(own)).advisory.candidates(2, NOW, new Set(['jobs-1']));
    expect(st.sql).not.toContain('APPLOCK_TEST');
    expect(st.sql).toContain(`${key(2)} NOT IN (@p3) ORDER BY`);
  });

  test('R-DESC-3 the key renders literals bound and columns cast; several parts concatenate in order', () => {
    const t = advisoryTable({ advisory: 'acct-{account}/{id}', columns: ['account'] });
    const st = statements(t).advisory.candidates(1, NOW, new Set());
    expect(st.sql).toContain(
      "(@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'') + @p2 + COALESCE(CAST(q.[id] AS NVARCHAR(MAX)), N''))" +
        ' COLLATE Latin1_General_BIN2 AS [key]',
    );
    expect(st.params).toEqual(['acct-', '/', 'acct-', '/', 1]);
  });

  test('R-FIFO-1 candidates of a FIFO table are group heads', () => {
    const st = statements(advisoryTable({ group: 'grp' })).advisory.candidates(1, null, new Set());
    expect(st.sql).toContain(
      'NOT EXISTS (SELECT 1 FROM [jobs] s WHERE s.[grp] = q.[grp] AND s.[id] < q.[id])',
    );
  });

  test('R-ADV-1 R-ADV-7 lock: sp_getapplock owned by the session, Exclusive, @LockTimeout = 0', () => {
    const st = statements(advisoryTable()).advisory.lock('jobs-42');
    expect(st.sql).toBe(
      'DECLARE @r INT = -1;\n' +
        "EXEC @r = sp_getapplock @Resource = @p1, @LockOwner = 'Session', @DbPrincipal = N'public'," +
        " @LockMode = 'Exclusive', @LockTimeout = 0;\n" +
        'SELECT CASE WHEN @r >= 0 THEN 1 ELSE 0 END AS [ok]',
    );
    expect(st.params).toEqual(['jobs-42']);
  });

  test('a key over 255 characters is locked (and released) under the upper-case hex SHA-256 of its UTF-16LE bytes', () => {
    const s = statements(advisoryTable());
    const hash = '268158C225A13E964E17F8D5CA43138694DB8F466DB3DBE3286FDB7FF1192966';
    expect(s.advisory.lock('k'.repeat(256)).params).toEqual([hash]);
    expect(s.advisory.unlock('k'.repeat(256)).params).toEqual([hash]);
    // At 255 the key is the name.
    expect(s.advisory.lock('k'.repeat(255)).params).toEqual(['k'.repeat(255)]);
  });

  test('R-ADV-5 unlock: sp_releaseapplock only where this session holds the key (else 0, no error 1223)', () => {
    const st = statements(advisoryTable()).advisory.unlock('jobs-42');
    expect(st.sql).toBe(
      'DECLARE @r INT = -1;\n' +
        "IF APPLOCK_MODE(N'public', @p1, 'Session') <> 'NoLock'\n" +
        "  EXEC @r = sp_releaseapplock @Resource = @p1, @LockOwner = 'Session', @DbPrincipal = N'public';\n" +
        'SELECT CASE WHEN @r >= 0 THEN 1 ELSE 0 END AS [ok]',
    );
    expect(st.params).toEqual(['jobs-42']);
  });

  test('R-ADV-2 take counts the attempt of the row while it is due and answers it (OUTPUT inserted.*)', () => {
    const st = statements(advisoryTable({ retryAfter: 'retry_after' })).advisory.take('42', NOW);
    expect(st.sql).toBe(
      'UPDATE q SET [attempt] = [attempt] + 1 OUTPUT inserted.* FROM [jobs] AS q' +
        ' WHERE q.[id] = @p1 AND (q.[retry_after] IS NULL OR q.[retry_after] <= @p2)',
    );
    expect(st.params).toEqual(['42', NOW]);
  });

  test('R-OPS-7 R-FIFO-1 take re-checks the group head, as the candidate select does, with and without an attempt column', () => {
    const head =
      ' AND NOT EXISTS (SELECT 1 FROM [jobs] s WHERE s.[grp] = q.[grp]' +
      ' AND s.[id] < q.[id] AND s.[processed_at] IS NULL)';
    const fifo = { group: 'grp', processedAt: 'processed_at' };
    const st = statements(advisoryTable(fifo)).advisory.take(7, NOW);
    expect(st.sql).toBe(
      'UPDATE q SET [attempt] = [attempt] + 1 OUTPUT inserted.* FROM [jobs] AS q' +
        ` WHERE q.[id] = @p1 AND q.[processed_at] IS NULL${head}`,
    );
    expect(st.params).toEqual([7]);
    const select = statements(advisoryTable({ ...fifo, attempt: undefined })).advisory.take(7, NOW);
    expect(select.sql).toBe(
      `SELECT q.* FROM [jobs] q WHERE q.[id] = @p1 AND q.[processed_at] IS NULL${head}`,
    );
  });

  test('take without an attempt column selects the row under the same condition', () => {
    const st = statements(advisoryTable({ attempt: undefined })).advisory.take(42, null);
    expect(st.sql).toBe('SELECT q.* FROM [jobs] q WHERE q.[id] = @p1 AND 1 = 1');
    expect(st.params).toEqual([42]);
  });
});

describe('settlement', () => {
  const s = statements(leaseTable({ retryAfter: 'retry_after', group: 'grp' }));
  const token = new Date(NOW.getTime() + 5);

  test('R-SET-1 R-LEASE-3 ack deletes the row while it holds the token', () => {
    const st = s.settle.settle({ kind: 'finish', id: '3', token, now: NOW });
    expect(st.sql).toBe('DELETE FROM [jobs] WHERE [id] = @p1 AND [locked_until] = @p2');
    expect(st.params).toEqual(['3', token]);
  });

  test('without a token the row is named by its id only', () => {
    const st = statements(table()).settle.settle({ kind: 'finish', id: 3, now: NOW });
    expect(st.sql).toBe('DELETE FROM [jobs] WHERE [id] = @p1');
  });

  test('R-SET-1 a table with processed_at stamps the row and clears the lease', () => {
    const t = leaseTable({ processedAt: 'processed_at' });
    const st = statements(t).settle.settle({ kind: 'finish', id: 3, token, now: NOW });
    expect(st.sql).toBe(
      'UPDATE q SET [processed_at] = @p1, [locked_until] = NULL FROM [jobs] AS q' +
        ' WHERE q.[id] = @p2 AND q.[locked_until] = @p3',
    );
    expect(st.params).toEqual([NOW, 3, token]);
  });

  test('R-LIFE-4 an ack with a result writes it in the same UPDATE that stamps the row; ddl() declares it NVARCHAR(MAX)', () => {
    const t = leaseTable({ processedAt: 'processed_at', result: 'result' });
    const value = '{"value":{"ok":true}}';
    const st = statements(t).settle.settle({ kind: 'finish', id: 3, token, now: NOW, result: value });
    expect(st.sql).toBe(
      'UPDATE q SET [processed_at] = @p1, [result] = @p2, [locked_until] = NULL FROM [jobs] AS q' +
        ' WHERE q.[id] = @p3 AND q.[locked_until] = @p4',
    );
    expect(st.params).toEqual([NOW, value, 3, token]);
    // An ack without one sends the statement it always did.
    expect(statements(t).settle.settle({ kind: 'finish', id: 3, token, now: NOW }).sql).not.toContain(
      '[result]',
    );
    expect(mssqlDialect.ddl(t)[0]).toContain('[result] NVARCHAR(MAX)');
  });

  test('R-SET-1 return: attempt + 1, retry_after, lease cleared, as asked', () => {
    const later = new Date(NOW.getTime() + 60_000);
    const st = s.settle.settle({
      kind: 'return',
      id: 3,
      token,
      now: NOW,
      countAttempt: true,
      retryAfter: later,
      clearLease: true,
    });
    expect(st.sql).toBe(
      'UPDATE q SET [attempt] = [attempt] + 1, [retry_after] = @p1, [locked_until] = NULL' +
        ' FROM [jobs] AS q WHERE q.[id] = @p2 AND q.[locked_until] = @p3',
    );
    expect(st.params).toEqual([later, 3, token]);
  });

  test('a return with nothing to write selects the row, so its count still says whether it was there', () => {
    const st = statements(table({ attempt: undefined })).settle.settle({
      kind: 'return',
      id: 3,
      now: NOW,
      countAttempt: true,
      clearLease: false,
    });
    expect(st.sql).toBe('SELECT 1 AS [one] FROM [jobs] q WHERE q.[id] = @p1');
  });

  test('R-DLQ-2 dead letter to a group: one UPDATE of the group, the lease cleared', () => {
    const target = { group: 'dead' };
    const st = s.settle.settle({ kind: 'deadLetter', id: 3, token, now: NOW, target, inTransaction: false });
    expect(st.sql).toBe(
      'UPDATE q SET [grp] = @p1, [locked_until] = NULL FROM [jobs] AS q WHERE q.[id] = @p2 AND q.[locked_until] = @p3',
    );
    expect(st.params).toEqual(['dead', 3, token]);
  });

  test('R-DLQ-2 dead letter to a table: one DELETE .. OUTPUT deleted.* INTO, so no transaction of its own', () => {
    const sts = statements(table(), { table: 'app.jobs_dlq' }).settle.moveToDeadLetter(
      3,
      undefined,
      'app.jobs_dlq',
    );
    expect(sts).toEqual([
      { sql: 'DELETE FROM [jobs] OUTPUT deleted.* INTO [app].[jobs_dlq] WHERE [id] = @p1', params: [3] },
    ]);
    const held = statements(leaseTable(), { table: 'jobs_dlq' }).settle.moveToDeadLetter(
      3,
      token,
      'jobs_dlq',
    );
    expect(held[0]!.sql).toBe(
      'DELETE FROM [jobs] OUTPUT deleted.* INTO [jobs_dlq] WHERE [id] = @p1 AND [locked_until] = @p2',
    );
  });

  test('R-DESC-7 a dead-letter table name is validated before it is quoted', () => {
    expect(() => statements(table(), { table: 'x]; DROP TABLE jobs; --' })).toThrow(
      /invalid dead-letter table identifier/,
    );
  });
});

describe('insert', () => {
  const insertOf = (columns: string, values: string) =>
    `INSERT INTO [jobs] (${columns}) OUTPUT inserted.[id] SELECT ${columns.replaceAll('[', 'v.[')}` +
    ` FROM (VALUES ${values}) AS v (${columns}, [sqlinbox_pos]) ORDER BY v.[sqlinbox_pos]`;

  test('R-PUB-1 one message: INSERT .. OUTPUT inserted.id, attempt = 0, group and not-before', () => {
    const notBefore = new Date(NOW.getTime() + 1000);
    const t = table({ group: 'grp', retryAfter: 'retry_after' });
    const [st, ...rest] = statements(t).publish.insert([{ payload: '{"a":1}', group: 'g1', notBefore }]);
    expect(rest).toEqual([]);
    expect(st!.sql).toBe(insertOf('[payload], [attempt], [grp], [retry_after]', '(@p1, @p2, @p3, @p4, 0)'));
    expect(st!.params).toEqual(['{"a":1}', 0, 'g1', notBefore]);
  });

  test('several messages: INSERT .. SELECT FROM (VALUES ..) ORDER BY position fixes the order ids are given in', () => {
    const [st] = statements(table()).publish.insert([{ payload: 'a' }, { payload: 'b' }, { payload: 'c' }]);
    expect(st!.sql).toBe(insertOf('[payload], [attempt]', '(@p1, @p2, 0), (@p3, @p4, 1), (@p5, @p6, 2)'));
    expect(st!.params).toEqual(['a', 0, 'b', 0, 'c', 0]);
  });

  test('a generated attempt is left to its default; extra columns are written, NULL where a message lacks one', () => {
    const t = table({ attempt: { column: 'attempt', generated: true }, columns: ['account'] });
    const [st] = statements(t).publish.insert([
      { payload: 'a', columns: { account: 'x' } },
      { payload: 'b' },
    ]);
    expect(st!.sql).toBe(insertOf('[payload], [account]', '(@p1, @p2, 0), (@p3, NULL, 1)'));
    expect(st!.params).toEqual(['a', 'x', 'b']);
  });

  test('an id the table does not generate comes from columns', () => {
    const [st] = statements(table({ id: 'id' })).publish.insert([{ payload: 'a', columns: { id: 7 } }]);
    expect(st!.sql).toBe(insertOf('[id], [payload], [attempt]', '(@p1, @p2, @p3, 0)'));
    expect(st!.params).toEqual([7, 'a', 0]);
  });

  test('a generated id a message carries is not written', () => {
    const [st] = statements(table()).publish.insert([{ payload: 'a', columns: { id: 99 } }]);
    expect(st!.sql).not.toContain('([id]');
  });

  test('a table with nothing to write inserts DEFAULT VALUES per message', () => {
    const t = table({ payload: undefined, attempt: { column: 'attempt', generated: true } });
    const sts = statements(t).publish.insert([{ payload: undefined }, { payload: undefined }]);
    const one = { sql: 'INSERT INTO [jobs] OUTPUT inserted.[id] DEFAULT VALUES', params: [] };
    expect(sts).toEqual([one, one]);
  });

  test('statements stay under 2000 parameters each', () => {
    const messages: Insert[] = Array.from({ length: 2500 }, (_, i) => ({ payload: String(i) }));
    const sts = statements(table()).publish.insert(messages);
    expect(sts.map((st) => st.params.length)).toEqual([2000, 2000, 1000]);
    for (const st of sts) expect(bindsExactly(st)).toBe(true);
  });
});

describe('stats', () => {
  test('R-PLUS-3 ready, delayed, in work and dead in one select that reads past rows being written', () => {
    const t = leaseTable({ retryAfter: 'retry_after' });
    const st = statements(t, { table: 'jobs_dlq' }).counts.stats(NOW);
    expect(st.sql.startsWith(`${RC}SELECT `)).toBe(true);
    expect(st.sql).toContain(
      'COALESCE(SUM(CASE WHEN (q.[retry_after] IS NULL OR q.[retry_after] <= @p4)' +
        ' AND (q.[locked_until] IS NULL OR q.[locked_until] <= @p5) THEN 1 ELSE 0 END), 0) AS [ready]',
    );
    expect(st.sql).toContain(
      'COALESCE(SUM(CASE WHEN q.[locked_until] > @p1 THEN 1 ELSE 0 END), 0) AS [in_work]',
    );
    expect(st.sql).toContain(
      'COALESCE(SUM(CASE WHEN NOT (q.[locked_until] IS NOT NULL AND q.[locked_until] > @p2)' +
        ' AND q.[retry_after] > @p3 THEN 1 ELSE 0 END), 0) AS [delayed]',
    );
    expect(st.sql).toContain(`(SELECT COUNT(*) FROM [jobs_dlq] ${SKIP}) AS [dead]`);
    expect(st.sql.endsWith(` FROM [jobs] q ${SKIP}`)).toBe(true);
    expect(st.params).toEqual([NOW, NOW, NOW, NOW, NOW]);
    expect(bindsExactly(st)).toBe(true);
  });

  test('a dead-letter group is counted in the queue table', () => {
    const st = statements(table({ group: 'grp' }), { group: 'dead' }).counts.stats(NOW);
    expect(st.sql).toContain('COALESCE(SUM(CASE WHEN q.[grp] = @p2 THEN 1 ELSE 0 END), 0) AS [dead]');
    // No time column: "now" is never named, so never bound.
    expect(st.params).toEqual(['dead', 'dead']);
    expect(bindsExactly(st)).toBe(true);
  });
});

describe("every claim reads past locked rows (Effect SQL's SQL Server claim does not; ours must)", () => {
  const shapes = [
    table(),
    table({ group: 'grp', processedAt: 'processed_at', retryAfter: 'retry_after' }),
    table({ isolation: 'serializable' }),
    leaseTable(),
    leaseTable({ group: 'grp' }),
    advisoryTable(),
    advisoryTable({ group: 'grp' }),
  ];

  test('R-ROW-1 claimLocked, claimLease and candidates all carry READPAST, and every value is bound', () => {
    for (const t of shapes) {
      const s = statements(t, t.group === undefined ? undefined : { group: 'dead' });
      const claims = [
        t.form === 'rowlock' ? s.rowLock.claim(2, NOW) : undefined,
        t.form === 'lease' ? s.lease.claim(2, NOW, EXPIRY) : undefined,
        t.form === 'advisory' ? s.advisory.candidates(2, NOW, new Set(['k'])) : undefined,
      ].filter((st) => st !== undefined);
      expect(claims).toHaveLength(1);
      for (const st of claims) {
        expect(st.sql).toContain('READPAST');
        expect(bindsExactly(st)).toBe(true);
      }
    }
  });

  test('R-DESC-7 a schema-qualified table is quoted part by part in every statement', () => {
    const s = statements(leaseTable({ table: 'app.jobs', group: 'grp' }));
    for (const st of [
      s.rowLock.claim(1, NOW),
      s.lease.claim(1, NOW, EXPIRY),
      s.advisory.take(1, NOW),
      s.counts.stats(NOW),
      s.settle.settle({ kind: 'finish', id: 1, now: NOW }),
      ...s.publish.insert([{ payload: 'x' }]),
      ...s.lease.extendLeases([{ id: 1, token: NOW }], EXPIRY),
    ]) {
      expect(st.sql).toContain('[app].[jobs]');
      expect(st.sql).not.toMatch(/[^[]app\.jobs/);
    }
  });
});

describe('flow control', () => {
  const prio = { priority: 'priority', processedAt: 'processed_at' };

  test('R-FLOW-1 every claim form takes the highest priority first, then id', () => {
    expect(statements(table(prio)).rowLock.claim(2, NOW).sql).toContain('ORDER BY q.[priority] DESC, q.[id]');
    const lease = statements(leaseTable(prio)).lease.claim(2, NOW, EXPIRY);
    expect(lease.sql).toContain('ORDER BY q.[priority] DESC, q.[id])\nUPDATE sqlinbox_claim');
    const c = statements(advisoryTable(prio)).advisory.candidates(2, NOW, new Set());
    expect(c.sql).toMatch(/ORDER BY q\.\[priority\] DESC, q\.\[id\]$/);
    expect(bindsExactly(c)).toBe(true);
  });

  test('R-FLOW-1 R-FIFO-1 a FIFO table keeps its head check by id and orders heads by priority', () => {
    const st = statements(table({ ...prio, group: 'grp' })).rowLock.claim(2, NOW);
    expect(st.sql).toContain('s.[id] < q.[id]');
    expect(st.sql).toMatch(/ORDER BY q\.\[priority\] DESC, q\.\[id\]$/);
  });

  test('R-FLOW-1 an insert writes the priority', () => {
    const [st] = statements(table(prio)).publish.insert([{ payload: '{}', priority: 5 }]);
    expect(st!.sql).toContain('[priority]');
    expect(st!.params).toEqual(['{}', 0, 5]);
  });

  test('R-FLOW-2 a keyed insert writes nothing where an unsettled row holds the key (UPDLOCK, HOLDLOCK); the holder is read after', () => {
    const t = table({ uniqueKey: 'job_key', processedAt: 'processed_at' });
    const s = statements(t);
    const st = s.publish.insertKeyed({ payload: '{"a":1}', key: 'order-7' });
    expect(st.sql).toBe(
      'INSERT INTO [jobs] ([payload], [attempt], [job_key]) OUTPUT inserted.[id]' +
        ' SELECT v.[payload], v.[attempt], v.[job_key] FROM (VALUES (@p1, @p2, @p3, 0))' +
        ' AS v ([payload], [attempt], [job_key], [sqlinbox_pos])' +
        ' WHERE NOT EXISTS (SELECT 1 FROM [jobs] WITH (UPDLOCK, HOLDLOCK)' +
        ' WHERE [job_key] = v.[job_key] AND [processed_at] IS NULL) ORDER BY v.[sqlinbox_pos]',
    );
    expect(st.params).toEqual(['{"a":1}', 0, 'order-7']);
    const holder = s.publish.keyHolder('order-7');
    expect(holder.sql).toBe('SELECT [id] FROM [jobs] WHERE [job_key] = @p1 AND [processed_at] IS NULL');
    expect(holder.params).toEqual(['order-7']);
  });
});

describe('schedules', () => {
  test('R-FLOW-5 a tick is recorded unless its (name, tick) is there, read with UPDLOCK, HOLDLOCK; both values bound', () => {
    const st = statements(table()).schedules.recordTick('app.ticks', 'nightly', NOW);
    expect(st.sql).toBe(
      'INSERT INTO [app].[ticks] ([name], [tick]) SELECT v.* FROM (VALUES (@p1, @p2)) AS v ([name], [tick])' +
        ' WHERE NOT EXISTS (SELECT 1 FROM [app].[ticks] AS x WITH (UPDLOCK, HOLDLOCK) WHERE x.[name] = v.[name] AND x.[tick] = v.[tick])',
    );
    expect(st.params).toEqual(['nightly', NOW]);
  });

  test('R-FLOW-5 the tick table: NVARCHAR(255) names, DATETIME2(3) ticks, the pair its primary key', () => {
    expect(statements(table()).schedules.ddl('ticks')).toEqual([
      "IF OBJECT_ID(N'[ticks]', N'U') IS NULL\n" +
        'CREATE TABLE [ticks] (\n  [name] NVARCHAR(255) NOT NULL,\n  [tick] DATETIME2(3) NOT NULL,\n  PRIMARY KEY ([name], [tick])\n)',
    ]);
  });
});

describe('rate limits', () => {
  const limited = () => table({ rateLimit: { max: 50, per: '1s' } });
  const CLOCK = "DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())";

  test('R-FLOW-4 ddl() prints the budget table: NVARCHAR(255) names, BIGINT epoch milliseconds, the name its primary key', () => {
    expect(mssqlDialect.ddl(limited()).at(-1)).toBe(
      "IF OBJECT_ID(N'[sqlinbox_rates]', N'U') IS NULL\nCREATE TABLE [sqlinbox_rates] (\n  [name] NVARCHAR(255) NOT NULL,\n" +
        '  [window_start] BIGINT NOT NULL DEFAULT 0,\n  [used] INTEGER NOT NULL DEFAULT 0,\n' +
        '  [granted] INTEGER NOT NULL DEFAULT 0,\n  [at_ms] BIGINT NOT NULL DEFAULT 0,\n  PRIMARY KEY ([name])\n)',
    );
    expect(mssqlDialect.ddl(table()).join('\n')).not.toContain('sqlinbox_rates');
  });

  test('R-FLOW-4 a reservation is one UPDATE on the database clock answering the row (OUTPUT inserted.*), every value bound', () => {
    const st = statements(limited()).rates.reserveRate('app.rates', 'jobs', 10, 50, 1_000);
    expect(bindsExactly(st)).toBe(true);
    expect(st.sql.startsWith('UPDATE b SET [granted] = (CASE WHEN (@p1 - (CASE WHEN [window_start] = ')).toBe(
      true,
    );
    expect(st.sql).toContain(`(${CLOCK} / @p2) * @p3 THEN [used] ELSE 0 END)`);
    expect(st.sql).toContain(
      `[at_ms] = ${CLOCK} OUTPUT inserted.* FROM [app].[rates] AS b WHERE b.[name] = @p27`,
    );
    // granted, then used, then the window: each reads the row as it stood before the update.
    const order = ['SET [granted] =', ', [used] =', ', [window_start] =', ', [at_ms] ='].map((s) =>
      st.sql.indexOf(s),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(st.params.at(-1)).toBe('jobs');
    expect(new Set(st.params.slice(0, -1))).toEqual(new Set([50, 1_000, 10]));
  });

  test('R-FLOW-4 giving back touches only the window it came from; a missing budget row is written unless there', () => {
    const s = statements(limited());
    const back = s.rates.returnRate('sqlinbox_rates', 'jobs', 1_000, 3);
    expect(back.sql).toBe(
      'UPDATE b SET [used] = CASE WHEN [used] > @p1 THEN [used] - @p2 ELSE 0 END FROM [sqlinbox_rates] AS b' +
        ' WHERE b.[name] = @p3 AND b.[window_start] = @p4',
    );
    expect(back.params).toEqual([3, 3, 'jobs', 1_000]);
    const row = s.rates.rateRow('sqlinbox_rates', 'jobs');
    expect(row.sql).toBe(
      'INSERT INTO [sqlinbox_rates] ([name]) SELECT v.* FROM (VALUES (@p1)) AS v ([name])' +
        ' WHERE NOT EXISTS (SELECT 1 FROM [sqlinbox_rates] AS x WITH (UPDLOCK, HOLDLOCK) WHERE x.[name] = v.[name])',
    );
    expect(row.params).toEqual(['jobs']);
  });
});
