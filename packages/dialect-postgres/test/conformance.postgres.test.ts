import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_SERVER, postgresJsTarget } from './targets.js';

const target = postgresJsTarget();
afterAll(() => target.close?.());
// The two-process ledger moves 5,000 rows on pg (conformance.pg.test.ts), once for PostgreSQL: over
// postgres.js 1,000 rows prove the same of this driver.
if (NO_SERVER === undefined) await runConformance(target, { rows: 1_000, advisoryDeliveries: 1_000 });
