import { expect, test } from 'vitest';
import { ResultWaker } from '../src/result.js';

const HOUR = 3_600_000;

test('R-LIFE-4 a result wait woken during its pause reads again at once; a wake between pauses ends the next one; a pause that ended on its own keeps no stale wake-up', async () => {
  const waker = new ResultWaker();
  // Woken during the pause: it ends (an hour's pause would outlive the test).
  const first = waker.pause(HOUR, undefined);
  waker.wake();
  await first;
  // Woken between pauses (while the wait reads): the next pause does not wait.
  waker.wake();
  await waker.pause(HOUR, undefined);
  // A pause that ended on its own leaves nothing behind: a later wake is kept for the next pause.
  await waker.pause(1, undefined);
  waker.wake();
  await waker.pause(HOUR, undefined);
  // An abort ends a pause with its reason.
  const stop = new AbortController();
  const aborted = waker.pause(HOUR, stop.signal).catch((e: unknown) => e);
  stop.abort(new Error('stopped'));
  expect(String(await aborted)).toContain('stopped');
});
