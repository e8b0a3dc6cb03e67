import type { AnyTable, PrepareOptions } from '@sqlinbox/core';
import { AdminStatements } from './features/admin.js';
import { AdvisoryStatements } from './features/advisory.js';
import { ConcurrencyStatements } from './features/concurrency.js';
import { ControlStatements } from './features/control.js';
import { CountStatements } from './features/counts.js';
import { FlowStatements } from './features/flows.js';
import { LeaseStatements } from './features/lease.js';
import { PublishStatements } from './features/publish.js';
import { RateStatements } from './features/rates.js';
import { RetentionStatements } from './features/retention.js';
import { FifoStatements, RowLockStatements } from './features/rowlock.js';
import { ScheduleStatements } from './features/schedules.js';
import { SettleStatements } from './features/settle.js';
import { StepsStatements } from './features/steps.js';
import { QueueSql } from './queue.js';
import { SqlSyntax } from './syntax.js';

/** A feature builder's class: made of the table read through the syntax. */
export type Builder<Q extends QueueSql, F> = new (q: Q) => F;

/**
 * The feature builders a dialect writes its own way; a feature it leaves out is the builder's own.
 * Each class extends the feature's builder (`class MysqlLease extends LeaseStatements`).
 */
export interface Features<Q extends QueueSql = QueueSql> {
  /** The row lock form's claim. */
  readonly rowLock?: Builder<Q, RowLockStatements<Q>>;
  /** The FIFO guard after a claim. */
  readonly fifo?: Builder<Q, FifoStatements<Q>>;
  /** The lease form's claim, extensions and batched acks. */
  readonly lease?: Builder<Q, LeaseStatements<Q>>;
  /** Per-key concurrency's claim. */
  readonly concurrency?: Builder<Q, ConcurrencyStatements<Q>>;
  /** The advisory lock form. */
  readonly advisory?: Builder<Q, AdvisoryStatements<Q>>;
  /** Settlement. */
  readonly settle?: Builder<Q, SettleStatements<Q>>;
  /** Publishing. */
  readonly publish?: Builder<Q, PublishStatements<Q>>;
  /** The counts. */
  readonly counts?: Builder<Q, CountStatements<Q>>;
  /** The admin API. */
  readonly admin?: Builder<Q, AdminStatements<Q>>;
  /** Schedules' ticks. */
  readonly schedules?: Builder<Q, ScheduleStatements<Q>>;
  /** Rate budgets. */
  readonly rates?: Builder<Q, RateStatements<Q>>;
  /** Retention's bounded deletes. */
  readonly retention?: Builder<Q, RetentionStatements<Q>>;
  /** The control table (pause and resume). */
  readonly control?: Builder<Q, ControlStatements<Q>>;
  /** The flow tables (edges and parents). */
  readonly flows?: Builder<Q, FlowStatements<Q>>;
  /** The steps table (durable steps). */
  readonly steps?: Builder<Q, StepsStatements<Q>>;
}

/**
 * The statements of one queue table, one builder per feature, each reading the database's syntax
 * ({@link SqlSyntax}) and the table description ({@link QueueSql}), none reading another: the row
 * lock claim ({@link rowLock}), the FIFO guard ({@link fifo}), the lease claim with its extensions
 * and batched acks ({@link lease}), per-key concurrency ({@link concurrency}), the advisory form
 * ({@link advisory}), settlement ({@link settle}), publishing ({@link publish}), the counts
 * ({@link counts}), the admin API ({@link admin}), schedules ({@link schedules}), rate limits
 * ({@link rates}), the control table ({@link control}) and the steps table ({@link steps}). Every method answers `{ sql, params }` and runs nothing: {@link SqlTable} runs
 * them.
 *
 * A dialect passes its syntax and the builders it writes its own way, and narrows their types with
 * `declare` (`declare readonly lease: MysqlLease`); a statement it rewrites as a whole says in a
 * comment why it differs from the builder's.
 */
export class QueueStatements<Q extends QueueSql = QueueSql> {
  /** The table description. */
  readonly t: AnyTable;
  /** The row lock form's claim. */
  readonly rowLock: RowLockStatements<Q>;
  /** The FIFO guard a claim takes for each group head. */
  readonly fifo: FifoStatements<Q>;
  /** The lease form. */
  readonly lease: LeaseStatements<Q>;
  /** Per-key concurrency. */
  readonly concurrency: ConcurrencyStatements<Q>;
  /** The advisory lock form. */
  readonly advisory: AdvisoryStatements<Q>;
  /** Settlement. */
  readonly settle: SettleStatements<Q>;
  /** Publishing. */
  readonly publish: PublishStatements<Q>;
  /** The counts. */
  readonly counts: CountStatements<Q>;
  /** The admin API. */
  readonly admin: AdminStatements<Q>;
  /** Schedules. */
  readonly schedules: ScheduleStatements<Q>;
  /** Rate limits. */
  readonly rates: RateStatements<Q>;
  /** Retention. */
  readonly retention: RetentionStatements<Q>;
  /** The control table. */
  readonly control: ControlStatements<Q>;
  /** The flow tables. */
  readonly flows: FlowStatements<Q>;
  /** The steps table. */
  readonly steps: StepsStatements<Q>;

  constructor(
    /** The table read through the database's syntax. */
    readonly q: Q,
    features: Features<Q> = {},
  ) {
    this.t = q.t;
    this.rowLock = new (features.rowLock ?? RowLockStatements)(q);
    this.fifo = new (features.fifo ?? FifoStatements)(q);
    this.lease = new (features.lease ?? LeaseStatements)(q);
    this.concurrency = new (features.concurrency ?? ConcurrencyStatements)(q);
    this.advisory = new (features.advisory ?? AdvisoryStatements)(q);
    this.settle = new (features.settle ?? SettleStatements)(q);
    this.publish = new (features.publish ?? PublishStatements)(q);
    this.counts = new (features.counts ?? CountStatements)(q);
    this.admin = new (features.admin ?? AdminStatements)(q);
    this.schedules = new (features.schedules ?? ScheduleStatements)(q);
    this.rates = new (features.rates ?? RateStatements)(q);
    this.retention = new (features.retention ?? RetentionStatements)(q);
    this.control = new (features.control ?? ControlStatements)(q);
    this.flows = new (features.flows ?? FlowStatements)(q);
    this.steps = new (features.steps ?? StepsStatements)(q);
  }

  /** The database's syntax. */
  get s(): Q['s'] {
    return this.q.s;
  }
}

/** The builder's statements of a table in standard SQL ({@link SqlSyntax}'s defaults). */
export function standardStatements(t: AnyTable, opts?: PrepareOptions): QueueStatements {
  return new QueueStatements(new QueueSql(new SqlSyntax(), t, opts));
}
