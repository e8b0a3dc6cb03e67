import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { postgresJsTarget } from './targets.js';

const target = postgresJsTarget();
afterAll(() => target.close?.());
await runConformance(target, { rows: 5_000, advisoryDeliveries: 1_000 });
