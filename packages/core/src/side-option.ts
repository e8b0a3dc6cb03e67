import { ConfigError } from './errors.js';

/**
 * The table name a description's side-table option gives (`true`, or `{ table }`): the name, or
 * undefined for `true` (the feature's default). Throws a {@link ConfigError} naming the queue table
 * where the option is neither, with an example of both.
 */
export function sideTableOption(
  input: unknown,
  /** The description's key (`control`, `steps`, `flows`). */
  key: string,
  /** The queue table. */
  table: string,
  /** A table name the fix shows. */
  example: string,
): string | undefined {
  if (input === true) return undefined;
  if (input === null || typeof input !== 'object') {
    throw new ConfigError(`${key} is true or { table }`, {
      table,
      fix: `write ${key}: true or { table: '${example}' }`,
    });
  }
  return (input as { table?: string }).table;
}
