/**
 * Flow control on MariaDB: the index `ddl` prints for a priority column serves every claim's
 * order (R-FLOW-1), shown by EXPLAIN of the claim's own statements over 20,000 rows, half of them
 * settled; and the unique key's generated column (R-FLOW-2).
 */
import { type AnyTable, type Form, inbox } from '@sqlinbox/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ddl } from '../src/ddl.js';
import { MysqlStatements } from '../src/statements.js';
import { createTables, openAdmin, uniqueName } from './helpers.js';

type Admin = Awaited<ReturnType<typeof openAdmin>>;

function describeTable(name: string, form: Form): AnyTable {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    processedAt: 'processed_at',
    retryAfter: 'retry_after',
    priority: 'priority',
    ...(form === 'lease' ? { lease: 'locked_until' } : {}),
    ...(form === 'advisory' ? { advisory: `${name}-{id}` } : {}),
  } as never) as AnyTable;
}

describe('R-FLOW-1 R-FLOW-2 flow control indexes on MariaDB', () => {
  let admin: Admin;
  const drops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    admin = await openAdmin();
  });
  afterAll(async () => {
    for (const d of drops) await d();
    await admin.end();
  });

  test('R-FLOW-1 R-FLOW-2 ddl prints ([processed_at,] priority DESC, id) and a unique index on the generated active key', () => {
    const t = inbox({
      table: 'jobs',
      id: { column: 'id', generated: true },
      payload: 'payload',
      processedAt: 'processed_at',
      priority: 'priority',
      uniqueKey: 'job_key',
    });
    const out = ddl(t, { deadLetterTable: 'jobs_dlq' });
    expect(out[0]).toContain('`priority` INT NOT NULL DEFAULT 0');
    expect(out[0]).toContain(
      '`sqlinbox_key_active` VARCHAR(255) GENERATED ALWAYS AS (IF(`processed_at` IS NULL, `job_key`, NULL)) STORED',
    );
    expect(out[0]).toContain('  INDEX `sqlinbox_priority` (`processed_at`, `priority` DESC, `id`)');
    expect(out[0]).toContain('  UNIQUE INDEX `sqlinbox_unique_key` (`sqlinbox_key_active`)');
    // The dead-letter twin takes the column as a plain one, for INSERT .. SELECT *.
    expect(out[out.length - 1]).toContain('`sqlinbox_key_active` VARCHAR(255) NULL');
    const deleting = ddl(inbox({ table: 'jobs', id: 'id', uniqueKey: 'job_key' }));
    expect(deleting[0]).toContain('  UNIQUE INDEX `sqlinbox_unique_key` (`job_key`)');
  });

  for (const form of ['rowlock', 'lease', 'advisory'] as const) {
    test(`R-FLOW-1 the ${form} claim reads sqlinbox_priority in order: key = sqlinbox_priority, no filesort`, async () => {
      const name = uniqueName('flow');
      const t = describeTable(name, form);
      drops.push(await createTables(admin, t));
      await admin.q(
        `INSERT INTO \`${name}\` (payload, priority, processed_at)` +
          ` SELECT '{}', (seq * 7919) % 10, IF(seq % 2 = 0, UTC_TIMESTAMP(3), NULL) FROM seq_1_to_20000`,
      );
      await admin.q(`ANALYZE TABLE \`${name}\``);
      const s = new MysqlStatements(t);
      const now = new Date();
      const st =
        form === 'rowlock'
          ? s.rowLock.claim(10, now)
          : form === 'lease'
            ? s.lease.claim(10, now)
            : s.advisory.candidates(10, now, new Set());
      const plan = await admin.q(`EXPLAIN ${st.sql}`, [...st.params]);
      console.log(`EXPLAIN ${form} claim:\n${plan.map((r) => JSON.stringify(r)).join('\n')}`);
      const onTable = plan.filter((r) => r.table === 'q');
      expect(onTable, JSON.stringify(plan)).toHaveLength(1);
      expect(onTable[0]!.key).toBe('sqlinbox_priority');
      for (const r of plan) expect(String(r.Extra ?? '')).not.toContain('Using filesort');
    });
  }
});
