import { describe, expect, test } from 'vitest';
import {
  Budget,
  ClosedError,
  ConfigError,
  inbox,
  KeyPart,
  keyOf,
  LeaseLostError,
  leaseMs,
  namedColumns,
  Outcome,
  outbox,
  type Pool,
  parseKeyTemplate,
  planOf,
  queue,
  ServerTooOldError,
  SqlInboxError,
  table,
  validateIdentifier,
} from '../src/index.js';

const limits = (maxAttempts?: number, hasRetryAfter = true) => ({ maxAttempts, hasRetryAfter, now: 1_000 });

describe('outcomes and plans (pure)', () => {
  test('R-SET-2 ack and drop both finish the row', () => {
    expect(planOf(Outcome.ack(), 1, limits(), () => {})).toEqual({ kind: 'finish', outcome: 'ack' });
    expect(planOf(Outcome.drop(), 9, limits(3), () => {})).toEqual({ kind: 'finish', outcome: 'drop' });
  });

  test('R-DLQ-1 a retry at the limit dead-letters with a warning; maxAttempts(1) at the first failure', () => {
    const warnings: string[] = [];
    expect(planOf(Outcome.retry(), 3, limits(3), (m) => warnings.push(m))).toEqual({
      kind: 'deadLetter',
      outcome: 'retry',
    });
    expect(planOf(Outcome.retryAfter(10), 1, limits(1), (m) => warnings.push(m)).kind).toBe('deadLetter');
    expect(planOf(Outcome.retry(), 2, limits(3), (m) => warnings.push(m)).kind).toBe('return');
    expect(warnings).toHaveLength(2);
  });

  test('R-SET-3 retryAfter without a retry_after column is a retry, with a warning', () => {
    const warnings: string[] = [];
    expect(planOf(Outcome.retryAfter(5_000), 1, limits(undefined, false), (m) => warnings.push(m))).toEqual({
      kind: 'return',
      outcome: 'retry',
      retryAfter: undefined,
    });
    expect(warnings[0]).toMatch(/retry_after/);
    expect(planOf(Outcome.retryAfter(5_000), 1, limits(), () => {})).toEqual({
      kind: 'return',
      outcome: 'retryAfter',
      retryAfter: new Date(6_000),
    });
  });

  test('R-ATT-3 the core ships no mandatory backoff: retry() returns the row at once', () => {
    expect(planOf(Outcome.retry(), 5, limits(), () => {})).toEqual({
      kind: 'return',
      outcome: 'retry',
      retryAfter: undefined,
    });
  });
});

describe('lease length', () => {
  test('R-LEASE-5 whole seconds, at least one; shorter or fractional leases round up', () => {
    expect(leaseMs('30s')).toBe(30_000);
    expect(leaseMs(1_500)).toBe(2_000);
    expect(leaseMs('200ms')).toBe(1_000);
    // Zero is no lease: a ConfigError naming the value (R-BAD-5).
    expect(() => leaseMs(0)).toThrow(ConfigError);
    expect(leaseMs('1m')).toBe(60_000);
    expect(() => leaseMs('soon' as never)).toThrow(ConfigError);
  });
});

describe('identifiers and keys', () => {
  test('R-DESC-7 identifiers are validated when the description is built, naming the column', () => {
    expect(validateIdentifier('app.jobs', 'table', undefined, true)).toBe('app.jobs');
    expect(() => inbox({ table: 'jobs; drop table x', id: 'id' })).toThrow(ConfigError);
    const err = (() => {
      try {
        inbox({ table: 'jobs', id: 'id', attempt: 'attempt"--' });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.table).toBe('jobs');
    expect(err?.column).toBe('attempt"--');
    expect(() => table('jobs', 'id').payload('pay load')).toThrow(ConfigError);
  });

  test('R-BAD-2 one identifier rule: tables (schema.table), columns, dead-letter and outbox tables, refused with the reason', () => {
    const refusal = (f: () => unknown): ConfigError | undefined => {
      try {
        f();
      } catch (e) {
        return e as ConfigError;
      }
      return undefined;
    };
    for (const ok of ['jobs', '_j1', 'app.jobs', `${'a'.repeat(63)}.${'b'.repeat(63)}`])
      expect(validateIdentifier(ok, 'table', undefined, true)).toBe(ok);
    const bad: [string, RegExp][] = [
      ['', /empty/],
      ['a.', /part is empty/],
      ['.', /part is empty/],
      ['.a', /part is empty/],
      ['a.b.c', /more than one dot/],
      ['a\u0000b', /NUL/],
      ['1jobs', /"1" first/],
      ['jo bs', /" "/],
      ['jobs"--', /"\\""/],
      ['a`b', /"`"/],
      ['é', /"é"/],
      ['a'.repeat(64), /longer than 63/],
    ];
    for (const [name, why] of bad) {
      const err = refusal(() => validateIdentifier(name, 'dead-letter table', 'jobs', true));
      expect(err, name).toBeInstanceOf(ConfigError);
      expect(err?.message, name).toContain(`invalid dead-letter table identifier ${JSON.stringify(name)}: `);
      expect(err?.message, name).toMatch(why);
      expect(err?.table).toBe('jobs');
    }
    // A column is never qualified.
    expect(refusal(() => validateIdentifier('a.b', 'column', 'jobs'))?.message).toMatch(/contains a dot/);
    expect(refusal(() => validateIdentifier(7 as never, 'column', 'jobs'))?.message).toMatch(
      /a number, not a string/,
    );
    // Where a queue and a stats call are built.
    const d = inbox({ table: 'jobs', id: 'id', payload: 'payload' });
    for (const name of ['a.', '.', 'a.b.c', 'a\u0000b', 'x; DROP TABLE y'])
      expect(refusal(() => queue(d).deadLetter({ table: name }))?.message).toMatch(
        /invalid dead-letter table identifier/,
      );
    expect(queue(d).deadLetter({ table: 'app.jobs_dlq' }).settings.deadLetter).toEqual({
      table: 'app.jobs_dlq',
    });
    expect(refusal(() => queue(d).deadLetter({ group: '' }))?.message).toMatch(/dead-letter group/);
    expect(refusal(() => queue(d).deadLetter({} as never))?.message).toMatch(/one of the two/);
    // Outbox tables are descriptions: the same rule.
    expect(
      refusal(() => outbox({ table: 'a.b.c', id: 'id', payload: 'p', processedAt: 'done' } as never)),
    ).toBeInstanceOf(ConfigError);
  });

  test('R-DESC-3 a key template parses into literal and column parts; a row renders its key', () => {
    expect(parseKeyTemplate('accounts-{account}', 't')).toEqual([
      { literal: 'accounts-' },
      { column: 'account' },
    ]);
    expect(() => parseKeyTemplate('no-columns', 't')).toThrow(ConfigError);
    expect(() => parseKeyTemplate('bad-{a b}', 't')).toThrow(ConfigError);
    const d = inbox({ table: 'acc', id: 'id', advisory: 'accounts-{account}', columns: ['account'] });
    expect(keyOf(d, { id: 1, account: 7 })).toBe('accounts-7');
  });

  test('R-DESC-3 both spellings build the same value', () => {
    const declared = inbox({
      table: 'jobs',
      id: { column: 'job_id', generated: true },
      advisory: 'jobs-{job_id}',
      attempt: { column: 'attempt', generated: true },
      payload: 'payload',
    });
    const built = table('jobs', 'job_id', { generated: true })
      .advisory([KeyPart.literal('jobs-'), KeyPart.column('job_id')])
      .attempt('attempt', { generated: true })
      .payload('payload')
      .build();
    expect(built).toEqual(declared);
  });

  test('R-DESC-2 R-DESC-5 R-DESC-6 the run-time checks mirror the type rules for plain JavaScript callers', () => {
    const lock = async () => true;
    expect(() => inbox({ table: 't', id: 'id', lease: 'l', advisory: '{id}' } as never)).toThrow(ConfigError);
    expect(() => inbox({ table: 't', id: 'id', lease: 'l', clock: 'database' } as never)).toThrow(
      ConfigError,
    );
    expect(() => inbox({ table: 't', id: 'id', advisory: '{id}', lock } as never)).toThrow(ConfigError);
    expect(() => inbox({ table: 't', id: 'id', lease: 'l', lock, unlock: lock } as never)).toThrow(
      ConfigError,
    );
  });
});

describe('per-key concurrency', () => {
  test('R-FLOW-3 both spellings build the same concurrency; the key joins the named columns', () => {
    const declared = inbox({
      table: 'jobs',
      id: 'id',
      lease: 'locked_until',
      concurrency: { key: 'account', limit: 3 },
    });
    const built = table('jobs', 'id').lease('locked_until').concurrency('account', 3).build();
    expect(built).toEqual(declared);
    expect(declared.concurrency).toEqual({ column: 'account', limit: 3 });
    expect(namedColumns(declared)).toContainEqual({ column: 'account', role: 'concurrencyKey' });
    expect(inbox({ table: 'jobs', id: 'id' }).concurrency).toBeUndefined();
  });

  test('R-FLOW-3 a limit that is not a positive integer, or a key that is no identifier, is a ConfigError naming table and column', () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2']) {
      const err = refusal(() =>
        inbox({ table: 'jobs', id: 'id', lease: 'l', concurrency: { key: 'account', limit } } as never),
      );
      expect(err, String(limit)).toBeInstanceOf(ConfigError);
      expect(err).toMatchObject({ table: 'jobs', column: 'account' });
      expect(
        refusal(() =>
          table('jobs', 'id')
            .lease('l')
            .concurrency('account', limit as never),
        ),
      ).toBeInstanceOf(ConfigError);
    }
    expect(refusal(() => table('jobs', 'id').concurrency('acc ount', 2))).toMatchObject({
      table: 'jobs',
      column: 'acc ount',
    });
    expect(refusal(() => inbox({ table: 'jobs', id: 'id', concurrency: 'account' } as never))).toBeInstanceOf(
      ConfigError,
    );
  });
});

describe('errors', () => {
  test('R-ERR-1 error classes are instanceof-able and carry code, table and row id', () => {
    const lost = new LeaseLostError('jobs', 7);
    expect(lost).toBeInstanceOf(SqlInboxError);
    expect(lost).toMatchObject({ name: 'LeaseLostError', code: 'LEASE_LOST', table: 'jobs', rowId: 7 });
    expect(new ClosedError('settle', { table: 'jobs', rowId: 1 })).toMatchObject({
      code: 'CLOSED',
      rowId: 1,
    });
    const old = new ServerTooOldError('PostgreSQL', '10.5', '11');
    expect(old.message).toMatch(/10\.5.*11/);
    const cfg = new ConfigError('missing', { table: 'jobs', column: 'attempt', fix: 'add it' });
    expect(cfg.message).toBe('table jobs, column attempt: missing. Fix: add it');
  });
});

describe('pool budget (pure)', () => {
  const pool = (size: number, spare: () => number): Pool => ({
    size,
    spare,
    acquire: () => Promise.reject(new Error('unused')),
    tryAcquire: () => Promise.resolve(null),
    release: () => {},
    destroy: () => Promise.resolve(),
  });

  test('R-POOL-2 holds at most the pool size less one; a claim beside another needs a spare connection', () => {
    let spare = 4;
    const b = new Budget(pool(4, () => spare));
    expect(b.limit).toBe(3);
    expect(b.tryTakeForClaim()).toBe(true);
    spare = 1; // only one connection left in the pool
    expect(b.tryTakeForClaim()).toBe(false); // beside a claim in flight, none to spare
    b.claimDone();
    expect(b.tryTakeForClaim()).toBe(true); // alone it may take the room
    b.claimDone();
    expect(b.tryTake()).toBe(true);
    expect(b.tryTake()).toBe(false); // 3 held: the limit
    expect(b.peak).toBe(3);
    b.give();
    expect(b.held).toBe(2);
  });
});

describe('queue settings', () => {
  test('R-POOL-1 workers and lanes must be whole and positive', () => {
    const d = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
    expect(queue(d).workers(4).settings.workers).toBe(4);
    expect(queue(d).workersByKey(3).settings).toMatchObject({ lanes: 3, workers: 3 });
    expect(() => queue(d).workers(0)).toThrow(ConfigError);
    expect(queue(d).lease(1.2).settings.leaseMs).toBe(1_000);
  });
});

describe('description keys', () => {
  test('R-USER-4 a key a description does not take is a ConfigError naming the table, the key and the key it is closest to', () => {
    const typo = { table: 'jobs', id: 'id', proccessedAt: 'processed_at' };
    const err = (() => {
      try {
        inbox(typo as never);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toMatchObject({ code: 'CONFIG', table: 'jobs' });
    expect((err as Error).message).toContain('unknown key "proccessedAt"');
    expect((err as Error).message).toContain('did you mean "processedAt"?');
    // Every key the description takes is accepted.
    expect(inbox({ table: 'jobs', id: 'id', processedAt: 'processed_at', columns: ['a'] }).processedAt).toBe(
      'processed_at',
    );
  });
});
