/** Unit tests that need no server: error classification, versions, time text, DDL, lock names. */
import { createHash } from 'node:crypto';
import { type AnyTable, inbox, ServerTooOldError } from '@sqlinbox/core';
import { describe, expect, it } from 'vitest';
import { ddl } from '../src/ddl.js';
import { checkVersion, classifyError, kindOf, parseServerVersion } from '../src/dialect.js';
import { parseUtc, utc } from '../src/sql.js';
import { lockNameOf, MysqlStatements } from '../src/statements.js';

/** An error shaped as the drivers shape them. */
const err = (fields: Record<string, unknown>) =>
  Object.assign(new Error(String(fields.code ?? fields.errno)), fields);

describe('classifyError: one test per vendor code', () => {
  it('1213 ER_LOCK_DEADLOCK is deadlock', () => {
    expect(classifyError(err({ errno: 1213, code: 'ER_LOCK_DEADLOCK', sqlState: '40001' }))).toBe('deadlock');
  });
  it('1205 ER_LOCK_WAIT_TIMEOUT is lock_timeout', () => {
    expect(classifyError(err({ errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' }))).toBe('lock_timeout');
  });
  it('the code ER_LOCK_WAIT_TIMEOUT alone is lock_timeout', () => {
    expect(classifyError(err({ code: 'ER_LOCK_WAIT_TIMEOUT' }))).toBe('lock_timeout');
  });
  it('3572 ER_LOCK_NOWAIT is lock_timeout', () => {
    expect(classifyError(err({ errno: 3572, code: 'ER_LOCK_NOWAIT' }))).toBe('lock_timeout');
  });
  it('MariaDB 1020 ER_CHECKREAD (snapshot isolation conflict) is serialization', () => {
    expect(classifyError(err({ errno: 1020, code: 'ER_CHECKREAD' }))).toBe('serialization');
  });
  it.each([
    [1062, 'ER_DUP_ENTRY'],
    [1586, 'ER_DUP_ENTRY_WITH_KEY_NAME'],
    [1022, 'ER_DUP_KEY'],
    [1451, 'ER_ROW_IS_REFERENCED_2'],
    [1452, 'ER_NO_REFERENCED_ROW_2'],
    [1048, 'ER_BAD_NULL_ERROR'],
    [1364, 'ER_NO_DEFAULT_FOR_FIELD'],
    [3819, 'ER_CHECK_CONSTRAINT_VIOLATED'],
    [4025, 'ER_CONSTRAINT_FAILED'],
  ])('%i %s is constraint', (errno, code) => {
    expect(classifyError(err({ errno, code }))).toBe('constraint');
    expect(classifyError(err({ errno }))).toBe('constraint');
  });
  it('mysql2 PROTOCOL_CONNECTION_LOST is connection', () => {
    expect(classifyError(err({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))).toBe('connection');
  });
  it('ECONNRESET is connection', () => {
    expect(classifyError(err({ code: 'ECONNRESET', errno: -104 }))).toBe('connection');
  });
  it('ECONNREFUSED is connection', () => {
    expect(classifyError(err({ code: 'ECONNREFUSED', errno: -111 }))).toBe('connection');
  });
  it('2006 CR_SERVER_GONE_ERROR is connection', () => {
    expect(classifyError(err({ errno: 2006 }))).toBe('connection');
  });
  it('2013 CR_SERVER_LOST is connection', () => {
    expect(classifyError(err({ errno: 2013 }))).toBe('connection');
  });
  it('MySQL 3169 ER_SESSION_WAS_KILLED is connection', () => {
    expect(classifyError(err({ errno: 3169, code: 'ER_SESSION_WAS_KILLED' }))).toBe('connection');
  });
  it('MySQL 4031 ER_CLIENT_INTERACTION_TIMEOUT is connection', () => {
    expect(classifyError(err({ errno: 4031, code: 'ER_CLIENT_INTERACTION_TIMEOUT' }))).toBe('connection');
  });
  it('mariadb ER_SOCKET_UNEXPECTED_CLOSE (45009) is connection', () => {
    expect(classifyError(err({ errno: 45009, code: 'ER_SOCKET_UNEXPECTED_CLOSE', fatal: true }))).toBe(
      'connection',
    );
  });
  it('mariadb ER_CONNECTION_ALREADY_CLOSED (45001) is connection', () => {
    expect(classifyError(err({ errno: 45001, code: 'ER_CONNECTION_ALREADY_CLOSED' }))).toBe('connection');
  });
  it('mariadb ER_CMD_CONNECTION_CLOSED (45013) is connection', () => {
    expect(classifyError(err({ errno: 45013, code: 'ER_CMD_CONNECTION_CLOSED', fatal: true }))).toBe(
      'connection',
    );
  });
  it('mysql2\'s "closed state" error (no code, fatal) is connection', () => {
    expect(
      classifyError(
        err({ fatal: true, message: "Can't add new command when connection is in closed state" }),
      ),
    ).toBe('connection');
  });
  it('1053 ER_SERVER_SHUTDOWN is shutdown', () => {
    expect(classifyError(err({ errno: 1053, code: 'ER_SERVER_SHUTDOWN' }))).toBe('shutdown');
  });
  it('MariaDB 1927 ER_CONNECTION_KILLED (sent on server shutdown) is shutdown', () => {
    expect(classifyError(err({ errno: 1927, code: 'ER_CONNECTION_KILLED', sqlState: '70100' }))).toBe(
      'shutdown',
    );
  });
  it.each([
    [
      1290,
      'ER_OPTION_PREVENTS_STATEMENT',
      'The MariaDB server is running with the --read-only option so it cannot execute this statement',
    ],
    [1836, 'ER_READ_ONLY_MODE', 'Running in read-only mode'],
    [1792, 'ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION', 'Cannot execute statement in a READ ONLY transaction'],
    [1047, 'ER_UNKNOWN_COM_ERROR', 'WSREP has not yet prepared node for application use'],
  ] as const)(
    'R-CLUS-2 R-CLUS-3 a read-only server or a Galera node out of the cluster is a lost connection: %s %s',
    (errno, code, message) => {
      expect(classifyError(err({ errno, code, message }))).toBe('connection');
    },
  );
  it('a syntax error (1064) is other', () => {
    expect(classifyError(err({ errno: 1064, code: 'ER_PARSE_ERROR' }))).toBe('other');
  });
  it('a plain Error and a non-error are other', () => {
    expect(classifyError(new Error('boom'))).toBe('other');
    expect(classifyError('boom')).toBe('other');
    expect(classifyError(undefined)).toBe('other');
  });
  it('an error without a code is read through its cause', () => {
    expect(classifyError(new Error('wrapped', { cause: err({ errno: 1213 }) }))).toBe('deadlock');
  });
});

describe('R-DB-1 server versions', () => {
  it('reads MariaDB and MySQL version strings', () => {
    expect(parseServerVersion('10.11.19-MariaDB-0+deb12u1')).toMatchObject({
      server: 'MariaDB',
      major: 10,
      minor: 11,
      patch: 19,
    });
    expect(parseServerVersion('5.5.5-10.6.2-MariaDB')).toMatchObject({
      server: 'MariaDB',
      major: 10,
      minor: 6,
      patch: 2,
    });
    expect(parseServerVersion('8.0.36')).toMatchObject({ server: 'MySQL', major: 8, minor: 0, patch: 36 });
    expect(parseServerVersion('8.4.0-log')).toMatchObject({ server: 'MySQL', major: 8, minor: 4 });
  });
  it('R-DB-1 MariaDB 10.5.1 is too old: ServerTooOldError names the version and the floor 10.6', () => {
    const e = (() => {
      try {
        checkVersion('10.5.1-MariaDB');
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ServerTooOldError);
    expect(e).toMatchObject({ code: 'SERVER_TOO_OLD', found: '10.5.1-MariaDB', floor: '10.6' });
    expect((e as Error).message).toContain('MariaDB 10.5.1-MariaDB');
    expect((e as Error).message).toContain('10.6');
  });
  it('R-DB-1 MySQL 8.0.0 is too old: the floor is 8.0.1', () => {
    expect(() => checkVersion('8.0.0')).toThrow(ServerTooOldError);
    expect(() => checkVersion('5.7.44')).toThrow(/MySQL 8\.0\.1/);
  });
  it('R-DB-1 accepts MariaDB 10.6.0, 10.11.19 and 11.4, MySQL 8.0.1, 8.0.36 and 9.0', () => {
    for (const v of ['10.6.0-MariaDB', '10.11.19-MariaDB', '11.4.2-MariaDB', '8.0.1', '8.0.36', '9.0.1']) {
      expect(checkVersion(v).raw).toBe(v);
    }
  });
});

describe('UTC DATETIME(3) text', () => {
  it('binds an instant as UTC text with milliseconds', () => {
    expect(utc(new Date(Date.UTC(2024, 1, 29, 23, 59, 58, 7)))).toBe('2024-02-29 23:59:58.007');
  });
  it('reads DATETIME text as a UTC instant, at any precision', () => {
    expect(parseUtc('2024-02-29 23:59:58.007')?.toISOString()).toBe('2024-02-29T23:59:58.007Z');
    expect(parseUtc('2024-02-29 23:59:58')?.toISOString()).toBe('2024-02-29T23:59:58.000Z');
    expect(parseUtc('2024-02-29 23:59:58.123456')?.toISOString()).toBe('2024-02-29T23:59:58.123Z');
    expect(parseUtc('0000-00-00 00:00:00')).toBeNull();
    expect(parseUtc(null)).toBeNull();
  });
});

describe('column kinds', () => {
  it('maps information_schema data types to kinds', () => {
    expect(kindOf('bigint')).toBe('integer');
    expect(kindOf('INT')).toBe('integer');
    expect(kindOf('varchar')).toBe('text');
    expect(kindOf('longtext')).toBe('text');
    expect(kindOf('longblob')).toBe('bytes');
    expect(kindOf('json')).toBe('json');
    expect(kindOf('datetime')).toBe('timestamp');
    expect(kindOf('timestamp')).toBe('timestamp');
    expect(kindOf('decimal')).toBe('other');
  });
});

describe('R-PLUS-2 ddl text', () => {
  it('prints the CREATE TABLE with the documented types, the claim index and the dead-letter table', () => {
    const t = inbox({
      table: 'jobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: 'attempt',
      lease: 'locked_until',
      retryAfter: 'retry_after',
      processedAt: 'processed_at',
      partitionKey: 'pk',
      columns: ['tenant'],
    });
    const [create, dlq, ...rest] = ddl(t, { deadLetterTable: 'jobs_dead' });
    expect(rest).toEqual([]);
    expect(create).toMatch(/^CREATE TABLE IF NOT EXISTS `jobs` \(/);
    expect(create).toContain('`id` BIGINT NOT NULL AUTO_INCREMENT');
    expect(create).toContain('`payload` JSON NOT NULL');
    expect(create).toContain('`attempt` INT NOT NULL DEFAULT 0');
    expect(create).toContain('`locked_until` DATETIME(3) NULL');
    expect(create).toContain('`retry_after` DATETIME(3) NULL');
    expect(create).toContain('`processed_at` DATETIME(3) NULL');
    expect(create).toContain('`pk` VARCHAR(255) NULL');
    expect(create).toContain('`tenant` VARCHAR(255) NULL');
    expect(create).toContain('ENGINE=InnoDB');
    // MySQL has no CREATE INDEX IF NOT EXISTS: the claim's index is part of the table's statement.
    expect(create).toContain('  INDEX `sqlinbox_claim` (`processed_at`, `id`)');
    expect(dlq).toContain('CREATE TABLE IF NOT EXISTS `jobs_dead`');
    expect(dlq).not.toContain('INDEX');
    expect(dlq).toContain('`id` BIGINT NOT NULL,');
    expect(dlq).not.toContain('AUTO_INCREMENT');
    for (const s of ddl(t)) expect(s.trimEnd().endsWith(';')).toBe(false);
  });
  it('a FIFO table gets the (group, processed_at, id) index; text and bytes payloads', () => {
    const t = inbox({
      table: 'app.q',
      id: 'id',
      payload: { column: 'body', type: 'bytes' },
      group: 'grp',
      processedAt: 'done_at',
    });
    const out = ddl(t);
    expect(out[0]).toContain('CREATE TABLE IF NOT EXISTS `app`.`q`');
    expect(out[0]).toContain('`body` LONGBLOB NOT NULL');
    expect(out[0]).toContain('  INDEX `sqlinbox_fifo` (`grp`, `done_at`, `id`)');
    const txt = inbox({ table: 'q', id: 'id', payload: { column: 'body', type: 'text' } });
    expect(ddl(txt)[0]).toContain('`body` LONGTEXT NOT NULL');
  });
});

describe('R-ADV-4 lock names', () => {
  it('is the database in lower case, a dot and the key', () => {
    expect(lockNameOf('Test', 'jobs-7')).toBe('test.jobs-7');
  });
  it('a name over 64 characters is locked by its SHA-256 in hex (64 characters)', () => {
    const key = `k-${'x'.repeat(70)}`;
    const name = lockNameOf('test', key);
    expect(name).toBe(createHash('sha256').update(`test.${key}`).digest('hex'));
    expect(name).toHaveLength(64);
    expect(lockNameOf('test', 'k'.repeat(59))).toBe(`test.${'k'.repeat(59)}`); // exactly 64
    expect(lockNameOf('test', 'k'.repeat(60))).toHaveLength(64);
    expect(lockNameOf('test', 'k'.repeat(60))).not.toContain('test.');
  });
});

describe('R-OPS-7 the advisory take', () => {
  const fifo = inbox({
    table: 'jobs',
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    processedAt: 'processed_at',
    group: 'grp',
    advisory: 'jobs-{id}',
  } as never) as AnyTable;

  it('re-checks the group head with an anti-join: MySQL refuses a subquery on the table an UPDATE writes (error 1093)', () => {
    const st = new MysqlStatements(fifo).advisory.take(7, null);
    expect(st.sql).toBe(
      'UPDATE `jobs` q LEFT JOIN `jobs` s ON s.`grp` = q.`grp` AND s.`id` < q.`id` AND s.`processed_at` IS NULL' +
        ' SET q.`attempt` = q.`attempt` + 1 WHERE q.`id` = ? AND q.`processed_at` IS NULL AND s.`id` IS NULL',
    );
    expect(st.params).toEqual([7]);
  });

  it('without an attempt column it selects the row under the same head check', () => {
    const st = new MysqlStatements({ ...fifo, attempt: undefined }).advisory.take(7, null);
    expect(st.sql).toMatch(
      /^SELECT q\.\* FROM `jobs` q WHERE q\.`id` = \? AND .*OR q\.`id` = \(SELECT s\.`id` FROM `jobs` s WHERE s\.`grp` = q\.`grp`/,
    );
  });
});
