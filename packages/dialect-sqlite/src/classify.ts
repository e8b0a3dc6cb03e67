import type { ErrorKind } from '@sqlinbox/core';

/** How deep `classifyError` follows `cause` to reach the driver's error under a wrapper. */
const MAX_CAUSES = 5;

/**
 * Maps a better-sqlite3 error to the kind the engine acts on, by SQLite's (extended) result code:
 * `SQLITE_BUSY*` and `SQLITE_LOCKED*` are `lock_timeout` (another writer held the file past the wait),
 * `SQLITE_CONSTRAINT*` is `constraint`, a statement on a closed handle is `connection`, anything
 * else `other`. A wrapper's `cause` is followed to the driver's error.
 */
export function classifyError(err: unknown): ErrorKind {
  let e: unknown = err;
  for (let depth = 0; depth <= MAX_CAUSES && e !== null && e !== undefined; depth++) {
    const code = sqliteCode(e);
    if (code !== undefined) return kindOfCode(code);
    if (isClosedHandle(e)) return 'connection';
    e = (e as { cause?: unknown }).cause;
  }
  return 'other';
}

function kindOfCode(code: string): ErrorKind {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'lock_timeout';
  if (code.startsWith('SQLITE_CONSTRAINT')) return 'constraint';
  return 'other';
}

/** SQLite's code on an error; other libraries' codes (the core's own `code`) are not SQLite's. */
function sqliteCode(e: unknown): string | undefined {
  const code = typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/** better-sqlite3 throws a plain TypeError, with no code, for a statement on a closed handle. */
function isClosedHandle(e: unknown): boolean {
  return e instanceof TypeError && e.message.includes('database connection is not open');
}
