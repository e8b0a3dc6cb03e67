import { runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { sqliteTarget } from './target.js';

const target = sqliteTarget('better-sqlite3');
afterAll(() => target.close?.());
await runContract(target);
