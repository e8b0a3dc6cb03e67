import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { mariadbTarget, NO_SERVER } from './targets.js';

const target = mariadbTarget();
afterAll(() => target.close?.());
// The two-process ledger moves 5,000 rows on mysql2 (conformance.mysql2.test.ts), once for
// MySQL/MariaDB: over the mariadb connector 1,000 rows prove the same of this driver.
if (NO_SERVER === undefined) await runConformance(target, { rows: 1_000, advisoryDeliveries: 1_000 });
