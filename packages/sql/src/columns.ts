import type { AnyTable } from '@sqlinbox/core';

/**
 * What a column of a queue table holds, for a dialect's `CREATE TABLE` to give it a type: the id,
 * the payload, the attempt count (the deliveries started: 0 on insert), an instant (lease, `retry_after`, `processed_at`, the
 * failure time), text (group, partition key, unique key, the advisory key's columns, the other
 * named columns, the error class), the priority (0 by default), the last error's message (longer
 * text than a name: `TEXT` on MySQL, whose names are `VARCHAR(255)`), the insert time (an instant
 * whose default is the database's now), a handler's result (JSON, or text beside a text payload).
 */
export type ColumnUse =
  | 'id'
  | 'payload'
  | 'attempt'
  | 'time'
  | 'text'
  | 'priority'
  | 'error'
  | 'created'
  | 'result';

/**
 * The columns of a queue table's `CREATE TABLE`, each once, in the order every dialect declares
 * them: id, payload, attempt, lease, `retry_after`, `processed_at`, the deadline, group, partition key, priority,
 * unique key, the concurrency key, the advisory key's columns, the other named columns, then the
 * failure record (last error, error class, failed at, created at), then the result. A dead-letter twin declared from
 * the same description lines up for `INSERT .. SELECT *`. `fold` makes the names that are one
 * column one (default: as written; lower case where the database ignores case).
 */
export function tableColumns(
  t: AnyTable,
  fold: (name: string) => string = (name) => name,
): {
  /** The column's name, folded by `fold`. */
  name: string;
  /** What the column holds. */
  role: ColumnUse;
}[] {
  const out: { name: string; role: ColumnUse }[] = [];
  const seen = new Set<string>();
  const add = (name: string | undefined, role: ColumnUse) => {
    if (name === undefined || seen.has(fold(name))) return;
    seen.add(fold(name));
    out.push({ name, role });
  };
  add(t.id.column, 'id');
  add(t.payload?.column, 'payload');
  add(t.attempt?.column, 'attempt');
  for (const name of [t.lease, t.retryAfter, t.processedAt]) add(name, 'time');
  add(t.expiresAt, 'time');
  add(t.retention?.deadAt, 'time');
  for (const name of [t.group, t.partitionKey]) add(name, 'text');
  add(t.priority, 'priority');
  add(t.uniqueKey, 'text');
  add(t.concurrency?.column, 'text');
  for (const part of t.key ?? []) if ('column' in part) add(part.column, 'text');
  for (const name of t.columns) add(name, 'text');
  add(t.lastError, 'error');
  add(t.errorClass, 'text');
  add(t.failedAt, 'time');
  add(t.createdAt, 'created');
  add(t.result, 'result');
  return out;
}

/** The schema part of a qualified table name (`app` of `app.jobs`), or undefined for a bare one. */
export function schemaOf(name: string): string | undefined {
  const dot = name.indexOf('.');
  return dot < 0 ? undefined : name.slice(0, dot);
}

/** The table part of a possibly qualified table name (`jobs` of `app.jobs`). */
export function tableOf(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? name : name.slice(dot + 1);
}
