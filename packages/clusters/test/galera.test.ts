/**
 * A three-node MariaDB Galera cluster on this machine (scripts/galera.sh): brokers on every node
 * drain the rows while one node is killed; certification failures come back as deadlocks and
 * are retried; the advisory form, and per-key concurrency, are refused there with the reason.
 */
import { Broker, ConfigError, inbox, type Logger, Outcome, queue } from '@sqlinbox/core';
import { ddl } from '@sqlinbox/dialect-mysql';
import { mariadb } from '@sqlinbox/dialect-mysql/mariadb';
import { mysql2 } from '@sqlinbox/dialect-mysql/mysql2';
import * as connector from 'mariadb';
import mysql from 'mysql2/promise';
import { afterAll, describe, expect, test } from 'vitest';
import { type GaleraCluster, serverOrSkip, startGalera } from './support/servers.js';

/**
 * Rows per run: 50,000 in the lease form; 5,000 in the row lock form, where two nodes claim the
 * same rows and most run twice (about 7 s per 1,000 rows here, and once, on a loaded CI machine,
 * 38 s per 1,000 before the kill), so 50,000 would take minutes. `SQLINBOX_GALERA_ROWS` sets both
 * (a quicker local run).
 */
const ROWS_OF = (form: 'lease' | 'rowlock') =>
  Number(process.env.SQLINBOX_GALERA_ROWS ?? (form === 'lease' ? 50_000 : 5_000));
const WORKERS = 8;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cluster = await serverOrSkip('a three-node MariaDB Galera cluster', () => startGalera());
if (cluster !== undefined) {
  afterAll(() => cluster.remove());
  describe('R-CLUS-3 a three-node Galera cluster (MariaDB 10.11)', () => {
    test('R-CLUS-3 the advisory form and per-key concurrency are refused on a Galera node, saying why', async () => {
      const admin = await adminOf(cluster, 1);
      const pool = mysql.createPool(connectionOf(cluster, 1, 4));
      const broker = new Broker(mysql2(pool), { logger: quiet });
      const advisory = inbox({
        table: 'galera_advisory',
        id: { column: 'id', generated: true },
        attempt: { column: 'attempt', generated: true },
        payload: 'payload',
        advisory: 'k-{id}',
      });
      const keyed = inbox({
        table: 'galera_keyed',
        id: { column: 'id', generated: true },
        attempt: { column: 'attempt', generated: true },
        payload: 'payload',
        lease: 'locked_until',
        columns: ['tenant'],
        concurrency: { key: 'tenant', limit: 1 },
      });
      try {
        for (const t of [advisory, keyed]) for (const stmt of ddl(t)) await admin.query(stmt);
        broker.subscribe(queue(advisory), async () => Outcome.ack());
        const refused = await broker.start().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(ConfigError);
        expect((refused as Error).message).toMatch(/advisory form: .*Galera.*GET_LOCK/);
        await broker.shutdown();

        const second = new Broker(mysql2(connectionOf(cluster, 1, 4)), { logger: quiet });
        second.subscribe(queue(keyed), async () => Outcome.ack());
        const refusedKeyed = await second.start().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(refusedKeyed).toBeInstanceOf(ConfigError);
        expect((refusedKeyed as Error).message).toMatch(/per-key concurrency/);
        await second.shutdown();
      } finally {
        await admin.query('DROP TABLE IF EXISTS galera_advisory, galera_keyed');
        await admin.end();
        await pool.end().catch(() => {});
      }
    });

    /** Whether a drain killed node 3 (and it has not rejoined since). */
    let node3Down = false;
    for (const form of ['lease', 'rowlock'] as const) {
      test(`R-CLUS-3 ${form}: brokers on the three nodes drain ${ROWS_OF(form)} rows while node 3 is killed: none lost, duplicates within what was in flight`, async () => {
        // Node 3 back first where the run before killed it (passed or not). The last run leaves
        // it down: afterAll removes the cluster, and a rejoin nobody needs could only fail.
        if (node3Down) {
          await cluster.rejoin(3);
          node3Down = false;
        }
        node3Down = true;
        const r = await drainWithKill(cluster, form);
        console.log(`galera ${JSON.stringify({ form, ...r })}`);
        expect(r.lost).toBe(0);
        // Every row settled, the broker saw it or not (an ack that committed as node 3 died is
        // never answered; its row is gone from the cluster like any settled one).
        expect(r.settled + r.unconfirmed).toBe(ROWS_OF(form));
        // A row runs twice only where it was in work on the killed node (run there, never
        // settled), or where its settlement failed on a surviving node (for the row lock form,
        // another node's commit of the same row won its certification: a deadlock).
        expect(r.twice).toBeLessThanOrEqual(r.inFlightOnKilled + r.settleFailures);
        // The surviving brokers settled rows after the kill.
        expect(r.settledAfterKill).toBeGreaterThan(0);
        // The drain's own deadlines (a third settled within 240 s, with no 60 s without a
        // settlement; the rest within 240 s of the kill) fail a run that stalls, with the counts;
        // this only bounds the whole.
      }, 600_000);
    }
  });
}

/** A node's connection options (database `test`, root without a password). */
function connectionOf(c: GaleraCluster, node: number, size: number) {
  return {
    host: '127.0.0.1',
    port: c.ports[node - 1],
    user: 'root',
    database: 'test',
    connectionLimit: size,
  };
}

async function adminOf(c: GaleraCluster, node: number) {
  return mysql.createConnection({
    host: '127.0.0.1',
    port: c.ports[node - 1],
    user: 'root',
    database: 'test',
  });
}

interface DrainResult {
  readonly settled: number;
  /** Rows never delivered. */
  readonly lost: number;
  /** Rows delivered, gone from the cluster, whose ack no broker saw answered. */
  readonly unconfirmed: number;
  readonly twice: number;
  /** Rows run on the killed node's broker and never settled there. */
  readonly inFlightOnKilled: number;
  /** Settlements that failed on the surviving nodes, and of them the deadlocks (certification). */
  readonly settleFailures: number;
  readonly settleConflicts: number;
  readonly claimConflicts: number;
  readonly settledAfterKill: number;
  readonly seconds: number;
  readonly perNode: readonly number[];
  /** The surviving nodes' settlement errors, by kind and message. */
  readonly failureKinds: Readonly<Record<string, number>>;
}

/**
 * Publishes the form's rows through node 1, drains them with a broker on each node (mysql2 on nodes 1
 * and 3, mariadb on node 2; 8 workers each), kills node 3 once a third is settled, and waits until
 * the cluster holds no row.
 */
async function drainWithKill(c: GaleraCluster, form: 'lease' | 'rowlock'): Promise<DrainResult> {
  // Whatever fails half way, the brokers, pools and admin connection are closed: a broker left
  // claiming would run on into the next test.
  const held: Held = { pools: [], brokers: [] };
  try {
    return await drain(c, form, held);
  } finally {
    await Promise.all(held.brokers.map((b) => b.shutdown({ timeout: 2_000 }).catch(() => {})));
    await Promise.all(held.pools.map((p) => p.end().catch(() => {})));
    await held.admin?.end().catch(() => {});
  }
}

/** What {@link drain} opens, closed by {@link drainWithKill}. */
interface Held {
  admin?: mysql.Connection;
  pools: { end(): Promise<void> }[];
  brokers: Broker[];
}

async function drain(c: GaleraCluster, form: 'lease' | 'rowlock', held: Held): Promise<DrainResult> {
  const ROWS = ROWS_OF(form);
  const name = `galera_${form}`;
  const desc = inbox({
    table: name,
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    payload: 'payload',
    ...(form === 'lease' ? { lease: 'locked_until' } : {}),
  });
  const admin = await adminOf(c, 1);
  held.admin = admin;
  await admin.query(`DROP TABLE IF EXISTS ${name}`);
  for (const stmt of ddl(desc)) await admin.query(stmt);

  const pools = [
    mysql.createPool(connectionOf(c, 1, WORKERS + 4)),
    // Without pipelining, as docs/clusters.md advises on Galera: the mariadb driver sends PREPARE
    // and EXECUTE together, and when Galera aborted the transaction under the PREPARE, the reply
    // to the EXECUTE crashed the process from its parser (TypeError: Cannot read properties of
    // null (reading 'columns'), mariadb 3.5.4, seen in this scenario).
    connector.createPool({ ...connectionOf(c, 2, WORKERS + 4), acquireTimeout: 10_000, pipelining: false }),
    mysql.createPool(connectionOf(c, 3, WORKERS + 4)),
  ] as const;
  const brokers = [
    new Broker(mysql2(pools[0]), { logger: quiet }),
    new Broker(mariadb(pools[1]), { logger: quiet }),
    new Broker(mysql2(pools[2]), { logger: quiet }),
  ];
  held.pools.push(...pools);
  held.brokers.push(...brokers);
  // The rows in one statement, as the payloads publish() writes ({"seq":n}), from MariaDB's
  // sequence engine: one writeset for the cluster to certify. Published 1,000 a statement, they
  // took over four minutes on a loaded CI machine, and the test ran out of time before its drain.
  await admin.query(`INSERT INTO ${name} (payload) SELECT JSON_OBJECT('seq', seq) FROM seq_0_to_${ROWS - 1}`);

  const runs = new Map<number, number>();
  const settledSeqs = new Set<number>();
  const seqOf = brokers.map(() => new Map<string, number>());
  const ran = [0, 0, 0];
  const perNode = [0, 0, 0];
  let settleFailures = 0;
  const failureKinds: Record<string, number> = {};
  let settleConflicts = 0;
  let claimConflicts = 0;
  let killedAt = Number.POSITIVE_INFINITY;
  let settledAfterKill = 0;
  for (const [i, b] of brokers.entries()) {
    b.on('settled', (e) => {
      const seq = seqOf[i]!.get(String(e.id));
      if (seq !== undefined && e.outcome === 'ack') settledSeqs.add(seq);
      perNode[i]!++;
      if (performance.now() > killedAt) settledAfterKill++;
    });
    b.on('settlementError', (e) => {
      if (i === 2) return;
      settleFailures++;
      const what = e.error instanceof Error ? `${e.kind}: ${e.error.message.slice(0, 80)}` : e.kind;
      failureKinds[what] = (failureKinds[what] ?? 0) + 1;
      if (e.kind === 'deadlock') settleConflicts++;
    });
    b.on('claimError', (e) => {
      if (e.kind === 'deadlock') claimConflicts++;
    });
    let q = queue(desc).workers(WORKERS);
    if (form === 'lease') q = q.lease('5s');
    b.subscribe(q, async (m: { seq: number }, ctx) => {
      seqOf[i]!.set(String(ctx.id), m.seq);
      ran[i]!++;
      runs.set(m.seq, (runs.get(m.seq) ?? 0) + 1);
      return Outcome.ack();
    });
  }
  const started = performance.now();
  await Promise.all(brokers.map((b) => b.start()));

  // Node 3 killed once a third of the rows are settled. A drain that settles nothing for 60 s
  // has stalled; one that is slow but moving (a joiner still catching up slows the cluster down
  // by flow control) may take up to 240 s for its third.
  const third = performance.now() + 240_000;
  let lastCount = 0;
  let lastMove = performance.now();
  while (settledSeqs.size < ROWS / 3) {
    const now = performance.now();
    if (settledSeqs.size > lastCount) {
      lastCount = settledSeqs.size;
      lastMove = now;
    }
    if (now - lastMove > 60_000 || now > third)
      throw new Error(
        `${settledSeqs.size} of ${ROWS} rows settled ${Math.round((now - started) / 1_000)} s after the start, before any kill (${Math.round((now - lastMove) / 1_000)} s without a settlement)`,
      );
    await sleep(5);
  }
  await c.kill(3);
  killedAt = performance.now();

  const deadline = performance.now() + 240_000;
  for (;;) {
    const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM ${name}`);
    const n = Number((rows as { n: unknown }[])[0]?.n);
    // Every row's ack committed: the table is empty (a settled event may still be on its way).
    if (n === 0) break;
    if (performance.now() > deadline)
      throw new Error(
        `${n} rows left in ${name}, ${settledSeqs.size} of ${ROWS} settled, 240 s after the kill`,
      );
    await sleep(50);
  }
  const seconds = (performance.now() - started) / 1_000;
  // Stopped before the counts are read: a settlement in flight reports first.
  await Promise.all(brokers.map((b) => b.shutdown({ timeout: 2_000 })));
  await admin.query(`DROP TABLE ${name}`);

  let twice = 0;
  for (const n of runs.values()) if (n > 1) twice++;
  const inFlightOnKilled = ran[2]! - perNode[2]!;
  let lost = 0;
  let unconfirmed = 0;
  for (let s = 0; s < ROWS; s++) {
    if (settledSeqs.has(s)) continue;
    if (runs.has(s)) unconfirmed++;
    else lost++;
  }
  return {
    settled: settledSeqs.size,
    lost,
    unconfirmed,
    twice,
    inFlightOnKilled,
    settleFailures,
    settleConflicts,
    claimConflicts,
    settledAfterKill,
    seconds: Math.round(seconds * 10) / 10,
    perNode,
    failureKinds,
  };
}
