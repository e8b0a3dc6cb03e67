import type { AnyTable } from './description.js';
import { type Duration, durationMs } from './duration.js';
import { ConfigError } from './errors.js';

/** The publish options that make a keyed publish replace the row holding its key (see `PublishOptions`). */
export interface ReplaceOptions {
  /**
   * With `key`: where an unsettled row that has not started holds the key, this publish writes its
   * payload and delay (`notBefore`, or due at once) into that row instead of inserting, and answers
   * its id. A row that has started (claimed once: its attempt counted) is never changed: the
   * publish answers its id, as a plain keyed publish does. Needs the unique key and attempt
   * columns. Default: false, the first row's payload stays.
   */
  readonly replace?: boolean;
  /**
   * With `key`: `replace`, due this long from now, so a burst of publishes of one key runs once,
   * with the last payload, `debounce` after the last of them. Needs a `retryAfter` column; not
   * with `notBefore`. Default: none.
   */
  readonly debounce?: Duration;
}

/**
 * The fields of an insert that `replace` and `debounce` add, validated against the table: a
 * `ConfigError` naming the table and the column a replacing publish needs, and how to fix it.
 */
export function replaceOf(
  table: AnyTable,
  opts: ReplaceOptions & {
    /** The publish's key option (a value or a function). */
    readonly key?: unknown;
    /** The publish's delay. */
    readonly notBefore?: Date;
  },
): {
  /** Replace the unstarted holder of the key. */
  replace?: true;
  /** The delay `debounce` gives. */
  notBefore?: Date;
} {
  const debounce = opts.debounce === undefined ? undefined : durationMs(opts.debounce, 'debounce');
  if (opts.replace !== true && debounce === undefined) return {};
  const what = debounce === undefined ? 'replace' : 'debounce';
  if (opts.key === undefined) {
    throw new ConfigError(`publish with ${what} but no key: it replaces the row holding the key`, {
      table: table.table,
      fix: `give the key too: { key, ${what} }`,
    });
  }
  if (table.uniqueKey === undefined) {
    throw new ConfigError(`publish with ${what}, but the table has no uniqueKey column`, {
      table: table.table,
      fix: 'describe the uniqueKey column',
    });
  }
  if (table.attempt === undefined) {
    throw new ConfigError(
      `publish with ${what}, but the table has no attempt column: it tells a row that has started from one that has not`,
      { table: table.table, fix: 'describe the attempt column' },
    );
  }
  if (debounce === undefined) return { replace: true };
  if (opts.notBefore !== undefined) {
    throw new ConfigError('publish with both debounce and notBefore: debounce sets the delay', {
      table: table.table,
      column: table.retryAfter,
      fix: 'give one of the two',
    });
  }
  if (table.retryAfter === undefined) {
    throw new ConfigError('publish with debounce, but the table has no retryAfter column to hold the delay', {
      table: table.table,
      fix: 'describe the retryAfter column',
    });
  }
  return { replace: true, notBefore: new Date(Date.now() + debounce) };
}
