/**
 * `@sqlinbox/dialect-mssql`: sqlinbox on SQL Server 2017 or later. This entry holds the dialect and
 * imports no driver (tedious's adapter: `@sqlinbox/dialect-mssql/tedious`, `mssql(config)`); the
 * package is also the worked example of a dialect of your own (`docs/custom-dialect.md`).
 */
export * from './dialect.js';
export * from './statements.js';
