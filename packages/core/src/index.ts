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
export type { BatchHandler, BatchItem } from './batch.js';
export {
  Broker,
  type BrokerOptions,
  type ClosedBroker,
  type MountedSubscription,
  type PublishOptions,
  type PublishOptionsFor,
  type StartOptions,
} from './broker.js';
export { Budget } from './budget.js';
export { type Codec, defaultCodec } from './codec.js';
export * from './description.js';
export * from './dialect.js';
export * from './driver.js';
export * from './errors.js';
export type { EventMap, EventName, ReleaseReason } from './events.js';
export { consoleLogger, type Logger, type LogLevel, silentLogger } from './logger.js';
export { Outcome, outcomeOf, type Plan, planOf } from './outcome.js';
export {
  type Backoff,
  type BackoffOptions,
  backoffDelay,
  DEFAULT_BACKOFF,
  type Duration,
  durationMs,
  leaseMs,
  MAX_WORKERS,
  Queue,
  type QueueFlags,
  type QueueSettings,
  queue,
} from './queue.js';
export {
  RATE_TABLE,
  type RateGrant,
  type RateLimit,
  type RateLimitInput,
  type RateReservation,
} from './rate.js';
export { type OutboxInput, outbox } from './relay.js';
export {
  type CatchUp,
  type MountedSchedule,
  SCHEDULE_TABLE,
  type ScheduleOptions,
  type SchedulePayload,
  type Tick,
} from './schedule.js';
export type { Context, Handler } from './subscription.js';
export {
  checkConnectionLimit,
  type ServiceConnections,
  type ThreadContext,
  type ThreadDemand,
  ThreadExitedError,
  type ThreadModule,
  type ThreadOpenOptions,
  type ThreadOptions,
  type ThreadPoolHandle,
  ThreadQueue,
  type ThreadSettings,
  threadHandler,
} from './threads.js';
