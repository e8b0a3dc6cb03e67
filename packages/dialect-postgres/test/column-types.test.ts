import { Broker, ConfigError, inbox, queue, silentLogger } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminClient, drivers, type Opened, uniqueName } from './support.js';

/** One column of the lease table given a type of its own; the others keep theirs. */
interface Case {
  readonly column: 'locked_until' | 'retry_after' | 'processed_at' | 'attempt';
  readonly type: string;
}

const GOOD: Readonly<Record<Case['column'], string>> = {
  locked_until: 'timestamptz',
  retry_after: 'timestamptz',
  processed_at: 'timestamptz',
  attempt: 'integer NOT NULL DEFAULT 1',
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
const BAD_LEASE = [
  'timestamptz(0)',
  'timestamptz(2)',
  'timestamp(0)',
  'boolean',
  'interval',
  'date',
  'time',
  'timestamptz[]',
];

/** The other instant columns: any precision, but an instant (R-BAD-4); the attempt: an integer. */
const BAD_OTHER: Case[] = [
  { column: 'retry_after', type: 'boolean' },
  { column: 'retry_after', type: 'date' },
  { column: 'retry_after', type: 'interval' },
  { column: 'processed_at', type: 'boolean' },
  { column: 'processed_at', type: 'date' },
  { column: 'attempt', type: 'double precision' },
  { column: 'attempt', type: 'boolean' },
];

describe.each(drivers)('column types a lease table is refused for, on $name', (driver) => {
  let admin: pgModule.Client;
  let opened: Opened;
  beforeAll(async () => {
    admin = await adminClient();
    opened = driver.open(3);
  });
  afterAll(async () => {
    await opened.end();
    await admin.end();
  });

  /**
   * Creates the table with `c`'s column of `c.type`, inserts a row, and starts a broker on it:
   * answers start()'s error (undefined when it started), with the row as it stood before and after
   * and whether the handler ran.
   */
  async function start(c: Case, domain?: string) {
    const name = uniqueName('coltype');
    const types = { ...GOOD, [c.column]: c.type };
    await admin.query(
      `CREATE TABLE "${name}" (id bigserial PRIMARY KEY, payload jsonb NOT NULL, attempt ${types.attempt},` +
        ` locked_until ${types.locked_until}, retry_after ${types.retry_after}, processed_at ${types.processed_at})`,
    );
    try {
      await admin.query(`INSERT INTO "${name}" (payload) VALUES ('{}')`);
      const before = (await admin.query(`SELECT * FROM "${name}"`)).rows;
      const b = new Broker(opened.adapter, { logger: silentLogger, pollInterval: 20 });
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
      const after = (await admin.query(`SELECT * FROM "${name}"`)).rows;
      return { name, error, before, after, handled };
    } finally {
      await admin.query(`DROP TABLE IF EXISTS "${name}"`);
      if (domain !== undefined) await admin.query(`DROP DOMAIN IF EXISTS ${domain}`);
    }
  }

  async function expectRefused(c: Case, typeShown: string, what: RegExp, domain?: string) {
    const r = await start(c, domain);
    expect(r.error, `${c.column} ${c.type}`).toBeInstanceOf(ConfigError);
    const e = r.error as ConfigError;
    expect(e.table).toBe(r.name);
    expect(e.column).toBe(c.column);
    expect(e.message).toContain(typeShown);
    expect(e.message).toMatch(what);
    // Nothing was claimed: the handler never ran and the row is as it was.
    expect(r.handled).toBe(0);
    expect(r.after).toEqual(r.before);
  }

  const shown: Record<string, string> = {
    'timestamptz(0)': 'timestamp(0) with time zone',
    'timestamptz(2)': 'timestamp(2) with time zone',
    'timestamp(0)': 'timestamp(0) without time zone',
    'timestamptz[]': 'timestamp with time zone[]',
  };
  test.each(BAD_LEASE)(
    'R-OPS-6 R-BAD-4 a lease column of type %s stops start() with a ConfigError naming table, column and type; no row is claimed',
    async (type) => {
      const precision = /\(\d\)$/.test(type);
      await expectRefused(
        { column: 'locked_until', type },
        shown[type] ?? type,
        precision ? /millisecond/ : /expected timestamp/,
      );
    },
  );

  test('R-OPS-6 a domain over timestamptz(0) is read through to its precision', async () => {
    const domain = `"${uniqueName('secs')}"`;
    await admin.query(`CREATE DOMAIN ${domain} AS timestamptz(0)`);
    await expectRefused(
      { column: 'locked_until', type: domain },
      domain.replace(/"/g, ''),
      /millisecond/,
      domain,
    );
  });

  test.each(BAD_OTHER)(
    'R-BAD-4 column $column of type $type stops start() naming table, column and type (retry_after and processed_at hold an instant, attempt an integer)',
    async (c) => {
      await expectRefused(c, c.type, /expected (timestamp|integer)/);
    },
  );

  test('R-OPS-6 R-BAD-4 millisecond lease columns start; retry_after and processed_at may keep whole seconds', async () => {
    const good: Case[] = [
      { column: 'locked_until', type: 'timestamptz(3)' },
      { column: 'locked_until', type: 'timestamp' },
      { column: 'locked_until', type: 'timestamptz(6)' },
      { column: 'retry_after', type: 'timestamptz(0)' },
      { column: 'processed_at', type: 'timestamp(0)' },
      { column: 'attempt', type: 'bigint NOT NULL DEFAULT 1' },
    ];
    for (const c of good) {
      const r = await start(c);
      expect(r.error, `${c.column} ${c.type}`).toBeUndefined();
    }
  });
});
