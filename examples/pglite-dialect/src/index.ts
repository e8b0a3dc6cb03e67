export {
  classifyPgliteError,
  createPgliteDialect,
  FLOOR,
  PgliteBusyError,
  PgliteClosedError,
  PgliteStatements,
  PgliteTable,
  pgliteCapabilities,
  pgliteDialect,
  prepareTable,
} from './dialect.js';
export { type PgliteAdapterOptions, PgliteConnection, PglitePool, pglite } from './pglite.js';
