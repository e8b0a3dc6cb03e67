/**
 * R-BAD-1: CI fails on SQL text built from a value. `scripts/check-sql.mjs` reads the dialect
 * sources with the TypeScript compiler and follows every expression spliced into SQL text; here it
 * must pass on the tree and flag each splice planted in a fixture.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's scripts, without declarations
import { checkSql, dialectSources } from '../../../scripts/check-sql.mjs';

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly reason: string;
}

const check = checkSql as (
  files: string[],
  opts?: { noDoubleQuotes?: (file: string) => boolean },
) => Finding[];

const FIXTURE = `
function quoteIdent(name: string): string {
  return \`"\${name.replace(/"/g, '""')}"\`;
}
function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}
interface Msg { readonly group: string; readonly id: number; readonly note: string }

export function settle(table: string, m: Msg): string {
  return \`UPDATE \${quoteIdent(table)} SET grp = '\${m.group}' WHERE id = \${m.id}\`;
}
export function search(text: string): string {
  return 'SELECT * FROM t WHERE note = \\'' + text + "'";
}
export function viaVariable(m: Msg): { sql: string; params: unknown[] } {
  const v = m.note.trim();
  return { sql: \`DELETE FROM t WHERE note = \${v}\`, params: [] };
}
export function stringified(m: Msg): string {
  return \`INSERT INTO t (payload) VALUES (\${JSON.stringify(m)})\`;
}
export function trigger(table: string): string {
  const channel = \`'\${\`sqlinbox_\${table}\`.replace(/'/g, "''")}'\`;
  return \`CREATE TRIGGER w AFTER INSERT ON \${quoteIdent(table)} FOR EACH STATEMENT EXECUTE FUNCTION f(\${channel})\`;
}
export function bound(table: string, ids: readonly number[]): { sql: string; params: unknown[] } {
  const where: string[] = [\`id IN (\${placeholders(ids.length)})\`];
  where.push('processed_at IS NULL');
  return { sql: \`SELECT * FROM \${quoteIdent(table)} WHERE \${where.join(' AND ')}\`, params: [...ids] };
}
`;

test('R-BAD-1 the SQL check flags every value a planted fixture splices into SQL text, and nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-check-sql-'));
  try {
    const file = join(dir, 'splice.ts');
    writeFileSync(file, FIXTURE);
    const findings = check([file]);
    expect(findings.map((f) => f.text).sort()).toEqual([
      'JSON.stringify(m)',
      'channel',
      'm.group',
      'text',
      'v',
    ]);
    const byText = new Map(findings.map((f) => [f.text, f]));
    expect(byText.get('m.group')?.reason).toMatch(/property declared outside|never given fixed SQL/);
    expect(byText.get('text')?.reason).toMatch(/parameter text of search/);
    expect(byText.get('JSON.stringify(m)')?.reason).toMatch(/not an SQL helper/);
    expect(byText.get('m.group')?.line).toBe(11);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('R-BAD-1 MySQL SQL text never holds a double quote, which ANSI_QUOTES reads as an identifier', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-check-sql-'));
  try {
    const file = join(dir, 'quotes.ts');
    writeFileSync(
      file,
      [
        'export const a = \'SELECT 1 FROM t WHERE s = "x"\';',
        "export const b = 'SELECT `s` FROM t WHERE s = \\'x\\'';",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's own template literal
        'export const c = (t: 1 | 2) => `SELECT "${t}" AS x`;',
      ].join('\n'),
    );
    const findings = check([file], { noDoubleQuotes: () => true });
    expect(findings.map((f) => f.line)).toEqual([1, 3]);
    expect(findings[0]?.reason).toMatch(/ANSI_QUOTES/);
    expect(check([file], { noDoubleQuotes: () => false })).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('R-BAD-1 no dialect source builds SQL text from a value', () => {
  const files = dialectSources() as string[];
  expect(files.length).toBeGreaterThan(20);
  const findings = check(files);
  expect(findings.map((f) => `${f.file}:${f.line} ${f.text}: ${f.reason}`)).toEqual([]);
});
