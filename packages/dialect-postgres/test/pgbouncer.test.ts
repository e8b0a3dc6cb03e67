import {
  Admin,
  type AnyTable,
  Broker,
  ConfigError,
  type Connection,
  inbox,
  type Logger,
  type Pool,
  queue,
} from '@sqlinbox/core';
import pgModule from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type PgTransactionPoolerAdapter, pg } from '../src/pg.js';
import { type PostgresJsTransactionPoolerAdapter, postgresJs } from '../src/postgres.js';
import { quoteTable } from '../src/sql.js';
import { BOUNCER_URL, consoleQuery, NO_BOUNCER } from './pgbouncer-targets.js';
import { adminClient, createTable, URL, uniqueName } from './support.js';

/**
 * What the PostgreSQL adapters do through PgBouncer in transaction pooling mode (R-RUN-4) beyond
 * the conformance suite (conformance.pgbouncer.*.test.ts): the advisory form refused, named
 * statements avoided, the wake-up on a direct listener only, nothing left in a pooled server
 * session, and the warning for an adapter that does not know it is behind a pooler.
 */

const database = new globalThis.URL(BOUNCER_URL).pathname.slice(1);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Closes every server session PgBouncer holds for the test database, and waits until they are gone. */
async function resetServers(): Promise<void> {
  await consoleQuery(`RECONNECT ${database}`);
  await consoleQuery(`WAIT_CLOSE ${database}`);
}

/** What one pooled server session holds, read inside it. */
interface SessionState {
  readonly pid: number;
  readonly prepared: string[];
  readonly listening: string[];
}

/** The pids of the server sessions PgBouncer holds for the test database. */
async function serverPids(): Promise<number[]> {
  return (await consoleQuery('SHOW SERVERS'))
    .filter((r) => r.database === database)
    .map((r) => Number(r.remote_pid));
}

/**
 * Reads the state of every server session PgBouncer holds for the test database: as many clients
 * through the pooler as it has server sessions each open a transaction (so each holds a session
 * of its own, the idle ones first) and read their session's prepared statements and LISTEN
 * channels. Answers them, with the pids PgBouncer lists while they are held (one closed by its
 * idle timeout meanwhile is replaced by a fresh one): every one of them must have been read.
 */
async function pooledSessions(): Promise<{ listed: number[]; read: SessionState[] }> {
  const before = await serverPids();
  const clients = await Promise.all(
    before.map(async () => {
      const c = new pgModule.Client({ connectionString: BOUNCER_URL });
      await c.connect();
      await c.query('BEGIN');
      return c;
    }),
  );
  try {
    const read = await Promise.all(
      clients.map(async (c) => {
        const r = await c.query(
          `SELECT pg_backend_pid() AS pid,
             ARRAY(SELECT name FROM pg_prepared_statements ORDER BY name) AS prepared,
             ARRAY(SELECT pg_listening_channels()) AS listening`,
        );
        const row = r.rows[0] as { pid: number; prepared: string[]; listening: string[] };
        return { pid: Number(row.pid), prepared: row.prepared, listening: row.listening };
      }),
    );
    return { listed: await serverPids(), read };
  } finally {
    for (const c of clients) await c.query('ROLLBACK').then(() => c.end());
  }
}

/** A lease table description, typed as such (support.ts's widens to AnyTable). */
function leaseInbox(name: string) {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    lease: 'locked_until',
    retryAfter: 'retry_after',
  } as const);
}

/** A row lock table description, typed as such. */
function rowlockInbox(name: string) {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    retryAfter: 'retry_after',
  } as const);
}

/** An advisory-form table description, typed as such. */
function advisoryTable(name: string) {
  return inbox({
    table: name,
    id: { column: 'id', generated: true },
    payload: 'payload',
    attempt: 'attempt',
    retryAfter: 'retry_after',
    advisory: 'accounts-{account}',
    columns: ['account'],
  } as const);
}

/** Type-level: through a transaction pooler a table of the advisory form does not type-check at `subscribe`. */
export function advisoryIsATypeError(
  adapter: PgTransactionPoolerAdapter | PostgresJsTransactionPoolerAdapter,
) {
  const b = new Broker(adapter);
  // @ts-expect-error the adapter takes the row lock and lease forms only
  b.subscribe(queue(advisoryTable('t')), async () => {});
}

/** An adapter through the pooler with `pooler: 'transaction'`; `listen` adds a direct listener. */
interface Through {
  readonly adapter: PgTransactionPoolerAdapter | PostgresJsTransactionPoolerAdapter;
  end(): Promise<void>;
}

const drivers: { name: string; open(opts?: { listen?: boolean; max?: number }): Through }[] = [
  {
    name: 'pg',
    open({ listen = false, max = 6 } = {}) {
      const pool = new pgModule.Pool({ connectionString: BOUNCER_URL, max });
      pool.on('error', () => {});
      const adapter = pg(pool, {
        pooler: 'transaction',
        ...(listen ? { listenClient: () => new pgModule.Client({ connectionString: URL }) } : {}),
      });
      return {
        adapter,
        async end() {
          await adapter.close();
          await pool.end();
        },
      };
    },
  },
  {
    name: 'postgres.js',
    open({ listen = false, max = 6 } = {}) {
      const sql = postgres(BOUNCER_URL, { max, prepare: false, onnotice: () => {} });
      // The listener from a URL: the adapter makes that instance and ends it with close().
      const adapter = postgresJs(sql, { pooler: 'transaction', ...(listen ? { listener: URL } : {}) });
      return {
        adapter,
        async end() {
          await adapter.close();
          await sql.end({ timeout: 5 });
        },
      };
    },
  },
];

describe.skipIf(NO_BOUNCER !== undefined).each(drivers)(
  'R-RUN-4 through PgBouncer (transaction pooling) on $name',
  (driver) => {
    let admin: pgModule.Client;
    beforeAll(async () => {
      admin = await adminClient();
    });
    afterAll(async () => {
      await admin.end();
    });

    test('R-RUN-4 R-DB-2 the advisory form is refused at start with a ConfigError that says why, by the broker and by the admin API', async () => {
      const t = advisoryTable(uniqueName('pgb_adv')) as AnyTable;
      const drop = await createTable(admin, t);
      const through = driver.open();
      try {
        await admin.query(`INSERT INTO ${quoteTable(t.table)} (payload, account) VALUES ('{}', 'a')`);
        const row = `SELECT attempt, retry_after FROM ${quoteTable(t.table)}`;
        const published = (await admin.query(row)).rows;
        expect(published).toHaveLength(1);
        const b = new Broker(through.adapter as never, { logger: quiet });
        const sub = b.subscribe(queue(t) as never, async () => {});
        const why = /does not take the advisory form: .*transaction pooler.*session advisory lock/;
        const started = await b.start().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(started).toBeInstanceOf(ConfigError);
        expect(String((started as Error).message)).toMatch(why);
        expect((started as ConfigError).table).toBe(t.table);
        await expect(sub.ready).rejects.toBeInstanceOf(ConfigError);
        await b.shutdown();
        const adm = new Admin(through.adapter as never);
        await expect(adm.stats(t)).rejects.toThrow(why);
        // Nothing was claimed or locked: the row is as it was published.
        expect((await admin.query(row)).rows).toEqual(published);
        const locks = await admin.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        expect(locks.rows[0].n).toBe(0);
      } finally {
        await through.end();
        await drop();
      }
    });

    test('R-RUN-4 R-PLUS-1 no wake-up through the pooler by default; a listener on a direct connection wakes a broker at the commit of a publish made through the pooler', async () => {
      const plain = driver.open();
      try {
        expect(plain.adapter.wakeup).toBeUndefined();
      } finally {
        await plain.end();
      }
      const t = leaseInbox(uniqueName('pgb_wake'));
      const drop = await createTable(admin, t as AnyTable);
      const through = driver.open({ listen: true });
      // Polls once a minute: a delivery within seconds came from the wake-up.
      const b = new Broker(through.adapter, { logger: quiet, pollInterval: 60_000 });
      try {
        expect(through.adapter.wakeup).toBeDefined();
        const got: unknown[] = [];
        b.subscribe(queue(t), async (m) => {
          got.push(m);
        });
        await b.start();
        // The first claim at start found the table empty; the next poll is a minute away.
        await new Promise((r) => setTimeout(r, 200));
        const sent = Date.now();
        await b.publish(t, { n: 1 });
        await until(() => got.length === 1, 'the woken delivery', 5_000);
        expect(Date.now() - sent).toBeLessThan(5_000);
        expect(got).toEqual([{ n: 1 }]);
      } finally {
        await b.shutdown();
        await through.end();
        await drop();
      }
    });

    test('R-RUN-4 nothing stays in a pooled server session: after row lock, lease and transactional drains, no session holds a prepared statement, a LISTEN, an advisory lock or a transaction', async () => {
      await resetServers();
      const rl = rowlockInbox(uniqueName('pgb_rl'));
      const ls = leaseInbox(uniqueName('pgb_ls'));
      const tables = [rl, ls] as const;
      const ledger = uniqueName('pgb_ledger');
      await admin.query(`CREATE TABLE ${quoteTable(ledger)} (n int NOT NULL)`);
      const drops = await Promise.all(tables.map((t) => createTable(admin, t as AnyTable)));
      const through = driver.open({ listen: true });
      const b = new Broker(through.adapter, { logger: quiet, pollInterval: 50 });
      try {
        const rows = 40;
        let done = 0;
        b.subscribe(queue(rl).workers(4), async () => {
          done++;
        });
        b.subscribe(queue(ls).workers(4).transactional(), async (m, ctx) => {
          await ctx.tx.query(`INSERT INTO ${quoteTable(ledger)} (n) VALUES ($1)`, [(m as { n: number }).n]);
          done++;
        });
        await b.start();
        await b.publishMany(
          rl,
          Array.from({ length: rows }, (_, n) => ({ n })),
        );
        await b.publishMany(
          ls,
          Array.from({ length: rows }, (_, n) => ({ n })),
        );
        await until(() => done === 2 * rows, 'every row handled', 30_000);
        await b.shutdown();
        const ledgerRows = await admin.query(`SELECT count(*)::int AS n FROM ${quoteTable(ledger)}`);
        expect(ledgerRows.rows[0].n).toBe(rows);

        const { listed, read } = await pooledSessions();
        expect(listed.length).toBeGreaterThan(0);
        expect(read.map((s) => s.pid)).toEqual(expect.arrayContaining(listed));
        for (const s of read) expect(s).toEqual({ pid: s.pid, prepared: [], listening: [] });
        const held = await admin.query(
          `SELECT count(*) FILTER (WHERE l.locktype = 'advisory')::int AS advisory,
                count(*) FILTER (WHERE a.state LIKE 'idle in transaction%')::int AS open
           FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid WHERE a.pid = ANY($1::int[])`,
          [listed],
        );
        expect(held.rows[0]).toEqual({ advisory: 0, open: 0 });
      } finally {
        await b.shutdown();
        await through.end();
        for (const drop of drops) await drop();
        await admin.query(`DROP TABLE IF EXISTS ${quoteTable(ledger)}`);
      }
    });

    test('R-RUN-4 an adapter without the pooler option warns once (SQLINBOX_POOLER) that its connections go through a pooler; a direct one does not', async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error & { code?: string }) => {
        if (w.code === 'SQLINBOX_POOLER') warnings.push(w.message);
      };
      process.on('warning', onWarning);
      // Adapters without the pooler option (their wake-up is never used here).
      const open = (url: string): { adapter: { pool: Pool }; end(): Promise<void> } => {
        if (driver.name === 'pg') {
          const pool = new pgModule.Pool({ connectionString: url, max: 2 });
          const adapter = pg(pool);
          return {
            adapter,
            async end() {
              await adapter.close();
              await pool.end();
            },
          };
        }
        const sql = postgres(url, { max: 2, onnotice: () => {} });
        const adapter = postgresJs(sql);
        return {
          adapter,
          async end() {
            await adapter.close();
            await sql.end({ timeout: 5 });
          },
        };
      };
      const use = async (opened: ReturnType<typeof open>) => {
        try {
          for (let i = 0; i < 3; i++) {
            const c: Connection = await opened.adapter.pool.acquire();
            await c.query('SELECT 1');
            opened.adapter.pool.release(c);
          }
        } finally {
          await opened.end();
        }
      };
      try {
        await use(open(URL));
        await new Promise((r) => setImmediate(r));
        expect(warnings).toEqual([]);
        await use(open(BOUNCER_URL));
        await new Promise((r) => setImmediate(r));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/go through a pooler.*pooler: 'transaction'/);
      } finally {
        process.off('warning', onWarning);
        await resetServers();
      }
    });
  },
);

describe.skipIf(NO_BOUNCER !== undefined)(
  'R-RUN-4 prepared statements through PgBouncer (transaction pooling)',
  () => {
    test("R-RUN-4 pg: without pooler: 'transaction' a named statement is looked up on a server session that never prepared it (26000) and left on the one that did; with it, the same sequence runs and leaves nothing", async () => {
      for (const pooler of [undefined, 'transaction'] as const) {
        await resetServers();
        const pool = new pgModule.Pool({ connectionString: BOUNCER_URL, max: 2 });
        pool.on('error', () => {});
        const adapter = pooler === undefined ? pg(pool, {}) : pg(pool, { pooler });
        const a = await adapter.pool.acquire();
        const b = await adapter.pool.acquire();
        try {
          await a.query('SELECT $1::int AS n', [1]); // named, where not pooled: prepared on server session X
          // b's transaction takes X, the server session PgBouncer used last (its default, LIFO).
          await b.query('BEGIN');
          await b.query('SELECT 1');
          const again = a.query<{ n: number }>('SELECT $1::int AS n', [2]); // on another server session
          if (pooler === undefined) await expect(again).rejects.toMatchObject({ code: '26000' });
          else expect((await again).rows).toEqual([{ n: 2 }]);
          await b.query('ROLLBACK');
        } finally {
          adapter.pool.release(a);
          adapter.pool.release(b);
          await adapter.close();
          await pool.end();
        }
        // The session check of the drains above sees a name left behind, where there is one.
        const { read } = await pooledSessions();
        const left = read.flatMap((s) => s.prepared);
        if (pooler === undefined) expect(left).toEqual([expect.stringMatching(/^sqlinbox_/)]);
        else expect(left).toEqual([]);
      }
      await resetServers();
    });

    test('R-RUN-4 R-PLUS-1 a LISTEN through the pooler hears nothing and stays behind on a pooled server session: why the adapters never listen through it', async () => {
      await resetServers();
      const channel = uniqueName('pgb_chan');
      const pooled = new pgModule.Client({ connectionString: BOUNCER_URL });
      const direct = new pgModule.Client({ connectionString: URL });
      await pooled.connect();
      await direct.connect();
      try {
        const heard = { pooled: 0, direct: 0 };
        pooled.on('notification', () => heard.pooled++);
        direct.on('notification', () => heard.direct++);
        await pooled.query(`LISTEN ${channel}`);
        await direct.query(`LISTEN ${channel}`);
        await direct.query(`SELECT pg_notify($1, '')`, [channel]);
        await until(() => heard.direct === 1, 'the direct listener to hear the notification');
        await new Promise((r) => setTimeout(r, 200));
        expect(heard).toEqual({ pooled: 0, direct: 1 });
        const { read } = await pooledSessions();
        expect(read.flatMap((s) => s.listening)).toEqual([channel]);
      } finally {
        await pooled.end();
        await direct.end();
        await resetServers();
      }
    });

    test("R-RUN-4 postgres.js: an instance that prepares its statements is refused with pooler: 'transaction'; one the adapter makes from options does not prepare", async () => {
      const preparing = postgres(BOUNCER_URL, { max: 2, onnotice: () => {} });
      try {
        expect(() => postgresJs(preparing, { pooler: 'transaction' })).toThrow(ConfigError);
        expect(() => postgresJs(preparing, { pooler: 'transaction' })).toThrow(/prepare: false/);
      } finally {
        await preparing.end({ timeout: 5 });
      }
      await resetServers();
      const adapter = postgresJs({ url: BOUNCER_URL, max: 2, onnotice: () => {} }, { pooler: 'transaction' });
      try {
        for (let i = 0; i < 3; i++) {
          const c = await adapter.pool.acquire();
          expect((await c.query<{ n: number }>('SELECT $1::int AS n', [i])).rows).toEqual([{ n: i }]);
          adapter.pool.release(c);
        }
      } finally {
        await adapter.close();
      }
      const { read } = await pooledSessions();
      expect(read.flatMap((s) => s.prepared)).toEqual([]);
    });
  },
);
