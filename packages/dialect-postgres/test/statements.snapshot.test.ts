/**
 * Every statement the PostgreSQL dialect sends, for the fixed descriptions of `@sqlinbox/sql`'s
 * snapshot, compared with the committed `__snapshots__/statements.sql`: a change to a statement
 * fails here until the snapshot is written again (`vitest run -u`) and its diff reviewed.
 */
import { boundedClaims, renderStatements, SNAPSHOT_NOW, type SqlDialect } from '@sqlinbox/sql';
import { format } from 'sql-formatter';
import { expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import type { PostgresStatements } from '../src/statements.js';

const now = SNAPSHOT_NOW;

test('R-HOUSE-4 every statement of the PostgreSQL dialect matches its snapshot', async () => {
  const text = renderStatements<PostgresStatements>(postgresDialect as SqlDialect, {
    format: (sql) =>
      format(sql, { language: 'postgresql', paramTypes: { numbered: ['$'] }, expressionWidth: 80 }),
    extra: (s, c) => [
      [
        'insert without its wake-up (a quiet publish)',
        s.publish.insert([{ payload: '{"n":1}' }], false, false),
      ],
      ...(c.table.uniqueKey === undefined
        ? []
        : ([['keyHolder (two keys)', s.publish.keyHolder(['k1', 'k2'])]] as const)),
      ['statsInWork', s.counts.statsInWork(now)],
      ...(c.table.lease !== undefined && boundedClaims(c.table)
        ? ([
            [
              'claimLease from an id (n 10, from 4000)',
              s.lease.claim(10, now, new Date(now.getTime() + 30_000), 4000n),
            ],
          ] as const)
        : []),
    ],
  });
  await expect(text).toMatchFileSnapshot('./__snapshots__/statements.sql');
});
