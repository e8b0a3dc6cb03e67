/**
 * docs/custom-dialect.md walks through this package with excerpts of its files (R-SHAPE-6; the page itself
 * names no requirement ids). Each
 * `ts` block that starts with a `// packages/..` line is an excerpt of that file: every part of it
 * between `// ...` lines must appear in the file as written (whitespace aside), so the page cannot
 * drift from the code it explains.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const page = readFileSync(`${root}docs/custom-dialect.md`, 'utf8');
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

const excerpts = [...page.matchAll(/```ts\n\/\/ (packages\/\S+)\n([\s\S]*?)```/g)].map((m) => ({
  file: m[1]!,
  parts: m[2]!
    .split(/^\s*\/\/ \.\.\.\s*$/m)
    .map(squash)
    .filter((part) => part !== ''),
}));

test('R-SHAPE-6 the worked example quotes the real files', () => {
  expect(excerpts.length).toBeGreaterThanOrEqual(15);
  for (const { file, parts } of excerpts) {
    const source = squash(readFileSync(`${root}${file}`, 'utf8'));
    for (const part of parts) expect(source, `${file} holds:\n${part}`).toContain(part);
  }
});

test('the page cites no requirement ids (it speaks to users) and names the call that runs the suite', () => {
  expect(page.match(/\bR-[A-Z]+-\d+\b/g) ?? []).toEqual([]);
  expect(page).toContain('await runConformance(target)');
});
