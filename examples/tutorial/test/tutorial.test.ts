// The tutorial's PostgreSQL step: here, in the PostgreSQL lane of scripts/test.sh, beside the tests
// that restart PostgreSQL. The page and the SQLite runs are packages/docs-check/test/tutorial.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect, test } from 'vitest';
import { blocks, finished, here, program, run } from './support';

test("R-DOC-2 R-USER-3 the tutorial's program, with the two lines the page changes, runs end to end on PostgreSQL, its setup run twice", async () => {
  const url = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  // The page's diff applied to the program; written beside it so its imports resolve.
  const [diff] = blocks('diff');
  let source = readFileSync(program, 'utf8');
  const removed = diff!.split('\n').filter((l) => l.startsWith('-'));
  const added = diff!.split('\n').filter((l) => l.startsWith('+'));
  expect(removed).toHaveLength(added.length);
  removed.forEach((l, i) => {
    source = source.replace(l.slice(1), added[i]!.slice(1));
  });
  expect(source).not.toContain('sqlite');
  const variant = join(here, '.vitest', 'queue-pg.mjs');
  mkdirSync(join(here, '.vitest'), { recursive: true });
  writeFileSync(variant, source);

  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-tutorial-'));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const drop = () => client.query('DROP TABLE IF EXISTS emails, emails_dead');
  try {
    await drop();
    const env = { DATABASE_URL: url };
    // Twice, as a reader who runs the step again does: the DDL creates only what is missing.
    for (let i = 0; i < 2; i++) {
      expect(await finished(run(variant, ['setup'], dir, env))).toEqual([
        'created the tables emails and emails_dead',
        'done',
      ]);
    }
    const out = await finished(run(variant, ['send', 'ada@example.com', 'grace@example.com'], dir, env));
    expect(out.slice(0, 3)).toEqual([
      'published an email to ada@example.com',
      'published an email to grace@example.com',
      'in the queue: 2 ready, 0 in work',
    ]);
    expect(out.filter((l) => l.startsWith('sent to')).sort()).toEqual([
      'sent to ada@example.com',
      'sent to grace@example.com',
    ]);
    expect(out.at(-1)).toBe('done');
    const left = await client.query(
      'SELECT (SELECT COUNT(*) FROM emails) + (SELECT COUNT(*) FROM emails_dead) AS n',
    );
    expect(Number(left.rows[0].n)).toBe(0);
  } finally {
    await drop();
    await client.end();
    rmSync(variant, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
});
