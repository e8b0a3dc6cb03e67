import { describe, expect, test } from 'vitest';
import {
  Broker,
  backoffDelay,
  ConfigError,
  claimErrorPolicy,
  DEFAULT_BACKOFF,
  durationMs,
  HandlerError,
  inbox,
  leaseMs,
  MAX_WORKERS,
  Outcome,
  type Pool,
  queue,
  SettlementError,
  SqlInboxError,
} from '../src/index.js';

const lease = inbox({ table: 'jobs', id: 'id', payload: 'payload', lease: 'locked_until' });

/** A pool that is never used: the settings checks run before any connection. */
const idlePool: Pool = {
  size: 4,
  spare: () => 4,
  acquire: () => Promise.reject(new Error('unused')),
  tryAcquire: () => Promise.resolve(null),
  release: () => {},
  destroy: () => Promise.resolve(),
};
const adapter = { dialect: {} as never, pool: idlePool };

describe('durations', () => {
  test('R-BAD-5 lease(0), lease("0s") and a broker lease of 0 are a ConfigError naming the value', () => {
    expect(() => queue(lease).lease(0)).toThrow(ConfigError);
    expect(() => queue(lease).lease('0s')).toThrow(/lease.*0s/);
    expect(() => queue(lease).lease(-1_000)).toThrow(/lease.*-1000/);
    expect(() => new Broker(adapter, { lease: 0 })).toThrow(/lease.*\b0\b/);
    expect(() => leaseMs(0)).toThrow(ConfigError);
    // A fraction of a second still rounds up to one second, as documented.
    expect(queue(lease).lease('200ms').settings.leaseMs).toBe(1_000);
    expect(queue(lease).lease(0.2).settings.leaseMs).toBe(1_000);
  });

  test('R-BAD-5 every zero or negative duration setting is a ConfigError naming the setting and the value', () => {
    const cases: [string, () => unknown][] = [
      ['pollInterval', () => queue(lease).pollInterval(0)],
      ['pollInterval', () => queue(lease).pollInterval('0ms')],
      ['timeout', () => queue(lease).timeout(0)],
      ['timeout', () => queue(lease).timeout(-5)],
      ['pollInterval', () => new Broker(adapter, { pollInterval: 0 })],
      ['pollInterval', () => new Broker(adapter, { pollInterval: Number.NaN })],
      ['backoff.base', () => queue(lease).backoff({ base: 0 })],
      ['backoff.max', () => queue(lease).backoff({ max: '0s' })],
    ];
    for (const [what, build] of cases) {
      let err: unknown;
      try {
        build();
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(what);
    }
    // A zero shutdown timeout is legal: shutdown releases what is in work at once.
    expect(durationMs(0, 'shutdownTimeout', { zero: true })).toBe(0);
    expect(() => new Broker(adapter, { shutdownTimeout: 0 })).not.toThrow();
  });

  test('R-BAD-5 retryAfter(0) and an instant in the past are legal (due now); a negative or NaN delay is a ConfigError', () => {
    expect(Outcome.retryAfter(0)).toEqual({ kind: 'retryAfter', delayMs: 0 });
    expect(Outcome.retryAfter(new Date(Date.now() - 60_000))).toEqual({ kind: 'retryAfter', delayMs: 0 });
    expect(() => Outcome.retryAfter(-1)).toThrow(/retryAfter.*-1/);
    expect(() => Outcome.retryAfter(Number.NaN)).toThrow(ConfigError);
  });
});

describe('workers', () => {
  test('R-BAD-6 workers(1e9) is a ConfigError naming the value and the bound', () => {
    expect(() => queue(lease).workers(1e9)).toThrow(ConfigError);
    expect(() => queue(lease).workers(1e9)).toThrow(/1000000000/);
    expect(() => queue(lease).workersByKey(MAX_WORKERS + 1)).toThrow(ConfigError);
    expect(queue(lease).workers(MAX_WORKERS).settings.workers).toBe(MAX_WORKERS);
  });
});

describe('backoff', () => {
  test('R-OPS-3 a thrown error backs off by default: exponential in the attempt, capped, with jitter', () => {
    const { baseMs, maxMs, jitter } = DEFAULT_BACKOFF;
    expect(baseMs).toBe(1_000);
    expect(maxMs).toBe(3_600_000);
    expect(jitter).toBe(0.2);
    // random() = 1 gives the full delay; random() = 0 takes the jitter off it.
    expect(backoffDelay(DEFAULT_BACKOFF, 1, () => 0.999999)).toBeCloseTo(1_000, -1);
    expect(backoffDelay(DEFAULT_BACKOFF, 2, () => 0.999999)).toBeCloseTo(2_000, -1);
    expect(backoffDelay(DEFAULT_BACKOFF, 5, () => 0.999999)).toBeCloseTo(16_000, -1);
    expect(backoffDelay(DEFAULT_BACKOFF, 1, () => 0)).toBe(800);
    expect(backoffDelay(DEFAULT_BACKOFF, 40, () => 0.999999)).toBeLessThanOrEqual(3_600_000);
    expect(backoffDelay(DEFAULT_BACKOFF, 40, () => 0)).toBe(0.8 * 3_600_000);
    expect(backoffDelay(DEFAULT_BACKOFF, 1_000_000, Math.random)).toBeLessThanOrEqual(3_600_000);
  });

  test('R-OPS-3 backoff is set per queue; backoff(false) and backoff("immediate") ask for the immediate retry', () => {
    expect(queue(lease).settings.backoff).toBeUndefined();
    expect(queue(lease).backoff({ base: '2s', max: '1m', jitter: 0 }).settings.backoff).toEqual({
      baseMs: 2_000,
      maxMs: 60_000,
      jitter: 0,
    });
    expect(queue(lease).backoff({ base: 500 }).settings.backoff).toEqual({ ...DEFAULT_BACKOFF, baseMs: 500 });
    expect(queue(lease).backoff(false).settings.backoff).toBe(false);
    expect(queue(lease).backoff('immediate').settings.backoff).toBe(false);
    expect(() => queue(lease).backoff({ jitter: 1.5 })).toThrow(/jitter.*1\.5/);
    expect(() => queue(lease).backoff({ base: '2m', max: '1m' })).toThrow(ConfigError);
    expect(() => queue(lease).backoff('often' as never)).toThrow(ConfigError);
    // A returned retry() keeps its meaning: immediate (the policy is for thrown errors).
    expect(Outcome.retry()).toEqual({ kind: 'retry' });
  });
});

describe('errors', () => {
  test('R-BAD-7 HandlerError wraps a thrown non-Error: code, table, row id and what was thrown', () => {
    const e = new HandlerError('jobs', 7, 'text');
    expect(e).toBeInstanceOf(SqlInboxError);
    expect(e.code).toBe('HANDLER');
    expect(e.table).toBe('jobs');
    expect(e.rowId).toBe(7);
    expect(e.thrown).toBe('text');
    expect(e.message).toBe('handler of jobs row 7 threw a non-Error: the string "text"');
    expect(new HandlerError('jobs', 7, undefined).message).toContain('threw a non-Error: undefined');
    expect(new HandlerError('jobs', 7, { a: 1 }).message).toContain('an object {"a":1}');
    expect(new HandlerError('jobs', 7, 42).message).toContain('the number 42');
  });

  test('R-OPS-5 a settlement error carries the kind its dialect classified (default other)', () => {
    const e = new SettlementError('jobs', 1, new Error('x'), 'constraint');
    expect(e.kind).toBe('constraint');
    expect(e.message).toContain('(constraint)');
    expect(new SettlementError('jobs', 1, new Error('x')).kind).toBe('other');
  });

  test('R-OPS-5 R-CLUS-2 the claim error policy: a lost connection is retired and the next claim comes at once on a fresh one, then at most half a second apart; serialization and deadlock retry soon', () => {
    const poll = 1_000;
    const conn = claimErrorPolicy('connection', 1, poll);
    expect(conn.retire).toBe(true);
    expect(conn.delayMs).toBeGreaterThan(0); // never a spin
    expect(conn.delayMs).toBeLessThanOrEqual(50);
    expect([2, 3, 4, 5, 6].map((n) => claimErrorPolicy('connection', n, poll).delayMs)).toEqual([
      100, 200, 400, 500, 500,
    ]);
    // Never a busy database's backoff, however long the outage.
    expect(claimErrorPolicy('connection', 50, poll).delayMs).toBe(500);
    expect(claimErrorPolicy('shutdown', 1, poll).retire).toBe(true);
    // An outage of minutes logs a warning for the first three failures and every tenth, not each.
    expect([1, 2, 3, 4, 9, 10, 11].map((n) => claimErrorPolicy('connection', n, poll).level)).toEqual([
      'warn',
      'warn',
      'warn',
      'debug',
      'debug',
      'warn',
      'debug',
    ]);
    for (const kind of ['serialization', 'deadlock', 'lock_timeout'] as const) {
      const p = claimErrorPolicy(kind, 1, poll);
      expect(p.retire).toBe(false);
      expect(p.delayMs).toBeGreaterThan(0); // never a spin
      expect(p.delayMs).toBeLessThanOrEqual(50);
      // Many in a row fall back to the ordinary backoff.
      expect(claimErrorPolicy(kind, 10, poll).delayMs).toBeGreaterThanOrEqual(poll);
    }
    expect(claimErrorPolicy('constraint', 2, poll)).toMatchObject({ retire: false, delayMs: 2_000 });
    expect(claimErrorPolicy('other', 1, poll).level).toBe('error');
    expect(claimErrorPolicy('connection', 1, poll).level).toBe('warn');
  });
});
