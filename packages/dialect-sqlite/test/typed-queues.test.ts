import { Broker, inbox, queue, silentLogger, table, typed } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect, expectTypeOf, test } from 'vitest';
import { sqliteDialect } from '../src/dialect.js';
import { type SqliteAdapter, sqlite } from '../src/index.js';
import { type TestDb, tempDb } from './helpers.js';

interface Email {
  to: string;
  subject: string;
}

let db: TestDb;
let adapter: SqliteAdapter;
let broker: Broker<'lease' | 'advisory', never>;
beforeEach(() => {
  db = tempDb();
  adapter = sqlite({ filename: db.file, connections: 2 });
  broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms' });
});
afterEach(async () => {
  await broker.shutdown({ timeout: '1s' }).catch(() => undefined);
  await adapter.close();
  await db.cleanup();
});

describe('typed queues on SQLite', () => {
  test('R-USER-2 a typed description publishes and its handler gets the typed message', async () => {
    const emails = typed<Email>()(
      inbox({
        table: 'emails',
        id: { column: 'id', generated: true },
        lease: 'locked_until',
        payload: 'payload',
      }),
    );
    const built = table('built_emails', 'id', { generated: true })
      .payload<Email>('payload')
      .lease('locked_until')
      .build();
    // The description is the untyped one's value: typed<T>() adds nothing at runtime.
    expect(emails).toEqual(
      inbox({
        table: 'emails',
        id: { column: 'id', generated: true },
        lease: 'locked_until',
        payload: 'payload',
      }),
    );
    expect(Object.keys(emails)).not.toContain('~payload');
    for (const s of [...sqliteDialect.ddl(emails), ...sqliteDialect.ddl(built)]) await db.exec(s);
    const got: Email[] = [];
    let done!: () => void;
    const all = new Promise<void>((r) => {
      done = r;
    });
    const handle = async (email: Email) => {
      got.push(email);
      if (got.length === 3) done();
    };
    broker.subscribe(queue(emails), async (email) => {
      expectTypeOf(email).toEqualTypeOf<Email>();
      await handle(email);
    });
    broker.subscribe(queue(built), handle);
    await broker.start();
    await broker.publish(emails, { to: 'ada@example.com', subject: 'hello' });
    await broker.publishMany(built, [
      { to: 'bob@example.com', subject: 'one' },
      { to: 'cy@example.com', subject: 'two' },
    ]);
    await all;
    expect(got.map((e) => `${e.to} ${e.subject}`).sort()).toEqual([
      'ada@example.com hello',
      'bob@example.com one',
      'cy@example.com two',
    ]);
  });
});
