/**
 * Prometheus, the way docs/observability.md shows it: the OpenTelemetry Prometheus exporter as the
 * meter provider's reader, `instrument(broker, { meterProvider })`, and the exporter's handler served
 * on node:http; a scrape after real deliveries on SQLite reads the counters and the queue gauge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { Broker, inbox, Outcome, queue, silentLogger } from '@sqlinbox/core';
import { sqlite } from '@sqlinbox/dialect-sqlite';
import { expect, test } from 'vitest';
import { instrument } from '../src/index.js';

test('R-USER-6 a Prometheus scrape reads the broker: settled deliveries by outcome, dead letters, rows by state', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-prom-'));
  const jobs = inbox({
    table: 'jobs',
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    lease: 'locked_until',
    retryAfter: 'retry_after',
    payload: 'payload',
  });
  const adapter = sqlite({ filename: join(dir, 'prom.db'), connections: 4 });
  const conn = await adapter.pool.acquire();
  for (const sql of adapter.dialect.ddl(jobs, { deadLetterTable: 'jobs_dead' })) await conn.query(sql);
  adapter.pool.release(conn);

  // The exporter as the meter provider's reader; its handler, not a server of its own, answers scrapes.
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms' });
  const uninstrument = instrument(broker, { meterProvider });
  let seen = 0;
  broker.subscribe(
    queue(jobs).maxAttempts(1).deadLetter({ table: 'jobs_dead' }),
    async (job: { fail?: boolean }) => {
      seen += 1;
      return job.fail ? Outcome.retry() : Outcome.ack();
    },
  );
  await broker.start();
  await broker.publishMany(jobs, [{}, {}, { fail: true }]);
  const end = Date.now() + 10_000;
  while (seen < 3 || (await broker.stats(jobs)).inWork > 0) {
    if (Date.now() > end) throw new Error('the three rows were not settled');
    await new Promise((r) => setTimeout(r, 20));
  }

  const server = createServer((req, res) => exporter.getMetricsRequestHandler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const value = (metric: string, ...labels: string[]) => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`${metric}{`) && labels.every((x) => l.includes(x)));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    expect(text).toContain('# TYPE sqlinbox_deliveries_settled_total counter');
    expect(
      value(
        'sqlinbox_deliveries_settled_total',
        'sqlinbox_outcome="ack"',
        'messaging_destination_name="jobs"',
      ),
    ).toBe(2);
    expect(value('sqlinbox_deliveries_dead_lettered_total', 'messaging_destination_name="jobs"')).toBe(1);
    expect(value('messaging_client_consumed_messages_total', 'messaging_destination_name="jobs"')).toBe(3);
    expect(value('sqlinbox_queue_messages', 'sqlinbox_queue_state="ready"')).toBe(0);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    uninstrument();
    await broker.shutdown();
    await meterProvider.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});
