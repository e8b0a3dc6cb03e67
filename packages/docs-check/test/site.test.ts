import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  buildSite,
  checkSite,
  docPages,
  publishedPackages,
  repoRoot,
  repositoryFilesUrl,
  writeFile,
} from '../site/site.js';

// In .vitest, which git and biome ignore.
const work = join(import.meta.dirname, '..', '.vitest');

describe('the site checker itself', () => {
  test('R-DOC-3 the link check reports a planted missing page and a planted missing anchor, and lists external links without failing on them', async () => {
    const out = join(work, 'site-fixture-links');
    rmSync(out, { recursive: true, force: true });
    writeFile(
      join(out, 'index.html'),
      '<html><body><h2 id="here">Here</h2>' +
        '<a href="page.html#present">ok</a> <a href="#here">ok</a> <a href="#nowhere">anchor</a> ' +
        '<a href="page.html#absent">anchor</a> <a href="gone.html">page</a> ' +
        '<a href="https://example.invalid/x">external</a></body></html>',
    );
    writeFile(join(out, 'page.html'), '<html><body><h2 id="present">Present</h2></body></html>');
    const result = await checkSite(out);
    expect(result.broken.sort()).toEqual([
      expect.stringMatching(/^index\.html -> gone\.html /),
      expect.stringMatching(/^index\.html -> index\.html#nowhere /),
      expect.stringMatching(/^index\.html -> page\.html#absent /),
    ]);
    expect(result.anchors).toBe(4);
    expect(result.external).toEqual(['https://example.invalid/x']);
  });

  test('R-DOC-3 a planted TypeDoc warning (a doc comment linking a name that does not exist, an export without a doc comment) fails the build', async () => {
    const root = join(work, 'site-fixture-repo');
    rmSync(root, { recursive: true, force: true });
    writeFile(
      join(root, 'package.json'),
      JSON.stringify({ name: 'fixture', private: true, repository: 'https://github.com/fixture/fixture' }),
    );
    writeFile(join(root, 'tsconfig.base.json'), readFileSync(join(repoRoot, 'tsconfig.base.json'), 'utf8'));
    writeFile(join(root, 'README.md'), '# Fixture\n');
    writeFile(join(root, 'docs', 'guide.md'), '# Guide\n\nSee [the page](missing.md).\n');
    const dir = join(root, 'packages', 'one');
    writeFile(
      join(dir, 'package.json'),
      JSON.stringify({
        name: '@fixture/one',
        files: ['dist'],
        exports: { '.': { '@sqlinbox/source': './src/index.ts', default: './dist/index.mjs' } },
      }),
    );
    writeFile(
      join(dir, 'src', 'index.ts'),
      '/** Adds one; see {@link Nowhere}. */\nexport const one = 1;\nexport const undocumented = 2;\n',
    );
    const packages = publishedPackages(root);
    expect(packages).toEqual([{ name: '@fixture/one', dir, entryPoints: [join(dir, 'src', 'index.ts')] }]);
    const built = await buildSite(join(root, 'site'), { root, pages: docPages(root) });
    const messages = built.messages.join('\n');
    expect(messages).toMatch(/Nowhere/);
    expect(messages).toMatch(/missing\.md/);
    expect(messages).toMatch(/undocumented \(Variable\).*does not have any documentation/);
    expect(messages).not.toMatch(/\bone \(Variable\).*does not have any documentation/);
  });
});

test('R-DOC-3 the API reference of every published package and the user docs build into one site with no TypeDoc warning, and no internal link or anchor of it is broken', async () => {
  const out = join(work, 'site');
  const packages = publishedPackages();
  expect(packages.map((p) => p.name)).toContain('@sqlinbox/core');
  const built = await buildSite(out);
  expect(built.messages).toEqual([]);
  expect(built.missingRepositoryFiles).toEqual([]);
  // Each package has its page (its README above its exports), each user doc its own.
  const index = readFileSync(join(out, 'modules.html'), 'utf8');
  for (const { name } of packages) expect(index).toContain(`>${name}<`);
  expect(built.pages).toBeGreaterThan(packages.length + docPages().length);
  // A package README links the docs by their repository address (for npm); the site links its own page.
  // Only a markdown file that is no page of the site (docs/dev, the changelogs) is still linked in the
  // repository.
  const filesUrl = repositoryFilesUrl();
  const core = readFileSync(join(out, 'modules', '_sqlinbox_core.html'), 'utf8');
  expect(core).toContain('href="../docs/index.html"');
  expect(core).toContain('href="../index.html"');
  const markdownLinks = new Set<string>();
  for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.html'),
  ))
    for (const match of readFileSync(join(out, file), 'utf8').matchAll(/href="([^"]+\.md)(?:#[^"]*)?"/g))
      markdownLinks.add((match[1] ?? '').replace(filesUrl, ''));
  expect(
    [...markdownLinks].filter((link) => !link.startsWith('docs/dev/') && !/(^|\/)CHANGELOG\.md$/.test(link)),
  ).toEqual([]);
  // An image a README shows by its repository address is copied into the site.
  const remoteImages = readdirSync(out, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html'))
    .filter((f) =>
      readFileSync(join(out, f), 'utf8').includes(`src="${filesUrl.replace('/blob/', '/raw/')}`),
    );
  expect(remoteImages).toEqual([]);
  const checked = await checkSite(out);
  expect(checked.broken).toEqual([]);
  expect(checked.checked).toBeGreaterThan(built.pages);
  expect(checked.anchors).toBeGreaterThan(built.pages);
  expect(existsSync(join(out, 'index.html'))).toBe(true);
  // TypeDoc over every package, on two cores CI's other lanes share: a CI run on a loaded machine
  // ran out of the 180 s default.
}, 600_000);
