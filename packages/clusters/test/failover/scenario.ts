/**
 * One failover run: a broker on pg or postgres.js reaching a primary with a streaming standby
 * (through a relay that follows the primary, or postgres.js's own host list), 1,000 jobs a second
 * published beside 8 workers; mid-run the primary is killed (SIGKILL) or demoted (turned
 * read-only and left running), the standby is promoted, and the relay switches to it. The run
 * measures the time from the promotion to the first claim on the new primary, which rows were
 * delivered more than once, which published rows were never settled, and which settled rows came
 * back; the test decides what must hold.
 */
import { Broker, inbox, type Logger, Outcome, queue } from '@sqlinbox/core';
import { ddl } from '@sqlinbox/dialect-postgres';
import { pg as pgAdapter } from '@sqlinbox/dialect-postgres/pg';
import { postgresJs } from '@sqlinbox/dialect-postgres/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { Relay } from '../support/relay.js';
import type { PgPair } from '../support/servers.js';

/** What one run does. */
export interface FailoverCase {
  readonly driver: 'pg' | 'postgres.js';
  /** Through a relay that follows the primary, or (postgres.js) every host with target_session_attrs. */
  readonly reach: 'relay' | 'hosts';
  /** The claim form; `transactional` is the lease form in transactional mode (ctx.tx). */
  readonly form: 'lease' | 'rowlock' | 'transactional';
  /** The primary SIGKILLed, or turned read-only and left running. */
  readonly failure: 'killed' | 'demoted';
}

/** What one run measured. */
export interface FailoverResult {
  /** Rows whose publish committed (the publish resolved). */
  readonly published: number;
  /** Rows settled (ack committed) at least once. */
  readonly settled: number;
  /** Published rows never delivered. */
  readonly lost: number;
  /**
   * Published rows delivered whose ack the broker never saw answered, gone from the new primary
   * once drained: the ack committed as the connection died (or, asynchronous, the row never
   * reached the standby). Their handler ran: not lost.
   */
  readonly unconfirmed: number;
  /** Rows whose handler ran more than once. */
  readonly twice: number;
  /** Rows delivered again after their ack had committed. */
  readonly ackedReturned: number;
  /** Transactional: rows whose handler's write committed more than once. */
  readonly writesTwice: number;
  /** Milliseconds from the promotion (the standby out of recovery) to the first claim after it. */
  readonly firstClaimMs: number;
  /**
   * Of {@link firstClaimMs}, the time the claim backoff paused the claims (a failed claim's
   * `retryInMs`, at most 500 ms each): a claim that failed just before the promotion pauses the
   * next one up to 500 ms by design, so the time to the first claim is this plus the time spent
   * claiming.
   */
  readonly firstClaimPausedMs: number;
  /** Milliseconds from the promotion to the first settlement that committed after it. */
  readonly firstSettleMs: number;
  /** Claim errors by kind. */
  readonly claimErrors: Readonly<Record<string, number>>;
  /** Settlement errors by kind. */
  readonly settlementErrors: Readonly<Record<string, number>>;
  /** Publishes that failed (and were made again). */
  readonly publishFailures: number;
  /** Milliseconds from the promotion until every row was settled. */
  readonly drainedMs: number;
}

/** Jobs a second the publishers keep up. */
const RATE = 1_000;
/**
 * Rows published (their publish resolved) in the steady state before the failure, and on the new
 * primary after the promotion: about 2 s and 3 s at {@link RATE}. Counted, not timed: on a loaded
 * machine the publishers fall behind their rate, and a run timed in seconds published too few rows
 * to mean anything (CI saw 2,919 where 3,000 was the floor).
 */
const BEFORE_ROWS = 2_000;
const AFTER_ROWS = 3_000;
/** How long the publishers may take for either count before the run fails. */
const PUBLISH_DEADLINE_MS = 120_000;
/** How long the new primary may take to drain after the promotion before the run fails. */
const DRAIN_DEADLINE_MS = 360_000;
/** The lease of the lease forms: rows in work at the failure come back after it. */
const LEASE = '5s';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts by key. */
function tally(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

/** What a run opens, closed by {@link runFailover} whatever happens to the run. */
interface Opened {
  broker?: Broker;
  sql?: ReturnType<typeof postgres>;
  relay?: Relay;
  clients: pg.Client[];
  /** The publishers' loop runs while this is set; they end soon after it is cleared. */
  publishing: boolean;
  publishers: Promise<void>[];
}

/**
 * One run (see the top of this file). Whatever fails half way, nothing of the run outlives it: no
 * broker claiming against servers the test removes next, no publisher retrying forever, no relay
 * listening, no client left open.
 */
export async function runFailover(pair: PgPair, c: FailoverCase): Promise<FailoverResult> {
  const opened: Opened = { clients: [], publishing: true, publishers: [] };
  try {
    return await run(pair, c, opened);
  } finally {
    opened.publishing = false;
    await Promise.all(opened.publishers);
    await opened.broker?.shutdown({ timeout: 1_000 }).catch(() => {});
    await opened.sql?.end({ timeout: 1 }).catch(() => {});
    await opened.relay?.close();
    for (const client of opened.clients) await client.end().catch(() => {});
  }
}

async function run(pair: PgPair, c: FailoverCase, opened: Opened): Promise<FailoverResult> {
  const { primary, standby } = pair;
  const name = `failover_${c.form}_${c.failure}`;
  const admin = new pg.Client({ connectionString: primary.url() });
  const adminNew = new pg.Client({ connectionString: standby.url() });
  admin.on('error', () => {});
  adminNew.on('error', () => {});
  opened.clients.push(admin, adminNew);
  await admin.connect();
  await adminNew.connect();
  const desc = inbox({
    table: name,
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    payload: 'payload',
    ...(c.form === 'rowlock' ? {} : { lease: 'locked_until' }),
  });
  for (const stmt of ddl(desc)) await admin.query(stmt);
  await admin.query(`CREATE TABLE ${name}_done (seq int NOT NULL, row_id bigint NOT NULL)`);

  const relay = c.reach === 'relay' ? await Relay.start(primary.port) : undefined;
  opened.relay = relay;
  const url = `postgres://postgres@127.0.0.1:${relay?.port ?? primary.port}/postgres`;
  let sql: ReturnType<typeof postgres> | undefined;
  const adapter = (() => {
    if (c.driver === 'pg') {
      if (c.reach !== 'relay') throw new Error('pg has no host list: it reaches a failover through one name');
      return pgAdapter({ connectionString: url, max: 16 });
    }
    sql =
      c.reach === 'relay'
        ? postgres(url, { max: 16, onnotice: () => {} })
        : postgres({
            // postgres.js's host list: each host tried in turn until one is read-write.
            host: `127.0.0.1:${primary.port},127.0.0.1:${standby.port}`,
            database: 'postgres',
            username: 'postgres',
            target_session_attrs: 'read-write' as const,
            max: 16,
            onnotice: () => {},
          });
    opened.sql = sql;
    return postgresJs(sql);
  })();
  const broker = new Broker(adapter, { logger: quiet });
  opened.broker = broker;

  // What happened, keyed by row: `${id}:${seq}` (after an asynchronous failover the new primary
  // may hand out again an id the old one gave a row it never streamed).
  const published = new Set<string>();
  const deliveries = new Map<string, number[]>();
  const ackedAt = new Map<string, number>();
  const keyOfId = new Map<string, string>();
  const claimTimes: number[] = [];
  const settleTimes: number[] = [];
  const claimErrors: Record<string, number> = {};
  const settlementErrors: Record<string, number> = {};
  broker.on('claimed', () => claimTimes.push(performance.now()));
  // Each failed claim's pause, [from, until] (the pump pauses its claims as it emits the event).
  const pauses: [number, number][] = [];
  broker.on('claimError', (e) => {
    tally(claimErrors, e.kind);
    const at = performance.now();
    pauses.push([at, at + e.retryInMs]);
  });
  broker.on('settlementError', (e) => tally(settlementErrors, e.kind));
  broker.on('settled', (e) => {
    const key = keyOfId.get(String(e.id));
    if (key !== undefined && e.outcome === 'ack' && !ackedAt.has(key)) ackedAt.set(key, performance.now());
    settleTimes.push(performance.now());
  });

  let q = queue(desc).workers(8);
  if (c.form !== 'rowlock') q = q.lease(LEASE);
  const handler = async (m: { seq: number }, ctx: { id: unknown; tx?: unknown }) => {
    const key = `${String(ctx.id)}:${m.seq}`;
    keyOfId.set(String(ctx.id), key);
    const times = deliveries.get(key) ?? [];
    times.push(performance.now());
    deliveries.set(key, times);
    if (c.form === 'transactional') {
      const tx = ctx.tx as { query(sql: string, params: unknown[]): Promise<unknown> };
      await tx.query(`INSERT INTO ${name}_done (seq, row_id) VALUES ($1, $2)`, [m.seq, ctx.id]);
    }
    return Outcome.ack();
  };
  if (c.form === 'transactional') broker.subscribe(q.transactional(), handler as never);
  else broker.subscribe(q, handler as never);
  await broker.start();

  // Two publishers keep 1,000 jobs a second between them, up to 50 rows a statement; a failed
  // publish is made again (its rows may or may not have committed: only a resolved one counts).
  const started = performance.now();
  let next = 0;
  let publishFailures = 0;
  const publisher = async () => {
    while (opened.publishing) {
      const owed = Math.floor(((performance.now() - started) * RATE) / 1_000) - next;
      if (owed <= 0) {
        await sleep(2);
        continue;
      }
      const seqs = Array.from({ length: Math.min(owed, 50) }, (_, i) => next + i);
      next += seqs.length;
      // Made again while the run publishes: a batch still failing when it stops is not counted.
      while (opened.publishing) {
        try {
          const ids = await broker.publishMany(
            desc,
            seqs.map((seq) => ({ seq })),
          );
          for (const [i, id] of ids.entries()) published.add(`${String(id)}:${seqs[i]}`);
          break;
        } catch {
          publishFailures++;
          await sleep(5);
        }
      }
    }
  };
  opened.publishers = [publisher(), publisher()];
  const publishedAtLeast = async (rows: number, when: string) => {
    const deadline = performance.now() + PUBLISH_DEADLINE_MS;
    while (published.size < rows) {
      if (performance.now() > deadline)
        throw new Error(
          `${published.size} of ${rows} rows published ${when} after ${PUBLISH_DEADLINE_MS} ms`,
        );
      await sleep(5);
    }
  };

  await publishedAtLeast(BEFORE_ROWS, 'before the failure');
  // The failure, then the promotion; the promotion's moment is the standby's first answer out of
  // recovery, polled every 5 ms beside `pg_ctl promote`.
  if (c.failure === 'killed') await primary.kill();
  else await primary.set({ default_transaction_read_only: 'on' });
  const promoting = standby.promote();
  let promotedAt = 0;
  for (;;) {
    const r = await adminNew.query('SELECT pg_is_in_recovery() AS r');
    if (r.rows[0].r === false) {
      promotedAt = performance.now();
      break;
    }
    await sleep(5);
  }
  relay?.switchTo(standby.port);
  await promoting;
  // Publishes resume on the new primary: the run fails if they do not.
  await publishedAtLeast(published.size + AFTER_ROWS, 'on the new primary after the promotion');
  opened.publishing = false;
  await Promise.all(opened.publishers);

  // Drained: the new primary holds no row, and nothing is in work.
  // A stall fails the run; a slow drain does not. With the row lock form's claims backing off for
  // up to 30 s after the promotion, the rows of the whole run wait, and a loaded CI machine drained
  // 8,872 of them in 119 s (another run, not drained at 120 s, failed).
  const deadline = performance.now() + DRAIN_DEADLINE_MS;
  for (;;) {
    const r = await adminNew.query(`SELECT count(*)::int AS n FROM ${name}`);
    if (r.rows[0].n === 0) break;
    if (performance.now() > deadline)
      throw new Error(
        `${r.rows[0].n} rows still in ${name} on the new primary ${DRAIN_DEADLINE_MS} ms after the promotion`,
      );
    await sleep(50);
  }
  const drainedMs = performance.now() - promotedAt;
  await broker.shutdown({ timeout: 5_000 });
  if (sql !== undefined) await sql.end({ timeout: 1 });
  await relay?.close();

  let writesTwice = 0;
  if (c.form === 'transactional') {
    const r = await adminNew.query(
      `SELECT count(*)::int AS n FROM (SELECT seq FROM ${name}_done GROUP BY seq, row_id HAVING count(*) > 1) d`,
    );
    writesTwice = r.rows[0].n;
  }

  let twice = 0;
  let ackedReturned = 0;
  for (const [key, times] of deliveries) {
    if (times.length > 1) twice++;
    const acked = ackedAt.get(key);
    if (acked !== undefined && times.some((t) => t > acked)) ackedReturned++;
  }
  let lost = 0;
  let unconfirmed = 0;
  for (const key of published) {
    if (ackedAt.has(key)) continue;
    if (deliveries.has(key)) unconfirmed++;
    else lost++;
  }
  const firstAfter = (times: number[]) => {
    const t = times.find((x) => x >= promotedAt);
    return t === undefined ? Number.NaN : t - promotedAt;
  };
  return {
    published: published.size,
    settled: ackedAt.size,
    lost,
    unconfirmed,
    twice,
    ackedReturned,
    writesTwice,
    firstClaimMs: firstAfter(claimTimes),
    firstClaimPausedMs: pausedWithin(pauses, promotedAt, promotedAt + firstAfter(claimTimes)),
    firstSettleMs: firstAfter(settleTimes),
    claimErrors,
    settlementErrors,
    publishFailures,
    drainedMs,
  };
}

/** How long the intervals `pauses` cover (overlaps counted once) between `from` and `to`. */
function pausedWithin(pauses: readonly [number, number][], from: number, to: number): number {
  if (!(to > from)) return 0;
  const cut = pauses
    .map(([a, b]): [number, number] => [Math.max(a, from), Math.min(b, to)])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = from;
  for (const [a, b] of cut) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}
