import { describe, expect, test } from 'vitest';
import { ConfigError, inbox, queue } from '../src/index.js';

describe('batch queue settings', () => {
  const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });

  test('R-POOL-8 batch(n) sets the rows a claim takes and keeps the other settings, in any order', () => {
    const q = queue(jobs).workers(3).batch(25).maxAttempts(4);
    expect(q.settings).toMatchObject({ batch: 25, workers: 3, maxAttempts: 4, transactional: false });
    expect(queue(jobs).settings.batch).toBeUndefined();
    expect(() => queue(jobs).batch(0)).toThrow(ConfigError);
    expect(() => queue(jobs).batch(2.5)).toThrow(/batch must be a whole number/);
  });

  test('R-TX-5 past the types, a transactional batch queue is a ConfigError naming the table', () => {
    const batch = queue(jobs).batch(10) as unknown as { transactional(): unknown };
    expect(() => batch.transactional()).toThrow(ConfigError);
    expect(() => batch.transactional()).toThrow(/table jobs: a batch queue cannot be mounted transactional/);
    const tx = queue(jobs).transactional() as unknown as { batch(n: number): unknown };
    expect(() => tx.batch(10)).toThrow(ConfigError);
  });
});
