// The import rules `pnpm lint` checks (dependency-cruiser): no circle in the core or the statement
// builder, counting type-only imports too (R-HOUSE-2). A cycle is a design bug even when it is only
// types: it means two modules hold one idea between them, or one holds two.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle in packages/core/src or packages/sql/src: move the shared piece to a module both can import (docs/dev/architecture.md).',
      from: { path: '^packages/(core|sql)/src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^packages/(core|sql)/src/',
    // Type-only imports count: `import type` is read from the TypeScript source, not the emitted JS.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
