/** The conformance targets this package hands to `runConformance`, checked on their own. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AnyTable } from '@sqlinbox/core';
import { inbox } from '@sqlinbox/core';
import { describe, expect, it } from 'vitest';
import { DB, uniqueName } from './helpers.js';
import { mariadbTarget, mysql2Target } from './targets.js';

describe.each([
  ['mysql2', mysql2Target],
  ['mariadb', mariadbTarget],
] as const)('%s conformance target', (_name, make) => {
  it('opens adapters with their own pools; exec runs admin statements and reads rows as the adapters do', async () => {
    const target = make();
    try {
      const a = await target.open({ poolSize: 3 });
      expect(a.pool.size).toBe(3);
      const t = inbox({
        table: uniqueName('tgt'),
        id: { column: 'id', generated: true },
        payload: 'payload',
        lease: 'locked_until',
      }) as AnyTable;
      for (const s of a.dialect.ddl(t)) await target.exec(s);
      const c = await a.pool.acquire();
      const expiry = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, 5));
      const ops = a.dialect.prepare(t);
      await ops.insert(c, [{ payload: '{"a":1}' }]);
      await ops.claimLease(c, 1, new Date(), expiry);
      a.pool.release(c);
      const rows = await target.exec(`SELECT * FROM ${t.table}`);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.payload).toBe('{"a":1}');
      expect((rows[0]!.locked_until as Date).getTime()).toBe(expiry.getTime());
      await target.exec(`DROP TABLE ${t.table}`);
      expect(target.tooOldVersion).toBe('10.5.1-MariaDB');
      const old = await target.open({ serverVersion: target.tooOldVersion, poolSize: 2 });
      const oc = await old.pool.acquire();
      await expect(old.dialect.checkServer(oc)).rejects.toMatchObject({ code: 'SERVER_TOO_OLD' });
      old.pool.release(oc);
    } finally {
      await target.close?.();
    }
  });

  it('killSession ends the session of a Connection.id; the next query fails as connection', async () => {
    const target = make();
    try {
      const a = await target.open({ poolSize: 2 });
      const c = await a.pool.acquire();
      await target.killSession!(c.id);
      const e = await c.query('SELECT 1').catch((x: unknown) => x);
      expect(a.dialect.classifyError(e)).toBe('connection');
      await a.pool.destroy(c);
    } finally {
      await target.close?.();
    }
  });

  it('R-ADV-8 advisoryLocksHeld counts the locks adapters hold, the crash child included, and not the admin', async () => {
    const target = make();
    try {
      const a = await target.open({ poolSize: 3 });
      const t = inbox({
        table: uniqueName('tgtl'),
        id: { column: 'id', generated: true },
        payload: 'payload',
        advisory: 'k-{id}',
      }) as AnyTable;
      const ops = a.dialect.prepare(t);
      expect(await target.advisoryLocksHeld!()).toBe(0);
      const c1 = await a.pool.acquire();
      const c2 = await a.pool.acquire();
      expect(await ops.advisory.lock(c1, 'k-1')).toBe(true);
      expect(await ops.advisory.lock(c2, `k-${'long'.repeat(20)}`)).toBe(true);
      await target.exec('SELECT GET_LOCK(?, 0)', [`${DB.database}.admin-own`]);
      expect(await target.advisoryLocksHeld!()).toBe(2);
      // A child process, opened through childModule, records and holds its lock too.
      const child = fork(fileURLToPath(new URL('./lock-child.mjs', import.meta.url)), [], {
        env: {
          ...process.env,
          LOCK_CHILD_MODULE: target.childModule,
          LOCK_CHILD_TABLE: JSON.stringify(t),
          LOCK_CHILD_KEY: 'k-child',
        },
        // vitest runs with --conditions @sqlinbox/source, which a fork would inherit and then
        // resolve the package to its TypeScript source; the child runs the built dist/.
        execArgv: [],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const msg = await new Promise((resolve, reject) => {
        child.once('message', resolve);
        child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
      });
      expect(msg).toEqual({ locked: true });
      expect(await target.advisoryLocksHeld!()).toBe(3);
      child.kill('SIGKILL');
      expect(await ops.advisory.unlock(c1, 'k-1')).toBe(true);
      expect(await ops.advisory.unlock(c2, `k-${'long'.repeat(20)}`)).toBe(true);
      for (let i = 0; i < 100 && (await target.advisoryLocksHeld!()) !== 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(await target.advisoryLocksHeld!()).toBe(0);
      await target.exec('SELECT RELEASE_LOCK(?)', [`${DB.database}.admin-own`]);
      a.pool.release(c1);
      a.pool.release(c2);
    } finally {
      await target.close?.();
    }
  });
});
