export { type ColumnUse, schemaOf, tableColumns, tableOf } from './columns.js';
export { type ColumnRole, type IndexParts, QueueDdl } from './ddl.js';
export {
  classifyWith,
  columnKinds,
  compareVersions,
  describeWith,
  ISOLATION_SQL,
  informationSchemaColumn,
  informationSchemaSql,
  SqlDialect,
  type SqlDialectOptions,
  savepointName,
  setIsolation,
  standardTransactions,
  type TransactionSql,
  versionParts,
} from './dialect.js';
export { NODE_SOCKET_ERRORS } from './errors.js';
export { Params, type Placeholder, positional, type Statement } from './params.js';
export {
  ansiIdent,
  type DeleteParts,
  ID,
  IN_WORK,
  type InsertColumn,
  type InsertParts,
  KEY,
  QueueStatements,
  qualified,
  RANK,
  type SelectParts,
  STATE,
  type UpdateParts,
} from './statements.js';
export { keysHeld, rateGrant, SqlTable, timeOf } from './table.js';
