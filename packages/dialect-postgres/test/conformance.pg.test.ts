import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { pgTarget } from './targets.js';

const target = pgTarget();
afterAll(() => target.close?.());
await runConformance(target, { rows: 5_000, advisoryDeliveries: 1_000 });
