/**
 * The T-SQL of the admin API: text, quoting and parameter placement. Pure, like statements.test.ts:
 * what a server does with it is the conformance suite's to prove.
 */
import { describe, expect, test } from 'vitest';
import { AdminStatements } from '../src/statements.js';
import { advisoryTable, bindsExactly, leaseTable, table } from './helpers.js';

const NOW = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 123));

describe('admin statements', () => {
  test('R-ADM-3 a change picks live rows WITH (UPDLOCK, READPAST, ROWLOCK), leaving out a live lease', () => {
    const st = new AdminStatements(leaseTable(), undefined).pick({ dead: false, ids: [1, 2], now: NOW });
    expect(st?.sql).toBe(
      'SELECT r.* FROM [jobs] AS r WITH (UPDLOCK, READPAST, ROWLOCK)' +
        ' WHERE (r.[locked_until] IS NULL OR r.[locked_until] <= @p1) AND r.[id] IN (@p2, @p3) ORDER BY r.[id]',
    );
    expect(st?.params).toEqual([NOW, 1, 2]);
  });

  test('R-ADM-3 dead rows of a group are picked by the group, bound, never spliced', () => {
    const evil = "dead'; DROP TABLE jobs; --";
    const st = new AdminStatements(table({ group: 'grp' }), { group: 'dead' }).pick({
      dead: true,
      group: evil,
      now: NOW,
    });
    expect(st?.sql).toBe(
      'SELECT r.* FROM [jobs] AS r WITH (UPDLOCK, READPAST, ROWLOCK) WHERE r.[grp] = @p1 ORDER BY r.[id]',
    );
    expect(st?.params).toEqual([evil]);
  });

  test('R-ADM-3 requeue from a dead-letter group resets the attempt and sets the group', () => {
    const [st, ...rest] = new AdminStatements(leaseTable({ group: 'grp', retryAfter: 'retry_after' }), {
      group: 'dead',
    }).requeue([7, 8], null);
    expect(rest).toEqual([]);
    expect(st?.sql).toBe(
      'UPDATE [jobs] SET [attempt] = 1, [retry_after] = NULL, [locked_until] = NULL, [grp] = @p1 WHERE [id] IN (@p2, @p3)',
    );
    expect(st?.params).toEqual([null, 7, 8]);
  });

  test('R-ADM-3 requeue from a dead-letter table copies the named columns back under IDENTITY_INSERT, then deletes', () => {
    const [copy, remove, reset] = new AdminStatements(table(), { table: 'jobs_dlq' }).requeue([3], null);
    expect(copy?.sql).toBe(
      'SET IDENTITY_INSERT [jobs] ON;\nINSERT INTO [jobs] ([id], [payload], [attempt]) SELECT [id], [payload], [attempt]' +
        ' FROM [jobs_dlq] WHERE [id] IN (@p1);\nSET IDENTITY_INSERT [jobs] OFF;',
    );
    expect(remove?.sql).toBe('DELETE FROM [jobs_dlq] WHERE [id] IN (@p1)');
    expect(reset?.sql).toBe('UPDATE [jobs] SET [attempt] = 1 WHERE [id] IN (@p1)');
    for (const st of [copy!, remove!, reset!]) expect(bindsExactly(st)).toBe(true);
  });

  test('R-ADM-2 list pages by id with TOP, the state and the cursor bound', () => {
    const st = new AdminStatements(leaseTable(), undefined).list({
      state: 'ready',
      after: 10,
      limit: 50,
      now: NOW,
    });
    expect(st.sql).toBe(
      'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n' +
        "SELECT TOP (@p1) x.* FROM (SELECT r.*, CASE WHEN r.[locked_until] > @p2 THEN 'inWork' ELSE 'ready' END" +
        ' AS [sqlinbox_state] FROM [jobs] AS r WITH (READCOMMITTEDLOCK, READPAST)) AS x' +
        ' WHERE x.[sqlinbox_state] = @p3 AND x.[id] > @p4 ORDER BY x.[id]',
    );
    expect(st.params).toEqual([50, NOW, 'ready', 10]);
  });

  test('R-ADM-1 rows in work: APPLOCK_TEST on each due key (advisory), an UPDLOCK READPAST count (row lock)', () => {
    const adv = new AdminStatements(advisoryTable(), undefined).inWork(NOW);
    expect(adv.sql).toContain(
      "APPLOCK_TEST(N'public', CASE WHEN DATALENGTH(CONCAT(N'', @p1, CAST(q.[id] AS NVARCHAR(MAX)))) / 2 > 255",
    );
    expect(adv.sql).toContain("'Exclusive', 'Session') = 0 THEN 1 ELSE 0 END), 0)");
    expect(adv.params).toEqual(['jobs-']);
    const row = new AdminStatements(table({ retryAfter: 'retry_after' }), undefined).inWork(NOW);
    expect(row.sql).toContain(
      '- (SELECT COUNT(*) FROM [jobs] AS f WITH (UPDLOCK, READPAST, ROWLOCK) WHERE (f.[retry_after] IS NULL OR f.[retry_after] <= @p1))',
    );
    expect(row.sql).toContain(
      'MIN(CASE WHEN (q.[retry_after] IS NULL OR q.[retry_after] <= @p1) THEN q.[retry_after] END)',
    );
    expect(bindsExactly(row)).toBe(true);
  });
});
