// Sums every package's vitest JSON report into the one plain line CI reads: "N passed, N failed".
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const dir of ['packages', 'examples', 'bench']) {
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    const pkg = join(dir, name);
    const pj = join(pkg, 'package.json');
    if (!existsSync(pj) || !JSON.parse(readFileSync(pj, 'utf8')).scripts?.test) continue;
    const report = join(pkg, '.vitest', 'report.json');
    if (!existsSync(report)) {
      missing.push(pkg);
      continue;
    }
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passed += r.numPassedTests ?? 0;
    failed += r.numFailedTests ?? 0;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    if (r.success === false && (r.numFailedTests ?? 0) === 0) failed += 1; // a suite that failed to load
  }
}
for (const m of missing) console.log(`no test report from ${m}`);
failed += missing.length;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
