import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { mysql2Target, NO_SERVER } from './targets.js';

const target = mysql2Target();
afterAll(() => target.close?.());
if (NO_SERVER === undefined)
  await runConformance(target, {
    rows: 5_000,
    advisoryDeliveries: 1_000,
    // The 2-minute schedule run, on one adapter of MySQL and MariaDB (mariadb runs the short one).
    scheduleSeconds: 120,
    rateSeconds: 20,
  });
