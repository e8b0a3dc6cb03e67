import { expect, test } from 'vitest';
import { smallestAfter } from '../src/control.js';

test('R-LIFE-3 the stale-cancel sweep takes the next batch of cancels after the last one it checked, in order, without sorting them all', () => {
  const keys = Array.from({ length: 1_000 }, (_, i) => String((i * 7919) % 1_000));
  const sorted = [...keys].sort();
  // Each batch goes on after the last key of the one before, as the sorted list's slices do.
  let after = '';
  const batches: string[][] = [];
  for (;;) {
    const batch = smallestAfter(keys, after, 100);
    if (batch.length === 0) break;
    batches.push(batch);
    after = batch[batch.length - 1]!;
  }
  expect(batches).toHaveLength(10);
  expect(batches.flat()).toEqual(sorted);
  expect(smallestAfter(keys, '5', 3)).toEqual(sorted.filter((k) => k > '5').slice(0, 3));
  expect(smallestAfter(['b', 'a'], 'z', 5)).toEqual([]);
  expect(smallestAfter(['b', 'a', 'c'], '', 5)).toEqual(['a', 'b', 'c']);
  expect(smallestAfter(['b'], '', 0)).toEqual([]);
});
