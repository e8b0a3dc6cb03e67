import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/kysely.ts', 'src/knex.ts', 'src/drizzle.ts', 'src/typeorm.ts', 'src/prisma.ts'],
  format: ['esm'],
  dts: true,
  platform: 'node',
  target: 'node22',
  clean: true,
  // The ORMs are the user's own: never bundled, their types included by reference only.
  external: [
    /^drizzle-orm(\/|$)/,
    /^kysely(\/|$)/,
    /^knex(\/|$)/,
    /^typeorm(\/|$)/,
    /^@prisma\//,
    /^@sqlinbox\//,
  ],
});
