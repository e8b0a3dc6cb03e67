/**
 * How a bound JavaScript value is typed for SQL Server. Every statement of the dialect binds plain
 * values (`@p1..@pN`); a driver declares each parameter's SQL type from its value, as here. Kept
 * apart from the tedious driver so another driver (or a test) can use it without tedious.
 */

/** The SQL Server parameter types a value may be sent as (tedious `TYPES` names). */
export type ParameterType = 'Int' | 'BigInt' | 'Float' | 'NVarChar' | 'DateTime2' | 'VarBinary' | 'Bit';

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/**
 * The type of a bound value: an integer number `Int` within 32 bits, `BigInt` beyond (and a JS
 * bigint), other numbers `Float`; a string `NVarChar` (`nvarchar(max)` past 4000 characters); a
 * Date `DateTime2` (sent in UTC, millisecond precision kept); a Buffer or Uint8Array `VarBinary`; a
 * boolean `Bit`; null and undefined a NULL `NVarChar`, which converts implicitly to every column
 * type the dialect writes except binary ones. Anything else is refused: the engine never binds it.
 */
export function parameterType(value: unknown): ParameterType {
  if (value === null || value === undefined) return 'NVarChar';
  switch (typeof value) {
    case 'number':
      if (Number.isInteger(value)) return value >= INT_MIN && value <= INT_MAX ? 'Int' : 'BigInt';
      return 'Float';
    case 'bigint':
      return 'BigInt';
    case 'string':
      return 'NVarChar';
    case 'boolean':
      return 'Bit';
    default:
      if (value instanceof Date) return 'DateTime2';
      if (value instanceof Uint8Array) return 'VarBinary';
      throw new TypeError(
        `sqlinbox: cannot bind a ${Object.prototype.toString.call(value)} to a SQL Server parameter`,
      );
  }
}

/** The value as the driver sends it: undefined as null, a Uint8Array as a Buffer over the same bytes. */
export function parameterValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return value;
}
