/**
 * The orchestrator's side of each case: fresh objects and the prefilled backlog before it,
 * `VACUUM ANALYZE` and `CHECKPOINT` (PostgreSQL) right before the timed child starts, the
 * server-side figures after it (WAL or redo bytes, dead tuples, size), and the cleanup.
 */
import { rmSync, statSync } from 'node:fs';
import { Flows } from '@sqlinbox/core';
import { mysqlDialect } from '@sqlinbox/dialect-mysql';
import { createPostgresDialect } from '@sqlinbox/dialect-postgres';
import { sqliteDialect } from '@sqlinbox/dialect-sqlite';
import Database from 'better-sqlite3';
import { Logger, makeWorkerUtils } from 'graphile-worker';
import mysql from 'mysql2/promise';
import pgLib from 'pg';
import { PgBoss } from 'pg-boss';
import {
  BOSS_SCHEMA,
  BULL_SCHEMA,
  GW_SCHEMA,
  MYSQL_URL,
  PG_SCHEMA,
  PG_URL,
  payload,
  sqliteFile,
} from './config.mjs';
import { sleep } from './measure.mjs';
import { bossOptions, bullConnection, loadBullmq, QUEUE } from './run-peers.mjs';
import { describe, flowTableName, GROUP, KEY, openAdapter, PRIORITY, tableName } from './tables.mjs';

let pgAdmin;
let myAdmin;

export async function pgq(sql, params) {
  if (pgAdmin === undefined) {
    pgAdmin = new pgLib.Client({ connectionString: PG_URL });
    await pgAdmin.connect();
  }
  return pgAdmin.query(sql, params);
}

export async function myq(sql, params) {
  myAdmin ??= await mysql.createConnection({ uri: MYSQL_URL });
  const [rows] = await myAdmin.query(sql, params);
  return rows;
}

const schemaOf = (spec) =>
  spec.kind === 'graphile'
    ? GW_SCHEMA
    : spec.kind === 'pgboss'
      ? BOSS_SCHEMA
      : spec.kind === 'bullmq'
        ? BULL_SCHEMA
        : PG_SCHEMA;

async function vacuumSchema(schema) {
  const { rows } = await pgq('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema]);
  for (const r of rows) await pgq(`VACUUM ANALYZE "${schema}"."${r.tablename}"`);
  await pgq('CHECKPOINT');
}

/**
 * The fan-in's flow: one parent over `spec.jobs - 1` children (payloads n = 1..N, the parent's
 * N + 1), published as the library's users do, with `Flows.publish` (one transaction).
 */
async function publishFanIn(spec) {
  const { adapter, close } = await openAdapter(spec.db, 2, spec.file);
  try {
    const children = spec.jobs - 1;
    const jobs = {};
    for (let i = 1; i <= children; i++) jobs[`c${i}`] = { message: payload(i) };
    jobs.parent = { message: { ...payload(spec.jobs), parent: true }, after: Object.keys(jobs) };
    await new Flows(adapter).publish(describe(spec.db, spec.form, spec.flow), { jobs });
  } finally {
    await close();
  }
}

/** BullMQ's fan-in: one parent over `spec.jobs - 1` children, with its `FlowProducer`. */
async function bullFanIn(spec) {
  const bull = await loadBullmq();
  const producer = new bull.FlowProducer({ connection: bullConnection() }, bull.createPostgresBackend);
  const children = Array.from({ length: spec.jobs - 1 }, (_, i) => ({
    name: 'job',
    queueName: QUEUE,
    data: payload(i + 1),
  }));
  await producer.add({
    name: 'parent',
    queueName: QUEUE,
    data: { ...payload(spec.jobs), parent: true },
    children,
  });
  await producer.close();
}

/** Creates the case's objects and its backlog of `spec.prefill` jobs (default `spec.jobs`). */
export async function prepare(spec) {
  const n = spec.flow === 'fanin' ? 0 : (spec.prefill ?? spec.jobs);
  if (spec.db === 'pg' && (spec.kind === 'sqlinbox' || spec.kind === 'raw')) {
    await pgq(`DROP SCHEMA IF EXISTS "${PG_SCHEMA}" CASCADE`);
    await pgq(`CREATE SCHEMA "${PG_SCHEMA}"`);
    for (const s of createPostgresDialect().ddl(describe('pg', spec.form, spec.flow))) await pgq(s);
    if (n > 0) {
      // The flow-control tables: priorities mixed (n % 10), or a distinct key per row.
      const [cols, vals] =
        spec.flow === 'priority'
          ? [`, "${PRIORITY}"`, ', g % 10']
          : spec.flow === 'keyed'
            ? [`, "${KEY}"`, ", 'k' || g"]
            : spec.flow === 'fifo'
              ? [`, "${GROUP}"`, `, 'g' || (g % ${Number(spec.groups)})`]
              : ['', ''];
      await pgq(
        `INSERT INTO "${PG_SCHEMA}".jobs (payload${cols}) SELECT jsonb_build_object('n', g, 'p', 'abcdef')${vals} FROM generate_series(1, $1::int) g`,
        [n],
      );
    }
    if (spec.flow === 'fanin' && spec.kind === 'sqlinbox') await publishFanIn(spec);
    await vacuumSchema(PG_SCHEMA);
  } else if (spec.kind === 'graphile') {
    await pgq(`DROP SCHEMA IF EXISTS "${GW_SCHEMA}" CASCADE`);
    const utils = await makeWorkerUtils({
      connectionString: PG_URL,
      schema: GW_SCHEMA,
      logger: new Logger(() => () => {}),
    });
    await utils.migrate();
    for (let i = 0; i < n; i += 5000) {
      const m = Math.min(5000, n - i);
      await utils.addJobs(
        Array.from({ length: m }, (_, j) => ({ identifier: QUEUE, payload: payload(i + j + 1) })),
      );
    }
    await utils.release();
    await vacuumSchema(GW_SCHEMA);
  } else if (spec.kind === 'pgboss') {
    await pgq(`DROP SCHEMA IF EXISTS "${BOSS_SCHEMA}" CASCADE`);
    const boss = new PgBoss({ ...bossOptions(4), migrate: true });
    boss.on('error', () => {});
    await boss.start();
    // pg-boss 12 wakes workers on NOTIFY only for a queue created with `notify` (the latency run's).
    await boss.createQueue(QUEUE, spec.workload === 'latency' ? { notify: true } : {});
    for (let i = 0; i < n; i += 5000) {
      const m = Math.min(5000, n - i);
      await boss.insert(
        QUEUE,
        Array.from({ length: m }, (_, j) => ({ data: payload(i + j + 1) })),
      );
    }
    await boss.stop({ graceful: false, wait: true, close: true, timeout: 2000 });
    await vacuumSchema(BOSS_SCHEMA);
  } else if (spec.kind === 'bullmq') {
    await pgq(`DROP SCHEMA IF EXISTS "${BULL_SCHEMA}" CASCADE`);
    const bull = await loadBullmq();
    const queue = new bull.Queue(QUEUE, { connection: bullConnection() }, bull.createPostgresBackend);
    for (let i = 0; i < n; i += 1000) {
      const m = Math.min(1000, n - i);
      await queue.addBulk(Array.from({ length: m }, (_, j) => ({ name: 'job', data: payload(i + j + 1) })));
    }
    if (n === 0) await queue.getJobCounts();
    await queue.close();
    if (spec.flow === 'fanin') await bullFanIn(spec);
    await vacuumSchema(BULL_SCHEMA);
  } else if (spec.db === 'mysql') {
    const t = tableName('mysql');
    await dropMysql();
    for (const s of mysqlDialect.ddl(describe('mysql', spec.form, spec.flow))) await myq(s);
    for (let i = 0; i < n; i += 100_000) {
      const m = Math.min(100_000, n - i);
      const [cols, vals] =
        spec.flow === 'priority'
          ? [`, \`${PRIORITY}\``, ', (seq + ?) % 10']
          : spec.flow === 'keyed'
            ? [`, \`${KEY}\``, ", CONCAT('k', seq + ?)"]
            : spec.flow === 'fifo'
              ? [`, \`${GROUP}\``, `, CONCAT('g', (seq + ?) % ${Number(spec.groups)})`]
              : ['', ''];
      await myq(
        `INSERT INTO \`${t}\` (payload${cols}) SELECT JSON_OBJECT('n', seq + ?, 'p', 'abcdef')${vals} FROM seq_1_to_${m}`,
        vals === '' ? [i] : [i, i],
      );
    }
    if (spec.flow === 'fanin') await publishFanIn(spec);
    await myq(`ANALYZE TABLE \`${t}\``);
  } else if (spec.db === 'sqlite') {
    removeSqlite(spec.file);
    const db = new Database(sqliteFile(spec.file));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    for (const s of sqliteDialect.ddl(describe('sqlite', spec.form, spec.flow))) db.exec(s);
    if (n > 0) {
      db.prepare(
        `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)` +
          ` INSERT INTO "${tableName('sqlite')}" (payload) SELECT json_object('n', n, 'p', 'abcdef') FROM g`,
      ).run(n);
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    if (spec.flow === 'fanin') await publishFanIn(spec);
  }
}

/** Server figures before the timed child: the WAL position (PostgreSQL) or the redo written (MariaDB). */
export async function before(spec) {
  if (spec.db === 'pg') return { lsn: (await pgq('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l };
  if (spec.db === 'mysql') return { redo: await redoWritten() };
  return {};
}

async function redoWritten() {
  const rows = await myq("SHOW GLOBAL STATUS LIKE 'Innodb_os_log_written'");
  return Number(rows[0]?.Value ?? 0);
}

/**
 * Server figures after it: WAL bytes per job, dead tuples and size of the case's schema (read once
 * the child's sessions have ended, so their statistics are flushed), and the jobs left unsettled.
 */
export async function after(spec, b, jobs) {
  if (spec.db === 'pg') {
    const wal = Number(
      (await pgq('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn) AS d', [b.lsn])).rows[0].d,
    );
    await sleep(300);
    const schema = schemaOf(spec);
    const s = (
      await pgq(
        `SELECT coalesce(sum(n_dead_tup), 0)::int8 AS dead, coalesce(sum(n_live_tup), 0)::int8 AS live,
                coalesce(sum(pg_total_relation_size(relid)), 0)::int8 AS size
           FROM pg_stat_user_tables WHERE schemaname = $1`,
        [schema],
      )
    ).rows[0];
    return {
      walBytesPerJob: Math.round(wal / jobs),
      deadTuples: Number(s.dead),
      tableBytes: Number(s.size),
      left: await leftOver(spec),
    };
  }
  if (spec.db === 'mysql') {
    const redo = (await redoWritten()) - b.redo;
    const t = tableName('mysql');
    const [s] = await myq(
      'SELECT DATA_LENGTH + INDEX_LENGTH AS size FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
      [t],
    );
    return {
      redoBytesPerJob: Math.round(redo / jobs),
      tableBytes: Number(s?.size ?? 0),
      left: await leftOver(spec),
    };
  }
  const f = sqliteFile(spec.file);
  const size = (p) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return { fileBytes: size(f), walFileBytes: size(`${f}-wal`), left: await leftOver(spec) };
}

/** The fan-in's table keeps its settled rows (`processed_at`): the rows left are those without it. */
const unsettled = (spec) => (spec.flow === 'fanin' ? ' WHERE processed_at IS NULL' : '');

async function leftOver(spec) {
  if (spec.db === 'pg') {
    if (spec.kind === 'graphile')
      return Number((await pgq(`SELECT count(*) AS n FROM "${GW_SCHEMA}"._private_jobs`)).rows[0].n);
    if (spec.kind === 'bullmq')
      return Number(
        (
          await pgq(
            `SELECT count(*) AS n FROM "${BULL_SCHEMA}".job WHERE state NOT IN ('completed', 'failed')`,
          )
        ).rows[0].n,
      );
    if (spec.kind === 'pgboss')
      return Number(
        (await pgq(`SELECT count(*) AS n FROM "${BOSS_SCHEMA}".job WHERE state < 'completed'`)).rows[0].n,
      );
    return Number((await pgq(`SELECT count(*) AS n FROM "${PG_SCHEMA}".jobs${unsettled(spec)}`)).rows[0].n);
  }
  if (spec.db === 'mysql')
    return Number((await myq(`SELECT count(*) AS n FROM \`${tableName('mysql')}\`${unsettled(spec)}`))[0].n);
  const db = new Database(sqliteFile(spec.file));
  const n = db.prepare(`SELECT count(*) AS n FROM "${tableName('sqlite')}"${unsettled(spec)}`).get().n;
  db.close();
  return n;
}

function removeSqlite(file) {
  for (const ext of ['', '-wal', '-shm']) rmSync(sqliteFile(file) + ext, { force: true });
}

/** Drops the MariaDB queue table and its flow tables. */
async function dropMysql() {
  const f = flowTableName('mysql');
  await myq(`DROP TABLE IF EXISTS \`${tableName('mysql')}\`, \`${f}\`, \`${f}_parent\``);
}

/** Drops what the case made. */
export async function cleanup(spec) {
  if (spec.db === 'sqlite') removeSqlite(spec.file);
  else if (spec.db === 'mysql') await dropMysql();
  else await pgq(`DROP SCHEMA IF EXISTS "${schemaOf(spec)}" CASCADE`);
}

/** Drops everything the run made and closes the admin connections. */
export async function cleanupAll() {
  try {
    for (const s of [PG_SCHEMA, GW_SCHEMA, BOSS_SCHEMA, BULL_SCHEMA])
      await pgq(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await dropMysql();
  } finally {
    await pgAdmin?.end().catch(() => {});
    await myAdmin?.end().catch(() => {});
    pgAdmin = undefined;
    myAdmin = undefined;
  }
}
