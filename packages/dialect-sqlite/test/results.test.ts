import { Broker, ConfigError, inbox, queue, silentLogger } from '@sqlinbox/core';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { sqlite, sqliteDialect } from '../src/index.js';
import { type TestDb, tempDb } from './helpers.js';

const jobs = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  lease: 'locked_until',
  processedAt: 'processed_at',
  result: 'result',
});

let db: TestDb;
beforeEach(() => {
  db = tempDb();
});
afterEach(async () => {
  await db.cleanup();
});

/** Starts a broker subscribed to `jobs` on the table `create` makes; answers start()'s error. */
async function startOn(create: string): Promise<unknown> {
  await db.exec(create);
  const b = new Broker(sqlite({ filename: db.file, connections: 3 }), { logger: silentLogger });
  b.subscribe(queue(jobs), async () => undefined);
  const error = await b.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  await b.shutdown({ timeout: 0 });
  await db.exec('DROP TABLE jobs');
  return error;
}

test('R-LIFE-4 ddl() declares the result column; start() stops with a ConfigError naming table and column where it is missing or holds bytes', async () => {
  const [create] = sqliteDialect.ddl(jobs);
  expect(create).toContain('"result" TEXT');
  expect(await startOn(create!)).toBeUndefined();
  const base =
    'CREATE TABLE jobs (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, locked_until INTEGER, processed_at INTEGER';
  const missing = await startOn(`${base})`);
  expect(missing).toBeInstanceOf(ConfigError);
  expect(missing).toMatchObject({ table: 'jobs', column: 'result' });
  expect((missing as ConfigError).message).toContain('the result column does not exist');
  expect((missing as ConfigError).fix).toBeDefined();
  const bytes = await startOn(`${base}, result BLOB)`);
  expect(bytes).toBeInstanceOf(ConfigError);
  expect(bytes).toMatchObject({ table: 'jobs', column: 'result' });
  expect((bytes as ConfigError).fix).toContain('JSON or text');
});
