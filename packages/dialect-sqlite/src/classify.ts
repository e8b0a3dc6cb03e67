import type { ErrorKind } from '@sqlinbox/core';
import { classifyWith } from '@sqlinbox/sql';

/** How deep `classifyError` follows `cause` to reach the driver's error under a wrapper. */
const MAX_CAUSES = 5;

/**
 * Maps a SQLite driver's error to the kind the engine acts on, by SQLite's (extended) result code
 * (better-sqlite3's `code` string, node:sqlite's numeric `errcode`):
 * `SQLITE_BUSY*` and `SQLITE_LOCKED*` are `lock_timeout` (another writer held the file past the wait),
 * `SQLITE_CONSTRAINT*` is `constraint`, a statement on a closed handle is `connection`, anything
 * else `other`. A wrapper's `cause` is followed to the driver's error.
 */
export function classifyError(err: unknown): ErrorKind {
  return classifyWith(
    err,
    (e) => {
      const code = sqliteCode(e);
      if (code !== undefined) return kindOfCode(code);
      return isClosedHandle(e) ? 'connection' : undefined;
    },
    MAX_CAUSES,
  );
}

function kindOfCode(code: string): ErrorKind {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'lock_timeout';
  if (code.startsWith('SQLITE_CONSTRAINT')) return 'constraint';
  return 'other';
}

/** SQLite's primary result codes the engine tells apart, by number (node:sqlite's `errcode`). */
const PRIMARY: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  19: 'SQLITE_CONSTRAINT',
};

/** SQLite's code on an error; other libraries' codes (the core's own `code`) are not SQLite's. */
function sqliteCode(e: unknown): string | undefined {
  if (typeof e !== 'object') return undefined;
  const { code, errcode } = e as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  // node:sqlite: code ERR_SQLITE_ERROR, errcode the extended result code (its low byte the primary).
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number')
    return PRIMARY[errcode & 0xff] ?? 'SQLITE_ERROR';
  return undefined;
}

/**
 * A statement on a closed handle: better-sqlite3 throws a plain TypeError with no code, node:sqlite
 * an error coded ERR_INVALID_STATE ("database is not open", "statement has been finalized").
 */
function isClosedHandle(e: unknown): boolean {
  if (e instanceof TypeError && e.message.includes('database connection is not open')) return true;
  return (
    e instanceof Error &&
    (e as { code?: unknown }).code === 'ERR_INVALID_STATE' &&
    /database is not open|statement has been finalized/.test(e.message)
  );
}
