/**
 * The scenarios every bridge runs, on every database its ORM supports: a publish inside the ORM's
 * transaction commits with it, and a rollback leaves nothing published; in a transactional
 * handler, the ORM's writes through `ctx.tx` commit with the ack and roll back with a retry.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Adapter, Broker, inbox, Outcome, type Queryable, queue, silentLogger } from '@sqlinbox/core';
import { mysql2 } from '@sqlinbox/dialect-mysql/mysql2';
import { pg } from '@sqlinbox/dialect-postgres/pg';
import { sqlite } from '@sqlinbox/dialect-sqlite';
import { afterAll, describe, expect, test } from 'vitest';

/** A database the scenarios run on, with the URL or file its ORM opens. */
export interface Target {
  readonly name: 'PostgreSQL' | 'MariaDB' | 'SQLite';
  /** Why its server is missing (the tests skip), or undefined. */
  readonly skip: string | undefined;
  /** The URL (PostgreSQL, MariaDB) or file (SQLite) the ORM and the adapter open. */
  readonly where: string;
  /** A sqlinbox adapter on it. */
  adapter(): Adapter;
}

const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-orm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

export const pgUrl = process.env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const mysqlUrl =
  process.env.SQLINBOX_MYSQL_URL ??
  `mysql://root@127.0.0.1:3306/${process.env.SQLINBOX_MYSQL_DATABASE || 'test'}`;

/** The three databases; `file` names the SQLite file of one test file. */
export function targets(file: string): Target[] {
  const sqliteFile = join(dir, `${file}.db`);
  return [
    {
      name: 'PostgreSQL',
      skip: process.env.SQLINBOX_PG_SKIP || undefined,
      where: pgUrl,
      adapter: () => pg({ connectionString: pgUrl, max: 4 }),
    },
    {
      name: 'MariaDB',
      skip: process.env.SQLINBOX_MYSQL_SKIP || undefined,
      where: mysqlUrl,
      adapter: () => mysql2({ uri: mysqlUrl, connectionLimit: 4 }),
    },
    {
      name: 'SQLite',
      skip: undefined,
      where: sqliteFile,
      adapter: () => sqlite({ filename: sqliteFile, connections: 4 }),
    },
  ];
}

/** What a bridge's test gives the scenarios. */
export interface Kit {
  /**
   * Runs `fn` in a transaction of the ORM: `tx` is the bridge's handle on it, `write` writes an
   * account row through the ORM itself. Commits when `fn` resolves, rolls back when it throws.
   */
  inTransaction(
    fn: (tx: Queryable, write: (id: number, balance: number) => Promise<void>) => Promise<void>,
  ): Promise<void>;
  /** Through the ORM over a delivery's `ctx.tx`: whether account `id` exists, then writes it. */
  overDelivery(tx: Queryable, id: number, balance: number): Promise<boolean>;
  /** Ends the ORM's own connections. */
  close(): Promise<void>;
}

/** The tables of one scenario: a queue and an accounts table, dropped after (on an adapter of its own). */
async function tables(target: Target, accountsTable?: string) {
  const adapter = target.adapter();
  const suffix = randomBytes(4).toString('hex');
  const jobs = inbox({
    table: `orm_jobs_${suffix}`,
    id: { column: 'id', generated: true },
    attempt: { column: 'attempt', generated: true },
    lease: 'locked_until',
    payload: 'payload',
  });
  const accounts = accountsTable ?? `orm_accounts_${suffix}`;
  const run = async (sql: string) => {
    const conn = await adapter.pool.acquire();
    try {
      return (await conn.query<Record<string, unknown>>(sql)).rows;
    } finally {
      adapter.pool.release(conn);
    }
  };
  for (const sql of adapter.dialect.ddl(jobs)) await run(sql);
  // A fixed name (a Prisma model's) may be left by a run that was killed: made afresh.
  if (accountsTable !== undefined) await run(`DROP TABLE IF EXISTS ${accounts}`);
  await run(`CREATE TABLE ${accounts} (id integer PRIMARY KEY, balance integer NOT NULL)`);
  return {
    jobs,
    accounts,
    count: async (table: string) => Number((await run(`SELECT COUNT(*) AS n FROM ${table}`))[0]!.n),
    drop: async () => {
      await run(`DROP TABLE IF EXISTS ${jobs.table}`);
      await run(`DROP TABLE IF EXISTS ${accounts}`);
      await adapter.close?.();
    },
  };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Registers the scenarios of one ORM on one database. `kit(target, accounts)` opens the ORM on the
 * target, writing to the accounts table of the scenario.
 */
export function scenarios(
  orm: string,
  target: Target,
  kit: (accounts: string) => Promise<Kit>,
  opts: {
    /** The accounts table's name, where the ORM's model fixes it (default: a fresh name per scenario). */
    readonly accounts?: string;
  } = {},
): void {
  describe.skipIf(target.skip !== undefined)(`${orm} on ${target.name}`, () => {
    test(`R-USER-5 a publish inside a ${orm} transaction commits with it; a rollback leaves nothing published (${target.name})`, async () => {
      const adapter = target.adapter();
      const broker = new Broker(adapter, { logger: silentLogger });
      const t = await tables(target, opts.accounts);
      const k = await kit(t.accounts);
      try {
        await k.inTransaction(async (tx, write) => {
          await write(1, 10);
          await broker.publish(t.jobs, { account: 1 }, { tx });
        });
        expect(await t.count(t.jobs.table)).toBe(1);
        expect(await t.count(t.accounts)).toBe(1);

        const failure = new Error('the payment was refused');
        await expect(
          k.inTransaction(async (tx, write) => {
            await write(2, 20);
            await broker.publishMany(t.jobs, [{ account: 2 }, { account: 3 }], { tx });
            throw failure;
          }),
        ).rejects.toBe(failure);
        // Nothing of the rolled-back transaction: no message, no account.
        expect(await t.count(t.jobs.table)).toBe(1);
        expect(await t.count(t.accounts)).toBe(1);
      } finally {
        await k.close();
        await t.drop();
        await broker.shutdown();
      }
    });

    test(`R-USER-5 in a transactional handler, ${orm} over ctx.tx commits with the ack and rolls back with a retry (${target.name})`, async () => {
      const adapter = target.adapter();
      const broker = new Broker(adapter, { logger: silentLogger, pollInterval: '20ms' });
      const t = await tables(target, opts.accounts);
      const k = await kit(t.accounts);
      const seen: { id: number; attempt: number; existed: boolean }[] = [];
      try {
        broker.subscribe(
          queue(t.jobs).transactional(),
          async (m: { id: number; failFirst: boolean }, ctx) => {
            const existed = await k.overDelivery(ctx.tx, m.id, ctx.attempt * 100);
            seen.push({ id: m.id, attempt: ctx.attempt, existed });
            return m.failFirst && ctx.attempt === 1 ? Outcome.retryAfter(0) : Outcome.ack();
          },
        );
        await broker.start();
        await broker.publishMany(t.jobs, [
          { id: 7, failFirst: false },
          { id: 8, failFirst: true },
        ]);
        await until(async () => (await t.count(t.jobs.table)) === 0, 'both messages acked');
        // The retried delivery's write rolled back: its second attempt did not find it.
        expect(seen.filter((s) => s.id === 8)).toEqual([
          { id: 8, attempt: 1, existed: false },
          { id: 8, attempt: 2, existed: false },
        ]);
        expect(seen.filter((s) => s.id === 7)).toEqual([{ id: 7, attempt: 1, existed: false }]);
        expect(await t.count(t.accounts)).toBe(2);
      } finally {
        await broker.shutdown();
        await k.close();
        await t.drop();
      }
    });
  });
}
