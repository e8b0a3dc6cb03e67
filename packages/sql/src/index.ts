export {
  boundedClaims,
  CLAIM_MARGIN,
  ClaimRange,
  FULL_SCAN_EVERY_MS,
  type RangeRead,
  SWEEP_FROM_MS,
  SWEEP_STEP_MS,
} from './claim-range.js';
export { type ColumnUse, schemaOf, tableColumns, tableOf } from './columns.js';
export { type ColumnRole, type IndexParts, QueueDdl } from './ddl.js';
export {
  classifyWith,
  columnKinds,
  compareVersions,
  describeWith,
  featureDdl,
  informationSchemaColumn,
  informationSchemaSql,
  SqlDialect,
  type SqlDialectOptions,
  versionParts,
} from './dialect.js';
export { NODE_SOCKET_ERRORS } from './errors.js';
export { AdminStatements } from './features/admin.js';
export { AdvisoryStatements } from './features/advisory.js';
export { ConcurrencyStatements } from './features/concurrency.js';
export { ControlStatements } from './features/control.js';
export { CountStatements } from './features/counts.js';
export { FlowStatements } from './features/flows.js';
export { type HeldLease, LeaseStatements } from './features/lease.js';
export { type Conflict, type InsertColumn, type InsertParts, PublishStatements } from './features/publish.js';
export { RateStatements } from './features/rates.js';
export { RetentionStatements } from './features/retention.js';
export { FifoStatements, RowLockStatements } from './features/rowlock.js';
export { ScheduleStatements } from './features/schedules.js';
export { type RecordWrite, SettleStatements } from './features/settle.js';
export { StepsStatements } from './features/steps.js';
export { jsonStringsAsText, type ResultColumn } from './json-text.js';
export { Params, type Placeholder, positional, type Statement } from './params.js';
export { Feature, fifoWindow, ID, IN_WORK, KEY, QueueSql, RANK, STATE } from './queue.js';
export { ansiIdent, chunks, jsonList, qualified } from './quote.js';
export {
  builderStatements,
  type NamedStatement,
  type Rendered,
  type RenderOptions,
  renderStatements,
  SNAPSHOT_LATER,
  SNAPSHOT_NOW,
  type SnapshotCase,
  snapshotCases,
  transactionStatements,
} from './snapshot.js';
export { type Builder, type Features, QueueStatements, standardStatements } from './statements.js';
export { type DeleteParts, type SelectParts, SqlSyntax, type UpdateParts } from './syntax.js';
export { keysHeld, SqlTable } from './table.js';
export {
  ISOLATION_SQL,
  savepointName,
  setIsolation,
  standardTransactions,
  type TransactionSql,
} from './transactions.js';
export { rateGrant, timeOf } from './values.js';
