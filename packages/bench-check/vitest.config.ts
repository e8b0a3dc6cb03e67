import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One quick benchmark run: about two minutes on a 2-core machine.
    testTimeout: 900_000,
    hookTimeout: 60_000,
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
