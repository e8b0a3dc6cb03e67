/** Quotes an identifier in standard SQL: `"name"`, a `"` in it doubled. */
export function ansiIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes a possibly qualified name (`schema.table`), each part with `ident`. */
export function qualified(name: string, ident: (part: string) => string = ansiIdent): string {
  return name.split('.').map(ident).join('.');
}

/**
 * Values as one JSON array text, for a database that reads a list from one bound value: numbers
 * and bigints as JSON numbers (with `asText`, every value as a JSON string), anything else as a
 * JSON string of its text.
 */
export function jsonList(values: readonly unknown[], asText = false): string {
  const one = (v: unknown) =>
    !asText && (typeof v === 'number' || typeof v === 'bigint') ? String(v) : JSON.stringify(String(v));
  return `[${values.map(one).join(',')}]`;
}

/** Splits `items` into runs of at most `per` (at least one each). */
export function chunks<T>(items: readonly T[], per: number): T[][] {
  const out: T[][] = [];
  const size = Math.max(1, per);
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
