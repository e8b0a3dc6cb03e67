export { type ColumnUse, schemaOf, tableColumns, tableOf } from './columns.js';
export { type ColumnRole, type IndexParts, QueueDdl } from './ddl.js';
export { NODE_SOCKET_ERRORS } from './errors.js';
export { Params, type Placeholder, positional, type Statement } from './params.js';
export {
  ansiIdent,
  type DeleteParts,
  ID,
  type InsertColumn,
  type InsertParts,
  KEY,
  QueueStatements,
  qualified,
  type SelectParts,
  STATE,
  type UpdateParts,
} from './statements.js';
export { rateGrant, SqlTable, timeOf } from './table.js';
