/**
 * PostgreSQL's drivers (`pg`, postgres.js, PGlite) parse a `json` or `jsonb` column's value before
 * the engine sees it, while the same
 * payload in a `text` column arrives as its JSON text. An object, array, number, boolean or null
 * is the same either way, but a JSON string is not: parsed, `"hello"` arrives as `hello`, which the
 * payload's codec would then read as JSON text and refuse (or `"42"` as `42`, a number). So a
 * string read from a JSON-typed column goes back to its JSON text here, and the codec parses every
 * JSON payload exactly once, whatever the column's type.
 */

/** PostgreSQL's type oids of `json` and `jsonb`. */
const JSON_OIDS: ReadonlySet<number> = new Set([114, 3802]);

/** A result column as `pg` and PGlite (`fields[].dataTypeID`) or postgres.js (`columns[].type`) describe it. */
export interface ResultColumn {
  /** The column's name in the result's rows. */
  readonly name: string;
  /** Its PostgreSQL type oid, as `pg` and PGlite name it. */
  readonly dataTypeID?: number;
  /** Its PostgreSQL type oid, as postgres.js names it. */
  readonly type?: number;
}

/**
 * For a dialect's driver slice: the rows with each string value of a JSON-typed column (PostgreSQL's
 * `json` 114, `jsonb` 3802) turned back into its JSON text, in place; the rows
 * themselves, untouched, where the result has no such column (the common case costs one scan of
 * the column list).
 */
export function jsonStringsAsText<R>(rows: R[], columns: readonly ResultColumn[] | undefined): R[] {
  if (columns === undefined || rows.length === 0) return rows;
  let names: string[] | undefined;
  for (const c of columns)
    if (JSON_OIDS.has(c.dataTypeID ?? c.type ?? 0)) {
      names ??= [];
      names.push(c.name);
    }
  if (names === undefined) return rows;
  for (const row of rows) {
    const r = row as Record<string, unknown>;
    for (const name of names) {
      const v = r[name];
      if (typeof v === 'string') r[name] = JSON.stringify(v);
    }
  }
  return rows;
}
