/** W6's summary of a case from its windows (pure logic: synthetic windows, no database). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', '..', '..', 'bench', 'src');

interface Hist {
  recordValue(v: number): void;
}
type Summary = Record<string, unknown>;
const { summarize } = (await import(join(SRC, 'sustained.mjs'))) as {
  summarize(out: unknown, settings: unknown): Summary;
};
const { histogram } = (await import(join(SRC, 'run-sustained.mjs'))) as { histogram(): Hist };
const { sustainedVerdicts, sustainedSection } = (await import(join(SRC, 'report-sustained.mjs'))) as {
  sustainedVerdicts(byId: Map<string, unknown>): { claim: string; pass: boolean | null; detail: string }[];
  sustainedSection(results: unknown[], dir: string): string | null;
};

/**
 * Case (d) at 1,000 jobs/s in 10 s windows, the hold from 30 to 50 s, these backlogs after it, and
 * these dead row counts in every window (0 in each unless given).
 */
function caseD(after: number[], dead: number[] = [], latency: number[] = []): Summary {
  const stages = [
    ...[10, 10, 10].map((backlog) => ({ stage: 'before', backlog })),
    ...[300, 600].map((backlog) => ({ stage: 'held', backlog })),
    ...after.map((backlog) => ({ stage: 'after', backlog })),
  ];
  const windows = stages.map((w, i) => {
    const hist = histogram();
    // Recorded in microseconds, as the consumer records them; the summary answers milliseconds.
    hist.recordValue((latency[i] ?? 5) * 1_000);
    return { ...w, t: 10 * (i + 1), secs: 10, produced: 10_000, consumed: 10_000, dead: dead[i] ?? 0, hist };
  });
  return summarize({ case: 'd', rate: 1000, hold: { from: 30, to: 50 }, windows }, { window: 10 });
}

describe('W6 case (d)', () => {
  it('R-LOAD-3 the backlog is back when it stays back: a stall after a first recovery counts', () => {
    // Back at 60 s, stalled at 70-80 s, back for good at 90 s: 40 s after the commit, not 10.
    expect(caseD([10, 40_000, 80_000, 10, 10]).backlogBackAfter).toBe(40);
    expect(caseD([10, 10, 10]).backlogBackAfter).toBe(10);
    expect(caseD([10, 10, 90_000]).backlogBackAfter).toBeNull();
  });

  it('R-LOAD-3 the dead rows are back under the highest count before the hold, not under the last window alone', () => {
    // Autovacuum's sawtooth before the hold: 900,000, 500,000, then 8,000 just after a vacuum.
    // Held: 2 and 3 million. After: 1.5 million, 700,000 (under the level before), 100,000.
    const dead = [900_000, 500_000, 8_000, 2_000_000, 3_000_000, 1_500_000, 700_000, 100_000];
    const s = caseD([10, 10, 10], dead);
    expect(s.deadBefore).toBe(900_000);
    expect(s.deadBackAfter).toBe(20);
    // Never under it again: not back.
    expect(caseD([10, 10, 10], [900_000, 0, 0, 2e6, 3e6, 1e6, 1e6, 1e6]).deadBackAfter).toBeNull();
  });

  it('R-LOAD-3 the latency before the hold leaves out the first window, shown apart as the start-up (a consumer that polls meets the first rows at its idle poll)', () => {
    const s = caseD([10, 10, 10], [], [1_000, 20, 30, 400, 500, 40, 40, 40]) as {
      before: { p99: number };
      startup: { p99: number };
      steady: { p99: number };
    };
    expect(s.startup.p99).toBeGreaterThanOrEqual(1_000);
    expect(s.before.p99).toBeGreaterThanOrEqual(30);
    expect(s.before.p99).toBeLessThan(40);
    // The steady figure is every window after the first, the hold's too.
    expect(s.steady.p99).toBeGreaterThanOrEqual(500);
    expect(s.steady.p99).toBeLessThan(1_000);
  });
});

describe('W6 case (d) on SQLite in the report', () => {
  it('R-LOAD-3 shows the WAL before the hold, at most and at the end, and no dead rows (SQLite counts none)', () => {
    const wal = [5.6, 5.6, 5.6, 900, 1868.1, 64, 5.6, 5.6];
    const summary = caseD([10, 10, 10]);
    const stages = ['before', 'before', 'before', 'held', 'held', 'after', 'after', 'after'];
    const result = {
      workload: 'sustained',
      workers: 8,
      consumers: 3,
      db: 'sqlite',
      kind: 'sqlinbox',
      form: 'lease',
      producer: 'sql',
      case: 'd',
      id: 'sustained-d-sqlite-sqlinbox-lease-sql',
      runs: [
        {
          rate: 1000,
          summary: { ...summary, deadMaxHeld: null, deadBackAfter: null },
          windows: stages.map((stage, i) => ({
            t: 10 * (i + 1),
            stage,
            walMB: wal[i],
            tableMB: 0.2,
            backlog: 10,
          })),
        },
      ],
    };
    const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-report-'));
    try {
      const md = sustainedSection([result], dir) ?? '';
      const row = md.split('\n').find((l) => l.startsWith('| SQLite: sqlinbox lease'));
      expect(row).toBeDefined();
      expect(row).toContain('WAL 5.6 → 1868.1, at the end 5.6 |');
      // The dead rows' two columns, then the xmin age: none measured on SQLite.
      expect(row).toContain('| – | – | – |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('W6 (a) sustainable rate ratios', () => {
  /** A case (a) held at `rate`, consuming `consumed` with at most `maxBacklog` rows behind. */
  const caseA = (id: string, rate: number, consumed: number, maxBacklog: number, given = false) => [
    `sustained-a-${id}`,
    {
      id: `sustained-a-${id}`,
      runs: [
        {
          rate,
          search: given ? { rate, steps: [], given } : { rate, steps: [] },
          windows: [],
          summary: { consumedPerSec: consumed, maxBacklog },
        },
      ],
    },
  ];
  /** sqlinbox held 30,000 jobs/s given to it; the peer as given here. */
  const verdict = (peerRate: number, peerConsumed: number, peerBacklog: number, given = false) =>
    sustainedVerdicts(
      new Map([
        caseA('pg-sqlinbox-lease-sql', 30_000, 30_000, 300, true),
        caseA('pg-graphile-tuned', peerRate, peerConsumed, peerBacklog, given),
      ] as [string, unknown][]),
    ).find((v) => v.claim.includes('vs graphile-worker tuned'))!;

  it('R-LOAD-1 a peer that did not hold its rate sustains less than it: the held rate over that rate is a lower bound of the ratio', () => {
    // The peer fell 544,091 rows behind at 10,000 jobs/s: 30,000 / 10,000 = 3x at least.
    const v = verdict(10_000, 9_481, 544_091);
    expect(v.pass).toBe(true);
    expect(v.detail).toContain('30,000 / 10,000 = 3x at least');
    // At 12,800 not held, the bound is only 2.34x: not shown to be 3x.
    expect(verdict(12_800, 12_574, 663_703).pass).toBe(false);
  });

  it('R-LOAD-1 a peer that held a rate given to it may sustain more: no verdict from that ratio', () => {
    const v = verdict(3_000, 3_000, 296, true);
    expect(v.pass).toBeNull();
    expect(v.detail).toContain('not its sustainable rate');
    // Given and not held: still a bound.
    expect(verdict(10_000, 9_481, 544_091, true).pass).toBe(true);
  });

  it('R-LOAD-1 both held, the peer at its searched rate: the ratio of the rates consumed', () => {
    expect(verdict(10_000, 10_000, 200).pass).toBe(true);
    const v = verdict(12_000, 12_000, 200);
    expect(v.pass).toBe(false);
    expect(v.detail).toContain('30,000 / 12,000 jobs/s consumed = 2.5x');
  });
});
