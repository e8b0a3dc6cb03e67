import type { Queryable } from './description.js';
import type { BeginOptions, Dialect } from './dialect.js';
import type { Pool } from './driver.js';

/**
 * Runs `fn` in a transaction of the service's own, on a connection of the service's pool: the
 * dialect's BEGIN (at `opts`' level or mode), then COMMIT when `fn` resolves, ROLLBACK when it
 * throws. Whatever `fn` writes through `tx` - its own rows and messages published with
 * `{ tx }` - commits or rolls back together (R-OUT-1). A connection whose COMMIT or ROLLBACK fails
 * is closed, never returned to the pool inside a transaction (R-TX-9).
 */
export async function runTransaction<R>(
  dialect: Dialect,
  pool: Pool,
  fn: (tx: Queryable) => Promise<R>,
  opts: BeginOptions = {},
): Promise<R> {
  const conn = await pool.acquire();
  let open = false;
  let ended = false;
  const tx: Queryable = {
    query: (sql, params) => {
      if (ended) return Promise.reject(new Error('sqlinbox: the transaction has ended'));
      return conn.query(sql, params) as never;
    },
  };
  try {
    await dialect.begin(conn, opts);
    open = true;
    const result = await fn(tx);
    ended = true;
    await dialect.commit(conn);
    open = false;
    pool.release(conn);
    return result;
  } catch (err) {
    ended = true;
    if (open) {
      try {
        await dialect.rollback(conn);
        open = false;
      } catch {
        // closed below: the server rolls the transaction back
      }
    }
    if (open) await pool.destroy(conn).catch(() => {});
    else pool.release(conn);
    throw err;
  }
}
