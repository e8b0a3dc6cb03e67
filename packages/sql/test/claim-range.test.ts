/**
 * Where a busy table's lease claims read (`ClaimRange`), over a scripted table of due ids and a
 * clock the test moves: from near the last claim, below it at most every 100 ms by a scan from
 * the first id while that is quick, and by a sweep of windows once it is not (R-LOAD-2,
 * R-LOAD-3). The databases' own claims are tested in each dialect's claim-floor test.
 */
import type { Row } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { CLAIM_MARGIN, ClaimRange, FULL_SCAN_EVERY_MS } from '../src/claim-range.js';

/** A table of due ids; each read takes up to `n` of them in id order within its bounds, and records its bounds. */
function table(ids: Iterable<number>) {
  const due = new Set<number>(ids);
  const reads: { from?: bigint; below?: bigint }[] = [];
  const read = async (n: number, from?: bigint, below?: bigint): Promise<Row[]> => {
    reads.push({ from, below });
    const got = [...due]
      .filter((id) => (from === undefined || id >= from) && (below === undefined || id < below))
      .sort((a, b) => a - b)
      .slice(0, n);
    for (const id of got) due.delete(id);
    return got.map((id) => ({ id }));
  };
  return { due, reads, read };
}

describe('R-LOAD-2 R-LOAD-3 ClaimRange', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('R-LOAD-2 claims start near the last claim and scan from the first id once the interval has passed', async () => {
    const t = table(Array.from({ length: 1000 }, (_, i) => i + 1));
    const range = new ClaimRange('id');
    expect((await range.claim(50, t.read)).map((r) => r.id)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(t.reads[0]).toEqual({ from: undefined, below: undefined });
    // Within the interval: from the last claim's lowest id less the margin.
    await range.claim(50, t.read);
    expect(t.reads[1]).toEqual({ from: 1n - CLAIM_MARGIN, below: undefined });
    await range.claim(50, t.read);
    expect(t.reads[2]).toEqual({ from: 51n - CLAIM_MARGIN, below: undefined });
    // A row committed below that start is found by the next scan from the first id.
    t.due.add(-5000);
    vi.advanceTimersByTime(FULL_SCAN_EVERY_MS);
    expect((await range.claim(50, t.read))[0]?.id).toBe(-5000);
    expect(t.reads[3]).toEqual({ from: undefined, below: undefined });
  });

  test('R-LOAD-3 where the scan from the first id is slow, windows below the start walk down to the lowest id claimed and then take everything below it', async () => {
    const t = table(Array.from({ length: 20_000 }, (_, i) => i + 1));
    const range = new ClaimRange('id');
    range.sweepFromMs = 0;
    await range.claim(100, t.read);
    // Far past the first ids, a row appears below every window but the last.
    while (t.due.size > 10_000) {
      vi.advanceTimersByTime(1);
      await range.claim(100, t.read);
    }
    t.due.add(-7);
    let found = false;
    for (let k = 0; k < 500 && !found; k++) {
      vi.advanceTimersByTime(50);
      found = (await range.claim(100, t.read)).some((r) => r.id === -7);
    }
    expect(found).toBe(true);
    // Only the first read had no bound; the windows had an upper bound below the start, and the
    // one that took -7 had no lower bound.
    expect(t.reads.filter((r) => r.from === undefined && r.below === undefined)).toHaveLength(1);
    const windows = t.reads.filter((r) => r.below !== undefined);
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.some((r) => r.from !== undefined)).toBe(true);
    expect(windows.at(-1)?.from).toBeUndefined();
    // Each window lies below the one before it within a round.
    expect(windows[1]!.below).toBeLessThanOrEqual(windows[0]!.below!);
  });
});
