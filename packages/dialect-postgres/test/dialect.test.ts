import { type AnyTable, inbox, KeyPart, table } from '@sqlinbox/core';
import type pgModule from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ddl, wakeupTriggerDdl } from '../src/ddl.js';
import { postgresCapabilities, postgresDialect } from '../src/dialect.js';
import { adminClient, drivers, leaseTable, type Opened, uniqueName, withConn } from './support.js';

describe('PostgreSQL dialect facts', () => {
  test('R-DESC-4 R-TX-6 capabilities: every form, FIFO guard, transactional; isolation levels without read_uncommitted', () => {
    expect(postgresDialect.name).toBe('postgres');
    expect(postgresCapabilities.forms).toEqual(['rowlock', 'lease', 'advisory']);
    expect(postgresCapabilities.isolationLevels).toEqual([
      'read_committed',
      'repeatable_read',
      'serializable',
    ]);
    expect(postgresCapabilities.isolationLevels).not.toContain('read_uncommitted');
    expect(postgresCapabilities).toMatchObject({
      fifoGuard: true,
      transactional: true,
      multipleConnections: true,
      oneClaimAtATime: false,
      oneLeaseClaimAtATime: false,
      claimAhead: true,
      timeKinds: ['timestamp'],
    });
  });

  test('R-PLUS-2 R-LOAD-2 R-LOAD-5 ddl: CREATE TABLE with the column types and storage parameters, the partial claim index, the group index, the wake-up trigger and the dead-letter table', () => {
    const t = leaseTable('jobs', { group: true, processedAt: true });
    expect(ddl(t, { deadLetterTable: 'jobs_dead' })).toEqual([
      'CREATE TABLE IF NOT EXISTS "jobs" (\n' +
        '  "id" bigserial PRIMARY KEY,\n' +
        '  "payload" jsonb NOT NULL,\n' +
        '  "attempt" integer NOT NULL DEFAULT 0,\n' +
        '  "locked_until" timestamptz,\n' +
        '  "retry_after" timestamptz,\n' +
        '  "processed_at" timestamptz,\n' +
        '  "grp" text\n' +
        ') WITH (fillfactor = 50, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_cost_delay = 0)',
      'CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_due" ON "jobs" ("id") WHERE "processed_at" IS NULL',
      'CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("grp", "id") WHERE "processed_at" IS NULL',
      ...wakeupTriggerDdl('jobs'),
      'CREATE TABLE IF NOT EXISTS "jobs_dead" (\n' +
        '  "id" bigint PRIMARY KEY,\n' +
        '  "payload" jsonb NOT NULL,\n' +
        '  "attempt" integer NOT NULL DEFAULT 0,\n' +
        '  "locked_until" timestamptz,\n' +
        '  "retry_after" timestamptz,\n' +
        '  "processed_at" timestamptz,\n' +
        '  "grp" text\n' +
        ')',
    ]);
    expect(postgresDialect.ddl(t)).toHaveLength(6);
    expect(postgresDialect.ddl(t, { wakeupTrigger: false })).toHaveLength(3);
    // The row lock form updates no row before it deletes it: no fillfactor.
    const locked = inbox({ table: 'jobs', id: 'id', payload: 'payload' });
    expect(ddl(locked)[0]).toMatch(/\) WITH \(autovacuum_vacuum_scale_factor = 0,/);
  });
});

describe.each(drivers)('describeTable and ddl against the server on $name', (driver) => {
  let admin: pgModule.Client;
  let opened: Opened;
  beforeAll(async () => {
    admin = await adminClient();
    opened = driver.open(2);
  });
  afterAll(async () => {
    await opened.end();
    await admin.end();
  });

  const variants = (name: string): [string, AnyTable][] => [
    ['lease, group, processed_at', leaseTable(`${name}_l`, { group: true, processedAt: true })],
    [
      'advisory, bytes payload, key columns',
      table(`${name}_a`, 'job_id', { generated: true })
        .advisory([KeyPart.literal('jobs-'), KeyPart.column('account'), KeyPart.column('job_id')])
        .payload('body', 'bytes')
        .attempt('tries', { generated: true })
        .partitionKey('pk')
        .build(),
    ],
    [
      'row lock, text payload, given id',
      inbox({
        table: `${name}_r`,
        id: 'id',
        payload: { column: 'payload', type: 'text' },
        columns: ['tenant'],
      }) as AnyTable,
    ],
  ];

  test('R-PLUS-2 the ddl of every variant executes, with its dead-letter table, and INSERT .. SELECT * fits the two', async () => {
    for (const [, t] of variants(uniqueName('ddl'))) {
      const dead = `${t.table}_dead`;
      try {
        for (const stmt of ddl(t, { deadLetterTable: dead })) await admin.query(stmt);
        await admin.query(`INSERT INTO "${dead}" SELECT * FROM "${t.table}"`);
        const cols = async (name: string) =>
          (
            await admin.query(
              `SELECT attname, format_type(atttypid, atttypmod) AS type FROM pg_attribute
               WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
              [`"${name}"`],
            )
          ).rows.map((r) => `${r.attname} ${r.type}`);
        expect(await cols(dead)).toEqual(await cols(t.table));
      } finally {
        await admin.query(`DROP TABLE IF EXISTS "${t.table}", "${dead}"`);
      }
    }
  });

  test('R-DESC-8 describeTable: kinds, nullability and defaults; schema-qualified names; null for a missing table', async () => {
    const schema = uniqueName('sch');
    const name = uniqueName('desc');
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`CREATE DOMAIN "${schema}".ident AS bigint`);
    await admin.query(
      `CREATE TABLE "${schema}"."${name}" (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, small int2, n numeric(10,0), i4 integer DEFAULT 1,
        d "${schema}".ident, t text NOT NULL, v varchar(20), c char(3), b bytea, j json, jb jsonb,
        ts timestamp, tz timestamptz, u uuid, f float8)`,
    );
    try {
      await withConn(opened, async (conn) => {
        const cols = await postgresDialect.describeTable(conn, `${schema}.${name}`);
        expect(cols?.map((c) => [c.name, c.kind])).toEqual([
          ['id', 'integer'],
          ['small', 'integer'],
          ['n', 'integer'],
          ['i4', 'integer'],
          ['d', 'integer'],
          ['t', 'text'],
          ['v', 'text'],
          ['c', 'text'],
          ['b', 'bytes'],
          ['j', 'json'],
          ['jb', 'json'],
          ['ts', 'timestamp'],
          ['tz', 'timestamp'],
          ['u', 'other'],
          ['f', 'other'],
        ]);
        const byName = new Map(cols?.map((c) => [c.name, c]));
        expect(byName.get('id')).toMatchObject({ type: 'bigint', nullable: false, hasDefault: true });
        expect(byName.get('i4')).toMatchObject({ type: 'integer', nullable: true, hasDefault: true });
        expect(byName.get('t')).toMatchObject({ nullable: false, hasDefault: false });
        expect(byName.get('tz')?.type).toBe('timestamp with time zone');
        expect(await postgresDialect.describeTable(conn, `${schema}.missing`)).toBeNull();
        expect(await postgresDialect.describeTable(conn, name)).toBeNull(); // not on the search path
        expect(await postgresDialect.describeTable(conn, `nosuchschema_${name}.${name}`)).toBeNull();
      });
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });

  test('R-DESC-7 a schema-qualified table runs every statement kind (identifiers quoted per part)', async () => {
    const schema = uniqueName('sch');
    await admin.query(`CREATE SCHEMA "${schema}"`);
    try {
      const t = leaseTable(`${schema}.jobs`, { group: true });
      for (const stmt of ddl(t, { deadLetterTable: `${schema}.jobs_dead` })) await admin.query(stmt);
      const ops = postgresDialect.prepare(t, { deadLetter: { table: `${schema}.jobs_dead` } });
      await withConn(opened, async (conn) => {
        const [id] = await ops.insert(conn, [{ payload: '{}', group: 'g' }]);
        const now = new Date();
        const expiry = new Date(now.getTime() + 30_000);
        expect(await ops.claimLease(conn, 5, now, expiry)).toHaveLength(1);
        expect(
          await ops.extendLeases(conn, [{ id, token: expiry }], new Date(now.getTime() + 60_000)),
        ).toHaveLength(1);
        expect(
          await ops.settle(conn, {
            kind: 'deadLetter',
            id,
            token: new Date(now.getTime() + 60_000),
            now,
            target: { table: `${schema}.jobs_dead` },
            inTransaction: false,
          }),
        ).toBe(1);
        expect(await ops.stats(conn, now)).toEqual({ ready: 0, delayed: 0, inWork: 0, dead: 1 });
        expect((await postgresDialect.describeTable(conn, `${schema}.jobs`))?.length).toBe(6);
      });
    } finally {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });
});
