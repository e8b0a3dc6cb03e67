import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { pgliteTarget } from './target.js';

const target = await pgliteTarget();
afterAll(() => target.close?.());
await runConformance(target, { forms: ['lease'], rows: 200, advisoryDeliveries: 200, scheduleSeconds: 3 });
