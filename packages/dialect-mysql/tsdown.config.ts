import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts', 'src/mysql2.ts', 'src/mariadb.ts'],
  format: ['esm'],
  dts: true,
  platform: 'node',
  target: 'node22',
  clean: true,
});
