import { describe, expect, test } from 'vitest';
import { ConfigError, inbox } from '../src/index.js';
import { replaceOf } from '../src/replace.js';

const full = inbox({
  table: 'jobs',
  id: { column: 'id', generated: true },
  attempt: 'attempt',
  retryAfter: 'retry_after',
  uniqueKey: 'job_key',
  payload: 'payload',
});

describe('replace and debounce options', () => {
  test('R-LIFE-7 nothing asked, nothing added', () => {
    expect(replaceOf(full, { key: 'k' })).toEqual({});
  });

  test('R-LIFE-7 replace marks the insert; debounce replaces with a delay from now', () => {
    expect(replaceOf(full, { key: 'k', replace: true })).toEqual({ replace: true });
    const before = Date.now();
    const d = replaceOf(full, { key: 'k', debounce: '2s' });
    expect(d.replace).toBe(true);
    expect(d.notBefore!.getTime()).toBeGreaterThanOrEqual(before + 2_000);
    expect(d.notBefore!.getTime()).toBeLessThanOrEqual(Date.now() + 2_000);
  });

  test('R-LIFE-7 each missing piece is a ConfigError naming the table and the fix', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('not refused');
    };
    const noKeyColumn = inbox({ table: 'a', id: 'id', attempt: 'attempt', retryAfter: 'r' });
    const noAttempt = inbox({ table: 'b', id: 'id', uniqueKey: 'k', retryAfter: 'r' });
    const noDelay = inbox({ table: 'c', id: 'id', attempt: 'attempt', uniqueKey: 'k' });
    const cases: [() => unknown, string, string][] = [
      [() => replaceOf(full, { replace: true }), 'jobs', 'give the key too'],
      [() => replaceOf(noKeyColumn, { key: 'k', replace: true }), 'a', 'describe the uniqueKey column'],
      [() => replaceOf(noAttempt, { key: 'k', replace: true }), 'b', 'describe the attempt column'],
      [() => replaceOf(noDelay, { key: 'k', debounce: '1s' }), 'c', 'describe the retryAfter column'],
      [
        () => replaceOf(full, { key: 'k', debounce: '1s', notBefore: new Date() }),
        'jobs',
        'give one of the two',
      ],
      [() => replaceOf(full, { key: 'k', debounce: 0 }), '', ''],
    ];
    for (const [f, table, fix] of cases) {
      const err = refusal(f);
      expect(err).toBeInstanceOf(ConfigError);
      if (table !== '') expect(err.table).toBe(table);
      if (fix !== '') expect(err.fix).toContain(fix);
    }
  });
});
