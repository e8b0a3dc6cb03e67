import { PGlite } from '@electric-sql/pglite';
import { type ConformanceTarget, defineTarget } from '@sqlinbox/conformance';
import { pglite } from '../src/index.js';

/**
 * One PGlite instance per test file: every adapter the suites open shares it (and its one
 * session), as every pool of a server shares the server. `poolSize` is not read: the pool is one
 * connection. No `childModule`: no other process or thread can open this database.
 */
export async function pgliteTarget(): Promise<ConformanceTarget> {
  const db = await PGlite.create();
  return defineTarget({
    name: 'pglite',
    adapter: ({ poolSize, serverVersion }) =>
      pglite(db, { poolSize, serverVersion, acquireTimeoutMs: 5_000 }),
    tooOldVersion: '10.0',
    close: () => db.close(),
  });
}
