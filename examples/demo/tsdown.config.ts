import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/demo.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  dts: false,
  clean: true,
});
