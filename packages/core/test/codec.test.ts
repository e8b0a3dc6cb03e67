import { describe, expect, test } from 'vitest';
import { encodeMessage } from '../src/codec.js';
import { defaultCodec, EncodeError, inbox } from '../src/index.js';

const jobs = inbox({ table: 'jobs', id: { column: 'id', generated: true }, payload: 'payload' });
const json = defaultCodec('json');
const refused = async (message: unknown) => {
  try {
    await encodeMessage(jobs, message, json, undefined);
  } catch (err) {
    expect(err).toBeInstanceOf(EncodeError);
    return (err as Error).message;
  }
  throw new Error('encoded');
};

describe('what JSON cannot carry is refused at publish (pure)', () => {
  test('R-USER-4 functions, Maps, Sets, NaN, Infinity, symbols and undefined in an array: the path and a fix', async () => {
    expect(await refused({ f: () => 1 })).toBe(
      'cannot encode message for jobs: message.f is a function, which JSON cannot carry. Fix: send data, not code: drop the property, or send the name of what to call',
    );
    expect(await refused({ a: { m: new Map([[1, 2]]) } })).toMatch(
      /message\.a\.m is a Map, .* Fix: send Object\.fromEntries\(map\)/,
    );
    expect(await refused({ s: new Set([1]) })).toMatch(/message\.s is a Set, .* Fix: send \[\.\.\.set\]/);
    expect(await refused({ n: Number.NaN })).toMatch(
      /message\.n is NaN, which JSON cannot carry\. Fix: send null/,
    );
    expect(await refused({ xs: [1, { t: Number.POSITIVE_INFINITY }] })).toMatch(
      /message\.xs\[1\]\.t is Infinity/,
    );
    expect(await refused({ u: [1, undefined] })).toMatch(/message\.u\[1\] is undefined in an array/);
    expect(await refused({ s: Symbol('x') })).toMatch(/message\.s is a symbol/);
    expect(await refused({ r: /a/g })).toMatch(/message\.r is a RegExp/);
    expect(await refused({ e: new Error('x') })).toMatch(/message\.e is an Error/);
    expect(await refused({ b: new Uint16Array(2) })).toMatch(/message\.b is a typed array/);
  });

  test('R-USER-4 a BigInt and a cycle are refused with a fix', async () => {
    expect(await refused({ id: 1n })).toMatch(
      /message\.id is a BigInt, .* Fix: send it as a string \(String\(n\)\), or give the queue a codec/,
    );
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    expect(await refused(o)).toMatch(
      /refers to itself \(through its property self\), .* Fix: send the ids of the objects/,
    );
  });

  test('R-USER-4 what JSON carries as it is still encodes: dates as text, absent properties, Buffers, class instances, toJSON', async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const at = new Date('2025-01-01T00:00:00.000Z');
    const value = {
      at,
      gone: undefined,
      buf: Buffer.from('hi'),
      p: new Point(1, 2),
      own: { toJSON: () => 'x' },
      n: [1, null],
    };
    expect(JSON.parse((await encodeMessage(jobs, value, json, undefined)) as string)).toEqual(
      JSON.parse(JSON.stringify(value)),
    );
  });
});
