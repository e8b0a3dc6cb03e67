/**
 * Per-key concurrency on MySQL/MariaDB (R-FLOW-3): the index `ddl` prints, and the claim's turn
 * (`GET_LOCK` on the table's turn name) that serializes the claims of one table across sessions.
 */
import { type AnyTable, inbox } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ddl } from '../src/ddl.js';
import { MysqlStatements } from '../src/statements.js';
import { createTables, drivers, ids, openAdmin, stillPending, uniqueName } from './helpers.js';

type Admin = Awaited<ReturnType<typeof openAdmin>>;

function limited(name: string, extra: Record<string, unknown> = {}): AnyTable {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    lease: 'locked_until',
    concurrency: { key: 'account', limit: 2 },
    ...extra,
  } as never) as AnyTable;
}

describe('R-FLOW-3 per-key concurrency on MySQL/MariaDB', () => {
  let admin: Admin;
  const drops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    admin = await openAdmin();
  });
  afterAll(async () => {
    for (const d of drops) await d();
    await admin.end();
  });

  test('R-FLOW-3 ddl prints the key column (VARCHAR(255)) and a (key, lease) index', () => {
    const out = ddl(limited('jobs'));
    expect(out[0]).toContain('`account` VARCHAR(255) NULL');
    expect(out[0]).toContain('  INDEX `sqlinbox_concurrency` (`account`, `locked_until`)');
    expect(ddl(inbox({ table: 'jobs', id: 'id', lease: 'l' })).join('\n')).not.toContain('concurrency');
  });

  for (const driver of drivers) {
    test(`R-FLOW-3 a claim waits for the table's turn while another session holds it, then sees that claim's leases (${driver.name})`, async () => {
      const name = uniqueName('conc');
      const t = limited(name);
      drops.push(await createTables(admin, t));
      await admin.q(
        `INSERT INTO ${name} (payload, account) VALUES ('{}', 'a'), ('{}', 'a'), ('{}', 'a'), ('{}', 'a')`,
      );
      const opened = await driver.open({ size: 3 });
      const ops = opened.adapter.dialect.prepare(t);
      const claim = async () => {
        const conn = await opened.adapter.pool.acquire();
        try {
          return await ops.concurrency!.claimLease(conn, 10, new Date(), new Date(Date.now() + 30_000));
        } finally {
          opened.adapter.pool.release(conn);
        }
      };
      try {
        // Another session takes the turn and, inside it, leases two rows of key a (as a claim would).
        const turn = new MysqlStatements(t).concurrency.turn();
        expect(Number((await admin.q(turn.sql, [...turn.params]))[0]?.ok)).toBe(1);
        await admin.q(
          `UPDATE ${name} SET locked_until = UTC_TIMESTAMP(3) + INTERVAL 1 MINUTE ORDER BY id LIMIT 2`,
        );
        const waiting = claim();
        expect(await stillPending(waiting, 300)).toBe(true);
        const end = new MysqlStatements(t).concurrency.turnEnd();
        await admin.q(end.sql, [...end.params]);
        // Key a has 2 in work now: the claim that waited takes none of it.
        expect(await waiting).toEqual([]);
        // Those leases settled: the next claim takes the other two.
        await admin.q(`DELETE FROM ${name} WHERE locked_until IS NOT NULL`);
        expect(ids(await claim())).toEqual(['3', '4']);
      } finally {
        await opened.close();
      }
    });
  }
});
