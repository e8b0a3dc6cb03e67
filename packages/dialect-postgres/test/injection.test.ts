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
