import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { sqliteTarget } from './target.js';

// Node's built-in node:sqlite, the default driver: no skip where it is missing, the suite fails.
const target = sqliteTarget('node:sqlite');
afterAll(() => target.close?.());
await runConformance(target);
