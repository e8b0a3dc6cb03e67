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
          const s = JSON.stringify(m);
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
