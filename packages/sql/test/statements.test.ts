import { type AnyTable, inbox, type PrepareOptions } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { QueueStatements, type Statement } from '../src/index.js';

/**
 * A dialect that numbers its placeholders (`:1`, `:2`): a driver that binds by position (`?`)
 * takes the values in the order the placeholders appear, so every statement must bind its
 * values in text order. Numbered placeholders make that order visible.
 */
class Numbered extends QueueStatements {
  override placeholder(i: number): string {
    return `:${i}`;
  }
}

const now = new Date(1_000);
const later = new Date(61_000);

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

/** Every statement of a table the builder writes, by name. */
function everyStatement(t: AnyTable, opts: PrepareOptions): [string, Statement][] {
  const s = new Numbered(t, opts);
  const out: [string, Statement | Statement[] | null][] = [
    ['claimLocked', s.claimLocked(10, now)],
    ['claimLocked (database clock)', s.claimLocked(10, null)],
    ['candidates', s.candidates(10, now, new Set(['k1', 'k2']))],
    ['take', s.take(7, now)],
    ['settle finish', s.settle({ kind: 'finish', id: 7, token: now, now })],
    [
      'settle return',
      s.settle({
        kind: 'return',
        id: 7,
        token: now,
        now,
        countAttempt: true,
        retryAfter: later,
        clearLease: true,
      }),
    ],
    [
      'insert',
      s.insert([
        {
          payload: '{}',
          ...(t.group === undefined ? {} : { group: 'g' }),
          ...(t.retryAfter === undefined ? {} : { notBefore: later }),
          ...(t.priority === undefined ? {} : { priority: 3 }),
          ...(t.columns.includes('account') ? { columns: { account: 1 } } : {}),
        },
      ]),
    ],
    ['stats', s.stats(now)],
    ['dueRows', s.dueRows(now)],
    ['list', s.list({ state: 'ready', after: 3, limit: 50, ids: [4, 5], now })],
    ['pick live', s.pick({ dead: false, ids: [4, 5], group: 'g', now })],
    ['pick dead', s.pick({ dead: true, ids: [4], now })],
    ['fresh', s.fresh([4, 5], { value: 'g' })],
    ['remove', s.remove([4, 5], false)],
    ['reschedule', s.reschedule([4, 5], later)],
    ['recordTick', s.recordTick('app.ticks', 'nightly report', now)],
    ['lastTick', s.lastTick('app.ticks', 'nightly report')],
    ['pruneTicks', s.pruneTicks('app.ticks', 'nightly report', later)],
  ];
  if (t.lease !== undefined) {
    out.push(
      ['claimLease', s.claimLease(10, now, later)],
      [
        'extendLeases',
        s.extendLeases(
          [
            { id: 1, token: now },
            { id: 2, token: later },
          ],
          later,
        ),
      ],
      ['settleMany', s.settleMany([{ kind: 'finish', id: 1, token: now, now }])],
    );
  }
  if (t.uniqueKey !== undefined)
    out.push(['insertKeyed', s.insertKeyed({ payload: '{}', key: 'k' })], ['keyHolder', s.keyHolder('k')]);
  if (opts.deadLetter !== undefined && 'group' in opts.deadLetter)
    out.push([
      'settle deadLetter group',
      s.settle({ kind: 'deadLetter', id: 7, now, target: opts.deadLetter, inTransaction: false }),
    ]);
  if (opts.deadLetter !== undefined && 'table' in opts.deadLetter) {
    out.push(
      ['moveToDeadLetter', s.moveToDeadLetter(7, now, 'app.jobs_dead')],
      ['copyBack', s.copyBack([4])],
    );
  }
  return out.flatMap(([name, st]) =>
    st === null
      ? []
      : Array.isArray(st)
        ? st.map((x, i): [string, Statement] => [`${name} ${i}`, x])
        : [[name, st]],
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
  const s = new Bracketed(lease, {});
  const claim = s.claimLocked(5, null);
  expect(claim.sql).toContain('FROM [app].[jobs] q');
  expect(claim.sql).toContain('q.[retry_after] <= SYSUTCDATETIME()');
  expect(claim.sql).not.toContain('"');
  expect(claim.params).toEqual([5]);
});

test('R-KIT-1 a description without a column a statement needs is a ConfigError naming the table and the role', () => {
  const s = new Numbered(bare, {});
  expect(() => s.keyHolder('k')).toThrow(/bare.*uniqueKey|uniqueKey.*bare/s);
  expect(() => s.settle({ kind: 'finish', id: 1, now })).not.toThrow();
  expect(() =>
    s.settle({ kind: 'deadLetter', id: 1, now, target: { group: 'dead letters' }, inTransaction: false }),
  ).toThrow(/group/);
});

test('R-FLOW-5 the tick table: its primary key (name, tick) in the DDL, the hooks for its types and for the insert that writes nothing', () => {
  const s = new Numbered(lease, {});
  expect(s.ticksDdl('app.ticks')).toEqual([
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
  const o = new Other(lease, {});
  expect(o.ticksDdl('ticks')[0]).toContain('"name" TEXT NOT NULL');
  expect(o.ticksDdl('ticks')[0]).toContain('"tick" INTEGER NOT NULL');
  expect(o.recordTick('ticks', 'n', now).sql).toBe(
    'INSERT IGNORE INTO "ticks" ("name", "tick") VALUES (:1, :2)',
  );
});
