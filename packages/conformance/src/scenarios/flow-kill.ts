import type { ChildProcess } from 'node:child_process';
import type { Form, Row } from '@sqlinbox/core';
import { expect, test } from 'vitest';
import {
  type BrokerChild,
  exited,
  type Harness,
  skipWithoutChild,
  spawnBroker,
  tableInput,
  until,
} from '../harness.js';
import { flowTable, processed } from './flow-graph.js';

/** The shape of the 3-level flows of about `jobs` jobs: roots, each over `mids` parents, each over `leaves` leaves. */
export function flowShape(jobs: number): { roots: number; mids: number; leaves: number; total: number } {
  const roots = Math.max(1, Math.round(jobs / 1_000));
  const perRoot = Math.floor(jobs / roots);
  const mids = perRoot >= 100 ? 9 : Math.max(1, Math.floor(Math.sqrt(perRoot)) - 1);
  const leaves = Math.max(1, Math.floor((perRoot - 1 - mids) / mids));
  return { roots, mids, leaves, total: roots * (1 + mids + mids * leaves) };
}

/** The ledger table's columns, written by the child's handlers (`mode: 'flow'`). */
const LEDGER = ['row_id', 'kind', 'pid', 'attempt', 'seen', 'visible', 'total'];

/** The fractions of the jobs handled at which one broker process is SIGKILLed (then restarted). */
const KILLS = [0.2, 0.45, 0.7];

/**
 * R-FLOW-6 across processes and crashes: 3-level flows (root over mids over leaves; each mid also
 * over the next mid's first leaf, a child with two parents) of about `jobs` jobs, handled by 3
 * brokers in child processes, one SIGKILLed and restarted at 20 %, 45 % and 70 % of the jobs.
 * Every handler writes a ledger row; a parent's row says how many of its children its first
 * statement read as settled, how many of their rows were processed (read again one by one) and
 * how many results it could read. The checks compare the ledger with the database.
 */
export function flowKillScenarios(h: () => Harness, form: Form, jobs: number): void {
  const shape = flowShape(jobs);
  test(`R-FLOW-6 a 3-level flow of ${shape.total} jobs across 3 broker processes, SIGKILLed and restarted mid-run: no parent starts before its last child settles (ledger against the database), every parent runs (again only after a kill), every child result is visible to its parent (${form})`, {
    timeout: 600_000,
  }, async (ctx) => {
    skipWithoutChild(ctx, h().target);
    if (form === 'advisory' && !h().caps.multipleConnections)
      return ctx.skip(
        "the advisory form's keys live in each process here (SQLite): one process per database file",
      );
    const { desc, name, flows, edges } = await flowTable(h(), form);
    const ledgerName = h().name('ledger');
    await h().create(form, { columns: LEDGER }, ledgerName);
    /** Each parent's children, by id as text. */
    const childrenOf = new Map<string, string[]>();
    const roots: string[] = [];
    const leaves = new Set<string>();
    const started = Date.now();
    for (let r = 0; r < shape.roots; r++) {
      const spec: Record<string, { message: { kind: string; name: string }; after?: string[] }> = {};
      const leaf = (m: number, i: number) => `l${m}_${i}`;
      for (let m = 0; m < shape.mids; m++)
        for (let i = 0; i < shape.leaves; i++)
          spec[leaf(m, i)] = { message: { kind: 'leaf', name: leaf(m, i) } };
      for (let m = 0; m < shape.mids; m++) {
        const after = Array.from({ length: shape.leaves }, (_, i) => leaf(m, i));
        if (shape.mids > 1) after.push(leaf((m + 1) % shape.mids, 0));
        spec[`m${m}`] = { message: { kind: 'mid', name: `m${m}` }, after };
      }
      spec.root = {
        message: { kind: 'root', name: 'root' },
        after: Array.from({ length: shape.mids }, (_, m) => `m${m}`),
      };
      const ids = await flows.publish(desc, { jobs: spec });
      for (const [n, j] of Object.entries(spec)) {
        if (j.after === undefined) leaves.add(String(ids[n]));
        else
          childrenOf.set(
            String(ids[n]),
            j.after.map((c) => String(ids[c])),
          );
      }
      roots.push(String(ids.root));
    }
    const publishedMs = Date.now() - started;

    /** Rows a live broker let go of unsettled (a lease lost under a stalled process, a failed settlement). */
    const lost = new Set<string>();
    const spawn = (): BrokerChild<unknown> => {
      const b = spawnBroker<unknown>(h(), {
        mode: 'flow',
        table: tableInput(form, name, {
          retryAfter: 'retry_after',
          processedAt: 'processed_at',
          result: 'result',
          flows: { table: edges },
        }),
        ledger: {
          table: ledgerName,
          id: { column: 'id', generated: true },
          payload: 'payload',
          columns: LEDGER,
        },
        workers: 6,
        poolSize: 8,
        lease: '2s',
      });
      b.child.on('message', (m: { type?: string; id?: string }) => {
        if (m?.type === 'lost' && m.id !== undefined) lost.add(m.id);
      });
      return b;
    };
    const brokers = [spawn(), spawn(), spawn()];
    await Promise.all(brokers.map((b) => b.ready));
    const count = async (from: string) =>
      Number((await h().target.exec(`SELECT COUNT(*) AS n FROM ${from}`))[0]!.n);
    // Every row processed (the roots last of all).
    const allDone = async () => (await count(`${name} WHERE processed_at IS NULL`)) === 0;
    const killed = new Set<string>();
    for (const [k, at] of KILLS.entries()) {
      await until(
        async () => (await count(ledgerName)) >= at * shape.total,
        `${at * 100} % of the jobs handled`,
        300_000,
        100,
      );
      // The kill lands mid-run: rows are left to handle.
      expect(await allDone()).toBe(false);
      const victim: ChildProcess = brokers[k % 3]!.child;
      killed.add(String(victim.pid));
      victim.kill('SIGKILL');
      await exited(victim);
      brokers[k % 3] = spawn();
      await brokers[k % 3]!.ready;
    }
    await until(allDone, 'every row processed', 300_000, 100);
    expect([...(await processed(h(), name))].filter((id) => roots.includes(id))).toHaveLength(roots.length);
    const ranMs = Date.now() - started - publishedMs;
    console.info(
      `flow kill scenario (${form}, ${shape.total} jobs): published in ${publishedMs} ms, ran in ${ranMs} ms`,
    );

    // Every row processed, every edge done, every parent woken once with nothing pending.
    const rows = await h().rows(name);
    expect(rows).toHaveLength(shape.total);
    expect(rows.filter((r) => r.processed_at == null)).toEqual([]);
    expect((await h().rows(edges)).filter((e) => e.state !== 'done')).toEqual([]);
    const parents = await h().rows(`${edges}_parent`);
    expect(parents).toHaveLength(childrenOf.size);
    for (const p of parents) expect([Number(p.pending), Number(p.woken)]).toEqual([0, 1]);

    // The ledger against the database.
    const ledger = await h().rows(ledgerName);
    const runs = new Map<string, Row[]>();
    for (const l of ledger) runs.set(String(l.row_id), [...(runs.get(String(l.row_id)) ?? []), l]);
    for (const leaf of leaves) expect(runs.get(leaf)?.length ?? 0, `leaf ${leaf} ran`).toBeGreaterThan(0);
    for (const [parent, children] of childrenOf) {
      const mine = runs.get(parent) ?? [];
      expect(mine.length, `parent ${parent} ran`).toBeGreaterThan(0);
      // A run before the last was cut off: the process running it was killed, or let the row go
      // (its lease ran out while its process stood still, and it said so).
      for (const early of mine.slice(0, -1))
        expect(
          killed.has(String(early.pid)) || lost.has(parent),
          `parent ${parent} ran again though process ${String(early.pid)} was not killed and let nothing go`,
        ).toBe(true);
      for (const run of mine) {
        // Every child read settled, its row processed and its result visible, at the parent's start.
        expect(
          [Number(run.total), Number(run.seen), Number(run.visible)],
          `parent ${parent} at its start`,
        ).toEqual([children.length, children.length, children.length]);
        // And each child's handler wrote its ledger row before the parent's.
        for (const c of children) expect(Number(runs.get(c)?.[0]?.id)).toBeLessThan(Number(run.id));
      }
    }
  });
}
