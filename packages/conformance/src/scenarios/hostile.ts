import { type Capabilities, ConfigError, type Form, Outcome, PublishError, queue } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import { type Harness, payloadOf, until } from '../harness.js';

/** One value of the hostile corpus. */
export interface HostileValue {
  /** What the value is, for test titles (e.g. `single quote`). */
  readonly name: string;
  /** The text itself, stored and read back by the hostile scenarios. */
  readonly value: string;
  /**
   * Why a database may refuse this value instead of storing it (`nul`: PostgreSQL text and jsonb
   * hold no NUL; `surrogate`: jsonb holds no lone surrogate). A refusal must be an error and
   * store nothing; any other answer is a byte-for-byte round trip.
   */
  readonly mayRefuse?: 'nul' | 'surrogate';
  /** Too long for a `VARCHAR(255)` column: used as a payload only. */
  readonly long?: boolean;
  /** Not valid UTF-16 (a lone surrogate): a payload only, where JSON escapes it. */
  readonly jsonOnly?: boolean;
}

/**
 * Values that break SQL built by splicing, under every server mode (`NO_BACKSLASH_ESCAPES`,
 * `ANSI_QUOTES`, `standard_conforming_strings=off`): quotes, backslashes, NUL, unicode, comment
 * markers, statement terminators and a 1 MB string.
 */
export function hostileCorpus(): HostileValue[] {
  const mb = `'\\"${'x'.repeat(1024 * 1024 - 8)}\\'; --`;
  return [
    { name: 'single quote', value: "O'Brien" },
    { name: 'double quote', value: 'say "hi"' },
    { name: 'backtick', value: 'a`b``c' },
    { name: 'backslash', value: 'C:\\dir\\' },
    { name: 'backslash quote', value: "\\'" },
    { name: 'double backslash quote', value: "\\\\'" },
    { name: 'lone backslash', value: '\\' },
    { name: 'NUL', value: 'a\u0000b', mayRefuse: 'nul' },
    { name: 'emoji', value: '😀 👩‍👩‍👧 🇺🇦' },
    { name: 'right to left', value: 'שלום \u202Eevil\u202C مرحبا' },
    { name: 'combining marks', value: 'e\u0301 a\u0308\u0323 Z\u0351\u0364' },
    { name: 'lone surrogate', value: 'x\uD800y\uDC00', mayRefuse: 'surrogate', jsonOnly: true },
    { name: 'line comment', value: 'a -- b' },
    { name: 'block comment', value: 'a /* b */ c /*' },
    { name: 'hash comment', value: 'a # b' },
    { name: 'drop table', value: "'; DROP TABLE x; --" },
    { name: 'backslash select', value: "\\'; SELECT 1; -- " },
    // Under NO_BACKSLASH_ESCAPES a client that escapes `'` as `\'` ends the literal early, and the
    // rest becomes SQL: a second row made by a subquery.
    {
      name: 'second row from a subquery',
      value: `x\\', 1), ((SELECT 'injected'), 1) -- `,
    },
    { name: 'ansi quotes', value: '"payload" || \'x\'' },
    { name: 'dollar quote', value: "$$; SELECT 1; $$ $a$ '" },
    { name: 'percent and question mark', value: '%s ? $1 :name @v' },
    { name: 'control characters', value: '\t\r\n\b\f\u001a\u007f' },
    { name: '1 MB', value: mb, long: true },
  ];
}

/** Where two strings first differ, for a short failure message (the 1 MB value included). */
function firstDifference(got: unknown, want: string): string | undefined {
  if (typeof got !== 'string') return `a ${typeof got} instead of a string`;
  if (got === want) return undefined;
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const at = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 8), i + 8));
  return `length ${got.length} (want ${want.length}), first difference at ${i}: ${at(got)} instead of ${at(want)}`;
}

/**
 * The hostile corpus published and consumed through every place a value goes: the
 * payload, the group, the partition key, a column an advisory key names, a dead-letter group.
 * Every value round-trips byte for byte, or (NUL, a lone surrogate, where the database cannot hold
 * it) is refused with an error and stores nothing.
 */
export function hostileScenarios(h: () => Harness, form: Form, _caps: Capabilities): void {
  test(`R-BAD-1 a hostile corpus of payloads is published and handled byte for byte (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    const corpus = hostileCorpus();
    const published = new Map<string, HostileValue>();
    const refused: string[] = [];
    for (const item of corpus) {
      const before = (await h().rows(name)).length;
      try {
        await b.publish(desc, { name: item.name, value: item.value });
        published.set(item.name, item);
      } catch (err) {
        // Only values the database cannot hold may be refused, with an error and nothing stored.
        if (item.mayRefuse === undefined) throw err;
        expect(err).toBeInstanceOf(Error);
        expect((await h().rows(name)).length).toBe(before);
        refused.push(item.name);
      }
    }
    // Nothing but the published rows is in the table: no row came from an injected statement.
    expect((await h().rows(name)).length).toBe(published.size);
    const received = new Map<string, unknown>();
    b.subscribe(queue(desc), async (m) => {
      const { name: n, value } = m as { name: string; value: unknown };
      received.set(n, value);
    });
    await b.start();
    await until(() => received.size >= published.size, 'every published value handled', 30_000);
    const wrong: string[] = [];
    for (const [n, item] of published) {
      const diff = firstDifference(received.get(n), item.value);
      if (diff !== undefined) wrong.push(`${n}: ${diff}`);
    }
    expect(wrong).toEqual([]);
    expect(received.size).toBe(published.size);
    // At most the values a database may refuse were refused.
    expect(refused.every((n) => corpus.find((c) => c.name === n)?.mayRefuse !== undefined)).toBe(true);
    await until(async () => (await h().rows(name)).length === 0, 'every row settled');
  });

  test(`R-BAD-1 every kind of JSON value is a payload of its own and arrives as published (${form})`, async () => {
    const { desc, name } = await h().create(form);
    const b = await h().broker();
    // Top-level strings first of all: a string that reads as JSON must stay a string, and a JSON
    // column's driver that parses the value must not leave it to be parsed twice.
    const values: unknown[] = [
      'hello',
      '',
      '{"a":1}',
      '42',
      'null',
      '"quoted"',
      42,
      -0.5,
      true,
      false,
      [1, 'two', null],
      { nested: { list: ['x'] } },
    ];
    const ids: unknown[] = [];
    for (const v of values) ids.push(await b.publish(desc, v));
    const received = new Map<string, unknown>();
    b.subscribe(queue(desc), async (m, ctx) => {
      received.set(String(ctx.id), m);
    });
    await b.start();
    await until(() => received.size >= values.length, 'every JSON value handled', 30_000);
    const wrong: string[] = [];
    values.forEach((v, i) => {
      const got = received.get(String(ids[i]));
      if (JSON.stringify(got) !== JSON.stringify(v) || typeof got !== typeof v)
        wrong.push(`${JSON.stringify(v)} arrived as ${typeof got} ${JSON.stringify(got)}`);
    });
    expect(wrong).toEqual([]);
    await until(async () => (await h().rows(name)).length === 0, 'every JSON value settled');
  });

  test(`R-USER-4 a publish that fails names the table and column it failed on, with the fix (${form})`, async () => {
    const b = await h().broker();
    // A table that does not exist: the check start() runs says so, with the DDL to run.
    const missing = h().describe(form, h().name('missing'));
    const noTable = await b.publish(missing, { n: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(noTable).toBeInstanceOf(ConfigError);
    expect(noTable).toMatchObject({ code: 'CONFIG', table: missing.table });
    expect(String((noTable as Error).message)).toMatch(/cannot publish: no such table\. Fix: create it/);
    expect((noTable as Error).cause).toBeDefined();
    // A column the description names and the table lacks.
    const { name } = await h().create(form, { columns: ['tag'] });
    const withPriority = h().describe(form, name, { columns: ['tag'], priority: true });
    await expect(b.publish(withPriority, { n: 2 }, { priority: 5 } as never)).rejects.toMatchObject({
      code: 'CONFIG',
      table: name,
      column: 'priority',
    });
    // A constraint the description does not know: a PublishError naming the table, nothing stored.
    const desc = h().describe(form, name, { columns: ['tag'] });
    await h().target.exec(`CREATE UNIQUE INDEX ${name}_tag ON ${name} (tag)`);
    await b.publish(desc, { n: 3 }, { columns: { tag: 'x' } } as never);
    const dup = await b.publish(desc, { n: 4 }, { columns: { tag: 'x' } } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(dup).toBeInstanceOf(PublishError);
    expect(dup).toMatchObject({ code: 'PUBLISH', table: name, kind: 'constraint' });
    expect(String((dup as Error).message)).toContain(`cannot publish to ${name} (constraint): `);
    expect((await h().rows(name)).map((r) => payloadOf(r.payload))).toEqual([{ n: 3 }]);
  });

  test(`R-BAD-1 hostile group names, partition keys and dead-letter groups are stored and read byte for byte (${form})`, async () => {
    const { desc, name } = await h().create(form, { group: true, partitionKey: true });
    const b = await h().broker();
    const corpus = hostileCorpus().filter((c) => !c.long && !c.jsonOnly);
    const dead = 'dead\'\\"`; DROP TABLE x; -- /* # 😀';
    const kept: HostileValue[] = [];
    for (const item of corpus) {
      const before = (await h().rows(name)).length;
      try {
        await b.publish(desc, { name: item.name }, { group: item.value, partitionKey: item.value });
        kept.push(item);
      } catch (err) {
        if (item.mayRefuse === undefined) throw err;
        expect((await h().rows(name)).length).toBe(before);
      }
    }
    const rows = await h().rows(name);
    expect(rows.length).toBe(kept.length);
    const wrong: string[] = [];
    kept.forEach((item, i) => {
      const g = firstDifference(rows[i]?.grp, item.value);
      const k = firstDifference(rows[i]?.pkey, item.value);
      if (g !== undefined) wrong.push(`group ${item.name}: ${g}`);
      if (k !== undefined) wrong.push(`partition key ${item.name}: ${k}`);
    });
    expect(wrong).toEqual([]);
    // Each row is handled with its group and key as stored, then dead-lettered to a hostile group.
    const seen = new Map<string, { grp: unknown; pkey: unknown }>();
    b.subscribe(queue(desc).maxAttempts(1).deadLetter({ group: dead }), async (m, ctx) => {
      seen.set((m as { name: string }).name, { grp: ctx.row.grp, pkey: ctx.row.pkey });
      return Outcome.retry();
    });
    await b.start();
    await until(
      async () => (await h().rows(name)).filter((r) => r.grp === dead).length === kept.length,
      'every row in the dead-letter group',
      30_000,
    );
    for (const item of kept) {
      const got = seen.get(item.name);
      const g = firstDifference(got?.grp, item.value);
      const k = firstDifference(got?.pkey, item.value);
      if (g !== undefined) wrong.push(`handled group ${item.name}: ${g}`);
      if (k !== undefined) wrong.push(`handled partition key ${item.name}: ${k}`);
    }
    expect(wrong).toEqual([]);
    const after = await h().rows(name);
    expect(after.map((r) => r.pkey)).toEqual(kept.map((c) => c.value));
  });

  if (form === 'advisory')
    test('R-BAD-1 hostile values of a column an advisory key names lock, deliver and unlock', async () => {
      const { name } = await h().create('advisory', { columns: ['account'] });
      const keyed = h().describe('advisory', name, { key: `${name}-{account}`, columns: ['account'] });
      const b = await h().broker();
      const corpus = hostileCorpus().filter((c) => !c.long && !c.jsonOnly);
      let expected = 0;
      for (const item of corpus) {
        try {
          await b.publish(keyed, { name: item.name }, { columns: { account: item.value } });
          expected++;
        } catch (err) {
          if (item.mayRefuse === undefined) throw err;
        }
      }
      const seen = new Map<string, unknown>();
      b.subscribe(queue(keyed).workers(2), async (m, ctx) => {
        seen.set((m as { name: string }).name, ctx.row.account);
      });
      await b.start();
      await until(() => seen.size === expected, 'every keyed row delivered', 30_000);
      const wrong: string[] = [];
      for (const item of corpus) {
        if (!seen.has(item.name)) continue;
        const d = firstDifference(seen.get(item.name), item.value);
        if (d !== undefined) wrong.push(`${item.name}: ${d}`);
      }
      expect(wrong).toEqual([]);
      expect(seen.size).toBeGreaterThanOrEqual(corpus.length - 1);
      await until(async () => (await h().rows(name)).length === 0, 'every keyed row settled');
    });
}
