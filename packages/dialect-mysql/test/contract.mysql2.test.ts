import { runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { CONTRACT_DRIFTS, mysql2Target, NO_SERVER } from './targets.js';

const target = mysql2Target();
afterAll(() => target.close?.());
// CONTRACT_DRIFTS (targets.ts): the contract tests this dialect fails today, skipped by name.
if (NO_SERVER === undefined) await runContract(target, { skip: CONTRACT_DRIFTS });
