import { describe, expect, test } from 'vitest';
import { ConfigError, ExpiredError, failureOf, inbox, MAX_ERROR_LENGTH, table } from '../src/index.js';

describe('failure record', () => {
  test('R-LIFE-1 both spellings name the failure record columns, each a valid identifier', () => {
    const t = inbox({
      table: 'jobs',
      id: 'id',
      payload: 'payload',
      lastError: 'last_error',
      errorClass: 'error_class',
      failedAt: 'failed_at',
      createdAt: 'created_at',
    });
    expect([t.lastError, t.errorClass, t.failedAt, t.createdAt]).toEqual([
      'last_error',
      'error_class',
      'failed_at',
      'created_at',
    ]);
    const b = table('jobs', 'id').lastError('e').errorClass('c').failedAt('f').createdAt('cr').build();
    expect([b.lastError, b.errorClass, b.failedAt, b.createdAt]).toEqual(['e', 'c', 'f', 'cr']);
    expect(() => inbox({ table: 'jobs', id: 'id', lastError: 'bad name' })).toThrow(ConfigError);
  });

  test("R-LIFE-1 a failure is recorded as its message (cut to 1,000 characters) and its class, 'expired' for an expired row", () => {
    class PaymentDeclined extends Error {
      override name = 'PaymentDeclined';
    }
    expect(failureOf(new PaymentDeclined('card'))).toEqual({ message: 'card', name: 'PaymentDeclined' });
    const long = failureOf(new Error('x'.repeat(5_000)));
    expect(long.message).toHaveLength(MAX_ERROR_LENGTH);
    expect(long.name).toBe('Error');
    expect(failureOf(new ExpiredError('jobs', 1, new Date(0))).name).toBe('expired');
    expect(failureOf('plain text')).toEqual({ message: 'plain text', name: 'Error' });
  });
});
