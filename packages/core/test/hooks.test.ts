import { describe, expect, test } from 'vitest';
import { Events } from '../src/events.js';

describe('R-HOUSE-1 handler hooks (broker.aroundHandler)', () => {
  const call = { table: 'jobs', id: 1, attempt: 1 };

  test('R-HOUSE-1 without a hook the handler is called directly; each hook wraps the one added before, the last outermost', () => {
    const events = new Events();
    expect(events.hooked).toBe(false);
    const order: string[] = [];
    const offA = events.around((c, run) => {
      order.push(`a in ${String(c.id)}`);
      const r = run();
      order.push('a out');
      return r;
    });
    events.around((_c, run) => {
      order.push('b in');
      const r = run();
      order.push('b out');
      return r;
    });
    expect(events.hooked).toBe(true);
    const handler = () => {
      order.push('handler');
      return 42;
    };
    expect(events.handle(call, handler)).toBe(42);
    expect(order).toEqual(['b in', 'a in 1', 'handler', 'a out', 'b out']);
    offA();
    order.length = 0;
    events.handle(call, () => order.push('handler'));
    expect(order).toEqual(['b in', 'handler', 'b out']);
  });

  test("R-HOUSE-1 a hook answers the handler's promise; a handler's throw reaches the caller", async () => {
    const events = new Events();
    events.around((_c, run) => run());
    await expect(events.handle(call, async () => 'done')).resolves.toBe('done');
    expect(() =>
      events.handle(call, () => {
        throw new Error('handler failed');
      }),
    ).toThrow('handler failed');
  });
});
