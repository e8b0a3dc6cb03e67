import { describe, expectTypeOf, test } from 'vitest';
import { type Adapter, Broker, inbox, type MountedSchedule, type Tick } from '../src/index.js';

declare const sqliteLike: Adapter<'lease' | 'advisory', never>;

describe('schedule types', () => {
  test('R-FLOW-5 a payload function receives the tick; a table the database cannot run is a type error', () => {
    const broker = new Broker(sqliteLike);
    const jobs = inbox({
      table: 'jobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      lease: 'locked_until',
    });
    const mounted = broker.schedule('nightly', '0 3 * * *', jobs, (tick) => {
      expectTypeOf(tick).toEqualTypeOf<Tick>();
      return { at: tick.at.toISOString() };
    });
    expectTypeOf(mounted).toEqualTypeOf<MountedSchedule>();
    expectTypeOf(mounted.next()).toEqualTypeOf<Date | null>();
    broker.schedule('fixed', '*/5 * * * * *', jobs, { fixed: true }, { catchUp: 'all', catchUpLimit: 10 });
    // @ts-expect-error catchUp is 'latest', 'all' or 'none'
    broker.schedule('bad', '* * * * *', jobs, {}, { catchUp: 'some' });
    const locked = inbox({ table: 'jobs', id: 'id', payload: 'payload' });
    // @ts-expect-error SQLite has no row lock form
    broker.schedule('rowlock', '* * * * *', locked, {});
  });
});
