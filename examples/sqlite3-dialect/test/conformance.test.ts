import { runConformance } from '@sqlinbox/conformance';
import { afterAll, test } from 'vitest';
import { sqlite3Missing, sqlite3Target } from './target.js';

// R-USER-8: the shipped SQLite dialect on another driver, through its public API alone, under
// vitest's default timeouts (this package's vitest.config.ts sets none).
const missing = await sqlite3Missing();
if (missing === undefined) {
  const target = await sqlite3Target();
  afterAll(() => target.close?.());
  // The shorter crash runs (as its rows and deliveries): the shipped drivers run the long ones.
  await runConformance(target, { rows: 300, advisoryDeliveries: 300, flowJobs: { full: 1_000 } });
} else {
  test.skip(`R-USER-8 the conformance suite on sqlite3: skipped, ${missing}`, () => {});
}
