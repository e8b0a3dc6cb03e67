import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { sqliteTarget } from './target.js';

const target = sqliteTarget('better-sqlite3');
afterAll(() => target.close?.());
// The 2-minute schedule run, on one adapter of SQLite (node:sqlite runs the short one). The run on
// the newest Node line (scripts/test.sh sets SQLINBOX_TEST_QUICK) takes the short versions of the
// long scenarios: they prove timing and crash safety, which the full run on the oldest line proves.
const quick = process.env.SQLINBOX_TEST_QUICK === '1';
await runConformance(
  target,
  quick ? { flowJobs: { full: 1_000 } } : { scheduleSeconds: 120, rateSeconds: 20 },
);
