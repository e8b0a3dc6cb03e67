import { describe, test } from 'vitest';
import { type Adapter, Broker, inbox, type TableDescription, table } from '../src/index.js';

declare const postgresLike: Adapter<
  'rowlock' | 'lease' | 'advisory',
  'read_committed' | 'repeatable_read' | 'serializable'
>;

describe('flow control types', () => {
  test('R-FLOW-1 a priority on a table whose description has no priority column is a type error', () => {
    const broker = new Broker(postgresLike);
    const ranked = inbox({ table: 'jobs', id: 'id', lease: 'locked_until', priority: 'priority' });
    const plain = inbox({ table: 'jobs', id: 'id', lease: 'locked_until' });
    void broker.publish(ranked, {}, { priority: 5, id: 1 });
    // @ts-expect-error the description has no priority column
    void broker.publish(plain, {}, { priority: 5, id: 1 });
    const built = table('jobs', 'id').lease('locked_until').priority('priority').build();
    void broker.publish(built, {}, { priority: 5, id: 1 });
    // @ts-expect-error the built description has no priority column
    void broker.publish(table('jobs', 'id').build(), {}, { priority: 5, id: 1 });
    // A description whose type cannot tell is checked at run time instead (a ConfigError).
    void broker.publish(plain as TableDescription<'lease', undefined>, {}, { priority: 5, id: 1 });
  });

  test('R-FLOW-2 a key on a table whose description has no unique key column is a type error', () => {
    const broker = new Broker(postgresLike);
    const keyed = inbox({ table: 'jobs', id: { column: 'id', generated: true }, uniqueKey: 'job_key' });
    const plain = inbox({ table: 'jobs', id: { column: 'id', generated: true } });
    void broker.publish(keyed, {}, { key: 'order-7' });
    void broker.publishMany(keyed, [{ n: 1 }], { key: (m) => String((m as { n: number }).n) });
    // @ts-expect-error the description has no unique key column
    void broker.publish(plain, {}, { key: 'order-7' });
    // @ts-expect-error the description has no unique key column
    void broker.publishMany(plain, [{}], { key: 'order-7' });
    const built = table('jobs', 'id', { generated: true }).uniqueKey('job_key').build();
    void broker.publish(built, {}, { key: 'order-7' });
  });

  test('R-FLOW-3 per-key concurrency is a key column and a numeric limit, in both spellings', () => {
    const limited = inbox({
      table: 'jobs',
      id: 'id',
      lease: 'locked_until',
      concurrency: { key: 'account', limit: 2 },
    });
    const c: { readonly column: string; readonly limit: number } | undefined = limited.concurrency;
    void c;
    // The key column counts as declared: an advisory placeholder may name it.
    inbox({ table: 'jobs', id: 'id', advisory: 'jobs-{account}', concurrency: { key: 'account', limit: 2 } });
    // @ts-expect-error {account} is not declared without the concurrency key
    inbox({ table: 'jobs', id: 'id', advisory: 'jobs-{account}' });
    // @ts-expect-error the limit is a number
    inbox({ table: 'jobs', id: 'id', lease: 'locked_until', concurrency: { key: 'account', limit: '2' } });
    // @ts-expect-error the key is named `key`
    inbox({ table: 'jobs', id: 'id', lease: 'locked_until', concurrency: { column: 'account', limit: 2 } });
    const built = table('jobs', 'id').lease('locked_until').concurrency('account', 2).build();
    void built.concurrency;
    // @ts-expect-error the builder's concurrency takes a column and a limit
    table('jobs', 'id').lease('locked_until').concurrency('account');
  });
});
