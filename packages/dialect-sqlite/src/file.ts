/**
 * What the handles of one process share about one database file: the write lock that keeps the
 * event loop free of SQLite's busy waits, and the advisory key registry (SQLite has no lock a
 * session holds, so the process keeps the keys in work).
 */

/** A waiter for the write lock. */
interface Waiter {
  readonly owner: string;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * An async mutex over one database file's write lock, owned by a connection id.
 *
 * The SQLite drivers are synchronous: a statement that meets SQLite's busy lock blocks the thread in
 * the busy handler, while the connection holding the lock lives on that same thread and can never
 * reach its COMMIT. Writers of this process therefore queue here, without blocking, and reach
 * SQLite only when no other connection of the process has a write open.
 */
export class WriteLock {
  private holder: string | null = null;
  private readonly waiters: Waiter[] = [];

  /** The lock of the file at `file` (its path, for messages). */
  constructor(private readonly file: string) {}

  /** The connection id holding the lock, or null. */
  get owner(): string | null {
    return this.holder;
  }

  /**
   * Waits for the lock, in arrival order. Past `timeoutMs` it fails with SQLite's own
   * `SQLITE_BUSY`, so a writer that waits on a transaction of its own caller (a handler publishing
   * through the pool while its delivery's transaction is open) gets an error, not a hang.
   */
  acquire(owner: string, timeoutMs: number): Promise<void> {
    if (this.holder === null) {
      this.holder = owner;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { owner, resolve, reject, timer: undefined };
      if (Number.isFinite(timeoutMs)) {
        waiter.timer = setTimeout(() => this.expire(waiter, timeoutMs), timeoutMs);
      }
      this.waiters.push(waiter);
    });
  }

  /** Hands the lock to the next waiter; a no-op unless `owner` holds it. */
  release(owner: string): void {
    if (this.holder !== owner) return;
    const next = this.waiters.shift();
    this.holder = next?.owner ?? null;
    if (next === undefined) return;
    if (next.timer !== undefined) clearTimeout(next.timer);
    next.resolve();
  }

  private expire(waiter: Waiter, timeoutMs: number): void {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return;
    this.waiters.splice(at, 1);
    waiter.reject(
      new SqliteBusyError(
        `database is locked: connection ${this.holder ?? '?'} holds a write transaction on ${this.file} ` +
          `(waited ${timeoutMs} ms)`,
      ),
    );
  }
}

/** SQLite's own busy error, as the drivers report it, for a writer that waited past its time. */
export class SqliteBusyError extends Error {
  /** SQLite's result code. */
  readonly code = 'SQLITE_BUSY';
  /** `SqliteError`, the name the drivers give their own errors, so classification treats it alike. */
  override readonly name = 'SqliteError';
}

/** The advisory keys held in this process on one database file, each by a connection id. */
export class KeyRegistry {
  private readonly holders = new Map<string, string>();

  /** Takes the key for `owner` unless any connection (this one included) holds it. */
  lock(owner: string, key: string): boolean {
    if (this.holders.has(key)) return false;
    this.holders.set(key, owner);
    return true;
  }

  /** Releases the key; true only when `owner` held it. */
  unlock(owner: string, key: string): boolean {
    if (this.holders.get(key) !== owner) return false;
    this.holders.delete(key);
    return true;
  }

  /** Drops every key `owner` holds: its "session" ended. */
  releaseAll(owner: string): void {
    for (const [key, holder] of this.holders) if (holder === owner) this.holders.delete(key);
  }

  /** Whether any connection of this process holds the key. */
  held(key: string): boolean {
    return this.holders.has(key);
  }

  /** How many keys are held now. */
  get size(): number {
    return this.holders.size;
  }
}

/** The shared state of one database file in this process. */
export interface FileState {
  /** The file's real path (or a unique name for an in-memory database). */
  readonly path: string;
  /** The file's write lock in this process: one writing connection at a time. */
  readonly writeLock: WriteLock;
  /** The advisory keys held in this process on the file. */
  readonly keys: KeyRegistry;
}

interface Entry extends FileState {
  handles: number;
}

const files = new Map<string, Entry>();

/** The state of a file, counted as used by one more handle. */
export function attachFile(path: string): FileState {
  let entry = files.get(path);
  if (entry === undefined) {
    entry = { path, writeLock: new WriteLock(path), keys: new KeyRegistry(), handles: 0 };
    files.set(path, entry);
  }
  entry.handles += 1;
  return entry;
}

/** A handle on the file closed; the state goes once no handle of the process uses the file. */
export function detachFile(state: FileState): void {
  const entry = files.get(state.path);
  if (entry === undefined) return;
  entry.handles -= 1;
  if (entry.handles <= 0) files.delete(state.path);
}
