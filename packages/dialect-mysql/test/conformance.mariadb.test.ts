import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { mariadbTarget, NO_SERVER } from './targets.js';

const target = mariadbTarget();
afterAll(() => target.close?.());
if (NO_SERVER === undefined) await runConformance(target, { rows: 5_000, advisoryDeliveries: 1_000 });
