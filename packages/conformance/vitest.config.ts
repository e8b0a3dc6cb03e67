import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@sqlinbox/source'] },
  ssr: { resolve: { conditions: ['@sqlinbox/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: '.vitest/report.json' }]],
  },
});
