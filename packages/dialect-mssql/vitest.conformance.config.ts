import { defineConfig } from 'vitest/config';

/**
 * The conformance and contract runs alone against a real SQL Server (`pnpm test:conformance`): the server
 * `SQLINBOX_MSSQL_URL` names, else a container where Docker answers (test/global-setup.ts). Its crash scenarios fork child processes that import the built packages (`dist/`), so
 * packages resolve as Node resolves them, without the `@sqlinbox/source` condition (vitest would
 * pass that condition on to the children): build first (`pnpm build` at the root).
 */
export default defineConfig({
  test: {
    include: ['test/conformance.mssql.ts', 'test/contract.mssql.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
