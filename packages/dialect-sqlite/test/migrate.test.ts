import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inbox, migrate } from '@sqlinbox/core';
import { afterAll, expect, test } from 'vitest';
import { sqlite } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('R-USER-3 migrate on a pool of one connection applies, then finds the version recorded (it read the versions on a second connection, which never came)', async () => {
  const adapter = sqlite({ filename: join(dir, 'one.db'), connections: 1 });
  const jobs = inbox({
    table: 'jobs',
    id: { column: 'id', generated: true },
    payload: 'payload',
    lease: 'locked_until',
  });
  try {
    const first = await migrate(adapter, [{ table: jobs, deadLetterTable: 'jobs_dead' }]);
    expect(first.steps.map((s) => [s.table, s.recorded])).toEqual([['jobs', false]]);
    const again = await migrate(adapter, [{ table: jobs, deadLetterTable: 'jobs_dead' }]);
    expect(again.steps.map((s) => [s.table, s.version, s.recorded])).toEqual([
      ['jobs', first.steps[0]!.version, true],
    ]);
    const conn = await adapter.pool.acquire();
    try {
      const rows = (await conn.query<{ target: string }>('SELECT target FROM sqlinbox_migrations')).rows;
      expect(rows).toEqual([{ target: 'jobs' }]);
    } finally {
      adapter.pool.release(conn);
    }
  } finally {
    await adapter.close();
  }
});
