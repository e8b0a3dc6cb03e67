import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  brokenLinks,
  compileBlocks,
  devDocs,
  extractBlocks,
  proseOnly,
  repoRoot,
  userDocBlocks,
  userDocs,
} from './blocks.js';

// Inside this package (in .vitest, which git and biome ignore), so node_modules resolution finds
// @sqlinbox/* and the drivers.
const blocksDir = join(import.meta.dirname, '..', '.vitest', 'blocks');

const format = (diagnostics: { at: string; message: string }[]): string =>
  diagnostics.map((d) => `${d.at}: ${d.message}`).join('\n\n');

describe('the docs checker itself', () => {
  const fixture = [
    '# Title',
    '',
    '```ts',
    "import { ConfigError } from '@sqlinbox/core';",
    'const error: Error = new ConfigError("x");',
    '```',
    '',
    '```ts ignore',
    'this is pseudo code',
    '```',
    '',
    '<!-- prelude: declare const inbox: { publish(payload: unknown): Promise<void> }; -->',
    '```typescript',
    'await inbox.publish({ a: 1 });',
    '```',
    '',
    '```sql',
    '```ts',
    '```',
    '',
    '```ts',
    "import { Broker } from '@sqlinbox/core';",
    'const n: number = Broker;',
    '```',
    '',
    '```ts',
    '// packages/core/src/nowhere.ts',
    'this is an excerpt',
    '```',
  ].join('\n');

  test('R-DOC-1 the extractor finds ts blocks with their line and prelude, and skips ignore and other languages', () => {
    const blocks = extractBlocks(fixture, 'fixture.md');
    expect(blocks.map((b) => b.line)).toEqual([4, 14, 22, 27]);
    expect(blocks[3]?.excerptOf).toBe('packages/core/src/nowhere.ts');
    expect(blocks[1]?.prelude).toContain('declare const inbox');
    expect(blocks[0]?.code.split('\n')).toHaveLength(2);
  });

  test('R-DOC-3 a package README may link the docs only by their repository address, and only to a file that exists', () => {
    const root = join(import.meta.dirname, '..', '.vitest', 'links-fixture');
    rmSync(root, { recursive: true, force: true });
    mkdirSync(join(root, 'packages', 'one'), { recursive: true });
    mkdirSync(join(root, 'docs'), { recursive: true });
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ repository: 'git+https://github.com/o/r.git' }),
    );
    writeFileSync(join(root, 'docs', 'guide.md'), '# Guide\n');
    const readme = join(root, 'packages', 'one', 'README.md');
    writeFileSync(
      readme,
      [
        '[ok](https://github.com/o/r/blob/main/docs/guide.md#intro)',
        '[relative](../../docs/guide.md)',
        '[missing](https://github.com/o/r/blob/main/docs/gone.md)',
        '![image](https://github.com/o/r/raw/main/docs/guide.md) ![gone](https://github.com/o/r/raw/main/x.png)',
        '[elsewhere](https://example.com/x.md)',
      ].join('\n'),
    );
    expect(brokenLinks(readme, root)).toEqual([
      expect.stringMatching(/^packages\/one\/README\.md:2 \.\.\/\.\.\/docs\/guide\.md \(relative/),
      'packages/one/README.md:3 https://github.com/o/r/blob/main/docs/gone.md',
      'packages/one/README.md:4 https://github.com/o/r/raw/main/x.png',
    ]);
  });

  test('R-DOC-1 the compiler reports a planted broken block at its markdown file:line', () => {
    const diagnostics = compileBlocks(extractBlocks(fixture, 'fixture.md'), `${blocksDir}-fixture`);
    expect(diagnostics.map((d) => d.at)).toEqual(['fixture.md:27', 'fixture.md:23']);
    expect(diagnostics[0]?.message).toMatch(/nowhere.ts, which does not exist/);
    expect(diagnostics[1]?.message).toMatch(/not assignable to type 'number'/);
  });
});

test('R-DOC-1 every TypeScript block in the user docs and READMEs compiles against the built packages', () => {
  const blocks = userDocBlocks();
  expect(blocks.length).toBeGreaterThan(20);
  const diagnostics = compileBlocks(blocks, blocksDir);
  expect(format(diagnostics)).toBe('');
});

test('R-DOC-1 user docs cite no requirement ids and their relative links resolve', () => {
  const ids: string[] = [];
  for (const path of userDocs()) {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        for (const match of line.matchAll(/\bR-[A-Z]+-[0-9]+\b/g))
          ids.push(`${relative(repoRoot, path)}:${index + 1} ${match[0]}`);
      });
  }
  expect(ids).toEqual([]);
  const links = [...userDocs(), ...devDocs()].flatMap((path) => brokenLinks(path));
  expect(links).toEqual([]);
  expect(proseOnly('a\n```ts\n[x](nowhere.md)\n```\nb').split('\n')).toHaveLength(5);
});
