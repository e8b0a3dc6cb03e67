/**
 * Every statement the SQL Server dialect sends, for the fixed descriptions of `@sqlinbox/sql`'s
 * snapshot, compared with the committed `__snapshots__/statements.sql`: a change to a statement
 * fails here until the snapshot is written again (`vitest run -u`) and its diff reviewed.
 */
import { renderStatements, snapshotCases } from '@sqlinbox/sql';
import { format } from 'sql-formatter';
import { expect, test } from 'vitest';
import { DESCRIBE_SQL, mssqlDialect } from '../src/dialect.js';

test('R-HOUSE-4 every statement of the SQL Server dialect matches its snapshot', async () => {
  const s = mssqlDialect.statements(snapshotCases()[0]!.table);
  const text = renderStatements(mssqlDialect, {
    format: (sql) =>
      format(sql, { language: 'transactsql', paramTypes: { named: ['@'] }, expressionWidth: 80 }),
    dialect: [
      ['describe a table', DESCRIBE_SQL],
      ['the prefix of a plain read', s.s.plainReadPrefix],
      ['transactions open on the session', s.s.inTransactionSql],
    ],
  });
  await expect(text).toMatchFileSnapshot('./__snapshots__/statements.sql');
});
