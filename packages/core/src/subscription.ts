import type { Budget } from './budget.js';
import { defaultCodec } from './codec.js';
import { ControlWatch } from './control.js';
import type { Dialect } from './dialect.js';
import type { Pool } from './driver.js';
import type { LeaseLostError } from './errors.js';
import type { Events } from './events.js';
import { FlowSweeper } from './flows/sweep.js';
import { AdvisoryForm } from './forms/advisory.js';
import type { ClaimForm, FormContext, Held } from './forms/form.js';
import { LeaseForm } from './forms/lease.js';
import { RowLockForm } from './forms/row-lock.js';
import { RowLockBatchForm } from './forms/row-lock-batch.js';
import type { Logger } from './logger.js';
import { DEFAULT_BACKOFF, type QueueSettings } from './queue.js';
import { RateGate } from './rate.js';
import { HeldBack } from './relay.js';
import type { Slots } from './slots.js';
import { Admission } from './subscription/admission.js';
import { Cancels } from './subscription/cancels.js';
import { ClaimSize } from './subscription/claim-size.js';
import type { Delivery } from './subscription/delivery.js';
import { Dispatch } from './subscription/dispatch.js';
import type { Handler } from './subscription/handler.js';
import { PassOver } from './subscription/pass-over.js';
import { Pump } from './subscription/pump.js';
import { StepsKeeper } from './subscription/steps.js';
import { StepsSweeper } from './subscription/steps-sweep.js';

/** What a subscription shares with its broker. */
export interface SubscriptionHost {
  readonly dialect: Dialect;
  readonly pool: Pool;
  readonly budget: Budget;
  readonly logger: Logger;
  readonly events: Events;
  readonly leaseMs: number;
  readonly pollMs: number;
  /** How often a subscription reads its control table, in ms (default `CONTROL_READ_MS`). */
  readonly controlMs?: number;
}

/**
 * One mounted queue, put together from its parts: the claim form that holds its rows, the
 * {@link Pump} that claims them (consulting the {@link ClaimSize}, the {@link Admission} and the
 * {@link Dispatch}), and the dispatch that runs each row as a `Delivery`.
 */
export class Subscription {
  readonly settings: QueueSettings;
  readonly form: ClaimForm;
  /** The claim pump, in its modes (see `PumpModes`). */
  readonly pump: Pump;
  private readonly dispatch: Dispatch;
  /** The control table's cache, where the table declares one (and the dialect has its statements). */
  readonly control: ControlWatch | undefined;
  /** The flow sweeper, where the table declares flow tables. */
  readonly flows: FlowSweeper | undefined;
  /** The orphan sweep of the steps table, where the table declares one. */
  readonly stepsSweep: StepsSweeper | undefined;

  constructor(
    private readonly host: SubscriptionHost,
    settings: QueueSettings,
    handler: Handler<unknown, any>,
  ) {
    this.settings = settings;
    const t = settings.table;
    const heldBack = settings.relay ? new HeldBack() : undefined;
    // One set of ids every claim passes over: a relay's held-back records and the rows passed over.
    const passOver = new PassOver(heldBack);
    const ops = host.dialect.prepare(t, {
      deadLetter: settings.deadLetter,
      exclude: passOver.ids,
      logger: host.logger,
    });
    const caps = host.dialect.capabilities;
    // A FIFO table's claims may run side by side as other processes' do: each takes only heads
    // no other claim holds (the database's head test, skip of locked rows and guard), so two of
    // them never take two rows of one group.
    const oneClaimAtATime =
      caps.oneClaimAtATime ||
      t.partitionKey !== undefined ||
      (t.form === 'lease' && caps.oneLeaseClaimAtATime);
    const claimAhead =
      t.form === 'lease' && caps.claimAhead && !settings.transactional && settings.batch === undefined;
    const ctx: FormContext = {
      table: t,
      dialect: host.dialect,
      ops,
      pool: host.pool,
      budget: host.budget,
      logger: host.logger,
      transactional: settings.transactional,
      begin: { isolation: t.isolation, mode: t.mode },
      deadLetter: settings.deadLetter,
      leaseMs: settings.leaseMs ?? host.leaseMs,
      now: () => (t.clock === 'database' ? null : new Date()),
    };
    this.form =
      t.form === 'rowlock'
        ? settings.batch !== undefined
          ? new RowLockBatchForm(ctx)
          : new RowLockForm(ctx)
        : t.form === 'lease'
          ? new LeaseForm(
              ctx,
              (h, err) => this.leaseLost(h, err),
              (count) => host.events.emit('leaseExtended', { table: t.table, count }),
            )
          : new AdvisoryForm(ctx);
    this.control =
      t.control === undefined || ops.control === undefined
        ? undefined
        : new ControlWatch(
            ops.control,
            t.control,
            host.pool,
            host.logger,
            host.events,
            () => this.pump.controlChanged(),
            host.controlMs,
          );
    this.stepsSweep = StepsSweeper.of(
      t,
      host.dialect.prepare(t, { deadLetter: settings.deadLetter }),
      host.pool,
      host.logger,
    );
    this.flows =
      t.flows === undefined
        ? undefined
        : new FlowSweeper(t, host.dialect.prepare(t, { deadLetter: settings.deadLetter }), {
            dialect: host.dialect,
            pool: host.pool,
            logger: host.logger,
            events: host.events,
            deadLetter: settings.deadLetter,
            wake: () => this.pump.wake(),
          });
    const cancels =
      this.control === undefined || ops.control === undefined || t.control === undefined
        ? undefined
        : new Cancels(this.control, ops.control, t.control, host.pool, host.logger, host.events);
    this.dispatch = new Dispatch(
      {
        settings,
        dialect: host.dialect,
        logger: host.logger,
        events: host.events,
        codec: settings.codec ?? defaultCodec(t.payload?.type ?? 'json'),
        handler,
        form: this.form,
        passOver,
        heldBack,
        cancels,
        steps:
          t.steps === undefined || ops.steps === undefined
            ? undefined
            : new StepsKeeper(ops.steps, t.steps, host.pool, host.logger),
      },
      // A lease row whose handler returned frees its worker while its ack settles; lanes keep theirs.
      claimAhead && settings.lanes === undefined,
      () => this.pump.open,
      () => this.pump.changed(),
      // A FIFO group's next row is claimable once its predecessor settles: claim it then, not after
      // the poll interval an empty claim would otherwise wait.
      t.group !== undefined ? () => this.pump.wake() : undefined,
      this.control === undefined ? undefined : this.gateOf(this.control, cancels),
    );
    this.pump = new Pump(
      {
        table: t.table,
        dialect: host.dialect,
        logger: host.logger,
        events: host.events,
        form: this.form,
        rate: t.rateLimit === undefined ? undefined : new RateGate(t.rateLimit, ops, host.pool, host.logger),
        passOver,
        pollMs: settings.pollMs ?? host.pollMs,
        fifo: t.group !== undefined,
        control: this.control,
        group: t.group,
      },
      new ClaimSize(settings, t.form === 'rowlock' || settings.transactional, claimAhead),
      new Admission(host.budget, oneClaimAtATime ? 1 : Math.max(1, settings.workers)),
      this.dispatch,
    );
    host.events.emit('subscribed', { table: t.table, description: t, deadLetter: settings.deadLetter });
  }

  /** The dispatch's gate of a controlled table: the pump's admission, and the cache's freshness. */
  private gateOf(control: ControlWatch, cancels: Cancels | undefined) {
    const pump = () => this.pump;
    control.answered = () => {
      // A cancel read: the deliveries of the rows it names abort (within a second of its commit).
      cancels?.sweep(this.dispatch.deliveries.values());
      this.dispatch.resume();
    };
    return {
      admits: (h: Held) => pump().admits(h),
      refuse: (h: Held) => pump().refuse(h),
      get stale() {
        return control.stale;
      },
    };
  }

  get table(): string {
    return this.settings.table.table;
  }

  /** Deliveries whose handler runs. */
  get deliveries(): Slots<Delivery> {
    return this.dispatch.deliveries;
  }

  /** Reads the control table before the first claim (a queue paused at start claims nothing). */
  async prime(): Promise<void> {
    await this.control?.read();
  }

  /** Starts claiming. */
  start(): void {
    if (this.pump.open) return;
    this.announce();
    this.control?.start();
    this.pump.start();
    this.flows?.start();
    this.stepsSweep?.start();
  }

  /** Says at start what a setting will do that the user may not expect. */
  private announce(): void {
    const { logger, budget, pool } = this.host;
    const s = this.settings;
    if (s.maxAttempts === undefined && !s.relay) {
      logger.warn(
        'failures retry without limit: no maxAttempts is set, so a message that always fails is retried forever',
        {
          table: this.table,
          backoff: s.backoff === false ? 'immediate' : (s.backoff ?? DEFAULT_BACKOFF),
        },
      );
    }
    // Row lock and advisory deliveries (and transactional ones) each hold a connection.
    const holdsConnection = this.form.form !== 'lease' || s.transactional;
    if (holdsConnection && s.batch === undefined && s.workers > budget.limit) {
      logger.warn(
        `workers(${s.workers}) on ${this.table}: at most ${budget.limit} handlers run at once, since each delivery holds a connection and the pool of ${pool.size} keeps one for claims`,
        { table: this.table, workers: s.workers, running: budget.limit, poolSize: pool.size },
      );
    }
  }

  /** Claims now instead of at the next poll (a publish, a notification). */
  wake(): void {
    this.pump.wake();
  }

  /**
   * Stops claiming and waits for the claims in flight. Rows claimed but not yet handed to a
   * handler go back to the queue at once. The deliveries in work keep their hold: leases
   * are still extended until {@link stopExtending}.
   */
  stop(): Promise<void> {
    this.control?.stop();
    return Promise.all([this.pump.stop(), this.flows?.stop(), this.stepsSweep?.stop()]).then(() => undefined);
  }

  /** Stops extending the leases of the deliveries still in work (the broker shut down). */
  stopExtending(): Promise<void> {
    return this.form.stop();
  }

  /** Deliveries still in work, for shutdown. */
  inFlight(): Delivery[] {
    return this.dispatch.deliveries.values();
  }

  private leaseLost(h: Held, err: LeaseLostError): void {
    this.host.logger.warn('lease lost', { table: this.table, id: h.id });
    this.host.events.emit('leaseLost', { table: this.table, id: h.id, attempt: h.attempt });
    this.dispatch.lost(h, err);
  }
}
