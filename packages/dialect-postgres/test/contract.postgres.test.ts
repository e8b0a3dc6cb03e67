import { runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_SERVER, postgresJsTarget } from './targets.js';

const target = postgresJsTarget();
afterAll(() => target.close?.());
if (NO_SERVER === undefined) await runContract(target);
