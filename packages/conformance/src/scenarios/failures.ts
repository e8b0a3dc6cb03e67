import { fork } from 'node:child_process';
import { type Capabilities, type Form, queue, SettlementError } from '@sqlinbox/core';
import { expect } from 'vitest';
import {
  childModuleOf,
  childScript,
  exited,
  gate,
  type Harness,
  locksHeldOrSkip,
  skipWithoutChild,
  sleep,
  tableInput,
  until,
} from '../harness.js';
import { NEEDS, only } from '../scenario-skips.js';
import type { ConformanceTarget } from '../target.js';

/** How many rows the heavier scenarios move. */
export interface FailureOptions {
  /** Rows for "two brokers in separate processes" (default 1,000). */
  readonly rows: number;
  /** Advisory deliveries before counting the locks left (default 1,000). */
  readonly advisoryDeliveries: number;
}

/**
 * Failures on real processes and connections: many workers in two processes with a UNIQUE
 * ledger, locks left after many advisory deliveries, a delivery's session killed mid-handler, and
 * the server restarted mid-run.
 */
export function failureScenarios(
  h: () => Harness,
  target: ConformanceTarget,
  form: Form,
  caps: Capabilities,
  opts: FailureOptions,
): void {
  only([caps.multipleConnections, NEEDS.connections])(
    `R-POOL-10 R-ERR-2 two brokers in separate processes x 4 workers over ${opts.rows} rows: each settled once, none lost, none left claimed (${form})`,
    { timeout: 300_000 },
    async (ctx) => {
      skipWithoutChild(ctx, h().target);
      const { desc, name } = await h().create(form);
      const ledgerName = h().name('ledger');
      await h().create(form, { columns: ['row_id'] }, ledgerName);
      await h().target.exec(`CREATE UNIQUE INDEX ${ledgerName}_row ON ${ledgerName} (row_id)`);
      const pub = await h().broker();
      for (let i = 0; i < opts.rows; i += 500) {
        await pub.publishMany(
          desc,
          Array.from({ length: Math.min(500, opts.rows - i) }, (_, k) => ({ n: i + k })),
        );
      }
      const children = [0, 1].map(() =>
        fork(childScript(), [], {
          env: {
            ...process.env,
            SQLINBOX_CHILD: JSON.stringify({
              mode: 'ledger',
              module: childModuleOf(h().target),
              table: tableInput(form, name),
              ledger: {
                table: ledgerName,
                id: { column: 'id', generated: true },
                payload: 'payload',
                columns: ['row_id'],
              },
              workers: 4,
              poolSize: 6,
              lease: '10s',
            }),
          },
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          execArgv: [],
        }),
      );
      h().children.push(...children);
      const reports = children.map(
        (c) =>
          new Promise<{ settled: number; conflicts: number; failures: number }>((resolve, reject) => {
            c.on('message', (m: any) => {
              if (m?.type === 'done') resolve(m);
              if (m?.type === 'error') reject(new Error(m.message));
            });
            c.on('exit', (code) => reject(new Error(`a worker process exited (${code}) before it reported`)));
          }),
      );
      const count = async (t: string) =>
        Number((await h().target.exec(`SELECT COUNT(*) AS n FROM ${t}`))[0]!.n);
      const failed = Promise.race(reports).then(() => undefined);
      await Promise.race([
        failed,
        until(async () => (await count(name)) === 0, `all ${opts.rows} rows settled`, 240_000),
      ]);
      for (const c of children) c.send({ type: 'stop' });
      const done = await Promise.all(reports);
      await Promise.all(children.map(exited));
      expect(done.reduce((a, d) => a + d.conflicts, 0)).toBe(0);
      expect(done.reduce((a, d) => a + d.settled, 0)).toBe(opts.rows);
      expect(done.every((d) => d.settled > 0)).toBe(true); // both processes took rows
      expect(await count(ledgerName)).toBe(opts.rows);
    },
  );

  if (form === 'advisory') {
    only([caps.multipleConnections, NEEDS.connections])(
      `R-ADV-5 after ${opts.advisoryDeliveries} advisory deliveries no advisory lock is held`,
      { timeout: 300_000 },
      async (ctx) => {
        const locksHeld = locksHeldOrSkip(ctx, h().target);
        const { desc, name } = await h().create('advisory');
        const b = await h().broker({ poolSize: 10 });
        let done = 0;
        b.subscribe(queue(desc).workers(8), async () => {
          done++;
        });
        for (let i = 0; i < opts.advisoryDeliveries; i += 500) {
          await b.publishMany(
            desc,
            Array.from({ length: Math.min(500, opts.advisoryDeliveries - i) }, (_, k) => ({ n: i + k })),
          );
        }
        await b.start();
        await until(() => done >= opts.advisoryDeliveries, 'all delivered', 240_000);
        await until(async () => (await h().rows(name)).length === 0, 'all settled');
        await until(() => b.poolUse.held === 0, 'every connection back');
        // The broker's sessions are still open: none of them holds a lock.
        expect(await locksHeld()).toBe(0);
      },
    );
  }

  if (form !== 'lease') {
    only(
      [caps.multipleConnections, NEEDS.connections],
      [target.killSession !== undefined, NEEDS.killSession],
    )(
      `R-ERR-2 R-SET-5 a delivery's session killed mid-handler: the settlement fails and the row is back (${form})`,
      async () => {
        const kill = h().target.killSession;
        if (kill === undefined) throw new Error(`${h().target.name} cannot kill a session`);
        const { desc, name } = await h().create(form);
        const { broker: b, out } = await h().trackedBroker();
        const inHandler = gate();
        const proceed = gate();
        const result = gate<unknown>();
        const attempts: number[] = [];
        b.subscribe(queue(desc), async (_m, ctx) => {
          attempts.push(ctx.attempt);
          if (attempts.length > 1) return;
          inHandler.open();
          await proceed.promise;
          await ctx.ack().then(
            () => result.open('acked'),
            (e: unknown) => result.open(e),
          );
        });
        await b.start();
        await b.publish(desc, { k: 1 });
        await inHandler.promise;
        // One worker, its row in work: the connections out of the pool are the delivery's.
        const sessions = [...out].map((c) => c.id);
        expect(sessions.length).toBeGreaterThanOrEqual(1);
        for (const id of sessions) await kill(id);
        proceed.open();
        expect(await result.promise).toBeInstanceOf(SettlementError);
        await until(() => attempts.length === 2, 'the row delivered again');
        // Row lock: the rollback undid nothing counted; advisory: the take had counted it.
        expect(attempts[1]).toBe(form === 'rowlock' ? 1 : 2);
        await until(async () => (await h().rows(name)).length === 0, 'acked the second time');
      },
    );
  }

  only(
    [caps.multipleConnections, NEEDS.connections],
    [target.restartServer !== undefined, NEEDS.restartServer],
  )(
    `R-ERR-2 the server restarted mid-run: the broker reconnects with backoff and no row is lost (${form})`,
    { timeout: 180_000 },
    async () => {
      const restart = h().target.restartServer;
      if (restart === undefined) throw new Error(`${h().target.name} cannot restart its server`);
      const { desc, name } = await h().create(form);
      const b = await h().broker({ lease: '2s' });
      const seen = new Set<number>();
      b.subscribe(queue(desc).workers(4), async (m) => {
        await sleep(5);
        seen.add((m as { n: number }).n);
      });
      const total = 300;
      await b.publishMany(
        desc,
        Array.from({ length: total }, (_, n) => ({ n })),
      );
      await b.start();
      await until(() => seen.size >= 20, 'work under way');
      await restart();
      await until(
        async () =>
          (
            await h()
              .rows(name)
              .catch(() => [{}])
          ).length === 0,
        'every row settled',
        120_000,
      );
      for (let n = 0; n < total; n++) expect(seen.has(n)).toBe(true);
    },
  );
}
