import type { ColumnInfo, ColumnKind, Connection } from '@sqlinbox/core';

interface PragmaColumn {
  readonly name: string;
  readonly type: string;
  readonly notnull: number | bigint;
  readonly dflt_value: unknown;
  readonly pk: number | bigint;
}

/** The table's columns from `pragma_table_info`, or null when there is no such table. */
export async function describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null> {
  const dot = table.lastIndexOf('.');
  // The table-valued pragma takes the schema as its second argument; without one SQLite searches
  // temp, main and the attached databases in turn, as a statement naming the table would.
  const { rows } =
    dot < 0
      ? await conn.query<PragmaColumn>(PRAGMA_SQL + '(?)', [table])
      : await conn.query<PragmaColumn>(PRAGMA_SQL + '(?, ?)', [table.slice(dot + 1), table.slice(0, dot)]);
  return rows.length === 0 ? null : rows.map(columnInfo);
}

const PRAGMA_SQL = 'SELECT name, type, "notnull" AS "notnull", dflt_value, pk FROM pragma_table_info';

function columnInfo(c: PragmaColumn): ColumnInfo {
  // An INTEGER PRIMARY KEY is the rowid: never NULL, filled by the database when left out.
  const rowid = Number(c.pk) > 0 && c.type.toUpperCase() === 'INTEGER';
  return {
    name: c.name,
    type: c.type,
    kind: kindOf(c.type),
    nullable: Number(c.notnull) === 0 && !rowid,
    hasDefault: c.dflt_value !== null || rowid,
  };
}

/**
 * A declared type's kind, after SQLite's affinity rules (https://sqlite.org/datatype3.html 3.1),
 * with two names read first: JSON (NUMERIC affinity to SQLite, but a JSON column to a reader), and
 * DATE/TIME types, reported as `timestamp` so the core can say that this dialect keeps instants in
 * INTEGER epoch milliseconds.
 */
export function kindOf(declared: string): ColumnKind {
  const type = declared.toUpperCase();
  if (type.includes('JSON')) return 'json';
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type.includes('BLOB')) return 'bytes';
  if (/DATE|TIME/.test(type)) return 'timestamp';
  return 'other';
}
