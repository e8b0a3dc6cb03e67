import { describe, expect, test } from 'vitest';
import { postgresDialect } from '../src/dialect.js';
import { classifyError } from '../src/errors.js';

/** A server error as both drivers shape it: an Error with the SQLSTATE in `code`. */
function serverError(code: string, message = 'server error'): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

describe('classifyError (both drivers)', () => {
  test.each([
    ['40001', 'serialization', 'could not serialize access due to concurrent update'],
    ['40P01', 'deadlock', 'deadlock detected'],
    ['55P03', 'lock_timeout', 'canceling statement due to lock timeout'],
    ['57P01', 'shutdown', 'terminating connection due to administrator command'],
    ['57P02', 'shutdown', 'terminating connection because of crash of another server process'],
    ['08000', 'connection', 'connection_exception'],
    ['08003', 'connection', 'connection_does_not_exist'],
    ['08006', 'connection', 'connection_failure'],
    ['08P01', 'connection', 'protocol_violation'],
    ['23505', 'constraint', 'duplicate key value violates unique constraint'],
    ['23502', 'constraint', 'null value in column violates not-null constraint'],
    ['23503', 'constraint', 'foreign key violation'],
    ['42P01', 'other', 'relation does not exist'],
    ['57014', 'other', 'canceling statement due to statement timeout'],
  ] as const)('SQLSTATE %s is %s', (code, kind, message) => {
    expect(classifyError(serverError(code, message))).toBe(kind);
    expect(postgresDialect.classifyError(serverError(code, message))).toBe(kind);
  });

  test.each([
    ['57P03', 'the database system is starting up'],
    ['57P03', 'the database system is in recovery mode'],
    ['57P03', 'the database system is shutting down'],
    ['25006', 'cannot execute UPDATE in a read-only transaction'],
    ['25006', 'cannot execute SELECT FOR UPDATE in a read-only transaction'],
  ] as const)('R-CLUS-2 a read-only or recovering server is a lost connection: %s "%s"', (code, message) => {
    expect(classifyError(serverError(code, message))).toBe('connection');
    expect(postgresDialect.classifyError(serverError(code, message))).toBe('connection');
  });

  test.each(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'])('socket error %s is connection', (code) => {
    expect(
      classifyError(Object.assign(new Error(`read ${code}`), { code, errno: -104, syscall: 'read' })),
    ).toBe('connection');
  });

  test.each(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'])(
    'postgres.js %s is connection',
    (code) => {
      expect(classifyError(Object.assign(new Error(`write ${code} 127.0.0.1:5432`), { code }))).toBe(
        'connection',
      );
    },
  );

  test.each([
    'Connection terminated',
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
    'timeout exceeded when trying to connect',
  ])('pg message "%s" is connection', (message) => {
    expect(classifyError(new Error(message))).toBe('connection');
  });

  test('an AggregateError of refused connects (dual-stack) is connection', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    expect(classifyError(new AggregateError([inner], ''))).toBe('connection');
  });

  test('a wrapped error is classified by its cause', () => {
    expect(classifyError(new Error('settlement failed', { cause: serverError('40P01') }))).toBe('deadlock');
  });

  test('anything else is other', () => {
    expect(classifyError(new Error('boom'))).toBe('other');
    expect(classifyError('a string')).toBe('other');
    expect(classifyError(null)).toBe('other');
    expect(classifyError({ code: 42 })).toBe('other');
  });
});
