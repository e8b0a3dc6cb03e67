/**
 * Attribute and instrument names. Where the OpenTelemetry messaging semantic conventions name a
 * thing, their name is used; what they do not name (attempt, outcome, settlement, release reason,
 * the queue states) is under `sqlinbox.`.
 */

/** `messaging.system`: sqlinbox is its own messaging system over the user's SQL table. */
export const SYSTEM = 'sqlinbox';

/** The attribute names of the spans and metrics. */
export const ATTR = {
  /** Always {@link SYSTEM}. */
  system: 'messaging.system',
  /** The operation's kind in the conventions: `send` (publish) or `process` (a delivery). */
  operationType: 'messaging.operation.type',
  /** The operation's name: `send` or `process`. */
  operationName: 'messaging.operation.name',
  /** The queue table's name. */
  destination: 'messaging.destination.name',
  /** The row's id, as text. */
  messageId: 'messaging.message.id',
  /** The number of messages of a publish of more than one. */
  batchCount: 'messaging.batch.message_count',
  /** The failure's type: the error's `name`, or `_OTHER` for a thrown value that is not an Error. */
  errorType: 'error.type',
  /** The delivery's attempt: the row's deliveries started so far, this one included (1 on the first). */
  attempt: 'sqlinbox.attempt',
  /** The handler's outcome: `ack`, `drop`, `retry`, `retryAfter`. */
  outcome: 'sqlinbox.outcome',
  /** What became of the row: `finish`, `return` (to the queue) or `deadLetter`. */
  settlement: 'sqlinbox.settlement',
  /** Why a claimed row went back unsettled: `timeout`, `beginFailed`, `stopped`, `shutdown`. */
  releaseReason: 'sqlinbox.release.reason',
  /** A queue state the gauge reports: `ready`, `delayed`, `in_work`, `dead`. */
  queueState: 'sqlinbox.queue.state',
  /** The broker's dialect, e.g. `postgres`. */
  dialect: 'sqlinbox.dialect',
} as const;

/** The instrument names of the metrics. */
export const METRIC = {
  /** Counter: deliveries settled, by table, outcome and settlement. */
  settled: 'sqlinbox.deliveries.settled',
  /** Histogram (s): from the row handed to a worker to its settlement committed. */
  processDuration: 'messaging.process.duration',
  /** Counter: rows claimed (delivered to the application). */
  consumed: 'messaging.client.consumed.messages',
  /** UpDownCounter: deliveries this process holds now (claimed, not yet ended). */
  active: 'sqlinbox.deliveries.active',
  /** Counter: claimed rows that went back unsettled, by reason. */
  released: 'sqlinbox.deliveries.released',
  /** Counter: rows moved to their dead letter. */
  deadLettered: 'sqlinbox.deliveries.dead_lettered',
  /** Counter: leases extended (one per row per extension). */
  leaseExtended: 'sqlinbox.lease.extended',
  /** Counter: leases that ran out under a running handler. */
  leaseLost: 'sqlinbox.lease.lost',
  /** Counter: claims that failed (the subscription backs off and tries again). */
  claimErrors: 'sqlinbox.claim.errors',
  /** Counter: settlements that failed. */
  settlementErrors: 'sqlinbox.settlement.errors',
  /** Counter: messages published. */
  sent: 'messaging.client.sent.messages',
  /** Histogram (s): publish duration. */
  operationDuration: 'messaging.client.operation.duration',
  /** Observable gauge: the table's rows by state, read through `broker.stats` at collection. */
  queueMessages: 'sqlinbox.queue.messages',
} as const;

/** The semantic conventions' advice for messaging duration histograms, in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
