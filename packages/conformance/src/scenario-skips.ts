import { test } from 'vitest';

/** A scenario left out, and why. */
export interface Skipped {
  readonly name: string;
  readonly reason: string;
}

/**
 * The scenarios the suite being registered leaves out for its adapter, each with why, so an
 * adapter's author reads what was not proven and what would prove it. vitest registers a suite's
 * nested blocks after its own body and before the next suite's, so the list the body started is
 * the one its nested scenarios fill.
 */
let current: Skipped[] = [];

/** Starts the list of a suite's skipped scenarios (call at the top of its `describe` body). */
export function collectSkips(): Skipped[] {
  current = [];
  return current;
}

/** Why a scenario cannot run on this adapter, by the capability or target hook it needs. */
export const NEEDS = {
  connections: 'the adapter opens one connection at a time (capabilities.multipleConnections is false)',
  killSession:
    'the target has no killSession(adapter, connectionId), so no session can be killed mid-scenario',
  restartServer: 'the target has no restartServer(), so the server cannot be restarted mid-scenario',
  transactional: 'the adapter has no transactional mode (capabilities.transactional is false)',
  lease: 'the adapter takes no lease form (capabilities.forms)',
} as const;

/**
 * `test` where every condition holds; else a stand-in that registers the scenario as skipped, its
 * title ending with the reason of the first condition that failed, and notes it for
 * {@link reportSkips}. Each condition is `[holds, reason]`.
 */
export function only(...conditions: readonly (readonly [boolean, string])[]): typeof test {
  const failed = conditions.find(([holds]) => !holds);
  if (failed === undefined) return test;
  const reason = failed[1];
  return ((name: string) => skip(name, reason)) as unknown as typeof test;
}

/** Registers `name` as a skipped scenario with its reason, and notes it for {@link reportSkips}. */
export function skip(name: string, reason: string): void {
  current.push({ name, reason });
  test.skip(`${name} (skipped: ${reason})`, () => {});
}

/** Prints a suite's skipped scenarios, each with its reason (from its `beforeAll`: once all are registered). */
export function reportSkips(
  suite: string,
  list: readonly Skipped[],
  log: (line: string) => void = console.log,
): void {
  if (list.length === 0) return;
  const lines = list.map((s) => `  - ${s.name}: ${s.reason}`);
  log(`${suite}: ${list.length} scenario(s) skipped for this adapter\n${lines.join('\n')}`);
}
