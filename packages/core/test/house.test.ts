/**
 * The house's rules (docs/dev/architecture.md): no import circle in the core or the statement
 * builder, type-only imports included, and no file there over 700 lines. The circle check is the
 * one `pnpm lint` runs (dependency-cruiser with the repository's .dependency-cruiser.cjs); this
 * test runs it on the sources and on a planted circle, so the rule is shown to catch one.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
// The command's own script (node_modules/.bin holds a shell shim), run by this Node.
const cruiser = join(root, 'node_modules', 'dependency-cruiser');
const depcruise = join(
  cruiser,
  (JSON.parse(readFileSync(join(cruiser, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin
    .depcruise!,
);

interface Cruise {
  summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[] };
}

/** dependency-cruiser's JSON answer for `dirs` under `cwd`, with the repository's rules. */
function cruise(cwd: string, dirs: string[]): Cruise {
  // Exits non-zero where it found an error-level violation; the JSON is on stdout either way.
  try {
    return JSON.parse(
      execFileSync(
        process.execPath,
        [depcruise, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...dirs],
        {
          cwd,
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
        },
      ),
    ) as Cruise;
  } catch (err) {
    const out = (err as { stdout?: string }).stdout;
    if (out === undefined || out === '') throw err;
    return JSON.parse(out) as Cruise;
  }
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the house', () => {
  const planted = mkdtempSync(join(tmpdir(), 'sqlinbox-house-'));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  // A cruise of the sources takes seconds, more on a loaded host.
  test('R-HOUSE-2 no import circle in packages/core/src or packages/sql/src, type-only imports included', {
    timeout: 120_000,
  }, () => {
    const found = cruise(root, ['packages/core/src', 'packages/sql/src']).summary.violations;
    expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  });

  test('R-HOUSE-2 the circle rule catches a circle made of type-only imports (a planted one)', {
    timeout: 120_000,
  }, () => {
    // The repository's rules and compiler settings, over a core of two files that import each
    // other's types only.
    copyFileSync(join(root, '.dependency-cruiser.cjs'), join(planted, '.dependency-cruiser.cjs'));
    writeFileSync(
      join(planted, 'tsconfig.base.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
    );
    const src = join(planted, 'packages', 'core', 'src');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b?: B }\n");
    writeFileSync(join(src, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a?: A }\n");
    const found = cruise(planted, ['packages/core/src']).summary.violations;
    const circles = found.filter((v) => v.rule.name === 'no-circular');
    expect(circles.length).toBeGreaterThan(0);
    const files = new Set(circles.flatMap((v) => [v.from, v.to, ...(v.cycle ?? []).map((c) => c.name)]));
    expect([...files].sort()).toEqual(['packages/core/src/a.ts', 'packages/core/src/b.ts']);
  });

  test('R-HOUSE-2 no source file of packages/core/src or packages/sql/src is over 700 lines', () => {
    const files = [...sources(join(root, 'packages/core/src')), ...sources(join(root, 'packages/sql/src'))];
    expect(files.length).toBeGreaterThan(30);
    const long = files
      .map((f) => [f.slice(root.length + 1), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > 700);
    expect(long).toEqual([]);
  });
});
