import { describe, expect, test } from 'vitest';
import { ConfigError, checkConnectionLimit, inbox, queue, ThreadQueue } from '../src/index.js';

const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
const handler = new URL('./handler.mjs', 'file:///app/');

describe('R-POOL-9 connection arithmetic (pure)', () => {
  const service = { pool: 10, listener: 0 };

  test('R-POOL-9 the service pool plus threads x connections of every thread subscription must fit the limit', () => {
    expect(checkConnectionLimit(16, service, [], { table: 'a', threads: 2, connections: 3 })).toBe(16);
    expect(
      checkConnectionLimit(20, service, [{ table: 'a', threads: 2, connections: 3 }], {
        table: 'b',
        threads: 4,
        connections: 1,
      }),
    ).toBe(20);
    expect(() =>
      checkConnectionLimit(19, service, [{ table: 'a', threads: 2, connections: 3 }], {
        table: 'b',
        threads: 4,
        connections: 1,
      }),
    ).toThrow(ConfigError);
  });

  test('R-POOL-9 the refusal names the table and the numbers', () => {
    let err: unknown;
    try {
      checkConnectionLimit(15, service, [{ table: 'a', threads: 1, connections: 2 }], {
        table: 'b',
        threads: 2,
        connections: 2,
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).table).toBe('b');
    expect((err as Error).message).toBe(
      "table b: onThreads needs 2 threads x 2 connections = 4; with the service pool (10) and the other thread pools (2) that is 16, over the broker's connectionLimit of 15. Fix: fewer threads or connections, a smaller service pool, or a higher connectionLimit",
    );
  });

  test('R-POOL-9 a wake-up listener counts as one more service connection; no limit accepts anything', () => {
    const demand = { table: 'a', threads: 1, connections: 5 };
    expect(checkConnectionLimit(16, { pool: 10, listener: 1 }, [], demand)).toBe(16);
    expect(() => checkConnectionLimit(15, { pool: 10, listener: 1 }, [], demand)).toThrow(
      /service pool and listener \(10 \+ 1\)/,
    );
    expect(checkConnectionLimit(undefined, { pool: 10, listener: 1 }, [], { ...demand, threads: 100 })).toBe(
      511,
    );
  });
});

describe('R-POOL-9 onThreads settings', () => {
  test('R-POOL-9 defaults one connection per thread and at least one worker per thread', () => {
    const q = queue(jobs).onThreads({ threads: 3, handler });
    expect(q).toBeInstanceOf(ThreadQueue);
    expect(q.threads).toEqual({
      threads: 3,
      connections: 1,
      handler: 'file:///app/handler.mjs',
      data: undefined,
    });
    expect(q.settings.workers).toBe(3);
    expect(queue(jobs).workers(8).onThreads({ threads: 2, handler }).settings.workers).toBe(8);
  });

  test('R-POOL-9 threads and connections must be whole and positive; the handler a module URL or path', () => {
    expect(() => queue(jobs).onThreads({ threads: 0, handler })).toThrow(ConfigError);
    expect(() => queue(jobs).onThreads({ threads: 1, connections: 1.5, handler })).toThrow(/connections/);
    expect(() => queue(jobs).onThreads({ threads: 1, handler: '' })).toThrow(/handler/);
  });

  test('R-POOL-9 R-POOL-8 a batch queue on threads is a ConfigError: a thread takes one message at a time', () => {
    const err = (() => {
      try {
        // Types aside (a batch queue's flags differ): the builder refuses it at run time.
        (queue(jobs).batch(4) as unknown as ReturnType<typeof queue<typeof jobs>>).onThreads({
          threads: 1,
          handler,
        });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).table).toBe(jobs.table);
    expect(String((err as Error).message)).toMatch(/batch queue cannot run on threads/);
  });

  test('R-POOL-9 a transactional queue on threads is a ConfigError: ctx.tx cannot cross threads', () => {
    const tx = queue(jobs).transactional();
    // @ts-expect-error transactional queues do not run on threads (also a type error)
    expect(() => tx.onThreads({ threads: 1, handler })).toThrow(/ctx\.tx cannot cross threads/);
  });
});
