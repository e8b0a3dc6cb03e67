/**
 * The dialect stays small (R-KIT-3): everything beyond its driver slice (`src/tedious.ts`) is what
 * a dialect author writes on top of the shared statement builder, and it fits in 400 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

test('R-KIT-3 the SQL Server dialect is at most 400 lines beyond its driver slice (src/tedious.ts)', () => {
  const src = join(import.meta.dirname, '..', 'src');
  const files = readdirSync(src).filter((f) => f.endsWith('.ts') && f !== 'tedious.ts');
  const lines = (f: string) => readFileSync(join(src, f), 'utf8').split('\n').length - 1;
  expect(files).toContain('statements.ts');
  const total = files.reduce((sum, f) => sum + lines(f), 0);
  expect(total).toBeGreaterThan(0);
  expect(total, files.map((f) => `${f}: ${lines(f)}`).join(', ')).toBeLessThanOrEqual(400);
});
