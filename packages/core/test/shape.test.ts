import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const pkg = (dir: string) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
const PACKAGES = [
  'core',
  'dialect-postgres',
  'dialect-mysql',
  'dialect-sqlite',
  'dialect-mssql',
  'conformance',
  'sql',
];
const DRIVERS = ['pg', 'postgres', 'mysql2', 'mariadb', 'better-sqlite3', 'tedious'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the shape of the project', () => {
  test('R-SHAPE-1 a pnpm workspace built with turbo, the packages (core, the statement builder, the four dialects, conformance) and docs/', () => {
    for (const f of ['pnpm-workspace.yaml', 'turbo.json', 'package.json', 'docs/README.md']) {
      expect(existsSync(join(root, f)), f).toBe(true);
    }
    for (const p of PACKAGES) expect(existsSync(join(root, 'packages', p, 'package.json')), p).toBe(true);
    expect(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')).toMatch(/packages\/\*/);
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
    for (const s of ['build', 'typecheck']) expect(scripts[s]).toMatch(/^turbo run /);
    // `pnpm test` runs turbo's test task in lanes (packages by the server they use, side by side).
    expect(scripts.test).toBe('bash scripts/test.sh');
    expect(readFileSync(join(root, 'scripts/test.sh'), 'utf8')).toMatch(/turbo run test /);
  });

  test('R-SHAPE-2 npm names; each builds to dist/ with declarations behind an exports map', () => {
    for (const p of PACKAGES) {
      const j = pkg(p);
      expect(j.name).toBe(`@sqlinbox/${p}`);
      expect(j.files).toEqual(['CHANGELOG.md', 'dist', 'README.md']);
      expect(existsSync(join(root, 'packages', p, 'README.md')), `${p}/README.md`).toBe(true);
      const main = j.exports['.'];
      expect(main.types).toMatch(/^\.\/dist\/.*\.d\.mts$/);
      expect(main.default).toMatch(/^\.\/dist\/.*\.mjs$/);
    }
  });

  test('R-SHAPE-3 the core imports no database driver and writes no SQL', () => {
    const j = pkg('core');
    for (const d of DRIVERS) {
      expect(j.dependencies?.[d]).toBeUndefined();
      expect(j.peerDependencies?.[d]).toBeUndefined();
    }
    for (const file of sources(join(root, 'packages/core/src'))) {
      const text = readFileSync(file, 'utf8');
      for (const d of DRIVERS)
        expect(text, `${file} imports ${d}`).not.toMatch(new RegExp(`from '${d}(/[^']*)?'`));
      // SQL text lives in the dialects: no statement keyword pair in a core string literal.
      expect(text, `${file} holds SQL`).not.toMatch(
        /['`"](SELECT|UPDATE|INSERT|DELETE|BEGIN|COMMIT)\b[^'`"]*['`"]/,
      );
    }
  });

  test('R-SHAPE-4 drivers are peer dependencies, each behind a subpath export of its dialect', () => {
    const expected: Record<string, string[]> = {
      'dialect-postgres': ['pg', 'postgres'],
      'dialect-mysql': ['mysql2', 'mariadb'],
      'dialect-sqlite': ['better-sqlite3'],
      'dialect-mssql': ['tedious'],
    };
    for (const [p, drivers] of Object.entries(expected)) {
      const j = pkg(p);
      for (const d of drivers) {
        expect(j.peerDependencies?.[d], `${p} peer ${d}`).toBeDefined();
        expect(j.dependencies?.[d], `${p} depends on ${d}`).toBeUndefined();
      }
    }
    expect(Object.keys(pkg('dialect-postgres').exports)).toEqual(
      expect.arrayContaining(['./pg', './postgres']),
    );
    expect(Object.keys(pkg('dialect-mysql').exports)).toEqual(
      expect.arrayContaining(['./mysql2', './mariadb']),
    );
    expect(Object.keys(pkg('dialect-mssql').exports)).toEqual(expect.arrayContaining(['./tedious']));
  });
});

test('R-RUN-1 every package supports the maintained Node lines from 22 on, and CI tests the oldest and the newest (22 and 26)', () => {
  const floor = (range: string) => /^>=(\d+)(?:\.(\d+))?/.exec(range);
  for (const dir of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, dir))) {
      const file = join(root, dir, name, 'package.json');
      if (!existsSync(file)) continue;
      const range = JSON.parse(readFileSync(file, 'utf8')).engines?.node as string | undefined;
      if (range === undefined) continue;
      const m = floor(range);
      expect(m, `${dir}/${name}: engines.node ${range}`).not.toBeNull();
      // Node 20 reached its end of life: no package may promise it.
      expect(Number(m![1]), `${dir}/${name}: engines.node ${range}`).toBe(22);
    }
  }
  const ci = readFileSync(join(root, '.ci/run'), 'utf8');
  expect(ci).toMatch(/FULL_NODE="\$\{SQLINBOX_CI_FULL_NODE:-22\}"/);
  expect(ci).toMatch(/QUICK_NODE="\$\{SQLINBOX_CI_QUICK_NODE:-26\}"/);
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
});
