import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/pg.ts', 'src/postgres.ts'],
  format: ['esm'],
  dts: true,
  platform: 'node',
  target: 'node22',
  clean: true,
});
