/**
 * Small helpers every statement builder shares: identifier quoting and numbered parameters.
 * Nothing here runs a statement.
 */

/** Quotes one identifier (`jobs` -> `"jobs"`), doubling any embedded quote. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes a table name that may be schema-qualified (`app.jobs` -> `"app"."jobs"`). */
export function quoteTable(name: string): string {
  return name.split('.').map(quoteIdent).join('.');
}

/**
 * A string constant for the few places SQL takes no parameter (a trigger's arguments): an escape
 * string `E'..'` with `\` and `'` doubled, which reads the same whatever
 * `standard_conforming_strings` says. Values of a statement are always parameters instead.
 */
export function escapeString(text: string): string {
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The unqualified part of a table name (`app.jobs` -> `jobs`). */
export function bareName(table: string): string {
  const parts = table.split('.');
  return parts[parts.length - 1] ?? table;
}

/** The schema part of a table name, or undefined when the name is unqualified. */
export function schemaOf(table: string): string | undefined {
  const parts = table.split('.');
  return parts.length > 1 ? parts[0] : undefined;
}

/**
 * The parameters of one statement, numbered as they are added: `p.add(v)` answers `$n`. Every
 * value a statement uses goes through here, so no value is ever spliced into SQL text.
 */
export class Params {
  readonly values: unknown[] = [];

  /** Adds a value and answers its placeholder. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** Adds a Date (or null) as an explicit `timestamptz` parameter. */
  time(value: Date | null): string {
    return `${this.add(value)}::timestamptz`;
  }
}
