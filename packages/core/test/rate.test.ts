import { describe, expect, test } from 'vitest';
import { ConfigError, inbox, RATE_TABLE, table } from '../src/index.js';

describe('rate limit descriptions', () => {
  test('R-FLOW-4 both spellings resolve { max, per } to the same rate limit, the budget table sqlinbox_rates by default', () => {
    const a = inbox({ table: 'app.jobs', id: 'id', rateLimit: { max: 50, per: '1s' } });
    const b = table('app.jobs', 'id').rateLimit(50, 1_000).build();
    expect(a.rateLimit).toEqual({ max: 50, perMs: 1_000, table: RATE_TABLE, name: 'app.jobs' });
    expect(b.rateLimit).toEqual(a.rateLimit);
    expect(inbox({ table: 'jobs', id: 'id' }).rateLimit).toBeUndefined();
    expect(
      inbox({ table: 'jobs', id: 'id', rateLimit: { max: 1, per: '2m', table: 'ops.rates' } }).rateLimit,
    ).toEqual({
      max: 1,
      perMs: 120_000,
      table: 'ops.rates',
      name: 'jobs',
    });
  });

  test('R-FLOW-4 a bad rate limit is a ConfigError naming the table: max not a positive integer, per not a duration or not whole milliseconds, a key, a bad table name', () => {
    const bad = (rateLimit: unknown) => () =>
      inbox({ table: 'jobs', id: 'id', rateLimit: rateLimit as never });
    for (const r of [
      { max: 0, per: '1s' },
      { max: 1.5, per: '1s' },
      { max: -3, per: '1s' },
      { max: '50', per: '1s' },
      { max: 50, per: 0 },
      { max: 50, per: 'soon' },
      { max: 50, per: 0.5 },
      { max: 50, per: '1s', key: 'account' },
      { max: 50, per: '1s', table: 'rates; drop table jobs' },
      null,
    ]) {
      expect(bad(r), JSON.stringify(r)).toThrow(ConfigError);
    }
    try {
      bad({ max: 0, per: '1s' })();
    } catch (err) {
      expect((err as ConfigError).message).toContain('rateLimit.max');
      expect(JSON.stringify(err)).toContain('jobs');
    }
    expect(() => table('jobs', 'id').rateLimit(10, '1s', { table: 'a.b.c' })).toThrow(ConfigError);
  });
});
