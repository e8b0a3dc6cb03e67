/**
 * The README's promise of PostgreSQL lines against the version matrix of test/versions: the
 * oldest and newest lines it names take the whole suite there, every line between is tested, so
 * the README's floors are what ran (each file starts its line's server and checks its version).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const versions = join(import.meta.dirname, 'versions');

test('R-CLUS-1 the oldest and newest PostgreSQL the README promises take the whole suite; every line between is tested', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const promise = /`@sqlinbox\/dialect-postgres` \| PostgreSQL (\d+) to (\d+)/.exec(readme);
  expect(promise, 'the README names the PostgreSQL lines it supports').not.toBeNull();
  const oldest = Number(promise![1]);
  const newest = Number(promise![2]);
  const files = new Map(
    readdirSync(versions)
      .map((f) => [/^pg(\d+)\.test\.ts$/.exec(f), f] as const)
      .filter(([m]) => m !== null)
      .map(([m, f]) => [Number(m![1]), readFileSync(join(versions, f), 'utf8')]),
  );
  for (const major of [oldest, newest]) {
    const src = files.get(major);
    expect(src, `test/versions/pg${major}.test.ts runs the README's line ${major}`).toBeDefined();
    // The whole suite: no `forms` option narrows it, and postgres.js's contract runs too.
    expect(src).toMatch(new RegExp(`versionSuite\\(${major}, \\{ postgresJs: true \\}\\)`));
  }
  // 15 is the machine's own server, on which packages/dialect-postgres runs the whole suite.
  for (let major = oldest; major <= newest; major++) {
    if (major === 15) continue;
    expect(files.get(major), `test/versions/pg${major}.test.ts`).toMatch(
      new RegExp(`versionSuite\\(${major}\\b`),
    );
  }
  // Nothing outside the promise is tested as if promised, and the prose says the same lines.
  for (const major of files.keys()) expect(major).toBeGreaterThanOrEqual(oldest);
  for (const major of files.keys()) expect(major).toBeLessThanOrEqual(newest);
  expect(readme).toContain(`every line from ${oldest} to ${newest}`);
});
