import type { Queryable } from './description.js';
import type { BeginOptions, Dialect } from './dialect.js';
import type { Pool } from './driver.js';

/**
 * Runs `fn` in a transaction of the service's own, on a connection of the service's pool: the
 * dialect's BEGIN (at `opts`' level or mode), then COMMIT when `fn` resolves, ROLLBACK when it
 * throws. Whatever `fn` writes through `tx` - its own rows and messages published with
 * `{ tx }` - commits or rolls back together. A connection whose BEGIN, COMMIT or ROLLBACK
 * fails is closed, never returned to the pool inside a transaction.
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
  let result: R;
  try {
    await dialect.begin(conn, opts);
    open = true;
    result = await fn(tx);
  } catch (err) {
    ended = true;
    // Back to the pool only once a ROLLBACK has confirmed the session holds no transaction; a
    // failed BEGIN or ROLLBACK leaves it unknown, and the connection is closed instead.
    let clean = false;
    if (open) {
      try {
        await dialect.rollback(conn);
        clean = true;
      } catch {
        // closed below: the server rolls the transaction back
      }
    }
    if (clean) pool.release(conn);
    else await pool.destroy(conn).catch(() => {});
    throw err;
  }
  ended = true;
  try {
    await dialect.commit(conn);
  } catch (err) {
    // A failed COMMIT leaves the session's state unknown: closed, never returned to the pool.
    await pool.destroy(conn).catch(() => {});
    throw err;
  }
  pool.release(conn);
  return result;
}
