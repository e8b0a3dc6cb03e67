// The README's first command, `pnpm demo`: its program (examples/demo, built to dist/demo.mjs before
// this package's tests, as a dev dependency) run as a real process.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';

// Loaded before the demo: any import of better-sqlite3 (a compiled addon) fails the run.
const NO_BETTER_SQLITE3 = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'better-sqlite3') throw new Error('the demo loaded better-sqlite3');
    return next(specifier, context);
  },
});`)}`;

test('R-PLUS-5 R-RUN-2 the demo runs a real service on an embedded SQLite file through node:sqlite, with nothing compiled, and loses nothing', () => {
  const out = execFileSync(
    'node',
    [
      '--import',
      NO_BETTER_SQLITE3,
      resolve(import.meta.dirname, '../../../examples/demo/dist/demo.mjs'),
      '--jobs',
      '600',
      '--workers',
      '4',
    ],
    {
      encoding: 'utf8',
    },
  );
  expect(out).toMatch(/^driver\s+node:sqlite /m);
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
