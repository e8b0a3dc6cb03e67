import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_BOUNCER, pgBouncerPostgresJsTarget } from './pgbouncer-targets.js';

// The adapter states the forms a transaction pooler allows (row lock, lease). To keep the run
// short, this file runs the row lock form on postgres.js and conformance.pgbouncer.pg.test.ts the
// lease form on pg; with forms: ['rowlock', 'lease'] both forms pass on both drivers.
const target = pgBouncerPostgresJsTarget();
afterAll(() => target.close?.());
if (NO_BOUNCER === undefined)
  await runConformance(target, { forms: ['rowlock'], rows: 1_000, flowJobs: { full: 1_000 } });
