/**
 * The T-SQL of the admin API and of the in-work counts, as the builder writes it for SQL Server:
 * text, hints and bound values. Pure, like statements.test.ts: what a server does with it is the
 * conformance suite's to prove.
 */
import { describe, expect, test } from 'vitest';
import { advisoryTable, bindsExactly, leaseTable, statements, table } from './helpers.js';

const NOW = new Date(Date.UTC(2030, 0, 1, 12, 0, 0, 123));
const SKIP = 'WITH (READCOMMITTEDLOCK, READPAST)';

describe('admin statements', () => {
  test('R-ADM-3 a change picks live rows WITH (UPDLOCK, READPAST, ROWLOCK), leaving out a live lease', () => {
    const st = statements(leaseTable()).admin.pick({ dead: false, ids: [1, 2], now: NOW });
    expect(st?.sql).toBe(
      'SELECT r.* FROM [jobs] r WITH (UPDLOCK, READPAST, ROWLOCK)' +
        ' WHERE (r.[locked_until] IS NULL OR r.[locked_until] <= @p1) AND r.[id] IN (@p2, @p3) ORDER BY r.[id]',
    );
    expect(st?.params).toEqual([NOW, 1, 2]);
  });

  test('R-ADM-3 dead rows of a group are picked by the group, bound, never spliced', () => {
    const evil = "dead'; DROP TABLE jobs; --";
    const st = statements(table({ group: 'grp' }), { group: 'dead' }).admin.pick({
      dead: true,
      group: evil,
      now: NOW,
    });
    expect(st?.sql).toBe(
      'SELECT r.* FROM [jobs] r WITH (UPDLOCK, READPAST, ROWLOCK) WHERE r.[grp] = @p1 ORDER BY r.[id]',
    );
    expect(st?.params).toEqual([evil]);
  });

  test('R-ADM-3 requeue from a dead-letter group resets the attempt and sets the group', () => {
    const t = leaseTable({ group: 'grp', retryAfter: 'retry_after' });
    const st = statements(t, { group: 'dead' }).admin.fresh([7, 8], { value: null });
    expect(st?.sql).toBe(
      'UPDATE q SET [attempt] = 0, [retry_after] = NULL, [locked_until] = NULL, [grp] = @p1' +
        ' FROM [jobs] AS q WHERE q.[id] IN (@p2, @p3)',
    );
    expect(st?.params).toEqual([null, 7, 8]);
  });

  test('R-ADM-3 requeue from a dead-letter table copies the named columns back under IDENTITY_INSERT, then deletes', () => {
    const s = statements(table(), { table: 'jobs_dlq' });
    const copy = s.admin.copyBack([3]);
    expect(copy.sql).toBe(
      'SET IDENTITY_INSERT [jobs] ON;\nINSERT INTO [jobs] ([id], [payload], [attempt]) SELECT [id], [payload], [attempt]' +
        ' FROM [jobs_dlq] WHERE [id] IN (@p1);\nSET IDENTITY_INSERT [jobs] OFF;',
    );
    const remove = s.admin.remove([3], true);
    expect(remove.sql).toBe('DELETE FROM [jobs_dlq] WHERE [id] IN (@p1)');
    const reset = s.admin.fresh([3], undefined);
    expect(reset?.sql).toBe('UPDATE q SET [attempt] = 0 FROM [jobs] AS q WHERE q.[id] IN (@p1)');
    for (const st of [copy, remove, reset!]) expect(bindsExactly(st)).toBe(true);
    // An id the table does not generate is copied as it is.
    expect(statements(table({ id: 'id' }), { table: 'jobs_dlq' }).admin.copyBack([3]).sql).not.toContain(
      'IDENTITY_INSERT',
    );
  });

  test('R-ADM-2 list pages by id with TOP, the state and the cursor bound, reading past rows being written', () => {
    const st = statements(leaseTable()).admin.list({ state: 'ready', after: 10, limit: 50, now: NOW });
    expect(st.sql).toBe(
      'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n' +
        "SELECT TOP (@p4) x.* FROM (SELECT r.*, CASE WHEN r.[locked_until] > @p1 THEN 'inWork' ELSE 'ready' END" +
        ` AS sqlinbox_state FROM [jobs] r ${SKIP}) x` +
        ' WHERE x.sqlinbox_state = @p2 AND x.[id] > @p3 ORDER BY x.[id]',
    );
    expect(st.params).toEqual([NOW, 'ready', 10, 50]);
  });

  test('R-ADM-2 dead rows of a dead-letter table are listed from it', () => {
    const st = statements(leaseTable(), { table: 'jobs_dlq' }).admin.list({
      state: 'dead',
      limit: 5,
      now: NOW,
    });
    expect(st.sql).toContain(`(SELECT r.*, 'dead' AS sqlinbox_state FROM [jobs_dlq] r ${SKIP}) x`);
    expect(st.params).toEqual(['dead', 5]);
  });

  test('R-ADM-1 rows in work: APPLOCK_TEST on each due key (advisory), an UPDLOCK READPAST count (row lock)', () => {
    const s = statements(advisoryTable({ retryAfter: 'retry_after' }));
    const due = s.counts.dueRows(NOW);
    expect(due.sql).toBe(
      'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n' +
        "SELECT (@p1 + COALESCE(CAST(q.[id] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]," +
        ' q.[retry_after] AS [due_at]' +
        ` FROM [jobs] q ${SKIP} WHERE (q.[retry_after] IS NULL OR q.[retry_after] <= @p2)`,
    );
    const held = s.advisory.heldKeys(['jobs-1', 'k'.repeat(256)])!;
    // Each key bound as it is; the server names its lock as sp_getapplock does (`freeKey`).
    expect(held.sql).toBe(
      'SELECT COUNT(*) AS [n] FROM (VALUES (@p1), (@p2)) AS v ([k])' +
        ` WHERE NOT (${s.advisory.freeKey('v.[k]')})`,
    );
    expect(s.advisory.freeKey('v.[k]')).toContain("HASHBYTES('SHA2_256', v.[k])");
    expect(held.params).toEqual(['jobs-1', 'k'.repeat(256)]);
    const row = statements(table({ retryAfter: 'retry_after' })).counts.lockable(NOW)!;
    expect(row.sql).toBe(
      'SET TRANSACTION ISOLATION LEVEL READ COMMITTED;\n' +
        'SELECT COUNT(*) AS [n] FROM (SELECT 1 AS [one] FROM [jobs] q WITH (UPDLOCK, READPAST, ROWLOCK)' +
        ' WHERE (q.[retry_after] IS NULL OR q.[retry_after] <= @p1)) x',
    );
    expect(bindsExactly(row)).toBe(true);
  });

  test('R-ADM-3 reschedule sets retry_after by id', () => {
    const st = statements(table({ retryAfter: 'retry_after' })).admin.reschedule([3, 4], NOW);
    expect(st?.sql).toBe('UPDATE q SET [retry_after] = @p1 FROM [jobs] AS q WHERE q.[id] IN (@p2, @p3)');
    expect(st?.params).toEqual([NOW, 3, 4]);
  });
});
