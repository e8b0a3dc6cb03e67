import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    // Finds the server (env URL, local server, container) or says why the tests that need it skip.
    globalSetup: ['test/global-setup.ts'],
    // One database for every file: advisory-lock counts (pg_locks) and LISTEN channels are
    // database-wide, so files run one after another.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // scripts/test.sh runs the PgBouncer files beside the rest, each run with a report of its own.
    reporters: [
      'default',
      ['json', { outputFile: process.env.SQLINBOX_VITEST_REPORT || '.vitest/report.json' }],
    ],
  },
});
