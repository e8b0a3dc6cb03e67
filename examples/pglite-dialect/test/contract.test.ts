import { runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { pgliteTarget } from './target.js';

const target = await pgliteTarget();
afterAll(() => target.close?.());
await runContract(target);
