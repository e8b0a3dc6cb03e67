import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    // conformance.mssql.ts runs against the server global-setup.ts finds, or is skipped with the reason.
    include: ['test/**/*.test.ts', 'test/conformance.mssql.ts'],
    // Finds the server (env URL, local server, container) or says why the tests that need it skip.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
