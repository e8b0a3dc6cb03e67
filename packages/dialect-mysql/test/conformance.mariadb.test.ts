import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { mariadbTarget } from './targets.js';

const target = mariadbTarget();
afterAll(() => target.close?.());
await runConformance(target, { rows: 5_000, advisoryDeliveries: 1_000 });
