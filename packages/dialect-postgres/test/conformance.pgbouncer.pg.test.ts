import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_BOUNCER, pgBouncerPgTarget } from './pgbouncer-targets.js';

// The adapter states the forms a transaction pooler allows (row lock, lease). To keep the run
// short, this file runs the lease form on pg and conformance.pgbouncer.postgres.test.ts the row
// lock form on postgres.js; with forms: ['rowlock', 'lease'] both forms pass on both drivers.
const target = pgBouncerPgTarget();
afterAll(() => target.close?.());
if (NO_BOUNCER === undefined)
  await runConformance(target, { forms: ['lease'], rows: 1_000, flowJobs: { full: 1_000 } });
