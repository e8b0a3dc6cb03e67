import { Broker, ConfigError, inbox, queue, type Row, silentLogger } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { drivers, type Opened, openAdmin, uniqueName } from './helpers.js';

/** One column of the lease table given a type of its own; the others keep theirs. */
interface Case {
  readonly column: 'locked_until' | 'retry_after' | 'processed_at' | 'attempt';
  readonly type: string;
  /** What the error shows as the type (`COLUMN_TYPE`). */
  readonly shown: RegExp;
}

const GOOD: Readonly<Record<Case['column'], string>> = {
  locked_until: 'DATETIME(3) NULL',
  retry_after: 'DATETIME(3) NULL',
  processed_at: 'DATETIME(3) NULL',
  attempt: 'INT NOT NULL DEFAULT 1',
};

const description = (name: string) =>
  inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    lease: 'locked_until',
    retryAfter: 'retry_after',
    processedAt: 'processed_at',
  } as const);

/** Lease columns that cannot hold an instant to the millisecond (R-OPS-6, R-BAD-4). */
const BAD_LEASE: Case[] = [
  { column: 'locked_until', type: 'DATETIME NULL', shown: /is datetime,/ },
  { column: 'locked_until', type: 'DATETIME(1) NULL', shown: /is datetime\(1\),/ },
  { column: 'locked_until', type: 'DATETIME(2) NULL', shown: /is datetime\(2\),/ },
  { column: 'locked_until', type: 'TIMESTAMP NULL', shown: /is timestamp,/ },
  { column: 'locked_until', type: 'DATE NULL', shown: /is date,/ },
  { column: 'locked_until', type: 'YEAR NULL', shown: /is year(\(4\))?,/ },
  { column: 'locked_until', type: 'TIME(3) NULL', shown: /is time\(3\),/ },
  { column: 'locked_until', type: 'BOOLEAN NULL', shown: /is tinyint\(1\),/ },
];

/** The other instant columns: any precision, but an instant (R-BAD-4); the attempt: an integer. */
const BAD_OTHER: Case[] = [
  { column: 'retry_after', type: 'DATE NULL', shown: /is date,/ },
  { column: 'retry_after', type: 'YEAR NULL', shown: /is year(\(4\))?,/ },
  { column: 'retry_after', type: 'TIME NULL', shown: /is time,/ },
  { column: 'processed_at', type: 'DATE NULL', shown: /is date,/ },
  { column: 'processed_at', type: 'YEAR NULL', shown: /is year(\(4\))?,/ },
  { column: 'attempt', type: 'DOUBLE NOT NULL DEFAULT 1', shown: /is double,/ },
  { column: 'attempt', type: 'DECIMAL(10,2) NOT NULL DEFAULT 1', shown: /is decimal\(10,2\),/ },
];

describe.each(drivers)('column types a lease table is refused for, on $name', (driver) => {
  let admin: Awaited<ReturnType<typeof openAdmin>>;
  let opened: Opened;
  beforeAll(async () => {
    admin = await openAdmin();
    opened = await driver.open({ size: 3 });
  });
  afterAll(async () => {
    await opened.close();
    await admin.end();
  });

  /**
   * Creates the table with `c`'s column of `c.type`, inserts a row, and starts a broker on it:
   * answers start()'s error (undefined when it started), with the row before and after and
   * whether the handler ran.
   */
  async function start(c: Pick<Case, 'column' | 'type'>) {
    const name = uniqueName('coltype');
    const types = { ...GOOD, [c.column]: c.type };
    await admin.q(
      `CREATE TABLE \`${name}\` (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, payload JSON NOT NULL,` +
        ` attempt ${types.attempt}, locked_until ${types.locked_until}, retry_after ${types.retry_after},` +
        ` processed_at ${types.processed_at})`,
    );
    try {
      await admin.q(`INSERT INTO \`${name}\` (payload) VALUES ('{}')`);
      const before: Row[] = await admin.q(`SELECT * FROM \`${name}\``);
      const b = new Broker(opened.adapter as never, { logger: silentLogger, pollInterval: 20 });
      let handled = 0;
      b.subscribe(queue(description(name)), async () => {
        handled++;
      });
      const error = await b.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 100));
      await b.shutdown({ timeout: 0 });
      const after: Row[] = await admin.q(`SELECT * FROM \`${name}\``);
      return { name, error, before, after, handled };
    } finally {
      await admin.q(`DROP TABLE IF EXISTS \`${name}\``);
    }
  }

  async function expectRefused(c: Case, what: RegExp) {
    const r = await start(c);
    expect(r.error, `${c.column} ${c.type}`).toBeInstanceOf(ConfigError);
    const e = r.error as ConfigError;
    expect(e.table).toBe(r.name);
    expect(e.column).toBe(c.column);
    expect(e.message).toMatch(c.shown);
    expect(e.message).toMatch(what);
    // Nothing was claimed: the handler never ran and the row is as it was.
    expect(r.handled).toBe(0);
    expect(r.after).toEqual(r.before);
  }

  test.each(BAD_LEASE)(
    'R-OPS-6 R-BAD-4 a lease column of type $type stops start() with a ConfigError naming table, column and type; no row is claimed',
    async (c) => {
      const precision = /^(DATETIME|TIMESTAMP)/.test(c.type);
      await expectRefused(c, precision ? /millisecond/ : /expected timestamp/);
    },
  );

  test.each(BAD_OTHER)(
    'R-BAD-4 column $column of type $type stops start() naming table, column and type (retry_after and processed_at hold an instant, attempt an integer)',
    async (c) => {
      await expectRefused(c, /expected (timestamp|integer)/);
    },
  );

  test('R-OPS-6 R-BAD-4 millisecond lease columns start; retry_after and processed_at may keep whole seconds', async () => {
    const good: Pick<Case, 'column' | 'type'>[] = [
      { column: 'locked_until', type: 'DATETIME(3) NULL' },
      { column: 'locked_until', type: 'DATETIME(6) NULL' },
      { column: 'locked_until', type: 'TIMESTAMP(3) NULL' },
      { column: 'retry_after', type: 'DATETIME NULL' },
      { column: 'processed_at', type: 'TIMESTAMP NULL' },
      { column: 'attempt', type: 'BIGINT NOT NULL DEFAULT 1' },
    ];
    for (const c of good) {
      const r = await start(c);
      expect(r.error, `${c.column} ${c.type}`).toBeUndefined();
    }
  });
});
