import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    // Finds the server (env URL, local server, container) or says why the tests that need it skip.
    globalSetup: ['test/global-setup.ts'],
    // One database for every file: kill-loop.test.ts kills every session of the database and the
    // restart scenarios restart the server, so files run one after another (vitest would run
    // several at once where the machine has more than two cores).
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
