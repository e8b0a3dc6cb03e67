/**
 * R-BAD-1 on MySQL/MariaDB: the hostile corpus through both drivers with the session modes that
 * change how a client-escaped literal reads (`NO_BACKSLASH_ESCAPES`) and what `"` quotes
 * (`ANSI_QUOTES`). The default mode runs in the conformance suites.
 */
import { runHostileCorpus } from '@sqlinbox/conformance';
import { Broker, inbox, type Row } from '@sqlinbox/core';
import { afterAll, describe, expect, test } from 'vitest';
import { PREPARED_PER_CONNECTION } from '../src/mysql2.js';
import { createTables, drivers, openAdmin, uniqueName } from './helpers.js';
import { mariadbTarget, mysql2Target } from './targets.js';

const MODE = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES';
const targets = [mysql2Target(MODE), mariadbTarget(MODE)];
afterAll(async () => {
  for (const t of targets) await t.close?.();
});
for (const t of targets) await runHostileCorpus(t);

describe('R-BAD-1 a value crafted to end a client-escaped literal', () => {
  for (const t of targets) {
    test(`R-BAD-1 stores one row, not a second one made by its subquery (${t.name})`, async () => {
      const admin = await openAdmin();
      const name = uniqueName('inject');
      const desc = inbox({
        table: name,
        id: { column: 'id', generated: true },
        payload: { column: 'payload', type: 'text' },
        attempt: { column: 'attempt', generated: true },
      });
      const drop = await createTables(admin, desc);
      const opened = await t.open({ poolSize: 2 });
      const b = new Broker(opened);
      // mysql2's `query` escaped `'` as `\'`; under NO_BACKSLASH_ESCAPES the literal then ended
      // after the backslashes and the rest ran as SQL: a second row read from another table.
      const crafted =
        "x\\'), ((SELECT CONCAT(0x7365637265743a, COUNT(*)) FROM information_schema.TABLES)) -- ";
      try {
        await b.publish(desc, crafted);
        await b.publish(desc, "O'Brien");
        const rows = await admin.q(`SELECT \`payload\` FROM \`${name}\` ORDER BY \`id\``);
        expect(rows.map((r) => r.payload)).toEqual([crafted, "O'Brien"]);
      } finally {
        await b.shutdown({ timeout: 0 });
        await opened.close();
        await drop();
        await admin.end();
      }
    });
  }
});

test('R-BAD-1 mysql2 keeps at most PREPARED_PER_CONNECTION statements prepared per connection, however many texts run', async () => {
  const opened = await drivers[0]!.open({ size: 1 });
  try {
    const conn = await opened.adapter.pool.acquire();
    try {
      for (let i = 0; i < PREPARED_PER_CONNECTION + 44; i++) {
        const { rows } = await conn.query<Row>(`SELECT ? AS \`v${i}\``, [i]);
        expect(Number(rows[0]?.[`v${i}`])).toBe(i);
      }
      // mysql2's own cache of the connection (its internals: the server keeps no per-session count).
      const handle = (conn as unknown as { handle: { connection: { _statements: { size: number } } } })
        .handle;
      expect(handle.connection._statements.size).toBe(PREPARED_PER_CONNECTION);
      // The most recent statements are still prepared and run again.
      const { rows } = await conn.query<Row>(`SELECT ? AS \`v${PREPARED_PER_CONNECTION + 43}\``, ['again']);
      expect(rows[0]?.[`v${PREPARED_PER_CONNECTION + 43}`]).toBe('again');
    } finally {
      opened.adapter.pool.release(conn);
    }
  } finally {
    await opened.close();
  }
});
