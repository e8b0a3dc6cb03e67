import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    // conformance.mssql.ts and contract.mssql.ts run against the server global-setup.ts finds, or
    // are skipped with the reason.
    include: ['test/**/*.test.ts', 'test/conformance.mssql.ts', 'test/contract.mssql.ts'],
    // Finds the server (env URL, local server, container) or says why the tests that need it skip.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
