import { describe, expectTypeOf, test } from 'vitest';
import {
  type Adapter,
  Broker,
  type Codec,
  inbox,
  type PayloadOf,
  queue,
  type TableDescription,
  table,
  typed,
} from '../src/index.js';

declare const adapter: Adapter<'rowlock' | 'lease' | 'advisory', 'read_committed' | 'serializable'>;
declare const textCodec: Codec<string>;

interface Email {
  to: string;
  subject?: string;
}

describe('typed queues', () => {
  test('R-USER-2 typed<T>() on an inbox description types the handler and publish', () => {
    const broker = new Broker(adapter);
    const emails = typed<Email>()(
      inbox({
        table: 'emails',
        id: { column: 'id', generated: true },
        lease: 'locked_until',
        payload: 'payload',
      }),
    );
    expectTypeOf<PayloadOf<typeof emails>>().toEqualTypeOf<Email>();
    // The description keeps its form and stays a description of the broker's dialect.
    expectTypeOf(emails.form).toEqualTypeOf<'lease'>();
    expectTypeOf(emails).toExtend<TableDescription<'lease', undefined>>();
    broker.subscribe(queue(emails), async (email) => {
      expectTypeOf(email).toEqualTypeOf<Email>();
    });
    void broker.publish(emails, { to: 'ada@example.com' });
    void broker.publishMany(emails, [{ to: 'ada@example.com' }, { to: 'bob@example.com', subject: 'hi' }]);
    // @ts-expect-error a wrong payload does not compile
    void broker.publish(emails, { too: 'ada@example.com' });
    // @ts-expect-error nor a missing one
    void broker.publish(emails, undefined);
    // @ts-expect-error nor one wrong element of many
    void broker.publishMany(emails, [{ to: 'ada@example.com' }, { to: 42 }]);
    // @ts-expect-error a handler that expects another message does not compile
    broker.subscribe(queue(emails), async (m: { id: number }) => void m);
  });

  test('R-USER-2 the builder states the message type in .payload<T>(..)', () => {
    const broker = new Broker(adapter);
    const emails = table('emails', 'id', { generated: true })
      .payload<Email>('payload')
      .lease('locked_until')
      .priority('prio')
      .build();
    expectTypeOf<PayloadOf<typeof emails>>().toEqualTypeOf<Email>();
    expectTypeOf(emails.form).toEqualTypeOf<'lease'>();
    expectTypeOf(emails.priority).toEqualTypeOf<string>();
    broker.subscribe(
      queue(emails).workers(2).maxAttempts(3).deadLetter({ table: 'emails_dead' }),
      (email) => {
        expectTypeOf(email).toEqualTypeOf<Email>();
      },
    );
    broker.subscribe(queue(emails).transactional(), async (email) => {
      expectTypeOf(email).toEqualTypeOf<Email>();
    });
    broker.subscribe(queue(emails).batch(10), async (batch) => {
      expectTypeOf(batch[0]!.message).toEqualTypeOf<Email>();
    });
    void broker.publish(emails, { to: 'ada@example.com' }, { priority: 1 });
    // @ts-expect-error a wrong payload does not compile
    void broker.publish(emails, 'ada@example.com');
  });

  test('R-USER-2 a schedule of a typed table takes its message type, or a function of the tick answering it', () => {
    const broker = new Broker(adapter);
    const emails = typed<Email>()(
      inbox({
        table: 'emails',
        id: { column: 'id', generated: true },
        lease: 'locked_until',
        payload: 'payload',
      }),
    );
    broker.schedule('digest', '0 8 * * *', emails, { to: 'team@example.com', subject: 'digest' });
    broker.schedule('dated', '0 8 * * *', emails, (tick) => ({
      to: 'team@example.com',
      subject: tick.at.toISOString(),
    }));
    broker.schedule('async', '0 8 * * *', emails, async () => ({ to: 'team@example.com' }));
    // @ts-expect-error a message of another shape does not compile
    broker.schedule('wrong', '0 8 * * *', emails, { subject: 'no recipient' });
    // @ts-expect-error nor a function answering one
    broker.schedule('wrong-fn', '0 8 * * *', emails, () => 42);
    // A table without a message type takes anything.
    const jobs = inbox({ table: 'jobs', id: 'id', payload: 'payload' });
    broker.schedule('any', '* * * * *', jobs, 'tick');
    broker.schedule('any-fn', '* * * * *', jobs, (tick) => ({ at: tick.at }));
  });

  test('R-USER-2 a description without a message type keeps publish unknown and the handler free', () => {
    const broker = new Broker(adapter);
    const jobs = inbox({ table: 'jobs', id: 'id', payload: 'payload' });
    const built = table('jobs', 'id').payload('payload').build();
    expectTypeOf<PayloadOf<typeof jobs>>().toEqualTypeOf<unknown>();
    expectTypeOf<PayloadOf<typeof built>>().toEqualTypeOf<unknown>();
    void broker.publish(jobs, 42);
    void broker.publish(built, { anything: true });
    void broker.publishMany(jobs, [1, 'two', { three: 3 }]);
    broker.subscribe(queue(jobs), async (m: { id: number }) => void m.id);
    broker.subscribe(queue(built), async (m) => {
      expectTypeOf(m).toBeAny();
    });
  });

  test('R-USER-2 an explicit codec or schema still overrides the description', () => {
    const broker = new Broker(adapter);
    const emails = typed<Email>()(
      inbox({ table: 'emails', id: 'id', lease: 'locked_until', payload: 'payload' }),
    );
    broker.subscribe(queue(emails).codec(textCodec), async (m) => {
      expectTypeOf(m).toEqualTypeOf<string>();
    });
  });
});
