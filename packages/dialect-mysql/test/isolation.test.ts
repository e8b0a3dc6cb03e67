/**
 * The runner opens its own transactions one way, at READ COMMITTED (the forms' level), whatever
 * the session's default: read inside each transaction on the server, through both drivers.
 */
import { type AnyTable, type Connection, inbox, type Row } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTables, drivers, openAdmin, uniqueName } from './helpers.js';

type Admin = Awaited<ReturnType<typeof openAdmin>>;

/**
 * The isolation level of the session's open InnoDB transaction, as the server reports it, with the
 * statement that transaction runs; a comment with the probe's number tells its row from an older one.
 */
const level = (n: number) =>
  `SELECT /* probe ${n} */ trx_isolation_level AS \`level\`, trx_query AS \`query\`` +
  ' FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()';
let probes = 0;

/**
 * The level of `conn`'s open transaction, or undefined where none could be read. InnoDB serves
 * INNODB_TRX from a cache it fills again only when nobody has read it for 0.1 s: read sooner (the
 * probe before this one, a moment ago), the table shows what was open then. Checked on MariaDB
 * 10.11: of 20 probes, each right after a transaction's first write and within 0.1 s of an earlier
 * read, none found the transaction, and probes one after another kept answering the first one's
 * row. So a row counts only when it is this very probe running (its number in `trx_query`); until
 * then the probe is made again, 0.12 s apart so the cache can be filled. A statement outside a
 * transaction leaves no row: after 5 tries, undefined.
 */
async function levelNow(conn: Connection): Promise<string | undefined> {
  for (let tries = 0; tries < 5; tries++) {
    if (tries > 0) await new Promise((r) => setTimeout(r, 120));
    const n = ++probes;
    const row = (await conn.query<Row>(level(n))).rows[0];
    if (row !== undefined && String(row.query).includes(`/* probe ${n} */`)) return String(row.level);
  }
  return undefined;
}

/**
 * `conn`, reading the level of its transaction after each statement that ran inside one, into
 * `seen` under the flow's name `flow.at`.
 */
function probing(conn: Connection, seen: Map<string, string[]>, flow: { at: string }): Connection {
  const probed = Object.create(conn) as Connection;
  probed.query = async <R = Row>(sql: string, params?: readonly unknown[]) => {
    const res = await conn.query<R>(sql, params);
    if (/^\s*(SELECT|UPDATE|INSERT|DELETE)/i.test(sql)) {
      const found = await levelNow(conn);
      if (found !== undefined) seen.set(flow.at, [...(seen.get(flow.at) ?? []), found]);
    }
    return res;
  };
  return probed;
}

describe('the runner transactions of MySQL/MariaDB', () => {
  let admin: Admin;
  let mariadb = false;
  const drops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    admin = await openAdmin();
    mariadb = /mariadb/i.test(String((await admin.q('SELECT VERSION() AS v'))[0]?.v));
  });
  afterAll(async () => {
    for (const d of drops) await d();
    await admin.end();
  });

  for (const driver of drivers) {
    test(`R-ROW-5 R-TX-6 a keyed publish, a lease claim, a batched ack (MySQL; MariaDB: one DELETE .. RETURNING in autocommit) and a dead-letter move each run at READ COMMITTED on a session whose default is REPEATABLE READ; a batched ack of one row is one statement in autocommit (${driver.name})`, async () => {
      const name = uniqueName('iso');
      const dead = `${name}_dead`;
      const t: AnyTable = inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: 'payload',
        attempt: 'attempt',
        lease: 'locked_until',
        uniqueKey: 'ukey',
      });
      drops.push(await createTables(admin, t, dead));
      const opened = await driver.open({ size: 2 });
      const raw = await opened.adapter.pool.acquire();
      const seen = new Map<string, string[]>();
      const flow = { at: '' };
      const conn = probing(raw, seen, flow);
      try {
        await raw.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        const ops = opened.adapter.dialect.prepare(t, { deadLetter: { table: dead } });
        flow.at = 'keyed publish';
        await ops.insert(conn, [
          { payload: '{}', key: 'a' },
          { payload: '{}', key: 'b' },
          { payload: '{}', key: 'c' },
          { payload: '{}', key: 'd' },
        ]);
        flow.at = 'lease claim';
        const now = new Date();
        const token = new Date(now.getTime() + 30_000);
        const rows = await ops.claimLease(conn, 4, now, token);
        expect(rows).toHaveLength(4);
        flow.at = 'batched ack';
        const batchSent: string[] = [];
        const batching = Object.create(conn) as Connection;
        batching.query = (sql, params) => {
          batchSent.push(sql.trim().split(/\s+/)[0]!.toUpperCase());
          return conn.query(sql, params);
        };
        const acked = await ops.batch!.settleMany(batching, [
          { kind: 'finish', id: rows[0]!.id, token, now },
          { kind: 'finish', id: rows[2]!.id, token, now },
        ]);
        expect(acked.map(String)).toEqual([rows[0]!.id, rows[2]!.id].map(String));
        // The server's version read once for the session, then on MariaDB the acks that delete as
        // one `DELETE .. RETURNING` in autocommit (no level to read); on MySQL a transaction.
        expect(batchSent).toEqual(
          mariadb ? ['SELECT', 'DELETE'] : ['SELECT', 'SET', 'START', 'SELECT', 'DELETE', 'COMMIT'],
        );
        // One row: its statement alone, outside any transaction (no level to read), its count the answer.
        flow.at = 'batched ack of one row';
        let sent = 0;
        const counting = Object.create(conn) as Connection;
        counting.query = (sql, params) => {
          sent++;
          return conn.query(sql, params);
        };
        expect(
          await ops.batch!.settleMany(counting, [{ kind: 'finish', id: rows[3]!.id, token, now }]),
        ).toEqual([rows[3]!.id]);
        expect(sent).toBe(1);
        // A token the row no longer holds: nothing settled, and the answer says so.
        expect(
          await ops.batch!.settleMany(counting, [{ kind: 'finish', id: rows[1]!.id, token: now, now }]),
        ).toEqual([]);
        flow.at = 'dead-letter move';
        const moved = await ops.settle(conn, {
          kind: 'deadLetter',
          id: rows[1]!.id,
          token,
          now,
          target: { table: dead },
          inTransaction: false,
        });
        expect(moved).toBe(1);
      } finally {
        opened.adapter.pool.destroy(raw);
        await opened.close();
      }
      expect([...seen.keys()]).toEqual(
        mariadb
          ? ['keyed publish', 'lease claim', 'dead-letter move']
          : ['keyed publish', 'lease claim', 'batched ack', 'dead-letter move'],
      );
      for (const [at, levels] of seen)
        expect({ at, levels: [...new Set(levels)] }).toEqual({ at, levels: ['READ COMMITTED'] });
    });
  }
});
