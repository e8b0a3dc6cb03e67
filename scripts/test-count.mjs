// Sums vitest's JSON reports into the one plain line CI reads: "N passed, N failed".
//
//   node scripts/test-count.mjs                      the reports in the tree, every package with a test script
//   node scripts/test-count.mjs --save DIR [--ran-only] [PKG..]
//                                                    copies the tree's reports of PKG.. (default: every
//                                                    package with a test script) into DIR, for a later sum
//                                                    (--ran-only: its skipped tests left out of the count);
//                                                    a package without a report is recorded as missing
//                                                    (several saves, even at once, may share one DIR)
//                                                    (SQLINBOX_VITEST_REPORT: the report's path in
//                                                    the package, where the run wrote it elsewhere)
//   node scripts/test-count.mjs --exit DIR RC PKG..  records that the run of PKG.. (saved in DIR) exited RC
//   node scripts/test-count.mjs DIR..                the sum over saved runs (one line per run, then the total)
//   node scripts/test-count.mjs --list               every package with a test script, one a line
//
// A package expected to report and without a report counts as one failure, as does a report of a
// suite that failed to load, and a run that exited non-zero while its reports show no failed test
// (vitest's unhandled errors, which its JSON report leaves out, or a crash).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every package directory (packages/x, examples/x, bench) whose package.json has a test script. */
function testedPackages() {
  const found = [];
  for (const dir of ['packages', 'examples', 'bench']) {
    if (!existsSync(dir)) continue;
    const pkgs = existsSync(join(dir, 'package.json')) ? [dir] : readdirSync(dir).map((n) => join(dir, n));
    for (const pkg of pkgs) {
      const pj = join(pkg, 'package.json');
      if (existsSync(pj) && JSON.parse(readFileSync(pj, 'utf8')).scripts?.test) found.push(pkg);
    }
  }
  return found;
}

/** Adds one vitest JSON report to the totals, and the failed tests' names and first message lines to `failures`. */
function add(totals, report, failures = []) {
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).every((a) => a.status !== 'failed')) {
      failures.push(`${file.name}: ${(file.message ?? '').split('\n')[0].slice(0, 300)}`);
    }
    for (const a of file.assertionResults ?? []) {
      if (a.status !== 'failed') continue;
      const why = (a.failureMessages ?? []).join(' ').split('\n')[0].slice(0, 300);
      failures.push(`${file.name.split('/').slice(-3).join('/')} > ${a.fullName ?? a.title}: ${why}`);
    }
  }
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  if (report.success === false && (report.numFailedTests ?? 0) === 0) totals.failed += 1; // a suite that failed to load
}

const line = (t) => `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ''}`;
const fresh = () => ({ passed: 0, failed: 0, skipped: 0 });
const fileOf = (pkg) => `${pkg.replaceAll('/', '__')}.json`;

const args = process.argv.slice(2);
if (args[0] === '--save') {
  const ranOnly = args[2] === '--ran-only';
  const [, dir, ...rest] = args;
  const only = ranOnly ? rest.slice(1) : rest;
  if (!dir) throw new Error('usage: test-count.mjs --save DIR [--ran-only] [PKG..]');
  mkdirSync(dir, { recursive: true });
  const missing = [];
  for (const pkg of only.length > 0 ? only : testedPackages()) {
    const report = join(pkg, process.env.SQLINBOX_VITEST_REPORT || join('.vitest', 'report.json'));
    if (!existsSync(report)) missing.push(pkg);
    else if (!ranOnly) copyFileSync(report, join(dir, fileOf(pkg)));
    else {
      // A run of some of a package's tests (another run counts the rest): its skipped ones not counted.
      const r = JSON.parse(readFileSync(report, 'utf8'));
      writeFileSync(join(dir, fileOf(pkg)), JSON.stringify({ ...r, numPendingTests: 0, numTodoTests: 0 }));
    }
  }
  // A file of this save's own: saves of other packages into the same DIR keep theirs.
  writeFileSync(join(dir, `missing.${process.pid}.json`), JSON.stringify(missing));
} else if (args[0] === '--exit') {
  const [, dir, rc, ...pkgs] = args;
  if (!dir || !rc) throw new Error('usage: test-count.mjs --exit DIR RC PKG..');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `exit.${process.pid}.json`), JSON.stringify({ rc: Number(rc), pkgs }));
} else if (args[0] === '--list') {
  for (const pkg of testedPackages()) console.log(pkg);
} else if (args.length > 0) {
  const total = fresh();
  const failures = [];
  for (const dir of args) {
    const run = fresh();
    const missing = [];
    const exits = [];
    const failedIn = new Set();
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      if (!name.endsWith('.json')) continue;
      const data = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      if (name.startsWith('missing.')) missing.push(...data);
      else if (name.startsWith('exit.')) exits.push(data);
      else {
        const before = run.failed;
        add(run, data, failures);
        if (run.failed > before) failedIn.add(name);
      }
    }
    for (const { rc, pkgs } of exits) {
      if (rc === 0 || pkgs.some((p) => failedIn.has(fileOf(p)) || missing.includes(p))) continue;
      run.failed += 1;
      failures.push(
        `${pkgs.join(', ')}: exited ${rc} with no failed test in its reports (an unhandled error or a crash; its log tells)`,
      );
    }
    if (!existsSync(dir)) missing.push(dir);
    for (const m of missing) console.log(`${dir}: no test report from ${m}`);
    run.failed += missing.length;
    console.log(`${dir}: ${line(run)}`);
    for (const k of Object.keys(total)) total[k] += run[k];
  }
  // The failed tests last, just above the count, where a reader of the log's tail finds them.
  for (const f of failures) console.log(`failed: ${f}`);
  console.log(line(total));
} else {
  const totals = fresh();
  const missing = [];
  for (const pkg of testedPackages()) {
    const report = join(pkg, '.vitest', 'report.json');
    if (existsSync(report)) add(totals, JSON.parse(readFileSync(report, 'utf8')));
    else missing.push(pkg);
  }
  for (const m of missing) console.log(`no test report from ${m}`);
  totals.failed += missing.length;
  console.log(line(totals));
}
