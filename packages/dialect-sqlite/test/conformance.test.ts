import { runConformance } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { sqliteTarget } from './target.js';

const target = sqliteTarget('better-sqlite3');
afterAll(() => target.close?.());
// The 2-minute schedule run, on one adapter of SQLite (node:sqlite runs the short one).
await runConformance(target, { scheduleSeconds: 120, rateSeconds: 20 });
