/**
 * R-BAD-1 on MySQL/MariaDB: the hostile corpus through both drivers with the session modes that
 * change how a client-escaped literal reads (`NO_BACKSLASH_ESCAPES`) and what `"` quotes
 * (`ANSI_QUOTES`). The default mode runs in the conformance suites.
 */
import { runHostileCorpus } from '@sqlinbox/conformance';
import { Broker, inbox } from '@sqlinbox/core';
import { afterAll, describe, expect, test } from 'vitest';
import { createTables, openAdmin, uniqueName } from './helpers.js';
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
