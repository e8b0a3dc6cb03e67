import { defineConfig } from 'vitest/config';

// No timeouts here: the conformance suite sets its own, as it must for any outside adapter.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
