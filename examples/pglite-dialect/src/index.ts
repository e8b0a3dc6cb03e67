export {
  classifyPgliteError,
  createPgliteDialect,
  FLOOR,
  PgliteAdvisory,
  PgliteBusyError,
  PgliteClosedError,
  PgliteConcurrency,
  PglitePublish,
  PgliteStatements,
  PgliteSyntax,
  PgliteTable,
  pgliteCapabilities,
  pgliteDialect,
  prepareTable,
} from './dialect.js';
export { type PgliteAdapterOptions, PgliteConnection, PglitePool, pglite } from './pglite.js';
