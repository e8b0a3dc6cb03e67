import { runContract } from '@sqlinbox/conformance';
import { afterAll } from 'vitest';
import { pgliteTarget } from './target.js';

const target = await pgliteTarget();
afterAll(() => target.close?.());

// These tests hold two connections at once, and `multipleConnections: false` does not skip them:
// PGlite has one session, so the second connection waits for the first (and fails after the
// target's acquire timeout).
const twoSessions = 'needs a second session; PGlite has one, lent to one connection at a time';
await runContract(target, {
  skip: [
    { test: 'advisory.lock R-ADV-1 takes a free key at once and refuses', reason: twoSessions },
    { test: 'advisory.lock R-ADV-4 a key belongs to the database', reason: twoSessions },
    { test: 'advisory.lock R-ADV-6 R-ADV-7', reason: twoSessions },
    { test: 'advisory.unlock R-ADV-5 R-ADV-10', reason: twoSessions },
    { test: 'stats R-ADM-1 with inWork: the rows the form holds in work, as far as the database can see them, and the oldest ready row\'s age (lease form)', reason: twoSessions },
    { test: 'stats R-ADM-1 with inWork: the rows the form holds in work, as far as the database can see them, and the oldest ready row\'s age (advisory form)', reason: twoSessions },
  ],
});
