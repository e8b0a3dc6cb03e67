import { describe, expect, test } from 'vitest';
import { ConfigError, inbox } from '../src/index.js';
import { scheduleSettings } from '../src/schedule.js';

const jobs = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  payload: 'payload',
  lease: 'locked_until',
});

describe('schedule settings', () => {
  test('R-FLOW-5 the expression is read in the time zone, and a daily tick keeps its local time across a daylight-saving change', () => {
    const s = scheduleSettings('daily', '30 6 * * *', jobs, {}, { timezone: 'Europe/Berlin' });
    // Berlin is UTC+1 before 29 March 2026 and UTC+2 from then on.
    expect(s.cron.nextRun(new Date('2026-03-27T12:00:00Z'))?.toISOString()).toBe('2026-03-28T05:30:00.000Z');
    expect(s.cron.nextRun(new Date('2026-03-28T12:00:00Z'))?.toISOString()).toBe('2026-03-29T04:30:00.000Z');
    const utc = scheduleSettings('daily', '30 6 * * *', jobs, {}, {});
    expect(utc.timezone).toBe('UTC');
    expect(utc.cron.nextRun(new Date('2026-03-28T12:00:00Z'))?.toISOString()).toBe(
      '2026-03-29T06:30:00.000Z',
    );
  });

  test('R-FLOW-5 six fields take seconds first; the defaults are latest, 100, 24 hours and sqlinbox_schedules', () => {
    const s = scheduleSettings('sweep', '*/10 * * * * *', jobs, {}, {});
    expect(s.cron.nextRun(new Date('2026-01-01T00:00:03.500Z'))?.toISOString()).toBe(
      '2026-01-01T00:00:10.000Z',
    );
    expect([s.catchUp, s.catchUpLimit, s.keepMs, s.ticksTable]).toEqual([
      'latest',
      100,
      24 * 3_600_000,
      'sqlinbox_schedules',
    ]);
  });

  test('R-FLOW-5 a bad expression, time zone, policy, limit, name or tick table is a ConfigError naming the table', () => {
    const bad: [string, string, Parameters<typeof scheduleSettings>[4], RegExp][] = [
      ['a', 'every minute', {}, /cron "every minute"/],
      ['a', '61 * * * *', {}, /cron/],
      ['a', '* * * * *', { timezone: 'Mars/Olympus' }, /time zone Mars\/Olympus/],
      ['a', '* * * * *', { catchUp: 'some' as never }, /catchUp/],
      ['a', '* * * * *', { catchUpLimit: 0 }, /catchUpLimit/],
      ['', '* * * * *', {}, /name/],
      ['x'.repeat(256), '* * * * *', {}, /name/],
      ['a', '* * * * *', { ticksTable: 'ticks; DROP TABLE jobs' }, /ticks table/],
      ['a', '* * * * *', { keep: 'forever' as never }, /keep/],
      ['a', '* * * * *', { group: 'g' }, /group column/],
      ['a', '* * * * *', { priority: 1 }, /priority column/],
      ['a', '* * * * *', { columns: { 'x y': 1 } }, /column/],
    ];
    for (const [name, pattern, opts, message] of bad) {
      let caught: unknown;
      try {
        scheduleSettings(name, pattern, jobs, {}, opts);
      } catch (err) {
        caught = err;
      }
      expect(caught, `${pattern} ${JSON.stringify(opts)}`).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).message).toMatch(message);
      expect((caught as ConfigError).table).toBe('jobs');
    }
  });
});
