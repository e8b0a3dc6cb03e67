/** The conformance targets this package hands to `runConformance`, checked on their own. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { type AnyTable, inbox } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { uniqueName } from './support.js';
import { pgTarget, postgresJsTarget } from './targets.js';

const run = promisify(execFile);

describe.each([
  ['pg', pgTarget],
  ['postgres.js', postgresJsTarget],
] as const)('%s conformance target', (_name, make) => {
  test('R-SHAPE-5 open gives an adapter over a pool of its own; exec runs admin statements and answers rows', async () => {
    const target = make();
    const table = uniqueName('tgt');
    try {
      const a = await target.open({ poolSize: 3 });
      expect(a.pool.size).toBe(3);
      const t = inbox({
        table,
        id: { column: 'id', generated: true },
        payload: 'payload',
        lease: 'locked_until',
      }) as AnyTable;
      for (const s of a.dialect.ddl(t)) await target.exec(s);
      const c = await a.pool.acquire();
      const ops = a.dialect.prepare(t);
      await ops.insert(c, [{ payload: '{"a":1}' }]);
      const expiry = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, 5));
      await ops.claimLease(c, 1, new Date(), expiry);
      a.pool.release(c);
      const rows = await target.exec(`SELECT * FROM ${table} WHERE id = $1`, [1]);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.payload).toEqual({ a: 1 });
      expect((rows[0]!.locked_until as Date).getTime()).toBe(expiry.getTime());
      await a.close();
    } finally {
      await target.exec(`DROP TABLE IF EXISTS ${table}`);
      await target.close?.();
    }
  });

  test('R-DB-1 tooOldVersion makes checkServer throw ServerTooOldError', async () => {
    const target = make();
    try {
      expect(target.tooOldVersion).toBe('10.5');
      const old = await target.open({ serverVersion: target.tooOldVersion, poolSize: 1 });
      const c = await old.pool.acquire();
      await expect(old.dialect.checkServer(c)).rejects.toMatchObject({
        code: 'SERVER_TOO_OLD',
        found: '10.5',
        floor: '11',
      });
      old.pool.release(c);
      await old.close();
    } finally {
      await target.close?.();
    }
  });

  test('R-ERR-2 killSession ends the session of a Connection.id; the next statement fails as connection', async () => {
    const target = make();
    try {
      const a = await target.open({ poolSize: 2 });
      const c = await a.pool.acquire();
      // The pg target's admin kills for both: the postgres.js target leaves killSession out (see targets.ts).
      const killer = pgTarget();
      await killer.killSession!(c.id);
      await killer.close?.();
      const e = await c.query('SELECT 1').catch((x: unknown) => x);
      expect(a.dialect.classifyError(e)).toBe('connection');
      await a.pool.destroy(c);
      await a.close();
    } finally {
      await target.close?.();
    }
  });

  test('R-ADV-8 advisoryLocksHeld counts the locks adapters hold, not the admin own', async () => {
    const target = make();
    try {
      const before = await target.advisoryLocksHeld!();
      const a = await target.open({ poolSize: 2 });
      const t = inbox({
        table: uniqueName('tgtl'),
        id: { column: 'id', generated: true },
        payload: 'payload',
        advisory: 'k-{id}',
      }) as AnyTable;
      const ops = a.dialect.prepare(t);
      const c1 = await a.pool.acquire();
      const c2 = await a.pool.acquire();
      expect(await ops.advisory.lock(c1, `k-${uniqueName()}`)).toBe(true);
      expect(await ops.advisory.lock(c2, `k-${uniqueName()}`)).toBe(true);
      await target.exec('SELECT pg_advisory_lock(hashtextextended($1, 0))', [uniqueName('admin')]);
      expect((await target.advisoryLocksHeld!()) - before).toBe(2);
      await a.pool.destroy(c1);
      a.pool.release(c2); // still holding: counted until its session ends
      expect((await target.advisoryLocksHeld!()) - before).toBe(1);
      await a.close();
      // The server ends a closed session a moment after its socket closes.
      for (let i = 0; i < 200 && (await target.advisoryLocksHeld!()) - before > 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect((await target.advisoryLocksHeld!()) - before).toBe(0);
    } finally {
      await target.close?.();
    }
  });

  test('R-SHAPE-5 childModule opens the adapter from the built package in a child process', async () => {
    const target = make();
    expect(existsSync(target.childModule ?? '')).toBe(true);
    // A plain `node` (no vitest source conditions): the module resolves the package to dist/.
    const script = `
      const open = (await import(${JSON.stringify(target.childModule)})).default;
      const a = await open({ poolSize: 2 });
      const c = await a.pool.acquire();
      const r = await c.query('SELECT pg_backend_pid() AS pid');
      const ok = String(r.rows[0].pid) === c.id && a.pool.size === 2 && a.dialect.name === 'postgres';
      a.pool.release(c);
      const old = await open({ serverVersion: '10.5', poolSize: 1 });
      const oc = await old.pool.acquire();
      const err = await old.dialect.checkServer(oc).catch((e) => e);
      old.pool.release(oc);
      await old.close();
      await a.close();
      console.log(JSON.stringify({ ok, code: err && err.code }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 30_000,
    });
    expect(JSON.parse(stdout.trim())).toEqual({ ok: true, code: 'SERVER_TOO_OLD' });
  });
});
