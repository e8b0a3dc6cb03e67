// What an author of an adapter outside this repository reads: the pages on the conformance suite and
// the dialect contract name only what an npm user has (the packages and their declarations), never
// a file of this repository.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from './blocks.js';

const pages = ['docs/conformance.md', 'docs/dev/dialect-contract.md'];

test('R-USER-8 the conformance and dialect-contract pages point at no repository file, test or requirement id', () => {
  for (const page of pages) {
    const text = readFileSync(join(repoRoot, page), 'utf8');
    const repositoryPaths = text.match(/(?:\.\.\/)*(?:packages|examples|bench|scripts)\/[\w./-]+/g) ?? [];
    expect(repositoryPaths, page).toEqual([]);
    expect(text.match(/\bR-[A-Z]+-\d+\b/g) ?? [], page).toEqual([]);
    expect(text, page).not.toMatch(/SPEC\.md|seeds\/|\.ci\/run/);
  }
});

test('R-USER-8 the guide states the one-write-lock-per-file rule and what to do with a driver that answers rows or a count', () => {
  const guide = readFileSync(join(repoRoot, 'docs/custom-dialect.md'), 'utf8');
  const section = guide.slice(guide.indexOf('### A shipped dialect on another driver'));
  expect(section).toContain('**one write lock per file in the process**');
  expect(section).toContain('attachSqliteFile(filename)');
  expect(section).toMatch(/answers either the rows a statement returns or the number of rows it changed/);
  expect(section).toContain('sqliteStatementKind(sql)');
});
