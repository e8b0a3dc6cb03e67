import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';

test('R-PLUS-5 the demo runs a real service on an embedded SQLite file and loses nothing', () => {
  const out = execFileSync(
    'node',
    [resolve(import.meta.dirname, '../dist/demo.mjs'), '--jobs', '600', '--workers', '4'],
    {
      encoding: 'utf8',
    },
  );
  const summary = Object.fromEntries(
    out
      .split('\n')
      .map((l) => /^(published|processed|retried|dead-lettered|left in queue|lost)\s+(\d+)/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], Number(m[2])]),
  );
  expect(summary).toMatchObject({
    published: 600,
    processed: 596,
    'dead-lettered': 4,
    'left in queue': 0,
    lost: 0,
  });
  expect(summary.retried).toBeGreaterThanOrEqual(30 + 4 * 3);
});
