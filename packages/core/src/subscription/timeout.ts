/** What {@link raceTimeout} answers when the time ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * Runs `run` (at once, in this turn) and races its result against `ms`: the one timeout race of
 * every handler, single or batch. Without `ms` it is the result alone, with no timer. A throw
 * of `run` is a rejection.
 */
export function raceTimeout<T>(run: () => T, ms: number | undefined): Promise<Awaited<T> | typeof TIMED_OUT> {
  let result: Promise<Awaited<T>>;
  try {
    result = Promise.resolve(run());
  } catch (err) {
    return Promise.reject(err);
  }
  if (ms === undefined) return result;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([result, timedOut]).finally(() => clearTimeout(timer));
}
