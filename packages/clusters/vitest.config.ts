import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * The files that run longest, first: two run at once, so the lane ends soonest when the long ones
 * start at once and the short ones fill in behind them. Vitest's own order, on a clean clone with
 * no timings cached, is by file size, which put the two whole-suite version lines (tiny files
 * over a large suite) last. Any file not named here keeps vitest's order, after these.
 */
const LONGEST_FIRST = [
  'versions/pg11.test.ts',
  'versions/pg18.test.ts',
  'galera.test.ts',
  'failover-sync.test.ts',
  'failover-async.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(`/test/${name}`));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    // A stable sort: files of one rank keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    // Makes the run's directory of servers; removes what a failed test left there.
    globalSetup: ['test/global-setup.ts'],
    // Each file starts servers of its own on ports of its own: two files at once.
    fileParallelism: true,
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
