/**
 * `@sqlinbox/dialect-postgres`: the PostgreSQL dialect (11 or later). Importing this entry needs
 * no driver; the adapters live behind `@sqlinbox/dialect-postgres/pg` (node-postgres) and
 * `@sqlinbox/dialect-postgres/postgres` (postgres.js).
 */

export { ddl, wakeupTriggerDdl } from './ddl.js';
export {
  createPostgresDialect,
  POSTGRES_FLOOR,
  PostgresDialect,
  type PostgresDialectOptions,
  type PostgresIsolation,
  type PostgresPooler,
  postgresCapabilities,
  postgresDialect,
  type TransactionPoolerForm,
  transactionPoolerCapabilities,
} from './dialect.js';
export { classifyError } from './errors.js';
export { topicChannel, wakeupChannel } from './sql.js';
export {
  POSTGRES_TRANSACTIONS,
  PostgresAdvisory,
  PostgresConcurrency,
  PostgresControl,
  PostgresCounts,
  PostgresLease,
  PostgresPublish,
  PostgresQueue,
  PostgresRowLock,
  PostgresSettle,
  PostgresStatements,
  PostgresSyntax,
  postgresSyntax,
} from './statements.js';
export { PostgresTable, prepareTable } from './table.js';
