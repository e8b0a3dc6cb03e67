import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLogger, until } from '@sqlinbox/conformance';
import { Broker, inbox, queue } from '@sqlinbox/core';
import { afterAll, expect, test } from 'vitest';
import { sqlite, sqliteDialect } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-dlq-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const jobs = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
});

test('R-DLQ-1 a row published after the table drained into its dead-letter table gets a new id: its dead letter joins the first one (no id comes back to a new row)', async () => {
  const adapter = sqlite(join(dir, 'app.db'));
  const logger = new MemoryLogger();
  const broker = new Broker(adapter, { logger, pollInterval: 20 });
  try {
    const ddl = sqliteDialect.ddl(jobs, { deadLetterTable: 'jobs_dead' });
    expect(ddl.join('\n')).toContain('INTEGER PRIMARY KEY AUTOINCREMENT');
    const conn = await adapter.pool.acquire();
    try {
      for (const s of ddl) await conn.query(s);
    } finally {
      adapter.pool.release(conn);
    }
    const rows = async (table: string) => {
      const c = await adapter.pool.acquire();
      try {
        return (
          await c.query<{ id: number; payload: string }>(`SELECT id, payload FROM ${table} ORDER BY id`)
        ).rows;
      } finally {
        adapter.pool.release(c);
      }
    };
    broker.subscribe(queue(jobs).maxAttempts(1).deadLetter({ table: 'jobs_dead' }), async () => {
      throw new Error('fails');
    });
    await broker.start();
    // The first row dies and leaves the queue table empty; a plain rowid would hand its id to the next row.
    await broker.publish(jobs, { n: 1 });
    await until(
      async () => (await rows('jobs_dead')).length === 1 && (await rows('jobs')).length === 0,
      'the first dead letter',
    );
    await broker.publish(jobs, { n: 2 });
    await until(async () => (await rows('jobs_dead')).length === 2, 'the second dead letter');
    const dead = await rows('jobs_dead');
    expect(dead.map((r) => JSON.parse(r.payload))).toEqual([{ n: 1 }, { n: 2 }]);
    expect(new Set(dead.map((r) => r.id)).size).toBe(2);
    expect(await rows('jobs')).toEqual([]);
    expect(logger.has('error', 'settlement failed')).toBe(false);
  } finally {
    await broker.shutdown();
    await adapter.close();
  }
});
