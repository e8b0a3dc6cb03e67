import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_SERVER, pgTarget } from './targets.js';

const target = pgTarget();
afterAll(() => target.close?.());
if (NO_SERVER === undefined)
  await runConformance(target, {
    rows: 5_000,
    advisoryDeliveries: 1_000,
    // The 2-minute schedule run, on one adapter of PostgreSQL (postgres.js runs the short one).
    scheduleSeconds: 120,
    rateSeconds: 20,
  });
