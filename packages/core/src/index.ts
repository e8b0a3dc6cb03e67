export {
  Admin,
  type AdminOptions,
  type AdminPage,
  type AdminRow,
  type AdminTableOptions,
  type ChangeReport,
  type Selection,
  type SkipReason,
} from './admin.js';
export {
  Broker,
  type BrokerOptions,
  type BrokerState,
  type ClosedBroker,
  type MountedSubscription,
} from './broker.js';
export { Budget } from './budget.js';
export type { CancelOptions, CancelReport, CancelSkip } from './cancel.js';
export { type Codec, defaultCodec } from './codec.js';
export {
  ConnectionStringError,
  type ConnectionStringRule,
  checkConnectionString,
} from './connection-string.js';
export {
  CONTROL_COLUMNS,
  CONTROL_READ_MS,
  CONTROL_TABLE,
  type ControlInput,
  type ControlKind,
  type ControlOps,
  type ControlRow,
  type ControlTable,
  cancelReason,
  cancelRow,
  cancelsOf,
  DEFAULT_CANCEL_REASON,
  type PausedState,
  type PauseScope,
} from './control.js';
export * from './description.js';
export * from './dialect.js';
export * from './driver.js';
export { type Duration, durationMs, leaseMs } from './duration.js';
export * from './errors.js';
export type { EventMap, EventName, HandlerCall, HandlerHook, ReleaseReason } from './events.js';
export { ExpiredError, type ExpiryOptions } from './expiry.js';
export * from './flow-table.js';
export {
  type FlowChild,
  FlowChildDeadError,
  type FlowJob,
  type FlowNode,
  type FlowParentRef,
  type FlowPruneOptions,
  type FlowPruneReport,
  type FlowSpec,
  Flows,
} from './flows/flows.js';
export { FLOW_RECONCILE_MS } from './flows/sweep.js';
export * from './inbox.js';
export { consoleLogger, type Logger, type LogLevel, silentLogger } from './logger.js';
export {
  MIGRATIONS_TABLE,
  type MigrateOptions,
  type MigrationReport,
  type MigrationStep,
  type MigrationTarget,
  migrate,
} from './migrate.js';
export { failureOf, MAX_ERROR_LENGTH, Outcome, outcomeOf, type Plan, planOf } from './outcome.js';
export type { PublishOptions, PublishOptionsFor } from './publish.js';
export {
  type Backoff,
  type BackoffOptions,
  backoffDelay,
  DEFAULT_BACKOFF,
  MAX_WORKERS,
  Queue,
  type QueueFlags,
  type QueueSettings,
  queue,
  type ThreadOptions,
  ThreadQueue,
  type ThreadSettings,
} from './queue.js';
export {
  RATE_TABLE,
  type RateGrant,
  type RateLimit,
  type RateLimitInput,
  type RateReservation,
} from './rate-limit.js';
export { type OutboxInput, outbox } from './relay.js';
export type { ReplaceOptions } from './replace.js';
export {
  decodeResult,
  encodeResult,
  ResultDeadError,
  type ResultOf,
  ResultTimeoutError,
  type ResultWaitOptions,
  type RowResult,
} from './result.js';
export { type Retention, type RetentionAge, type RetentionInput, retentionMs } from './retention.js';
export {
  type CatchUp,
  type MountedSchedule,
  SCHEDULE_TABLE,
  type ScheduleOptions,
  type SchedulePayload,
  type SchedulePayloadFor,
  type Tick,
} from './schedule.js';
export type { StartOptions } from './startup.js';
export {
  STEP_KEY_MAX,
  STEPS_COLUMNS,
  STEPS_TABLE,
  StepError,
  type StepRecord,
  type StepRows,
  type StepsInput,
  type StepsKey,
  type StepsOps,
  type StepsTable,
  stepNameProblem,
  stepRowId,
  validateSteps,
} from './steps.js';
export type { BatchHandler, BatchItem, Context, Handler } from './subscription/handler.js';
export {
  decodeStep,
  encodeStep,
} from './subscription/steps.js';
export * from './table-builder.js';
export {
  checkConnectionLimit,
  type ServiceConnections,
  type ThreadContext,
  type ThreadDemand,
  ThreadExitedError,
  type ThreadModule,
  type ThreadOpenOptions,
  type ThreadPoolHandle,
  threadHandler,
} from './threads.js';
