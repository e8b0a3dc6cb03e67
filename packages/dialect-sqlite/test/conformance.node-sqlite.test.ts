import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { sqliteTarget } from './target.js';

// Node's built-in node:sqlite, the default driver: no skip where it is missing, the suite fails.
const target = sqliteTarget('node:sqlite');
afterAll(() => target.close?.());
// The newest Node line's run (SQLINBOX_TEST_QUICK, set by scripts/test.sh) takes the short flow.
await runConformance(target, process.env.SQLINBOX_TEST_QUICK === '1' ? { flowJobs: { full: 1_000 } } : {});
