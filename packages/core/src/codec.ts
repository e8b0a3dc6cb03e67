import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { AnyTable, PayloadType } from './description.js';
import { DecodeError, EncodeError, messageOf } from './errors.js';

/**
 * How a message becomes the payload column's value and back. The default follows the payload
 * column's type: `json` stores JSON text, `text` stores a string, `bytes` stores a Uint8Array.
 */
export interface Codec<T> {
  /** Turns a message into the payload column's value; a throw refuses the publish (`EncodeError`). */
  encode(message: T): unknown;
  /** Turns the payload column's value, as the driver returns it, into the message; a throw is a `DecodeError`. */
  decode(raw: unknown): T;
}

/** The default codec of a payload column. */
export function defaultCodec(type: PayloadType): Codec<unknown> {
  switch (type) {
    case 'json':
      return {
        encode: (m) => {
          const s = toJson(m);
          if (s === undefined) throw new TypeError('the message has no JSON form');
          return s;
        },
        decode: (raw) =>
          typeof raw === 'string' ? JSON.parse(raw) : raw instanceof Uint8Array ? JSON.parse(utf8(raw)) : raw,
      };
    case 'text':
      return {
        encode: (m) => {
          if (typeof m !== 'string') throw new TypeError('a text payload takes a string');
          return m;
        },
        decode: (raw) => (raw instanceof Uint8Array ? utf8(raw) : String(raw)),
      };
    case 'bytes':
      return {
        encode: (m) => {
          if (!(m instanceof Uint8Array)) throw new TypeError('a bytes payload takes a Uint8Array');
          return m;
        },
        decode: (raw) => (raw instanceof Uint8Array ? raw : typeof raw === 'string' ? Buffer.from(raw) : raw),
      };
  }
}

/**
 * Objects JSON writes as `{}` (or as an object of indexes), losing what they hold, each with what to
 * send instead. Instances of other classes keep their own fields, as plain objects do.
 */
const LOSSY: readonly (readonly [new (...args: never[]) => unknown, string, string])[] = [
  [Map, 'a Map', 'send Object.fromEntries(map), or [...map] for keys that are not strings'],
  [Set, 'a Set', 'send [...set]'],
  [WeakMap, 'a WeakMap', 'send the data it holds as a plain object'],
  [WeakSet, 'a WeakSet', 'send the data it holds as an array'],
  [RegExp, 'a RegExp', 'send its source (regexp.source) and flags as strings'],
  [Error, 'an Error', 'send its message (and name) as strings'],
  [Promise, 'a Promise', 'await it and send its value'],
  [ArrayBuffer, 'an ArrayBuffer', 'send it as base64 text, or use a bytes payload column'],
];

/** What a value JSON cannot carry is, and what to send instead; undefined where JSON carries it. */
function unfit(value: unknown, inArray: boolean): readonly [string, string] | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : [String(value), 'send null, or the number as a string'];
    case 'object': {
      if (value === null || Array.isArray(value)) return undefined;
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) return undefined;
      if (ArrayBuffer.isView(value) && !Buffer.isBuffer(value))
        return ['a typed array', 'send Array.from(it), or use a bytes payload column'];
      for (const [type, what, fix] of LOSSY) if (value instanceof type) return [what, fix];
      return undefined;
    }
    case 'function':
      return ['a function', 'send data, not code: drop the property, or send the name of what to call'];
    case 'symbol':
      return ['a symbol', 'send its description as a string'];
    case 'bigint':
      return ['a BigInt', 'send it as a string (String(n)), or give the queue a codec that encodes it'];
    case 'undefined':
      // A property whose value is undefined is left out, as JSON does; an array's element becomes null.
      return inArray ? ['undefined in an array', 'send null, or leave the element out'] : undefined;
    default:
      return undefined;
  }
}

/** Thrown by {@link refuseUnfit} to leave `JSON.stringify`; {@link toJson} then finds where and why. */
const UNFIT: unique symbol = Symbol('unfit');

/** `JSON.stringify`'s replacer: every value after its toJSON, with its holder as `this`. */
function refuseUnfit(this: unknown, _key: string, value: unknown): unknown {
  if (unfit(value, Array.isArray(this)) !== undefined) throw UNFIT;
  return value;
}

/** The first value JSON cannot carry, walked as `JSON.stringify` walks, with its path. */
function findUnfit(value: unknown, at: string, inArray: boolean, key: string): string | undefined {
  let v = value;
  if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    v = (v as { toJSON(key: string): unknown }).toJSON(key);
  const problem = unfit(v, inArray);
  if (problem !== undefined) return `${at} is ${problem[0]}, which JSON cannot carry. Fix: ${problem[1]}`;
  if (typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = findUnfit(v[i], `${at}[${i}]`, true, String(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const k of Object.keys(v)) {
    const found = findUnfit((v as Record<string, unknown>)[k], `${at}.${k}`, false, k);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `JSON.stringify(message)`, refusing what JSON would drop or change without a word: functions,
 * symbols, BigInts, NaN and Infinity, undefined in an array, Maps, Sets and the like, and cycles.
 * The error names where in the message the value is (`message.items[2].at`) and what to send.
 * The check rides on the one `JSON.stringify` pass; the path is looked for only once one is found.
 */
function toJson(message: unknown): string | undefined {
  try {
    return JSON.stringify(message, refuseUnfit);
  } catch (err) {
    if (err === UNFIT)
      throw new TypeError(findUnfit(message, 'message', false, '') ?? 'the message has no JSON form');
    if (err instanceof TypeError && /circular/i.test(err.message)) {
      const where = /property '([^']+)' closes the circle/.exec(err.message)?.[1];
      throw new TypeError(
        `the message refers to itself${where === undefined ? '' : ` (through its property ${where})`}, and JSON cannot carry a cycle. ` +
          'Fix: send the ids of the objects that point back instead of the objects',
      );
    }
    throw err;
  }
}

function utf8(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
}

/** The row's payload through the codec (the row itself where the table has no payload column). */
export function decodePayload(
  table: AnyTable,
  row: Readonly<Record<string, unknown>>,
  id: unknown,
  codec: Codec<unknown>,
): unknown {
  if (table.payload === undefined) return row;
  try {
    return codec.decode(row[table.payload.column]);
  } catch (err) {
    throw new DecodeError(table.table, id, messageOf(err), [], err);
  }
}

/** A decoded payload through the subscription's schema: its value, or a `DecodeError` naming the issues. */
export async function validatePayload(
  table: AnyTable,
  id: unknown,
  value: unknown,
  schema: StandardSchemaV1,
): Promise<unknown> {
  const result = await schema['~standard'].validate(value);
  if (result.issues) {
    const detail = result.issues.map((i) => i.message).join('; ');
    throw new DecodeError(table.table, id, `schema: ${detail}`, result.issues);
  }
  return result.value;
}

/** Encodes a message for publishing (after the schema, when one is given), or throws an {@link EncodeError}. */
export async function encodeMessage(
  table: AnyTable,
  message: unknown,
  codec: Codec<unknown>,
  schema: StandardSchemaV1 | undefined,
): Promise<unknown> {
  let value = message;
  if (schema !== undefined) {
    const result = await schema['~standard'].validate(message);
    if (result.issues) throw new EncodeError(table.table, result.issues.map((i) => i.message).join('; '));
    value = result.value;
  }
  try {
    return codec.encode(value);
  } catch (err) {
    throw new EncodeError(table.table, messageOf(err), err);
  }
}
