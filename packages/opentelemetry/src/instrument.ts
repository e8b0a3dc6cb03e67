import {
  type Attributes,
  context,
  diag,
  type MeterProvider,
  metrics,
  type ObservableResult,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { AnyTable, Broker, DeadLetterTarget, EventMap, Queue } from '@sqlinbox/core';
import { ATTR, DURATION_BUCKETS, METRIC, SYSTEM } from './names.js';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where spans go (default: the global tracer provider). */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go (default: the global meter provider). */
  readonly meterProvider?: MeterProvider;
  /**
   * Tables whose queue gauges to report besides those mounted with `broker.subscribe` after
   * `instrument()` (default: none). Give a `Queue` to count its dead letter; a bare table counts
   * `dead` as 0.
   */
  readonly queues?: readonly (Queue<any, any, any> | AnyTable)[];
}

/** Stops what {@link instrument} started; open delivery spans end, marked unfinished. */
export type Uninstrument = () => void;

type Publish = (table: AnyTable, messages: readonly unknown[], opts?: object) => Promise<unknown[]>;

/**
 * Traces and measures a broker:
 * - a `process <table>` span (kind consumer) per delivery, from its claim to its settlement, with
 *   the row id, attempt, outcome and settlement; its status is an error where the handler threw,
 *   the row was dead-lettered, the settlement failed, the lease was lost, or the row went back
 *   unsettled after a timeout. Each handler (but a batch handler) runs inside that span, through
 *   `broker.aroundHandler`, so the spans it makes (its own queries, its own calls) are its children;
 * - a `send <table>` span (kind producer) per publish, a child of the active span;
 * - counters of settled deliveries by outcome, of claims, releases, dead letters, lease
 *   extensions, lost leases, claim and settlement errors and sent messages; histograms of the
 *   process and publish durations; deliveries in work now;
 * - an observable gauge of each known table's rows by state (ready, delayed, in work, dead), read
 *   through `broker.stats` when the meter collects.
 *
 * Call it before `subscribe`: the tables of subscriptions mounted earlier need `queues` for the
 * gauge (it learns the others from the `subscribed` event). Answers a function that stops it all.
 *
 * Trace context is not carried through the row: a table description has no column for it, so a
 * process span starts a trace of its own and does not link to the publish that made the row.
 */
export function instrument(broker: Broker<any, any>, options: InstrumentOptions = {}): Uninstrument {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer('@sqlinbox/opentelemetry');
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter('@sqlinbox/opentelemetry');
  const base: Attributes = { [ATTR.system]: SYSTEM, [ATTR.dialect]: broker.dialect };
  const on = (table: string, extra: Attributes = {}): Attributes => ({
    ...base,
    [ATTR.destination]: table,
    ...extra,
  });

  const settled = meter.createCounter(METRIC.settled, {
    description: 'Deliveries settled by their outcome',
    unit: '{message}',
  });
  const processDuration = meter.createHistogram(METRIC.processDuration, {
    description: 'From the row handed to a worker to its settlement committed',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const consumed = meter.createCounter(METRIC.consumed, { description: 'Rows claimed', unit: '{message}' });
  const active = meter.createUpDownCounter(METRIC.active, {
    description: 'Deliveries this process holds: claimed and not yet settled or released',
    unit: '{message}',
  });
  const released = meter.createCounter(METRIC.released, {
    description: 'Claimed rows that went back to the queue unsettled',
    unit: '{message}',
  });
  const deadLettered = meter.createCounter(METRIC.deadLettered, {
    description: 'Rows moved to their dead letter',
    unit: '{message}',
  });
  const leaseExtended = meter.createCounter(METRIC.leaseExtended, {
    description: 'Leases extended, one per row per extension',
    unit: '{lease}',
  });
  const leaseLost = meter.createCounter(METRIC.leaseLost, {
    description: 'Leases that ran out under a running handler',
    unit: '{lease}',
  });
  const claimErrors = meter.createCounter(METRIC.claimErrors, { description: 'Claims that failed' });
  const settlementErrors = meter.createCounter(METRIC.settlementErrors, {
    description: 'Settlements that failed',
  });
  const sent = meter.createCounter(METRIC.sent, { description: 'Messages published', unit: '{message}' });
  const sendDuration = meter.createHistogram(METRIC.operationDuration, {
    description: 'Duration of a publish',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const queueMessages = meter.createObservableGauge(METRIC.queueMessages, {
    description: "The table's rows by state, read through broker.stats when the meter collects",
    unit: '{message}',
  });

  // --- delivery spans, keyed by table, row id and attempt (a row held again is another attempt) ---
  const spans = new Map<string, { span: Span; table: string }>();
  const keyOf = (table: string, id: unknown, attempt: number) =>
    `${table}\u0000${String(id)}\u0000${attempt}`;
  const end = (key: string, finish: (span: Span) => void): void => {
    const open = spans.get(key);
    if (open === undefined) return;
    spans.delete(key);
    finish(open.span);
    open.span.end();
    active.add(-1, on(open.table));
  };
  const fail = (span: Span, error: unknown, message?: string): void => {
    if (error instanceof Error) span.recordException(error);
    span.setAttribute(ATTR.errorType, errorType(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? messageOf(error) });
  };

  const listeners: (() => void)[] = [];
  const listen = <E extends keyof EventMap>(event: E, fn: (e: EventMap[E]) => void) =>
    listeners.push(broker.on(event, fn));

  listen('claimed', (e) => {
    const key = keyOf(e.table, e.id, e.attempt);
    // A table without an attempt column reads 1 every time: an older span of the row ends here.
    end(key, (old) => old.setAttribute(ATTR.releaseReason, 'claimed again'));
    // The claim runs in the subscription's loop: the span starts a trace of its own.
    const span = tracer.startSpan(
      `process ${e.table}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: on(e.table, {
          [ATTR.operationType]: 'process',
          [ATTR.operationName]: 'process',
          [ATTR.messageId]: String(e.id),
          [ATTR.attempt]: e.attempt,
        }),
      },
      ROOT_CONTEXT,
    );
    spans.set(key, { span, table: e.table });
    active.add(1, on(e.table));
    consumed.add(1, on(e.table, { [ATTR.operationName]: 'process' }));
  });

  listen('settled', (e) => {
    const attrs = on(e.table, { [ATTR.outcome]: e.outcome, [ATTR.settlement]: e.plan });
    settled.add(1, attrs);
    processDuration.record(e.durationMs / 1000, {
      ...attrs,
      [ATTR.operationName]: 'process',
      ...(e.error === undefined ? {} : { [ATTR.errorType]: errorType(e.error) }),
    });
    end(keyOf(e.table, e.id, e.attempt), (span) => {
      span.setAttributes({ [ATTR.outcome]: e.outcome, [ATTR.settlement]: e.plan });
      if (e.error !== undefined) fail(span, e.error);
      if (e.plan === 'deadLetter') {
        span.addEvent('dead-lettered');
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: e.error === undefined ? 'dead-lettered' : `dead-lettered: ${messageOf(e.error)}`,
        });
      }
    });
  });

  listen('deadLettered', (e) => deadLettered.add(1, on(e.table)));
  listen('leaseExtended', (e) => leaseExtended.add(e.count, on(e.table)));

  listen('leaseLost', (e) => {
    leaseLost.add(1, on(e.table));
    end(keyOf(e.table, e.id, e.attempt), (span) => {
      span.addEvent('lease lost');
      span.setAttribute(ATTR.errorType, 'LeaseLostError');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'lease lost: another claim may hold the row' });
    });
  });

  listen('claimError', (e) => claimErrors.add(1, on(e.table, { [ATTR.errorType]: errorType(e.error) })));

  listen('settlementError', (e) => {
    settlementErrors.add(1, on(e.table, { [ATTR.errorType]: errorType(e.error) }));
    end(keyOf(e.table, e.id, e.attempt), (span) => fail(span, e.error));
  });

  listen('released', (e) => {
    released.add(1, on(e.table, { [ATTR.releaseReason]: e.reason }));
    end(keyOf(e.table, e.id, e.attempt), (span) => {
      span.setAttribute(ATTR.releaseReason, e.reason);
      if (e.reason === 'timeout' || e.reason === 'beginFailed') {
        span.setAttribute(ATTR.errorType, e.reason);
        span.setStatus({ code: SpanStatusCode.ERROR, message: `released unsettled: ${e.reason}` });
      }
    });
  });

  // --- handlers run inside their delivery's span; the tables they serve join the gauge ---
  const tables = new Map<string, { table: AnyTable; deadLetter: DeadLetterTarget | undefined }>();
  const know = (table: AnyTable, deadLetter: DeadLetterTarget | undefined): void => {
    const known = tables.get(table.table);
    if (known === undefined || (known.deadLetter === undefined && deadLetter !== undefined))
      tables.set(table.table, { table, deadLetter });
  };
  for (const q of options.queues ?? []) {
    if ('settings' in q) know(q.settings.table, q.settings.deadLetter);
    else know(q, undefined);
  }
  listen('subscribed', (e) => know(e.description, e.deadLetter));
  // Each handler runs inside its delivery's span.
  listeners.push(
    broker.aroundHandler((call, run) => {
      const span = spans.get(keyOf(call.table, call.id, call.attempt))?.span;
      return span === undefined ? run() : context.with(trace.setSpan(ROOT_CONTEXT, span), run);
    }),
  );

  let live = true;
  const target = broker as unknown as { publishMany: Publish };
  const original = { publishMany: target.publishMany };

  const publishMany: Publish = async (table, messages, opts) => {
    if (!live || messages.length === 0) return original.publishMany.call(broker, table, messages, opts);
    const attrs = on(table.table, { [ATTR.operationType]: 'send', [ATTR.operationName]: 'send' });
    const span = tracer.startSpan(`send ${table.table}`, {
      kind: SpanKind.PRODUCER,
      attributes: { ...attrs, ...(messages.length > 1 ? { [ATTR.batchCount]: messages.length } : {}) },
    });
    const started = performance.now();
    let failure: unknown;
    try {
      const ids = await context.with(trace.setSpan(context.active(), span), () =>
        original.publishMany.call(broker, table, messages, opts),
      );
      if (ids.length === 1) span.setAttribute(ATTR.messageId, String(ids[0]));
      return ids;
    } catch (err) {
      failure = err;
      fail(span, err);
      throw err;
    } finally {
      const measured = failure === undefined ? attrs : { ...attrs, [ATTR.errorType]: errorType(failure) };
      sent.add(messages.length, measured);
      sendDuration.record((performance.now() - started) / 1000, measured);
      span.end();
    }
  };

  target.publishMany = publishMany;

  const observe = async (result: ObservableResult): Promise<void> => {
    for (const { table, deadLetter } of tables.values()) {
      try {
        const s = await broker.stats(table, deadLetter === undefined ? {} : { deadLetter });
        const states = { ready: s.ready, delayed: s.delayed, in_work: s.inWork, dead: s.dead };
        for (const [state, n] of Object.entries(states))
          result.observe(n, on(table.table, { [ATTR.queueState]: state }));
      } catch (err) {
        // The database may be out of reach: this collection goes without the table's gauge.
        diag.warn(`sqlinbox: reading the stats of ${table.table} failed`, err);
      }
    }
  };
  queueMessages.addCallback(observe);

  return () => {
    if (!live) return;
    live = false;
    for (const stop of listeners) stop();
    queueMessages.removeCallback(observe);
    // Put the broker's own method back, unless something else wrapped it since (then ours passes through).
    if (target.publishMany === publishMany) delete (target as Partial<typeof target>).publishMany;
    for (const key of [...spans.keys()]) end(key, (span) => span.setAttribute('sqlinbox.unfinished', true));
  };
}

function errorType(error: unknown): string {
  // A handler past its timeout fails with a SqlInboxError of code TIMEOUT: typed `timeout`.
  if (error instanceof Error && (error as { code?: unknown }).code === 'TIMEOUT') return 'timeout';
  if (error instanceof Error) return error.name;
  return '_OTHER';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
