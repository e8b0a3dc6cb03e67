import { describe, expectTypeOf, test } from 'vitest';
import { type Adapter, Broker, inbox, type Queryable, queue } from '../src/index.js';

// Adapters as the dialect packages type them: SQLite takes no row lock form and declares no
// isolation level; PostgreSQL runs every form but never read_uncommitted.
declare const sqliteLike: Adapter<'lease' | 'advisory', never>;
declare const postgresLike: Adapter<
  'rowlock' | 'lease' | 'advisory',
  'read_committed' | 'repeatable_read' | 'serializable'
>;

describe('broker types', () => {
  test('R-ROW-6 a row lock table on SQLite is a type error at subscribe', () => {
    const broker = new Broker(sqliteLike);
    const rowlock = inbox({ table: 'jobs', id: 'id' });
    const leased = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
    broker.subscribe(queue(leased), async () => {});
    // @ts-expect-error SQLite has no row locks
    broker.subscribe(queue(rowlock), async () => {});
  });

  test('R-DESC-4 read_uncommitted on a PostgreSQL table is a type error where the broker is PostgreSQL', () => {
    const broker = new Broker(postgresLike);
    const rc = inbox({ table: 'jobs', id: 'id', isolation: 'read_committed' });
    const ru = inbox({ table: 'jobs', id: 'id', isolation: 'read_uncommitted' });
    broker.subscribe(queue(rc), async () => {});
    // @ts-expect-error PostgreSQL runs READ UNCOMMITTED as READ COMMITTED; its dialect does not open it
    broker.subscribe(queue(ru), async () => {});
  });

  test('R-TX-1 ctx.tx is a transaction only on a queue mounted transactional()', () => {
    const broker = new Broker(postgresLike);
    const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
    broker.subscribe(queue(jobs).transactional(), async (_m, ctx) => {
      expectTypeOf(ctx.tx).toEqualTypeOf<Queryable>();
    });
    broker.subscribe(queue(jobs), async (_m, ctx) => {
      expectTypeOf(ctx.tx).toEqualTypeOf<undefined>();
    });
  });

  test('R-PLUS-4 a Standard Schema types the message', () => {
    const broker = new Broker(postgresLike);
    const jobs = inbox({ table: 'jobs', id: 'id', lease: 'locked_until', payload: 'payload' });
    const schema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (v: unknown) => ({ value: v as { n: number } }),
        types: undefined as unknown as { input: unknown; output: { n: number } },
      },
    };
    broker.subscribe(queue(jobs).schema(schema), async (m) => {
      expectTypeOf(m).toEqualTypeOf<{ n: number }>();
    });
  });
});
