import type { ChildProcess } from 'node:child_process';
import { type Capabilities, Outcome, queue } from '@sqlinbox/core';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import {
  childModuleOf,
  gate,
  type Harness,
  Harness as HarnessClass,
  ms,
  partitionChildScript,
  skipWithoutChild,
  sleep,
  until,
} from '../harness.js';
import { type NetLink, openNetLink } from '../netns.js';
import { NEEDS, only } from '../scenario-skips.js';
import type { ConformanceTarget } from '../target.js';

/** What {@link runPartition} needs besides the target. */
export interface PartitionOptions {
  /** The port the database server listens on at 127.0.0.1 (the relay forwards to it). */
  readonly serverPort: number;
}

/** A message the partition child sent. */
interface ChildEvent {
  type: string;
  id?: string;
  name?: string;
  code?: string;
  message?: string;
  held?: number;
}

const LEASE_MS = 2_000;

/** The description input of a lease table `Harness.create` made; the child describes it from this. */
function leaseInput(table: string, columns?: readonly string[]): Record<string, unknown> {
  return {
    table,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: { column: 'attempt', generated: true },
    lease: 'locked_until',
    ...(columns === undefined ? {} : { columns }),
  };
}

/**
 * A broker in a network namespace of its own, its link to the database cut for longer than a lease
 * and restored, or slowed with delay and loss. The child process runs
 * `partition-child` inside the namespace; the database is reached through a relay on the host side
 * of a veth pair. Needs root and iproute2: where a namespace cannot be made the scenarios fail.
 * The target's `childModule` must honour `SQLINBOX_CHILD_DB_HOST` and `SQLINBOX_CHILD_DB_PORT`.
 */
export async function runPartition(target: ConformanceTarget, options: PartitionOptions): Promise<void> {
  const probe = await target.open({ poolSize: 1 });
  const caps: Capabilities = probe.dialect.capabilities;
  await probe.close();

  describe(`sqlinbox partition: ${target.name}`, () => {
    let harness: Harness | undefined;
    let link: NetLink | undefined;
    const h = () => harness!;
    beforeEach((ctx) => {
      skipWithoutChild(ctx, target);
      harness = new HarnessClass(target, caps);
    });
    afterEach(async () => {
      await link?.close();
      link = undefined;
      await harness?.cleanup();
      harness = undefined;
    });

    /** Starts the child in the namespace; answers it, its events, and a wait for one of them. */
    async function startChild(input: Record<string, unknown>) {
      link = await openNetLink(options.serverPort);
      const events: ChildEvent[] = [];
      const child: ChildProcess = link.spawn(partitionChildScript(), {
        ...process.env,
        SQLINBOX_CHILD: JSON.stringify({ module: childModuleOf(target), ...input }),
        SQLINBOX_CHILD_DB_HOST: link.host,
        SQLINBOX_CHILD_DB_PORT: String(link.port),
      });
      child.on('message', (m: ChildEvent) => events.push(m));
      const alive = () => {
        const failed = events.find((e) => e.type === 'error');
        if (failed) throw new Error(`child failed: ${failed.message}`);
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`child exited (${child.exitCode ?? child.signalCode})`);
      };
      const has = (type: string, id?: string) =>
        events.filter((e) => e.type === type && (id === undefined || e.id === id));
      const waitFor = (type: string, id: string | undefined, what: string, timeout = 20_000) =>
        until(
          () => {
            alive();
            return has(type, id).length > 0;
          },
          what,
          timeout,
        );
      await waitFor('ready', undefined, 'the child started');
      const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.send({ type: 'stop' });
        await until(() => child.exitCode !== null || child.signalCode !== null, 'the child stopped', 15_000);
      };
      return { child, events, has, waitFor, link, stop };
    }

    const modes = caps.transactional ? [false, true] : [false];
    for (const transactional of modes) {
      const title = transactional
        ? "R-RUN-5 R-LEASE-6 R-TX-4 transactional: a broker cut off for longer than a lease: its rows are delivered once elsewhere, its late acks fail with LeaseLostError and its handler's writes never commit, and it resumes without a restart"
        : 'R-RUN-5 R-LEASE-6 a broker cut off for longer than a lease: its rows are delivered once elsewhere, its late settlements fail with LeaseLostError and change nothing, and it resumes without a restart';
      only([caps.forms.includes('lease'), NEEDS.lease])(
        title,
        async () => {
          const { desc, name } = await h().create('lease');
          const ledger = await h().create('lease', { columns: ['row_id', 'who'] }, h().name('ledger'));
          const pub = await h().broker();
          await pub.publish(desc, { n: 1 });
          await pub.publish(desc, { n: 2 });
          const [a, b] = (await h().rows(name)).map((r) => String(r.id)) as [string, string];

          const c = await startChild({
            table: leaseInput(name),
            ledger: leaseInput(ledger.name, ['row_id', 'who']),
            lease: `${LEASE_MS / 1000}s`,
            workers: 2,
            transactional,
            hold: true,
          });
          await c.waitFor('in-handler', a, 'the child holds row a');
          await c.waitFor('in-handler', b, 'the child holds row b');

          await c.link.cut();
          const cutAt = Date.now();

          // The other broker, in the host's namespace: it takes the rows once their leases run out,
          // writes its ledger row, and holds each delivery until the child's late settlement failed.
          const other = await h().broker({ lease: '30s' });
          const held = new Map<string, ReturnType<typeof gate<void>>>([
            [a, gate()],
            [b, gate()],
          ]);
          const took: string[] = [];
          const settledHere: string[] = [];
          other.on('settled', (e) => settledHere.push(String(e.id)));
          let q = queue(desc).workers(2) as any;
          if (transactional) q = q.transactional();
          other.subscribe(q, async (_m: unknown, ctx: { id: unknown; tx?: any }) => {
            const id = String(ctx.id);
            await other.publish(
              ledger.desc,
              {},
              { columns: { row_id: id, who: 'other' }, ...(transactional ? { tx: ctx.tx } : {}) },
            );
            took.push(id);
            await held.get(id)?.promise;
            return Outcome.ack();
          });
          await other.start();
          await until(() => took.includes(a) && took.includes(b), 'the other broker took both rows', 20_000);
          expect(took.sort()).toEqual([a, b].sort());

          // Row b's handler returns while the link is down: its ack waits on the cut link.
          c.child.send({ type: 'release', id: b });
          // The cut lasts three leases.
          await sleep(Math.max(0, cutAt + 3 * LEASE_MS - Date.now()));
          await c.link.restore();
          // Row a's handler returns after the link is back.
          c.child.send({ type: 'release', id: a });

          for (const id of [a, b]) {
            await c.waitFor('settlementError', id, `the child's late settlement of row ${id} failed`, 45_000);
            const [err] = c.has('settlementError', id);
            expect(err).toMatchObject({ name: 'LeaseLostError', code: 'LEASE_LOST' });
          }
          // Both rows are still there, under the other broker's lease: the late acks changed nothing.
          const rows = await h().rows(name);
          expect(rows.map((r) => String(r.id)).sort()).toEqual([a, b].sort());
          for (const r of rows) expect(ms(r.locked_until)!).toBeGreaterThan(Date.now() + 10_000);
          expect(c.has('settled')).toEqual([]);

          for (const g of held.values()) g.open();
          await until(() => settledHere.length === 2, 'the other broker acked both rows', 15_000);
          await until(async () => (await h().rows(name)).length === 0, 'the rows are gone');
          await other.shutdown();

          // The child claims again without a restart.
          await pub.publish(desc, { n: 3 });
          const [third] = (await h().rows(name)).map((r) => String(r.id)) as [string];
          await c.waitFor('in-handler', third, 'the child took a new row after the link returned', 45_000);
          c.child.send({ type: 'release', id: third });
          await c.waitFor('settled', third, 'the child acked the new row', 20_000);
          await until(async () => (await h().rows(name)).length === 0, 'the new row is gone');

          expect(settledHere.sort()).toEqual([a, b].sort());
          expect(c.has('settled').map((e) => e.id)).toEqual([third]);
          // No connection (nor a transaction on it) is left behind by the cut deliveries.
          await until(
            () => {
              c.child.send({ type: 'held?' });
              return c.has('held').at(-1)?.held === 0;
            },
            'the child holds no connection',
            5_000,
          );
          const written = (await h().rows(ledger.name)).map((r) => `${String(r.row_id)}:${String(r.who)}`);
          const expected = transactional
            ? // The child's writes of the cut deliveries rolled back with their transactions.
              [`${a}:other`, `${b}:other`, `${third}:child`]
            : [`${a}:child`, `${a}:other`, `${b}:child`, `${b}:other`, `${third}:child`];
          // The new row comes to the child a second time only where its first lease was lost (a
          // connection of the cut link can take seconds more to recover: TCP backs off its
          // retransmissions), and then the broker said so; the cut rows, exactly as expected.
          const again = `${third}:child`;
          const thirdTimes = written.filter((w) => w === again).length;
          if (thirdTimes > 1)
            expect(
              [...c.has('leaseLost', third), ...c.has('settlementError', third)],
              `the child handled row ${third} ${thirdTimes} times: ${JSON.stringify(c.has('claimed', third))}`,
            ).not.toEqual([]);
          expect(written.filter((w) => w !== again).sort()).toEqual(
            expected.filter((w) => w !== again).sort(),
          );
          expect(thirdTimes).toBeGreaterThanOrEqual(1);
          await c.stop();
        },
        90_000,
      );
    }

    only([caps.forms.includes('lease'), NEEDS.lease])(
      'R-RUN-5 a broker on a slow, lossy link (50 ms ± 20 ms each way, packets dropped) settles every row once and loses none',
      async () => {
        const { desc, name } = await h().create('lease');
        const ledger = await h().create('lease', { columns: ['row_id', 'who'] }, h().name('ledger'));
        const pub = await h().broker();
        const c = await startChild({
          table: leaseInput(name),
          ledger: leaseInput(ledger.name, ['row_id', 'who']),
          lease: `${LEASE_MS / 1000}s`,
          workers: 4,
        });
        await c.link.slow({ delayMs: 50, jitterMs: 20, rate: '2mbit', queueBytes: 4_500 });
        const n = 40;
        // Rows of a few kilobytes, so a claim's answer is a burst of packets the link drops some of.
        const pad = 'x'.repeat(4_000);
        const ids = (
          await pub.publishMany(
            desc,
            Array.from({ length: n }, (_, i) => ({ i, pad })),
          )
        ).map(String);
        expect(new Set(ids).size).toBe(n);
        await until(async () => (await h().rows(name)).length === 0, 'every row settled', 60_000);
        // Packets were lost on the way (TCP sent them again).
        expect(await c.link.dropped()).toBeGreaterThan(0);
        // Each row settled once: a settlement whose lease had run out would have failed.
        await until(() => c.has('settled').length >= n, 'the child told of every settlement');
        const settled = c.has('settled').map((e) => e.id!);
        expect(settled.sort()).toEqual([...ids].sort());
        const written = new Set((await h().rows(ledger.name)).map((r) => String(r.row_id)));
        expect([...written].sort()).toEqual([...ids].sort());
        await c.link.clear();
        await c.stop();
      },
      90_000,
    );
  });
}
