import { describe, expectTypeOf, test } from 'vitest';
import { inbox, type RateLimit, table } from '../src/index.js';

describe('rate limit types', () => {
  test('R-FLOW-4 a rate limit is { max, per } with per a duration; the description carries it resolved', () => {
    const limited = inbox({
      table: 'jobs',
      id: 'id',
      lease: 'locked_until',
      rateLimit: { max: 50, per: '1s' },
    });
    expectTypeOf(limited.rateLimit).toEqualTypeOf<RateLimit | undefined>();
    inbox({ table: 'jobs', id: 'id', rateLimit: { max: 50, per: 250, table: 'app.rates' } });
    // @ts-expect-error per is a duration: milliseconds or text such as '1s'
    inbox({ table: 'jobs', id: 'id', rateLimit: { max: 50, per: 'a second' } });
    // @ts-expect-error max is required
    inbox({ table: 'jobs', id: 'id', rateLimit: { per: '1s' } });
    const built = table('jobs', 'id').lease('locked_until').rateLimit(50, '1s').build();
    expectTypeOf(built.rateLimit).toEqualTypeOf<RateLimit | undefined>();
    // @ts-expect-error per is a duration
    table('jobs', 'id').rateLimit(50, 'soon');
  });
});
