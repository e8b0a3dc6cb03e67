import { defineConfig } from 'vitest/config';

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
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
