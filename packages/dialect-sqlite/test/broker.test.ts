import { DatabaseSync } from 'node:sqlite';
import { Broker, inbox, Outcome, queue, silentLogger } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { sqliteDialect } from '../src/dialect.js';
import { type SqliteAdapter, sqlite } from '../src/index.js';
import { settledWithin, type TestDb, tempDb } from './helpers.js';

/** The adapter under the core engine: a smoke test of the whole path, not the conformance suite. */

const leased = inbox({
  table: 'leased_jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
});

const keyed = inbox({
  table: 'keyed_jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  advisory: 'keyed-{account}',
  columns: ['account'],
});

let db: TestDb;
let adapter: SqliteAdapter;
let broker: Broker<'lease' | 'advisory', never>;
beforeEach(() => {
  db = tempDb();
  adapter = sqlite({ filename: db.file, connections: 4 });
  broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms' });
});
afterEach(async () => {
  await broker.shutdown({ timeout: '1s' }).catch(() => undefined);
  await adapter.close();
  await db.cleanup();
});

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const count = async (table: string) => Number((await db.exec(`SELECT COUNT(*) AS n FROM ${table}`))[0]?.n);

describe('under the core broker', () => {
  test('R-ATT-2 lease form: every message delivered once, each first delivery reading attempt 1', async () => {
    for (const s of sqliteDialect.ddl(leased)) await db.exec(s);
    const seen: { n: number; attempt: number }[] = [];
    broker.subscribe(queue(leased).workers(4), async (m: { n: number }, ctx) => {
      seen.push({ n: m.n, attempt: ctx.attempt });
      return Outcome.ack();
    });
    await broker.start();
    await broker.publishMany(
      leased,
      Array.from({ length: 20 }, (_, n) => ({ n })),
    );
    await until(async () => (await count('leased_jobs')) === 0);
    expect(seen.map((s) => s.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(seen.every((s) => s.attempt === 1)).toBe(true);
  });

  test('R-ADV-3 advisory form: every message delivered, one key at a time', async () => {
    for (const s of sqliteDialect.ddl(keyed)) await db.exec(s);
    let inWork = 0;
    let most = 0;
    broker.subscribe(queue(keyed).workers(3), async () => {
      most = Math.max(most, ++inWork);
      await new Promise((r) => setTimeout(r, 5));
      inWork--;
      return Outcome.ack();
    });
    await broker.start();
    for (let i = 0; i < 6; i++) await broker.publish(keyed, { i }, { columns: { account: 'same' } });
    await until(async () => (await count('keyed_jobs')) === 0);
    expect(most).toBe(1);
  });

  test("R-SET-5 an ack that meets another process's write transaction past busy_timeout waits for it: settled once, no settlement error", async () => {
    for (const s of sqliteDialect.ddl(leased)) await db.exec(s);
    // A handle outside the adapter stands for another process, one descheduled inside its write.
    const outsider = new DatabaseSync(db.file);
    let deliveries = 0;
    let failures = 0;
    broker.on('settlementError', () => failures++);
    let released!: Promise<void>;
    broker.subscribe(queue(leased), async () => {
      deliveries++;
      outsider.exec('BEGIN IMMEDIATE');
      // Held for several times the busy_timeout (100 ms) after the handler returns its ack.
      released = new Promise<void>((r) =>
        setTimeout(() => {
          outsider.exec('COMMIT');
          r();
        }, 400),
      );
      return Outcome.ack();
    });
    await broker.publish(leased, { n: 1 });
    await broker.start();
    await until(async () => deliveries === 1);
    await released;
    // Before the wait, the ack failed with SQLITE_BUSY and the row kept its lease for 30 s.
    await until(async () => (await count('leased_jobs')) === 0);
    outsider.close();
    expect(failures).toBe(0);
    expect(deliveries).toBe(1);
  });

  test('R-TX-7 a transactional delivery keeps every other writer out until it settles', async () => {
    for (const s of sqliteDialect.ddl(leased)) await db.exec(s);
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => {
      entered = r;
    });
    broker.subscribe(queue(leased).transactional(), async (_m, ctx) => {
      await ctx.tx.query('UPDATE leased_jobs SET payload = ? WHERE id = ?', ['"written"', ctx.id]);
      entered();
      await gate;
      return Outcome.ack();
    });
    await broker.publish(leased, { first: true });
    await broker.start();
    await inHandler;
    // Another writer (a publish through the pool) waits for the delivery's transaction.
    const publish = broker.publish(leased, { second: true });
    expect(await settledWithin(publish, 200)).toBe(false);
    open();
    await publish;
    await until(async () => (await count('leased_jobs')) === 0);
  });
});
