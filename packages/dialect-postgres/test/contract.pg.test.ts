import { runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { NO_SERVER, pgTarget } from './targets.js';

const target = pgTarget();
afterAll(() => target.close?.());
if (NO_SERVER === undefined) await runContract(target);
