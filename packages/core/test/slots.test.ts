import { describe, expect, test } from 'vitest';
import { Slots } from '../src/slots.js';

describe('Slots (the lease book and the deliveries in work)', () => {
  test('holds what was added until it is deleted, and reuses freed slots', () => {
    const s = new Slots<{ n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    const c = { n: 3 };
    const sa = s.add(a);
    const sb = s.add(b);
    expect(s.size).toBe(2);
    s.delete(sa, a);
    expect(s.size).toBe(1);
    expect(s.values()).toEqual([b]);
    expect(s.add(c)).toBe(sa);
    expect(s.values().sort((x, y) => x.n - y.n)).toEqual([b, c]);
    s.delete(sb, b);
    s.delete(sa, c);
    expect(s.size).toBe(0);
    expect(s.values()).toEqual([]);
  });

  test('a second delete, or a delete of a slot another object took since, changes nothing', () => {
    const s = new Slots<{ n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    const keep = s.add({ n: 0 });
    const sa = s.add(a);
    s.delete(sa, a);
    const sb = s.add(b);
    expect(sb).toBe(sa);
    s.delete(sa, a);
    s.delete(-1, a);
    expect(s.size).toBe(2);
    expect(
      s
        .values()
        .map((x) => x.n)
        .sort(),
    ).toEqual([0, 2]);
    s.clear();
    s.delete(keep, b);
    expect(s.size).toBe(0);
  });
});
