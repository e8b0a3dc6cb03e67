import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { type AnyTable, Broker, inbox, queue, silentLogger } from '@sqlinbox/core';
import { type SqliteAdapter, sqlite, sqliteDialect } from '@sqlinbox/dialect-sqlite';
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { instrument, type Uninstrument } from '../src/index.js';

/** A reader the test collects from by hand. */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const jobs = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
  retryAfter: 'retry_after',
});

let dir: string;
let adapter: SqliteAdapter;
let broker: Broker<'lease' | 'advisory', never>;
let exporter: InMemorySpanExporter;
let tracerProvider: BasicTracerProvider;
let reader: TestReader;
let meterProvider: MeterProvider;
let uninstrument: Uninstrument;

beforeAll(() => {
  // Without a context manager `context.with` is a no-op: a service sets one up with its SDK.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sqlinbox-otel-'));
  adapter = sqlite({ filename: join(dir, 'otel.db'), connections: 4 });
  await create(jobs, 'jobs_dead');
  broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms', lease: '1s' });
  exporter = new InMemorySpanExporter();
  tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  reader = new TestReader();
  meterProvider = new MeterProvider({ readers: [reader] });
  uninstrument = instrument(broker, { tracerProvider, meterProvider });
});

afterEach(async () => {
  uninstrument();
  await broker.shutdown({ timeout: '1s' }).catch(() => undefined);
  await adapter.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  // The database file and its tables go with the directory.
  rmSync(dir, { recursive: true, force: true });
});

async function create(t: AnyTable, deadLetterTable?: string): Promise<void> {
  await exec(`DROP TABLE IF EXISTS ${t.table}`);
  if (deadLetterTable !== undefined) await exec(`DROP TABLE IF EXISTS ${deadLetterTable}`);
  for (const s of sqliteDialect.ddl(t, deadLetterTable === undefined ? {} : { deadLetterTable }))
    await exec(s);
}

async function exec(sql: string, params: unknown[] = []) {
  const conn = await adapter.pool.acquire();
  try {
    return (await conn.query(sql, params)).rows;
  } finally {
    adapter.pool.release(conn);
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const spans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);

/** The data points of one metric, as the reader collects them now. */
async function points(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as DataPoint<unknown>[]);
}

/** The value of the metric's point whose attributes include `attrs` (undefined where none does). */
async function metric(name: string, attrs: Record<string, unknown> = {}): Promise<unknown> {
  const p = (await points(name)).find((d) => Object.entries(attrs).every(([k, v]) => d.attributes[k] === v));
  return p?.value;
}

describe('@sqlinbox/opentelemetry on SQLite', () => {
  test('R-PLUS-3 an acked delivery is one process span with the messaging attributes, its handler runs inside it, and the publish is a send span', async () => {
    const parents: (string | undefined)[] = [];
    broker.subscribe(queue(jobs), async () => {
      parents.push(trace.getActiveSpan()?.spanContext().spanId);
      // A span the handler makes (its own query, its own call) is a child of the delivery.
      tracerProvider.getTracer('handler').startSpan('handler work').end();
    });
    await broker.start();
    const outer = tracerProvider.getTracer('app').startSpan('request');
    const id = await context.with(trace.setSpan(context.active(), outer), () =>
      broker.publish(jobs, { n: 1 }),
    );
    outer.end();
    await until(() => spans('process jobs').length === 1, 'the process span');

    const [send] = spans('send jobs');
    expect(send!.kind).toBe(SpanKind.PRODUCER);
    expect(send!.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(send!.attributes).toMatchObject({
      'messaging.system': 'sqlinbox',
      'messaging.operation.type': 'send',
      'messaging.destination.name': 'jobs',
      'messaging.message.id': String(id),
      'sqlinbox.dialect': 'sqlite',
    });

    const [process] = spans('process jobs');
    expect(process!.kind).toBe(SpanKind.CONSUMER);
    expect(process!.parentSpanContext).toBeUndefined(); // no trace context travels in the row
    expect(process!.attributes).toMatchObject({
      'messaging.system': 'sqlinbox',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'jobs',
      'messaging.message.id': String(id),
      'sqlinbox.attempt': 1,
      'sqlinbox.outcome': 'ack',
      'sqlinbox.settlement': 'finish',
    });
    expect(process!.status.code).toBe(SpanStatusCode.UNSET);
    expect(parents).toEqual([process!.spanContext().spanId]);
    expect(spans('handler work')[0]!.parentSpanContext?.spanId).toBe(process!.spanContext().spanId);

    const at = { 'messaging.destination.name': 'jobs' };
    expect(
      await metric('sqlinbox.deliveries.settled', {
        ...at,
        'sqlinbox.outcome': 'ack',
        'sqlinbox.settlement': 'finish',
      }),
    ).toBe(1);
    expect(await metric('messaging.client.consumed.messages', at)).toBe(1);
    expect(await metric('messaging.client.sent.messages', at)).toBe(1);
    expect(await metric('sqlinbox.deliveries.active', at)).toBe(0);
    const duration = (await metric('messaging.process.duration', at)) as Histogram;
    expect(duration.count).toBe(1);
    expect(duration.sum).toBeGreaterThanOrEqual(0);
  });

  test('R-PLUS-3 a thrown handler error is a retry whose span records the exception with status error; at maxAttempts the row is dead-lettered', async () => {
    broker.subscribe(queue(jobs).maxAttempts(2).deadLetter({ table: 'jobs_dead' }), async () => {
      throw new TypeError('the handler fails');
    });
    await broker.start();
    const id = await broker.publish(jobs, { n: 2 });
    await until(() => spans('process jobs').length === 2, 'two process spans');
    const [first, second] = [...spans('process jobs')].sort(
      (a, b) => Number(a.attributes['sqlinbox.attempt']) - Number(b.attributes['sqlinbox.attempt']),
    );

    expect(first!.attributes).toMatchObject({
      'messaging.message.id': String(id),
      'sqlinbox.attempt': 1,
      'sqlinbox.outcome': 'retry',
      'sqlinbox.settlement': 'return',
      'error.type': 'TypeError',
    });
    expect(first!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the handler fails' });
    expect(first!.events.map((e) => e.name)).toContain('exception');

    expect(second!.attributes).toMatchObject({
      'sqlinbox.attempt': 2,
      'sqlinbox.outcome': 'retry',
      'sqlinbox.settlement': 'deadLetter',
    });
    expect(second!.status.code).toBe(SpanStatusCode.ERROR);
    expect(second!.status.message).toMatch(/^dead-lettered/);
    expect(second!.events.map((e) => e.name)).toContain('dead-lettered');

    const at = { 'messaging.destination.name': 'jobs' };
    expect(
      await metric('sqlinbox.deliveries.settled', {
        ...at,
        'sqlinbox.outcome': 'retry',
        'sqlinbox.settlement': 'return',
      }),
    ).toBe(1);
    expect(
      await metric('sqlinbox.deliveries.settled', {
        ...at,
        'sqlinbox.outcome': 'retry',
        'sqlinbox.settlement': 'deadLetter',
      }),
    ).toBe(1);
    expect(await metric('sqlinbox.deliveries.dead_lettered', at)).toBe(1);
    const failed = (await points('messaging.process.duration')).filter(
      (d) => d.attributes['error.type'] === 'TypeError',
    );
    expect(failed.map((d) => (d.value as Histogram).count)).toEqual([1, 1]);
    expect(await exec('SELECT id FROM jobs_dead')).toEqual([{ id }]);
  });

  test('R-PLUS-3 the queue gauge reads broker.stats when the meter collects: ready, delayed, in work, dead', async () => {
    const release = gate();
    let inHandler = false;
    broker.subscribe(
      queue(jobs).maxAttempts(1).deadLetter({ table: 'jobs_dead' }),
      async (m: { kind: string }) => {
        if (m.kind === 'dead') throw new Error('to the dead letter');
        inHandler = true;
        await release.promise;
      },
    );
    await broker.start();
    await broker.publish(jobs, { kind: 'dead' });
    await until(async () => (await exec('SELECT id FROM jobs_dead')).length === 1, 'dead-lettered');
    await broker.publish(jobs, { kind: 'hold' });
    await until(() => inHandler, 'a handler holding its row');
    // Its only worker is busy: these wait in the table.
    await broker.publishMany(jobs, [{ kind: 'ready' }, { kind: 'ready' }]);
    await broker.publish(jobs, { kind: 'later' }, { notBefore: new Date(Date.now() + 3_600_000) });

    const gauge = async () => {
      const byState: Record<string, unknown> = {};
      for (const p of await points('sqlinbox.queue.messages'))
        if (p.attributes['messaging.destination.name'] === 'jobs')
          byState[String(p.attributes['sqlinbox.queue.state'])] = p.value;
      return byState;
    };
    expect(await gauge()).toEqual({ ready: 2, delayed: 1, in_work: 1, dead: 1 });
    const stats = await broker.stats(jobs, { deadLetter: { table: 'jobs_dead' } });
    expect(stats).toEqual({ ready: 2, delayed: 1, inWork: 1, dead: 1 });
    expect(await metric('sqlinbox.deliveries.active', { 'messaging.destination.name': 'jobs' })).toBe(1);

    // Read again at the next collection, not cached.
    await exec('DELETE FROM jobs_dead');
    expect((await gauge()).dead).toBe(0);
    release.open();
    await until(async () => (await gauge()).ready === 0 && (await gauge()).in_work === 0, 'the rest drained');
  });

  test('R-PLUS-3 R-LIFE-1 a handler past its timeout: its span ends with the failed delivery (a retry), error.type timeout, status error', async () => {
    let calls = 0;
    broker.subscribe(queue(jobs).timeout(100), async (_m, ctx) => {
      if (++calls > 1) return;
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
    });
    await broker.start();
    await broker.publish(jobs, { slow: true });
    await until(() => spans('process jobs').length === 2, 'a timed-out delivery and the next');
    const [timedOut, next] = [...spans('process jobs')].sort(
      (a, b) => Number(a.attributes['sqlinbox.attempt']) - Number(b.attributes['sqlinbox.attempt']),
    );
    expect(timedOut!.attributes).toMatchObject({
      'sqlinbox.outcome': 'retry',
      'sqlinbox.settlement': 'return',
      'error.type': 'timeout',
    });
    expect(timedOut!.attributes['sqlinbox.release.reason']).toBeUndefined();
    expect(timedOut!.status.code).toBe(SpanStatusCode.ERROR);
    expect(next!.attributes).toMatchObject({ 'sqlinbox.outcome': 'ack' });
  });

  test('R-PLUS-3 R-LEASE-4 R-LEASE-6 leases extended are counted; a lease lost under its handler ends its span with status error and counts', async () => {
    const lost = gate();
    broker.on('leaseLost', () => lost.open());
    broker.subscribe(queue(jobs), async (_m, ctx) => {
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
    });
    await broker.start();
    await broker.publish(jobs, { long: true });
    const at = { 'messaging.destination.name': 'jobs' };
    await until(async () => Number((await metric('sqlinbox.lease.extended', at)) ?? 0) >= 1, 'an extension');
    // Another claim's lease in the row: the next extension finds its token gone.
    await exec('UPDATE jobs SET locked_until = ?', [Date.now() + 60_000]);
    await lost.promise;
    await until(() => spans('process jobs').length === 1, 'the lost delivery span');
    const [span] = spans('process jobs');
    expect(span!.status).toMatchObject({ code: SpanStatusCode.ERROR });
    expect(span!.attributes['error.type']).toBe('LeaseLostError');
    expect(span!.events.map((e) => e.name)).toContain('lease lost');
    expect(await metric('sqlinbox.lease.lost', at)).toBe(1);
    // The handler, aborted, returns: its ack fails on the lost lease and is counted.
    await until(
      async () =>
        (await metric('sqlinbox.settlement.errors', { ...at, 'error.type': 'LeaseLostError' })) === 1,
      'the late settlement counted',
    );
    expect(await metric('sqlinbox.deliveries.active', at)).toBe(0);
  });

  test('R-PLUS-3 a claim the database refuses is counted as a claim error; claiming resumes once the table is back', async () => {
    const seen: unknown[] = [];
    broker.subscribe(queue(jobs), async (m) => {
      seen.push(m);
    });
    await broker.start();
    await exec('DROP TABLE jobs');
    const at = { 'messaging.destination.name': 'jobs' };
    await until(async () => Number((await metric('sqlinbox.claim.errors', at)) ?? 0) >= 1, 'a claim error');
    const [p] = (await points('sqlinbox.claim.errors')).filter(
      (d) => d.attributes['messaging.destination.name'] === 'jobs',
    );
    expect(p!.attributes['error.type']).toEqual(expect.any(String));
    await create(jobs);
    await broker.publish(jobs, { back: true });
    await until(() => seen.length === 1, 'a delivery after the claim errors', 40_000);
    expect(seen).toEqual([{ back: true }]);
  });

  test('R-PLUS-3 uninstrument stops spans, metrics and gauge reads, and gives the broker its own methods back', async () => {
    const seen: unknown[] = [];
    broker.subscribe(queue(jobs), async (m) => {
      seen.push(m);
    });
    await broker.start();
    await broker.publish(jobs, { before: true });
    await until(() => seen.length === 1, 'the first delivery');
    await until(() => spans('process jobs').length === 1, 'its span');
    const at = { 'messaging.destination.name': 'jobs' };
    expect(await metric('sqlinbox.deliveries.settled', at)).toBe(1);
    expect((await points('sqlinbox.queue.messages')).length).toBe(4);

    uninstrument();
    expect(Object.hasOwn(broker, 'publishMany')).toBe(false);
    expect(Object.hasOwn(broker, 'subscribe')).toBe(false);
    await broker.publish(jobs, { after: true });
    await until(() => seen.length === 2, 'the second delivery');
    await until(async () => (await exec('SELECT id FROM jobs')).length === 0, 'acked');
    expect(spans('process jobs')).toHaveLength(1);
    expect(spans('send jobs')).toHaveLength(1);
    expect(await metric('sqlinbox.deliveries.settled', at)).toBe(1);
    // The gauge keeps what it last read: no collection reads the table any more.
    await broker.publish(jobs, { later: true }, { notBefore: new Date(Date.now() + 3_600_000) });
    expect((await broker.stats(jobs)).delayed).toBe(1);
    expect(await metric('sqlinbox.queue.messages', { ...at, 'sqlinbox.queue.state': 'delayed' })).toBe(0);
  });

  test('R-PLUS-3 R-HOUSE-1 a handler mounted before instrument() runs inside its span too (broker.aroundHandler); after uninstrument, inside none', async () => {
    uninstrument();
    const parents: (string | undefined)[] = [];
    broker.subscribe(queue(jobs), async () => {
      parents.push(trace.getActiveSpan()?.spanContext().spanId);
    });
    uninstrument = instrument(broker, { tracerProvider, meterProvider, queues: [jobs] });
    await broker.start();
    await broker.publish(jobs, { n: 1 });
    await until(() => spans('process jobs').length === 1, 'the process span');
    expect(parents).toEqual([spans('process jobs')[0]!.spanContext().spanId]);
    uninstrument();
    await broker.publish(jobs, { n: 2 });
    await until(() => parents.length === 2, 'the second delivery');
    expect(parents[1]).toBeUndefined();
  });
});

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}
