/**
 * `@sqlinbox/dialect-mssql`: sqlinbox on SQL Server 2017 or later. This entry holds the dialect and
 * imports no driver; the tedious adapter lives behind `@sqlinbox/dialect-mssql/tedious`
 * (`mssql(config)`). The package is also the worked example of a dialect of your own
 * (`docs/custom-dialect.md`).
 */
export { classifyError, ERROR_NUMBERS } from './classify.js';
export { ddl } from './ddl.js';
export {
  beginSql,
  checkVersion,
  columnInfo,
  createMssqlDialect,
  kindOf,
  MSSQL_FLOOR,
  type MssqlDialectOptions,
  type MssqlVersion,
  mssqlCapabilities,
  mssqlDialect,
  parseVersion,
} from './dialect.js';
export { compareIds, MssqlTable, prepareTable } from './ops.js';
export { MssqlStatements, RESOURCE_MAX, resourceName } from './statements.js';
