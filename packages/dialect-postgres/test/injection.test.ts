/**
 * R-BAD-1 on PostgreSQL: the hostile corpus through both drivers with
 * `standard_conforming_strings = off`, where a backslash inside '..' escapes the next character
 * (the default mode runs in the conformance suites). Every session of these targets, the admin
 * connection's included, starts with the setting; the first test proves it does.
 */
import { runHostileCorpus } from '@sqlinbox/conformance';
import { Broker, EncodeError, inbox } from '@sqlinbox/core';
import { afterAll, expect, test } from 'vitest';
import { pgTarget, postgresJsTarget } from './targets.js';

const SETTINGS = { standard_conforming_strings: 'off' };
const targets = [pgTarget(SETTINGS), postgresJsTarget(SETTINGS)];
afterAll(async () => {
  for (const t of targets) await t.close?.();
});

test('R-BAD-1 the targets run with standard_conforming_strings = off', async () => {
  for (const t of targets) {
    const a = await t.open({ poolSize: 1 });
    try {
      const conn = await a.pool.acquire();
      const { rows } = await conn.query<{ s: string }>(
        "SELECT current_setting('standard_conforming_strings') AS s",
      );
      a.pool.release(conn);
      expect(rows[0]?.s).toBe('off');
    } finally {
      await a.close();
    }
  }
  const [admin] = await targets[0]!.exec("SELECT current_setting('standard_conforming_strings') AS s");
  expect(admin?.s).toBe('off');
});

for (const t of targets) await runHostileCorpus(t);

test('R-BAD-1 an array parameter round-trips element for element through both drivers: ids, words that read as NULL, quotes, braces, spaces', async () => {
  const plain = ['1', '42', '-7', '9007199254740993', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'a_b.c:d+e'];
  const hostile = [
    'NULL',
    'null',
    'Null',
    'a b',
    '"q"',
    'back\\slash',
    "it's",
    'comma,',
    '{brace}',
    '',
    ' pad',
  ];
  const cases: { sql: string; value: unknown[]; expected: unknown[] }[] = [
    { sql: 'SELECT $1::text[] AS a', value: plain, expected: plain },
    // One element that must be quoted: the whole array goes the driver's own way.
    ...hostile.map((h) => ({ sql: 'SELECT $1::text[] AS a', value: [...plain, h], expected: [...plain, h] })),
    {
      sql: 'SELECT $1::int8[]::text[] AS a',
      value: [1, -2, Number.MAX_SAFE_INTEGER, 10n ** 18n],
      expected: ['1', '-2', String(Number.MAX_SAFE_INTEGER), String(10n ** 18n)],
    },
    { sql: 'SELECT $1::text[] AS a', value: [], expected: [] },
  ];
  for (const t of targets) {
    const a = await t.open({ poolSize: 1 });
    const conn = await a.pool.acquire();
    try {
      // A NULL element: pg only. postgres.js 3.4 sends it as the text 'NULL' (the element comes
      // back as that word); sqlinbox binds no array with a NULL in it.
      const nulls =
        t === targets[0]
          ? [{ sql: 'SELECT $1::text[] AS a', value: ['1', null, '2'], expected: ['1', null, '2'] }]
          : [];
      for (const c of [...cases, ...nulls]) {
        // Twice: the second run goes through the statement the first one prepared.
        for (let i = 0; i < 2; i++) {
          const { rows } = await conn.query<{ a: unknown[] }>(c.sql, [c.value]);
          expect(rows[0]?.a, `${t.name}: ${c.value.map(String).join(' | ')}`).toEqual(c.expected);
        }
      }
    } finally {
      a.pool.release(conn);
      await a.close();
    }
  }
});

test('R-BAD-1 a NUL, which PostgreSQL text and jsonb cannot hold, is refused with an error naming it; nothing is stored', async () => {
  const t = targets[0]!;
  const a = await t.open({ poolSize: 1 });
  const name = `sqi_nul_${Date.now().toString(36)}`;
  const desc = inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    group: 'grp',
    attempt: { column: 'attempt', generated: true },
  });
  for (const stmt of a.dialect.ddl(desc)) await t.exec(stmt);
  const b = new Broker(a);
  try {
    const refusals: string[] = [];
    for (const publish of [
      () => b.publish(desc, 'a\u0000b'),
      () => b.publish(desc, 'ok', { group: 'a\u0000b' }),
    ]) {
      const err = await publish().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(EncodeError);
      refusals.push(String((err as Error).message));
    }
    for (const r of refusals)
      expect(r).toMatch(
        new RegExp(`${name}: PostgreSQL text and jsonb cannot hold the NUL character U\\+0000`),
      );
    expect(await t.exec(`SELECT * FROM "${name}"`)).toEqual([]);
  } finally {
    await b.shutdown({ timeout: 0 });
    await a.close();
    await t.exec(`DROP TABLE IF EXISTS "${name}"`);
  }
});
