import { beforeEach, test } from 'vitest';

/**
 * For a test file whose server may be missing: when `process.env[skipVariable]` holds a reason (a
 * global setup's `setupTarget` wrote it), every test the file registers is skipped with that note,
 * and one skipped test names the reason in the run's output. Call it at the top of the file, or of
 * a module the file imports. Answers the reason, or `undefined` when the server is there.
 */
export function skipWithoutServer(skipVariable: string): string | undefined {
  const reason = process.env[skipVariable];
  if (reason === undefined || reason === '') return undefined;
  beforeEach((ctx) => ctx.skip(reason));
  test.skip(`no server (${skipVariable}): ${reason}`, () => {});
  return reason;
}
