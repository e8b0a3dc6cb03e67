/**
 * Every statement the SQLite dialect sends, for the fixed descriptions of `@sqlinbox/sql`'s
 * snapshot, compared with the committed `__snapshots__/statements.sql`: a change to a statement
 * fails here until the snapshot is written again (`vitest run -u`) and its diff reviewed.
 */
import { renderStatements, type SqlDialect } from '@sqlinbox/sql';
import { format } from 'sql-formatter';
import { expect, test } from 'vitest';
import { sqliteDialect } from '../src/dialect.js';

test('R-HOUSE-4 every statement of the SQLite dialect matches its snapshot', async () => {
  const text = renderStatements(sqliteDialect as SqlDialect, {
    format: (sql) => format(sql, { language: 'sqlite', expressionWidth: 80 }),
  });
  await expect(text).toMatchFileSnapshot('./__snapshots__/statements.sql');
});
