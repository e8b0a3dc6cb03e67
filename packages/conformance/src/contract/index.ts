import type { Form } from '@sqlinbox/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import { Harness } from '../harness.js';
import type { ConformanceTarget, OpenAdapter } from '../target.js';
import { adminContract } from './admin.js';
import { advisoryContract } from './advisory.js';
import { Bench, type ContractContext, type ContractSkip, optionalMethods } from './bench.js';
import {
  claimLeaseByKeyContract,
  claimLeaseContract,
  claimLockedContract,
  extendLeasesContract,
} from './claims.js';
import { insertContract, statsContract } from './data.js';
import { fifoGuardContract } from './fifo.js';
import { settleContract } from './settle.js';
import { opsShapeContract } from './shape.js';

/** Which part of the contract to run (default: everything the dialect's capabilities allow). */
export interface ContractOptions {
  /** Limit to these forms; a test of another form is skipped, saying so. Default: every form the dialect takes. */
  readonly forms?: readonly Form[];
  /**
   * Tests to skip as known drifts of the dialect, each with what the dialect does instead (the
   * skip's note). Each must match a test's title; one that matches none fails the run,
   * so a skip cannot outlive its drift unnoticed. Default: none.
   */
  readonly skip?: readonly ContractSkip[];
}

export type { ContractSkip };

/** The time each contract test and hook may take, in ms, where it sets none of its own. */
const CONTRACT_TIMEOUT = 60_000;

/**
 * Registers the per-method contract of a dialect, in the calling vitest file: each `TableOps` and
 * `Advisory` method on its own, against the target's real database, through
 * `adapter.dialect.prepare(table)` and connections of the adapter's pool. Every test sits in a
 * describe block named after its method (`claimLocked`, `claimLease`, `extendLeases`,
 * `advisory.candidates`, `advisory.lock`, `advisory.unlock`, `advisory.take`, `settle`,
 * `settleMany`, `insert`, `stats`, `list`, `pick`, `requeue`, `remove`, `reschedule`,
 * `fifoGuard`, and `prepare` for the shape of the prepared statements), so a dialect that drifts from the contract fails a test named after the method.
 *
 * ```ts
 * import { runContract } from '@sqlinbox/conformance';
 * await runContract(myTarget);
 * ```
 * A test whose method, form or capability the dialect lacks (the row lock form, two connections
 * at once, the FIFO guard, an optional method) is skipped with the reason. Each test makes its own
 * small tables with the dialect's DDL and drops them after; none waits on a clock (a lease ends
 * by claiming with a later "now").
 */
export async function runContract(target: ConformanceTarget, options: ContractOptions = {}): Promise<void> {
  const probe = await target.open({ poolSize: 1 });
  const caps = probe.dialect.capabilities;
  const optional = optionalMethods(probe.dialect);
  await probe.close();
  const forms = caps.forms.filter((f) => options.forms === undefined || options.forms.includes(f));

  // The suite sets its own timeouts: it runs under vitest's defaults (5 s) in an outside package.
  describe(`sqlinbox contract: ${target.name}`, { timeout: CONTRACT_TIMEOUT }, () => {
    let adapter: OpenAdapter | undefined;
    let bench: Bench | undefined;
    beforeAll(async () => {
      // Runs once every test is registered (vitest collects nested describe blocks after this one).
      const stale = c.drifts.filter((d) => !c.matched.has(d));
      if (stale.length > 0)
        throw new Error(
          `runContract: skip matches no test: ${stale.map((d) => JSON.stringify(d.test)).join(', ')}`,
        );
      // One adapter for the run: its pool serves every test, and each test's connections end with it.
      adapter = await target.open({ poolSize: 6 });
    }, CONTRACT_TIMEOUT);
    afterAll(async () => {
      await adapter?.close();
    }, CONTRACT_TIMEOUT);
    beforeEach(() => {
      if (adapter === undefined) throw new Error('runContract: the adapter did not open');
      bench = new Bench(new Harness(target, caps), adapter);
    }, CONTRACT_TIMEOUT);
    afterEach(async () => {
      const b = bench;
      bench = undefined;
      if (b === undefined) return;
      await b.end();
      await b.h.cleanup();
    }, CONTRACT_TIMEOUT);
    const c: ContractContext = {
      b: () => {
        if (bench === undefined) throw new Error('no bench: contract tests run inside the suite');
        return bench;
      },
      target,
      caps,
      forms,
      optional,
      drifts: options.skip ?? [],
      matched: new Set(),
    };

    claimLockedContract(c);
    claimLeaseContract(c);
    claimLeaseByKeyContract(c);
    extendLeasesContract(c);
    advisoryContract(c);
    settleContract(c);
    insertContract(c);
    statsContract(c);
    adminContract(c);
    fifoGuardContract(c);
    opsShapeContract(c);
  });
}
