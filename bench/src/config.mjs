/**
 * Where the benchmark's databases are, and the names it creates. Every object it makes carries the
 * orchestrating process's pid, so two runs never meet and a crashed run's leftovers are easy to spot.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_URL = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** The run's tag: the orchestrator's pid, handed to every child. */
export const RUN = process.env.BENCH_RUN ?? String(process.pid);

/** PostgreSQL schemas: sqlinbox and the raw loops, graphile-worker, pg-boss, BullMQ. */
export const PG_SCHEMA = `bench_${RUN}`;
export const GW_SCHEMA = `bench_gw_${RUN}`;
export const BOSS_SCHEMA = `bench_boss_${RUN}`;
export const BULL_SCHEMA = `bench_bull_${RUN}`;
/** The queue table, in the PostgreSQL schema above, in MariaDB's `test` database, in each SQLite file. */
export const TABLE = 'jobs';
export const MYSQL_TABLE = `bench_${RUN}_jobs`;
export const sqliteFile = (name) => join(tmpdir(), `sqlinbox-bench-${RUN}-${name}.sqlite`);

/** The payload every job carries (about 20 bytes of JSON): `{"n":12345,"p":"abcdef"}`. */
export const payload = (n) => ({ n, p: 'abcdef' });
