import { type AnyTable, inbox, type PrepareOptions } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import {
  builderStatements,
  QueueSql,
  QueueStatements,
  ScheduleStatements,
  SqlSyntax,
  type Statement,
} from '../src/index.js';

/**
 * A syntax that numbers its placeholders (`:1`, `:2`): a driver that binds by position (`?`)
 * takes the values in the order the placeholders appear, so every statement must bind its
 * values in text order. Numbered placeholders make that order visible.
 */
class Numbered extends SqlSyntax {
  override placeholder(i: number): string {
    return `:${i}`;
  }
}

/** The builder's statements of a table over a syntax (numbered placeholders by default). */
function numbered(t: AnyTable, opts: PrepareOptions, syntax: SqlSyntax = new Numbered()): QueueStatements {
  return new QueueStatements(new QueueSql(syntax, t, opts));
}

const now = new Date(1_000);

const lease = inbox({
  table: 'app.jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
  retryAfter: 'retry_after',
  processedAt: 'processed_at',
  group: 'group',
  partitionKey: 'lane',
  priority: 'priority',
  uniqueKey: 'unique_key',
  columns: ['account'],
});
const advisory = inbox({
  table: 'jobs',
  id: 'id',
  payload: 'payload',
  attempt: 'attempt',
  advisory: 'acct-{account}-{lane}',
  retryAfter: 'retry_after',
  group: 'group',
  columns: ['account', 'lane'],
});
const bare = inbox({ table: 'bare', id: 'id', lease: 'locked_until' });

/** Every statement of a table the builder writes, by name: the snapshot's, and the ticks'. */
function everyStatement(t: AnyTable, opts: PrepareOptions): [string, Statement][] {
  const s = numbered(t, opts);
  const c = { name: t.table, table: t, prepare: opts, ddl: { schedules: 'app.ticks' } };
  const out = [
    ...builderStatements(s, c),
    ['claimLocked (database clock)', s.rowLock.claim(10, null)] as const,
  ];
  return out.flatMap(([name, st]) =>
    st === null || st === undefined || typeof st === 'string'
      ? []
      : Array.isArray(st)
        ? (st as Statement[]).map((x, i): [string, Statement] => [`${name} ${i}`, x])
        : [[name, st as Statement]],
  );
}

const cases: [string, AnyTable, PrepareOptions][] = [
  [
    'lease table, dead-letter group, excluded ids',
    lease,
    { deadLetter: { group: 'dead letters' }, exclude: new Set([9, 10]) },
  ],
  ['lease table, dead-letter table', lease, { deadLetter: { table: 'app.jobs_dead' } }],
  ['advisory table', advisory, { deadLetter: { group: 'dead letters' } }],
  ['a table of an id and a lease', bare, {}],
];

describe.each(cases)('R-KIT-1 R-BAD-1 %s', (_name, t, opts) => {
  test.each(everyStatement(t, opts))('%s binds every value once, in text order', (_s, st) => {
    const used = [...st.sql.matchAll(/:(\d+)\b/g)].map((m) => Number(m[1]));
    // Each placeholder appears once and they count up as the text is read.
    expect(used).toEqual(st.params.map((_v, i) => i + 1));
    // No value is written into the text: the dead-letter group, keys, ids are all bound.
    // (The row states are fixed text of the CASE that names them.)
    const states = new Set(['ready', 'delayed', 'inWork', 'dead', 'done']);
    for (const v of st.params)
      if (typeof v === 'string' && !states.has(v)) expect(st.sql).not.toContain(`'${v}'`);
  });
});

test('R-KIT-1 a hook changes every statement that uses it: identifiers, placeholders, the clock', () => {
  class Bracketed extends Numbered {
    override ident(name: string): string {
      return `[${name}]`;
    }
    override readonly clock = 'SYSUTCDATETIME()';
  }
  const s = numbered(lease, {}, new Bracketed());
  const claim = s.rowLock.claim(5, null);
  expect(claim.sql).toContain('FROM [app].[jobs] q');
  expect(claim.sql).toContain('q.[retry_after] <= SYSUTCDATETIME()');
  expect(claim.sql).not.toContain('"');
  expect(claim.params).toEqual([5]);
});

test('R-KIT-1 a description without a column a statement needs is a ConfigError naming the table and the role', () => {
  const s = numbered(bare, {});
  expect(() => s.publish.keyHolder('k')).toThrow(/bare.*uniqueKey|uniqueKey.*bare/s);
  expect(() => s.settle.settle({ kind: 'finish', id: 1, now })).not.toThrow();
  expect(() =>
    s.settle.settle({
      kind: 'deadLetter',
      id: 1,
      now,
      target: { group: 'dead letters' },
      inTransaction: false,
    }),
  ).toThrow(/group/);
});

test('R-FLOW-5 the tick table: its primary key (name, tick) in the DDL, the hooks for its types and for the insert that writes nothing', () => {
  const s = numbered(lease, {}).schedules;
  expect(s.ddl('app.ticks')).toEqual([
    'CREATE TABLE IF NOT EXISTS "app"."ticks" (\n  "name" VARCHAR(255) NOT NULL,\n  "tick" TIMESTAMP NOT NULL,\n  PRIMARY KEY ("name", "tick")\n)',
  ]);
  expect(s.recordTick('ticks', 'n', now)).toEqual({
    sql: 'INSERT INTO "ticks" ("name", "tick") VALUES (:1, :2) ON CONFLICT DO NOTHING',
    params: ['n', now],
  });
  class Other extends Numbered {
    override readonly tickNameType = 'TEXT';
    override readonly tickTimeType = 'INTEGER';
    override insertNew(table: string, columns: readonly string[], values: readonly string[]): string {
      return `INSERT IGNORE INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')})`;
    }
  }
  const o = new ScheduleStatements(new QueueSql(new Other(), lease, {}));
  expect(o.ddl('ticks')[0]).toContain('"name" TEXT NOT NULL');
  expect(o.ddl('ticks')[0]).toContain('"tick" INTEGER NOT NULL');
  expect(o.recordTick('ticks', 'n', now).sql).toBe(
    'INSERT IGNORE INTO "ticks" ("name", "tick") VALUES (:1, :2)',
  );
});
