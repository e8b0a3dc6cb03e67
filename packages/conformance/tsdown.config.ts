import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/child.ts',
    'src/partition-child.ts',
    'src/thread-handler.ts',
    'src/resolve.ts',
  ],
  format: ['esm'],
  dts: true,
  platform: 'node',
  target: 'node22',
  clean: true,
});
