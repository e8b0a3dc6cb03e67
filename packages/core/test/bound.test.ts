import { describe, expect, test } from 'vitest';
import { Bounds } from '../src/bound.js';
import type { Dialect, TableOps } from '../src/dialect.js';
import type { Connection, Pool } from '../src/driver.js';
import { classify, StatementTimeoutError } from '../src/errors.js';

/** A pool of fake connections whose statements answer only when `answer` is called. */
function fakePool() {
  const released: string[] = [];
  const destroyed: string[] = [];
  let next = 0;
  const pool: Pool = {
    size: 4,
    spare: () => 4,
    acquire: async () => ({ id: String(++next), query: () => new Promise<never>(() => {}) }) as Connection,
    tryAcquire: async () => ({ id: String(++next), query: () => new Promise<never>(() => {}) }) as Connection,
    release: (c) => void released.push(c.id),
    destroy: async (c) => void destroyed.push(c.id),
  };
  return { pool, released, destroyed };
}

const hangs = () => new Promise<never>(() => {});

describe('statement timeout (R-CLUS-5)', () => {
  test('R-CLUS-5 a statement past its bound fails with StatementTimeoutError, its connection closed and never released', async () => {
    const { pool, released, destroyed } = fakePool();
    const reports: StatementTimeoutError[] = [];
    const bounds = new Bounds(pool, 30, 'jobs', (e) => reports.push(e));
    const ops = bounds.ops({
      settle: (_c: Connection) => hangs(),
      batch: { settleMany: (_c: Connection) => hangs() },
      insert: async (_c: Connection) => [1],
    } as unknown as TableOps);
    const conn = await bounds.pool.acquire();
    const err = await ops.batch!.settleMany(conn, []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatementTimeoutError);
    expect(err).toMatchObject({
      code: 'STATEMENT_TIMEOUT',
      operation: 'settle',
      method: 'settleMany',
      table: 'jobs',
    });
    expect((err as Error).message).toContain(`connection ${conn.id}`);
    expect(reports).toEqual([err]);
    expect(destroyed).toEqual([conn.id]);
    expect(classify({ classifyError: () => 'other' }, err)).toBe('connection');
    // Later calls on it fail at once without reaching the driver; its release closes nothing twice.
    await expect(ops.insert(conn, [])).rejects.toBe(err);
    bounds.pool.release(conn);
    await bounds.pool.destroy(conn);
    expect(released).toEqual([]);
    expect(destroyed).toEqual([conn.id]);
  });

  test('R-CLUS-5 statements started at different times each fail at their own bound (one timer, set again for the next)', async () => {
    const { pool, destroyed } = fakePool();
    const reports: StatementTimeoutError[] = [];
    const bounds = new Bounds(pool, 40, 'jobs', (e) => reports.push(e));
    const ops = bounds.ops({ settle: (_c: Connection) => hangs() } as unknown as TableOps);
    const first = await bounds.pool.acquire();
    const a = ops.settle(first, {} as never).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    const second = await bounds.pool.acquire();
    const b = ops.settle(second, {} as never).catch((e: unknown) => e);
    expect(await a).toBeInstanceOf(StatementTimeoutError);
    expect(await b).toBeInstanceOf(StatementTimeoutError);
    expect(reports.map((r) => r.message)).toEqual([
      expect.stringContaining(`connection ${first.id}`),
      expect.stringContaining(`connection ${second.id}`),
    ]);
    expect(destroyed).toEqual([first.id, second.id]);
  });

  test("R-CLUS-5 a statement within its bound answers; a connection the pool did not lend (the caller's own) is not bounded", async () => {
    const { pool, released, destroyed } = fakePool();
    const bounds = new Bounds(pool, 30, undefined, () => {});
    let answer!: (v: number) => void;
    const ops = bounds.ops({
      settle: async () => 1,
      stats: () => new Promise<number>((r) => (answer = r)),
    } as unknown as TableOps);
    const conn = await bounds.pool.acquire();
    expect(await ops.settle(conn, {} as never)).toBe(1);
    bounds.pool.release(conn);
    expect(released).toEqual([conn.id]);
    const own: Connection = { id: 'own', query: hangs };
    const slow = ops.stats(own, new Date());
    await new Promise((r) => setTimeout(r, 60));
    answer(7);
    expect(await slow).toBe(7);
    expect(destroyed).toEqual([]);
  });

  test("R-CLUS-5 a dialect's transaction statements and its tables' statements are bounded; the rest pass through", async () => {
    const { pool, destroyed } = fakePool();
    const bounds = new Bounds(pool, 30, 'jobs', () => {});
    const dialect = bounds.dialect({
      name: 'fake',
      commit: () => hangs(),
      prepare: () => ({ claimLease: () => hangs() }),
      classifyError: () => 'other',
    } as unknown as Dialect);
    expect(dialect.name).toBe('fake');
    expect(dialect.classifyError(new Error('x'))).toBe('other');
    const a = await bounds.pool.acquire();
    await expect(dialect.commit(a)).rejects.toMatchObject({ operation: 'commit' });
    const b = await bounds.pool.acquire();
    await expect(dialect.prepare({} as never).claimLease(b, 1, new Date(), new Date())).rejects.toMatchObject(
      {
        operation: 'claim',
        method: 'claimLease',
      },
    );
    expect(destroyed).toEqual([a.id, b.id]);
  });

  test('R-CLUS-5 a dialect whose prepare is a non-configurable property (Object.create with a value) and a frozen table are bounded too', async () => {
    const { pool, destroyed } = fakePool();
    const bounds = new Bounds(pool, 30, 'jobs', () => {});
    const base = { name: 'fake', commit: () => hangs() } as unknown as Dialect;
    // As the conformance suite wraps a dialect: `prepare` an own, read-only, non-configurable value.
    const wrapped = Object.create(base, {
      prepare: { value: () => Object.freeze({ claimLease: () => hangs() }) },
    }) as Dialect;
    const dialect = bounds.dialect(wrapped);
    expect(dialect.name).toBe('fake');
    expect('prepare' in dialect).toBe(true);
    const conn = await bounds.pool.acquire();
    await expect(
      dialect.prepare({} as never).claimLease(conn, 1, new Date(), new Date()),
    ).rejects.toMatchObject({
      operation: 'claim',
    });
    expect(destroyed).toEqual([conn.id]);
  });
});
