import { type AnyTable, type InboxInput, inbox } from '@sqlinbox/core';
import { MssqlStatements } from '../src/statements.js';

/** A description of the conformance shape, with extras. */
export function table(extra: Partial<InboxInput> = {}): AnyTable {
  return inbox({
    table: 'jobs',
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    ...extra,
  } as never) as AnyTable;
}

export const leaseTable = (extra: Partial<InboxInput> = {}) => table({ lease: 'locked_until', ...extra });
export const advisoryTable = (extra: Partial<InboxInput> = {}) => table({ advisory: 'jobs-{id}', ...extra });

export const statements = (
  t: AnyTable,
  deadLetter?: { group: string } | { table: string },
  exclude?: ReadonlySet<unknown>,
) => new MssqlStatements(t, { deadLetter, exclude });

/** The placeholders a statement's text names, in order of first appearance. */
export function placeholders(sql: string): string[] {
  return [...new Set(sql.match(/@p\d+/g) ?? [])];
}

/** Every `@pN` in the text is bound, and every bound value is named in the text. */
export function bindsExactly(st: { sql: string; params: readonly unknown[] }): boolean {
  const named = placeholders(st.sql)
    .map((p) => Number(p.slice(2)))
    .sort((a, b) => a - b);
  return named.length === st.params.length && named.every((n, i) => n === i + 1);
}
