import { Broker, ConfigError, inbox, queue, silentLogger } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sqlite } from '../src/index.js';
import { type TestDb, tempDb } from './helpers.js';

/**
 * SQLite keeps every instant as INTEGER epoch milliseconds (the dialect's `timeKinds`), so a time
 * column must be declared with INTEGER affinity, and the attempt too. Another declared type is
 * refused at start, naming table, column and type, before a row is claimed (R-BAD-4).
 */
interface Case {
  readonly column: 'locked_until' | 'retry_after' | 'processed_at' | 'attempt';
  /** The declared type ('' declares none). */
  readonly type: string;
}

const GOOD: Readonly<Record<Case['column'], string>> = {
  locked_until: 'INTEGER',
  retry_after: 'INTEGER',
  processed_at: 'INTEGER',
  attempt: 'INTEGER NOT NULL DEFAULT 1',
};

const description = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
  retryAfter: 'retry_after',
  processedAt: 'processed_at',
} as const);

const BAD: Case[] = [
  ...['BOOLEAN', 'REAL', 'NUMERIC', '', 'TEXT', 'DATETIME'].map((type) => ({
    column: 'locked_until' as const,
    type,
  })),
  { column: 'retry_after', type: 'REAL' },
  { column: 'retry_after', type: 'BOOLEAN' },
  { column: 'processed_at', type: 'NUMERIC' },
  { column: 'processed_at', type: '' },
  { column: 'attempt', type: 'REAL NOT NULL DEFAULT 1' },
  { column: 'attempt', type: 'BOOLEAN NOT NULL DEFAULT 1' },
];

describe('column types a lease table is refused for', () => {
  let db: TestDb;
  beforeEach(() => {
    db = tempDb();
  });
  afterEach(async () => {
    await db.cleanup();
  });

  async function start(c: Case) {
    const types = { ...GOOD, [c.column]: c.type };
    await db.exec(
      `CREATE TABLE jobs (id INTEGER PRIMARY KEY, payload TEXT NOT NULL, attempt ${types.attempt},` +
        ` locked_until ${types.locked_until}, retry_after ${types.retry_after}, processed_at ${types.processed_at})`,
    );
    await db.exec(`INSERT INTO jobs (payload) VALUES ('{}')`);
    const before = await db.exec('SELECT * FROM jobs');
    // An adapter made from options owns its pool and shutdown() ends it: one adapter per broker.
    const adapter = sqlite({ filename: db.file, connections: 3 });
    const b = new Broker(adapter, { logger: silentLogger, pollInterval: 20 });
    let handled = 0;
    b.subscribe(queue(description), async () => {
      handled++;
    });
    const error = await b.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 100));
    await b.shutdown({ timeout: 0 });
    const after = await db.exec('SELECT * FROM jobs');
    await db.exec('DROP TABLE jobs');
    return { error, before, after, handled };
  }

  test.each(BAD)(
    'R-BAD-4 R-OPS-6 column $column declared "$type" stops start() with a ConfigError naming table, column and type; no row is claimed',
    async (c) => {
      const r = await start(c);
      expect(r.error).toBeInstanceOf(ConfigError);
      const e = r.error as ConfigError;
      expect(e.table).toBe('jobs');
      expect(e.column).toBe(c.column);
      const declared = c.type.split(' ')[0];
      expect(e.message).toContain(declared === '' ? 'no declared type' : `is ${declared}`);
      expect(e.message).toContain('expected integer');
      expect(r.handled).toBe(0);
      expect(r.after).toEqual(r.before);
    },
  );

  test('R-BAD-4 INTEGER time columns and attempt start (the dialect ddl declares them so)', async () => {
    const r = await start({ column: 'locked_until', type: 'INTEGER' });
    expect(r.error).toBeUndefined();
    const big = await start({ column: 'attempt', type: 'BIGINT NOT NULL DEFAULT 1' });
    expect(big.error).toBeUndefined();
  });
});
