import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
