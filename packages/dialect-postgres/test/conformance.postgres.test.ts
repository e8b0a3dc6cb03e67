import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_SERVER, postgresJsTarget } from './targets.js';

const target = postgresJsTarget();
afterAll(() => target.close?.());
if (NO_SERVER === undefined) await runConformance(target, { rows: 5_000, advisoryDeliveries: 1_000 });
