import type { Capabilities, Form } from '@sqlinbox/core';
import { afterEach, beforeAll, beforeEach, describe, test } from 'vitest';
import { Harness } from './harness.js';
import { collectSkips, NEEDS, reportSkips, skip } from './scenario-skips.js';
import { adminScenarios } from './scenarios/admin.js';
import { advisoryScenarios } from './scenarios/advisory.js';
import { attemptScenarios } from './scenarios/attempt.js';
import { batchScenarios } from './scenarios/batch.js';
import { cancelScenarios } from './scenarios/cancel.js';
import { concurrencyForms, concurrencyScenarios } from './scenarios/concurrency.js';
import { batchedAckKillScenarios, connectionScenarios } from './scenarios/connections.js';
import { controlScenarios } from './scenarios/control.js';
import { crashScenarios } from './scenarios/crash.js';
import { deadLetterScenarios } from './scenarios/dead-letter.js';
import { debounceScenarios } from './scenarios/debounce.js';
import { expiryScenarios } from './scenarios/expiry.js';
import { failureRecordScenarios } from './scenarios/failure-record.js';
import { failureScenarios } from './scenarios/failures.js';
import { flowScenarios } from './scenarios/flow.js';
import { flowCrashScenarios } from './scenarios/flow-crash.js';
import { flowGraphScenarios } from './scenarios/flow-graph.js';
import { flowKillScenarios } from './scenarios/flow-kill.js';
import { flowRowScenarios } from './scenarios/flow-rows.js';
import { flowTableScenarios } from './scenarios/flow-tables.js';
import { hostileScenarios } from './scenarios/hostile.js';
import { leaseScenarios } from './scenarios/lease.js';
import { lifecycleScenarios } from './scenarios/lifecycle.js';
import { migrateScenarios } from './scenarios/migrate.js';
import { notifyScenarios } from './scenarios/notify.js';
import { observabilityScenarios } from './scenarios/observability.js';
import { operationScenarios } from './scenarios/operation.js';
import { orderingScenarios } from './scenarios/ordering.js';
import { outboxScenarios } from './scenarios/outbox.js';
import { poolScenarios } from './scenarios/pool.js';
import { rateScenarios } from './scenarios/rate.js';
import { resultScenarios } from './scenarios/results.js';
import { retentionScenarios } from './scenarios/retention.js';
import { rowLockScenarios } from './scenarios/row-lock.js';
import { scheduleScenarios } from './scenarios/schedule.js';
import { settleScenarios } from './scenarios/settle.js';
import { stepsScenarios } from './scenarios/steps.js';
import { threadScenarios } from './scenarios/threads.js';
import { transactionalScenarios } from './scenarios/transactional.js';
import type { ConformanceTarget } from './target.js';

export { type ContractOptions, type ContractSkip, runContract } from './contract/index.js';
export { defineTarget, type TargetDefinition } from './define-target.js';
export {
  gate,
  Harness,
  MemoryLogger,
  ms,
  noChildModule,
  payloadOf,
  sleep,
  type TableExtras,
  until,
} from './harness.js';
export { type NetLink, openNetLink } from './netns.js';
export {
  dockerAnswers,
  isCi,
  optionalTargets,
  portAnswers,
  type ResolvedTarget,
  type ResolveTargetOptions,
  resolveTarget,
  type SetupTargetOptions,
  type StartedServer,
  setupTarget,
  TargetUnavailableError,
} from './resolve.js';
export { type HostileValue, hostileCorpus } from './scenarios/hostile.js';
export { type PartitionOptions, runPartition } from './scenarios/partition.js';
export { skipWithoutServer } from './skip.js';
export type { ConformanceTarget, OpenAdapter, OpenOptions } from './target.js';

/** Which scenario groups to run (default: all that the adapter's capabilities allow). */
export interface ConformanceOptions {
  /** Limit to these forms. */
  readonly forms?: readonly Form[];
  /** Rows for the two-process ledger scenario (default 1,000). */
  readonly rows?: number;
  /** Advisory deliveries before the locks left are counted (default 1,000). */
  readonly advisoryDeliveries?: number;
  /**
   * Seconds the every-second schedule runs across 3 processes and a restart (default 12). Run
   * the long version (e.g. 120) on one adapter per database family: it takes that long.
   */
  readonly scheduleSeconds?: number;
  /**
   * Seconds 3 processes drain a rate-limited table at 50 per 1 s (default 5). Run the long version
   * (e.g. 20) on one adapter per database family.
   */
  readonly rateSeconds?: number;
  /**
   * Jobs of the 3-level flow handled by 3 processes that are SIGKILLed mid-run: `full` in one form
   * (lease where the adapter takes it, else its first), `others` in the rest. Defaults 10,000 and
   * 1,000.
   */
  readonly flowJobs?: {
    /** Jobs in the one form. */
    readonly full?: number;
    /** Jobs in every other form. */
    readonly others?: number;
  };
  /**
   * The time each scenario and hook may take, in ms, where the scenario sets none of its own
   * (default 60,000). The suite sets it itself, so it runs under vitest's defaults (5 s per test),
   * where a schedule or crash scenario takes longer than that.
   */
  readonly timeout?: number;
}

/** What {@link ConformanceOptions.timeout} defaults to. */
export const SCENARIO_TIMEOUT = 60_000;

/**
 * Registers the whole sqlinbox conformance suite for one adapter, in the calling vitest file:
 *
 * ```ts
 * import { runConformance } from '@sqlinbox/conformance';
 * await runConformance(myTarget);
 * ```
 * It opens the adapter once to read what it can do (its capabilities: forms, transactional mode,
 * FIFO guard, connections), and registers every scenario those allow; each one left out is
 * registered as skipped with its reason in its title, and the list is printed once registered.
 * Scenarios create their own tables with the dialect's DDL and drop them after. The suite sets its
 * own timeouts ({@link ConformanceOptions.timeout}): no vitest configuration is needed.
 */
export async function runConformance(
  target: ConformanceTarget,
  options: ConformanceOptions = {},
): Promise<void> {
  const probe = await target.open({ poolSize: 2 });
  const caps: Capabilities = probe.dialect.capabilities;
  const byKey = concurrencyForms(probe.dialect);
  await probe.close();
  const forms = caps.forms.filter((f) => options.forms === undefined || options.forms.includes(f));
  const timeout = options.timeout ?? SCENARIO_TIMEOUT;
  const flowForm = forms.includes('lease') ? 'lease' : forms[0];
  const suite = `sqlinbox conformance: ${target.name}`;

  describe(suite, { timeout }, () => {
    const skipped = collectSkips();
    // Runs once every scenario is registered (vitest collects the nested blocks after this body).
    beforeAll(() => reportSkips(suite, skipped));
    let harness: Harness | undefined;
    const h = () => {
      if (harness === undefined) throw new Error('no harness: scenarios run inside the suite');
      return harness;
    };
    beforeEach(() => {
      harness = new Harness(target, caps);
    }, timeout);
    afterEach(async () => {
      await harness?.cleanup();
      harness = undefined;
    }, timeout);

    for (const form of ['rowlock', 'lease', 'advisory'] as const) {
      if (forms.includes(form)) continue;
      skip(
        `the ${form} form's scenarios`,
        caps.forms.includes(form)
          ? 'left out by options.forms'
          : `the adapter takes no ${form} form (capabilities.forms: ${caps.forms.join(', ')})`,
      );
    }

    test('R-SHAPE-5 R-SHAPE-4 the adapter states what it can do, and this suite runs on it', () => {
      if (caps.forms.length === 0) throw new Error('an adapter must take at least one claim form');
    });

    connectionScenarios(h);

    // Schedules publish into a table of any form: one form is enough.
    const scheduleForm = forms[0];
    if (scheduleForm !== undefined) {
      describe('schedules', () => scheduleScenarios(h, scheduleForm, options.scheduleSeconds ?? 12));
    }

    for (const form of forms) {
      describe(`${form} form`, () => {
        settleScenarios(h, form, caps);
        deadLetterScenarios(h, form, caps);
        hostileScenarios(h, form, caps);
        crashScenarios(h, form);
        poolScenarios(h, form, caps);
        batchScenarios(h, form, caps);
        orderingScenarios(h, form);
        flowScenarios(h, form);
        debounceScenarios(h, form);
        expiryScenarios(h, form);
        retentionScenarios(h, form);
        failureRecordScenarios(h, form);
        attemptScenarios(h, form, caps);
        resultScenarios(h, form);
        migrateScenarios(h, form);
        flowGraphScenarios(h, form);
        flowRowScenarios(h, form);
        flowTableScenarios(h, form);
        flowCrashScenarios(h, form);
        flowKillScenarios(
          h,
          form,
          form === flowForm ? (options.flowJobs?.full ?? 10_000) : (options.flowJobs?.others ?? 1_000),
        );
        concurrencyScenarios(h, form, byKey);
        // The 20-second scenario across processes once per adapter: the gate is the same in every form.
        rateScenarios(h, form, form === forms[0], options.rateSeconds ?? 5);
        controlScenarios(h, form);
        cancelScenarios(h, form);
        notifyScenarios(h, form);
        stepsScenarios(h, form, caps);
        observabilityScenarios(h, form);
        outboxScenarios(h, form, caps);
        threadScenarios(h, form);
        if (caps.transactional) transactionalScenarios(h, form, caps);
        else skip(`transactional mode's scenarios (${form})`, NEEDS.transactional);
        if (form === 'lease') leaseScenarios(h, caps);
        if (form === 'lease') batchedAckKillScenarios(h, target);
        if (form === 'advisory') advisoryScenarios(h, caps);
        if (form === 'rowlock') rowLockScenarios(h, caps);
        operationScenarios(h, target, form, caps);
        lifecycleScenarios(h, target, form, caps);
        adminScenarios(h, form, caps);
        failureScenarios(h, target, form, caps, {
          rows: options.rows ?? 1_000,
          advisoryDeliveries: options.advisoryDeliveries ?? 1_000,
        });
      });
    }
  });
}

/**
 * Registers only the hostile-corpus scenarios (every value a bound parameter, byte for byte) for
 * one adapter, in every form it takes: for a target opened in a server mode of its own (e.g.
 * MySQL's `NO_BACKSLASH_ESCAPES`, PostgreSQL's `standard_conforming_strings=off`), where the
 * rest of the suite already runs in the default mode. `runConformance` includes them.
 */
export async function runHostileCorpus(target: ConformanceTarget): Promise<void> {
  const probe = await target.open({ poolSize: 2 });
  const caps: Capabilities = probe.dialect.capabilities;
  await probe.close();
  describe(`sqlinbox hostile corpus: ${target.name}`, { timeout: SCENARIO_TIMEOUT }, () => {
    let harness: Harness | undefined;
    const h = () => {
      if (harness === undefined) throw new Error('no harness: scenarios run inside the suite');
      return harness;
    };
    beforeEach(() => {
      harness = new Harness(target, caps);
    }, SCENARIO_TIMEOUT);
    afterEach(async () => {
      await harness?.cleanup();
      harness = undefined;
    }, SCENARIO_TIMEOUT);
    for (const form of caps.forms) describe(`${form} form`, () => hostileScenarios(h, form, caps));
  });
}
