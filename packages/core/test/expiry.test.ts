import { describe, expect, test } from 'vitest';
import { expiredAt, expiryOf } from '../src/expiry.js';
import { ConfigError, ExpiredError, inbox, table } from '../src/index.js';

const jobs = inbox({ table: 'jobs', id: 'id', payload: 'payload', expiresAt: 'expires_at' });
const plain = inbox({ table: 'plain', id: 'id', payload: 'payload' });

describe('expiry', () => {
  test('R-LIFE-6 both spellings name the deadline column, and it is a column of the table', () => {
    expect(jobs.expiresAt).toBe('expires_at');
    expect(table('jobs', 'id').expiresAt('deadline').build().expiresAt).toBe('deadline');
    expect(() => inbox({ table: 'jobs', id: 'id', expiresAt: 'bad name' })).toThrow(ConfigError);
  });

  test('R-LIFE-6 expiresAt at publish needs the column and a valid Date', () => {
    const at = new Date(1_000);
    expect(expiryOf(jobs, { expiresAt: at })).toEqual({ expiresAt: at });
    expect(expiryOf(plain, {})).toEqual({});
    expect(() => expiryOf(plain, { expiresAt: at })).toThrow(
      /table plain: .*no expiresAt column.*Fix: describe the expiresAt column/,
    );
    expect(() => expiryOf(jobs, { expiresAt: new Date('nope') })).toThrow(ConfigError);
  });

  test('R-LIFE-6 a deadline passed reads as expired whatever the driver answers for an instant', () => {
    const now = Date.parse('2025-01-01T00:00:10.000Z');
    const past = '2025-01-01T00:00:05.000Z';
    for (const v of [
      new Date(past),
      Date.parse(past),
      BigInt(Date.parse(past)),
      past,
      '2025-01-01 00:00:05.000',
    ]) {
      expect(expiredAt(jobs, { expires_at: v }, now)?.toISOString()).toBe(past);
    }
    expect(expiredAt(jobs, { expires_at: '2025-01-01T00:00:20.000Z' }, now)).toBeUndefined();
    expect(expiredAt(jobs, { expires_at: null }, now)).toBeUndefined();
    expect(expiredAt(plain, { expires_at: past }, now)).toBeUndefined();
    const err = new ExpiredError('jobs', 7, new Date(past));
    expect(err).toMatchObject({ code: 'EXPIRED', table: 'jobs', rowId: 7 });
  });
});
