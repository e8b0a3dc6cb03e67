/**
 * The limit: the statements of each claim form with no library, from a bare pg / mysql2 /
 * better-sqlite3 loop, `spec.k` rows per claim statement, `spec.workers` clients each on its own
 * connection. PostgreSQL statements are prepared (named), as pgbench's `-M prepared`. The claims
 * are the dialects' claim statements; the lease loop settles a row per `DELETE`, or with
 * `batchDelete` a claim's rows in one `DELETE` (the ceiling of a batched settlement; the dialects'
 * own `settleMany` text differs, see docs/benchmarks.md).
 */
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pgLib from 'pg';
import { MYSQL_URL, PG_URL, sqliteFile } from './config.mjs';
import { cpuMeter, now, openLoop, rssSampler, sleep } from './measure.mjs';
import { tableName } from './tables.mjs';

const LEASE_MS = 30_000;

/** The PostgreSQL table, quoted. */
const pgTable = () => `"${tableName('pg').split('.').join('"."')}"`;

/** W3's channel, and its publish: one insert with its `pg_notify`, a commit each, as a naive publisher would. */
const WAKEUP = 'bench_raw_wakeup';
const publishSql = (T) =>
  `WITH i AS (INSERT INTO ${T} (payload) VALUES ($1::jsonb) RETURNING "id"), w AS (SELECT pg_notify($2, '')) SELECT i."id" FROM i, w`;

/** PostgreSQL: a client loop per form; answers the jobs it finished and its wasted takes. */
function pgLoops(T, batchDelete) {
  const candidates =
    `WITH sqlinbox_held AS (SELECT l.classid::int8 AS hi, l.objid::int8 AS lo FROM pg_catalog.pg_locks l` +
    ` WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.pid <> pg_backend_pid()` +
    ` AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = current_database()))` +
    ` SELECT c.id AS id, c.key AS key FROM (SELECT q."id" AS id, $1::text || coalesce(q."id"::text, '') AS key` +
    ` FROM ${T} q WHERE TRUE AND TRUE ORDER BY q."id" OFFSET 0) c` +
    ` WHERE c.key <> ALL ($2::text[])` +
    ` AND NOT EXISTS (SELECT 1 FROM sqlinbox_held h WHERE h.hi = ((hashtextextended(c.key, 0) >> 32) & 4294967295)` +
    ` AND h.lo = (hashtextextended(c.key, 0) & 4294967295)) LIMIT $3`;
  const q = (c, name, text, values) => c.query({ name, text, values });
  return {
    async rowlock(c, k, st) {
      for (;;) {
        await q(c, 'begin', 'BEGIN', []);
        const { rows } = await q(
          c,
          'claim',
          `SELECT t.* FROM ${T} t WHERE TRUE ORDER BY t."id" LIMIT $1 FOR UPDATE OF t SKIP LOCKED`,
          [k],
        );
        for (const r of rows) await q(c, 'delete', `DELETE FROM ${T} WHERE "id" = $1`, [r.id]);
        await q(c, 'commit', 'COMMIT', []);
        st.claims++;
        st.done += rows.length;
        if (rows.length === 0) return;
      }
    },
    async lease(c, k, st) {
      for (;;) {
        const at = new Date();
        const expiry = new Date(at.getTime() + LEASE_MS);
        const { rows } = await q(
          c,
          'claim',
          `WITH sqlinbox_claimed AS (UPDATE ${T} AS t SET "locked_until" = $1::timestamptz, "attempt" = t."attempt" + 1` +
            ` WHERE t."id" = ANY(ARRAY(SELECT q."id" FROM ${T} q WHERE (q."locked_until" IS NULL OR q."locked_until" <= $2::timestamptz)` +
            ` ORDER BY q."id" LIMIT $3 FOR UPDATE OF q SKIP LOCKED)) RETURNING t.*)` +
            ` SELECT * FROM sqlinbox_claimed ORDER BY "id"`,
          [expiry, at, k],
        );
        st.claims++;
        if (rows.length === 0) return;
        if (batchDelete) {
          // The ceiling: the claim's rows settled in one statement.
          await q(
            c,
            'delete-batch',
            `DELETE FROM ${T} AS t USING unnest($1::bigint[]) AS x(id) WHERE t."id" = x.id AND t."locked_until" = $2::timestamptz`,
            [rows.map((r) => r.id), expiry],
          );
          st.done += rows.length;
          st.batches++;
          continue;
        }
        for (const r of rows) {
          await q(c, 'delete', `DELETE FROM ${T} WHERE "id" = $1 AND "locked_until" = $2::timestamptz`, [
            r.id,
            expiry,
          ]);
          st.done++;
        }
      }
    },
    async advisory(c, k, st) {
      for (;;) {
        const { rows } = await q(c, 'candidates', candidates, ['bench-', [], k]);
        st.claims++;
        if (rows.length === 0) return;
        for (const cand of rows) {
          const lock = await q(
            c,
            'lock',
            'SELECT pg_try_advisory_lock(hashtextextended($1::text, 0)) AS ok',
            [cand.key],
          );
          if (lock.rows[0].ok !== true) continue;
          const took = await q(
            c,
            'take',
            `UPDATE ${T} AS q SET "attempt" = q."attempt" + 1 WHERE q."id" = $1 AND TRUE AND TRUE RETURNING q.*`,
            [cand.id],
          );
          if (took.rows.length === 0) st.wasted++;
          else {
            await q(c, 'delete', `DELETE FROM ${T} WHERE "id" = $1`, [cand.id]);
            st.done++;
          }
          await q(c, 'unlock', 'SELECT pg_advisory_unlock(hashtextextended($1::text, 0)) AS ok', [cand.key]);
        }
      }
    },
  };
}

const utc = (d) => d.toISOString().replace('T', ' ').replace('Z', '');
const lockName = (p) =>
  `IF(CHAR_LENGTH(CONCAT(LOWER(DATABASE()), '.', ${p})) > 64, SHA2(CONCAT(LOWER(DATABASE()), '.', ${p}), 256), CONCAT(LOWER(DATABASE()), '.', ${p}))`;

/** MariaDB/MySQL: the same statements as the mysql dialect, through mysql2's `query`. */
function mysqlLoops(T, batchDelete) {
  const begin = async (c) => {
    await c.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await c.query('START TRANSACTION');
  };
  const inList = (n) => Array.from({ length: n }, () => '?').join(', ');
  // InnoDB may pick any of these statements as a deadlock's victim (1213), rolling its transaction
  // back: as any client does, run the whole step again.
  const again = async (c, step) => {
    for (;;) {
      try {
        return await step();
      } catch (err) {
        if (err.errno !== 1213) throw err;
        await c.query('ROLLBACK');
      }
    }
  };
  return {
    async rowlock(c, k, st) {
      for (;;) {
        const n = await again(c, async () => {
          await begin(c);
          const [rows] = await c.query(
            `SELECT r.* FROM ${T} AS r WHERE TRUE ORDER BY r.\`id\` LIMIT ? FOR UPDATE SKIP LOCKED`,
            [k],
          );
          for (const r of rows) await c.query(`DELETE FROM ${T} WHERE \`id\` = ?`, [r.id]);
          await c.query(rows.length === 0 ? 'ROLLBACK' : 'COMMIT');
          return rows.length;
        });
        if (n === 0) return;
        st.claims++;
        st.done += n;
      }
    },
    async lease(c, k, st) {
      for (;;) {
        const at = new Date();
        const expiry = utc(new Date(at.getTime() + LEASE_MS));
        const rows = await again(c, async () => {
          await begin(c);
          const [picked] = await c.query(
            `SELECT r.\`id\` AS \`id\` FROM ${T} AS r WHERE (r.\`locked_until\` IS NULL OR r.\`locked_until\` <= ?)` +
              ` ORDER BY r.\`id\` LIMIT ? FOR UPDATE SKIP LOCKED`,
            [utc(at), k],
          );
          if (picked.length === 0) {
            await c.query('COMMIT');
            return picked;
          }
          const ids = picked.map((r) => r.id);
          await c.query(
            `UPDATE ${T} SET \`locked_until\` = ?, \`attempt\` = \`attempt\` + 1 WHERE \`id\` IN (${inList(ids.length)})`,
            [expiry, ...ids],
          );
          const [taken] = await c.query(
            `SELECT * FROM ${T} WHERE \`id\` IN (${inList(ids.length)}) ORDER BY \`id\``,
            ids,
          );
          await c.query('COMMIT');
          return taken;
        });
        st.claims++;
        if (rows.length === 0) return;
        if (batchDelete) {
          // The ceiling: the claim's rows settled in one statement.
          await again(c, () =>
            c.query(`DELETE FROM ${T} WHERE \`locked_until\` = ? AND \`id\` IN (${inList(rows.length)})`, [
              expiry,
              ...rows.map((r) => r.id),
            ]),
          );
          st.done += rows.length;
          st.batches++;
          continue;
        }
        for (const r of rows) {
          await again(c, () =>
            c.query(`DELETE FROM ${T} WHERE \`id\` = ? AND \`locked_until\` = ?`, [r.id, expiry]),
          );
          st.done++;
        }
      }
    },
    async advisory(c, k, st) {
      for (;;) {
        const [rows] = await c.query(
          `SELECT c.\`id\`, c.\`key\` FROM (SELECT r.\`id\` AS \`id\`, CONCAT(?, COALESCE(CAST(r.\`id\` AS CHAR), '')) AS \`key\`` +
            ` FROM ${T} AS r WHERE TRUE) AS c WHERE IS_USED_LOCK(${lockName('c.`key`')}) IS NULL ORDER BY c.\`id\` LIMIT ?`,
          ['bench-', k],
        );
        st.claims++;
        if (rows.length === 0) return;
        for (const cand of rows) {
          const [[lock]] = await c.query(`SELECT GET_LOCK(${lockName('?')}, 0) AS \`ok\``, [
            cand.key,
            cand.key,
            cand.key,
          ]);
          if (Number(lock.ok) !== 1) continue;
          const [res] = await again(c, () =>
            c.query(`UPDATE ${T} AS r SET r.\`attempt\` = r.\`attempt\` + 1 WHERE r.\`id\` = ? AND TRUE`, [
              cand.id,
            ]),
          );
          if (res.affectedRows === 0) st.wasted++;
          else {
            await c.query(`SELECT * FROM ${T} WHERE \`id\` = ?`, [cand.id]);
            await again(c, () => c.query(`DELETE FROM ${T} WHERE \`id\` = ?`, [cand.id]));
            st.done++;
          }
          await c.query(`SELECT RELEASE_LOCK(${lockName('?')}) AS \`ok\``, [cand.key, cand.key, cand.key]);
        }
      }
    },
  };
}

/** SQLite: one synchronous better-sqlite3 loop (a second loop on the same thread cannot add anything). */
function sqliteLoop(db, T, form, k, st, batchDelete) {
  if (form === 'lease') {
    const claim = db.prepare(
      `UPDATE ${T} SET "locked_until" = ?, "attempt" = "attempt" + 1 WHERE "id" IN (SELECT q."id" FROM ${T} AS q` +
        ` WHERE (q."locked_until" IS NULL OR q."locked_until" <= ?) ORDER BY q."id" LIMIT ?) RETURNING *`,
    );
    const del = db.prepare(`DELETE FROM ${T} WHERE "id" = ? AND "locked_until" = ?`);
    const delAll = db.prepare(
      `DELETE FROM ${T} WHERE "locked_until" = ? AND "id" IN (SELECT value FROM json_each(?))`,
    );
    for (;;) {
      const at = Date.now();
      const rows = claim.all(at + LEASE_MS, at, k);
      st.claims++;
      if (rows.length === 0) return;
      if (batchDelete) {
        // The ceiling: the claim's rows settled in one statement.
        delAll.run(at + LEASE_MS, JSON.stringify(rows.map((r) => r.id)));
        st.done += rows.length;
        st.batches++;
        continue;
      }
      for (const r of rows) {
        del.run(r.id, at + LEASE_MS);
        st.done++;
      }
    }
  }
  const cands = db.prepare(
    `SELECT q."id" AS "id", CAST(? AS TEXT) || (CASE WHEN typeof(q."id") = 'real' AND q."id" = CAST(q."id" AS INTEGER)` +
      ` THEN CAST(CAST(q."id" AS INTEGER) AS TEXT) ELSE COALESCE(CAST(q."id" AS TEXT), '') END) AS "key"` +
      ` FROM ${T} AS q WHERE 1 ORDER BY q."id" LIMIT ?`,
  );
  const take = db.prepare(`UPDATE ${T} SET "attempt" = "attempt" + 1 WHERE "id" = ? AND 1 RETURNING *`);
  const del = db.prepare(`DELETE FROM ${T} WHERE "id" = ?`);
  const keys = new Map();
  for (;;) {
    const rows = cands.all('bench-', k);
    st.claims++;
    if (rows.length === 0) return;
    for (const c of rows) {
      if (keys.has(c.key)) continue;
      keys.set(c.key, 1);
      if (take.all(c.id).length === 0) st.wasted++;
      else {
        del.run(c.id);
        st.done++;
      }
      keys.delete(c.key);
    }
  }
}

/** W2 for the raw loops. */
export async function drain(spec) {
  const st = { done: 0, claims: 0, wasted: 0, batches: 0 };
  const rss = rssSampler();
  let open;
  let close;
  let loop;
  if (spec.db === 'pg') {
    const T = pgTable();
    const loops = pgLoops(T, spec.batchDelete === true);
    open = async () => {
      const c = new pgLib.Client({ connectionString: PG_URL });
      await c.connect();
      return c;
    };
    close = (c) => c.end();
    loop = (c) => loops[spec.form](c, spec.k, st);
  } else if (spec.db === 'mysql') {
    const loops = mysqlLoops(`\`${tableName('mysql')}\``, spec.batchDelete === true);
    open = async () => {
      const c = await mysql.createConnection({ uri: MYSQL_URL });
      await c.query("SET time_zone = '+00:00'");
      return c;
    };
    close = (c) => c.end();
    loop = (c) => loops[spec.form](c, spec.k, st);
  } else {
    open = async () => {
      const db = new Database(sqliteFile(spec.file), { timeout: 100 });
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      return db;
    };
    close = (db) => db.close();
    loop = async (db) =>
      sqliteLoop(db, `"${tableName('sqlite')}"`, spec.form, spec.k, st, spec.batchDelete === true);
  }
  const clients = spec.db === 'sqlite' ? 1 : spec.workers;
  const t0 = now();
  const conns = await Promise.all(Array.from({ length: clients }, open));
  const cpu = cpuMeter(spec.db);
  const t1 = now();
  await Promise.all(conns.map(loop));
  const drainMs = now() - t1;
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  await Promise.all(conns.map(close));
  return {
    startupMs: t1 - t0,
    drainMs,
    jobsPerSec: spec.jobs / (drainMs / 1000),
    ...usage,
    peakRssMB,
    processed: st.done,
    duplicates: 0,
    claims: st.claims,
    rowsPerClaim: st.claims ? st.done / st.claims : null,
    rowsPerSettle: st.batches ? st.done / st.batches : 1,
    wastedTakes: st.wasted,
  };
}

/**
 * W3 for the raw loop (PostgreSQL): the floor under a queue's latency, the same statements with no
 * library. A producer pool of 10 publishes open loop, each publish one `INSERT .. RETURNING id`
 * with `pg_notify` in the same statement (a commit each), as a naive publisher would; `spec.workers`
 * consumer connections claim as the lease loop does (`spec.k` rows per claim, then one `DELETE`),
 * woken by `LISTEN` on a client of their own. Latency runs from just before the insert to the
 * claim's return (where a handler would start), on one clock.
 */
export async function latency(spec) {
  if (spec.db !== 'pg') throw new Error('the raw latency loop runs on PostgreSQL only');
  if (spec.form === 'probe') return probe(spec);
  const T = pgTable();
  const publish = publishSql(T);
  const channel = WAKEUP;
  const connect = async () => {
    const c = new pgLib.Client({ connectionString: PG_URL });
    await c.connect();
    return c;
  };
  const producer = new pgLib.Pool({ connectionString: PG_URL, max: 10 });
  const listener = await connect();
  const workers = await Promise.all(Array.from({ length: spec.workers }, connect));
  const q = (c, name, text, values) => c.query({ name, text, values });
  const loop = openLoop(spec);
  let stopped = false;
  // A notification wakes every idle worker; a worker whose claim came back empty goes idle only if
  // no notification came meanwhile (its claim's snapshot may predate that row's commit).
  let generation = 0;
  let idle = [];
  const wakeAll = () => {
    generation++;
    const w = idle;
    idle = [];
    for (const resolve of w) resolve();
  };
  listener.on('notification', wakeAll);
  await listener.query(`LISTEN ${channel}`);
  const work = async (c) => {
    while (!stopped) {
      const seen = generation;
      const at = new Date();
      const expiry = new Date(at.getTime() + LEASE_MS);
      const { rows } = await q(
        c,
        'claim',
        `UPDATE ${T} AS t SET "locked_until" = $1::timestamptz, "attempt" = t."attempt" + 1` +
          ` WHERE t."id" = ANY(ARRAY(SELECT q."id" FROM ${T} q WHERE (q."locked_until" IS NULL OR q."locked_until" <= $2::timestamptz)` +
          ` ORDER BY q."id" LIMIT $3 FOR UPDATE OF q SKIP LOCKED)) RETURNING t.*`,
        [expiry, at, spec.k],
      );
      if (rows.length === 0) {
        if (seen === generation) await new Promise((resolve) => idle.push(resolve));
        continue;
      }
      for (const r of rows) loop.started(r.payload);
      await q(
        c,
        'delete-batch',
        `DELETE FROM ${T} AS t USING unnest($1::bigint[]) AS x(id) WHERE t."id" = x.id AND t."locked_until" = $2::timestamptz`,
        [rows.map((r) => r.id), expiry],
      );
    }
  };
  const working = Promise.all(workers.map(work));
  await sleep(200);
  const rss = rssSampler();
  const cpu = cpuMeter(spec.db);
  await loop.run((m) =>
    producer.query({ name: 'publish', text: publish, values: [JSON.stringify(m), channel] }),
  );
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  stopped = true;
  wakeAll();
  await working;
  await Promise.all([...workers, listener].map((c) => c.end()));
  await producer.end();
  return { ...loop.result(), ...usage, peakRssMB };
}

/**
 * W3's floor on this machine, with nothing consuming: the raw loop's publish statement (an insert
 * with its `pg_notify`, a commit each) from a pool of 10, open loop at `spec.rate` for
 * `spec.seconds`; its latency is the statement's own, send to commit. Then, for half as long, a
 * bare round trip (`SELECT $1::int`) at the same rate: what each further hop costs.
 */
async function probe(spec) {
  const publish = publishSql(pgTable());
  const pool = new pgLib.Pool({ connectionString: PG_URL, max: 10 });
  // Every connection open before the clock starts (each prepares the statement at its first use).
  const warm = await Promise.all(Array.from({ length: 10 }, () => pool.connect()));
  for (const c of warm) c.release();
  await sleep(200);
  const rss = rssSampler();
  const cpu = cpuMeter(spec.db);
  const commits = openLoop(spec);
  await commits.run(async (m) => {
    await pool.query({ name: 'publish', text: publish, values: [JSON.stringify(m), WAKEUP] });
    commits.started(m);
  });
  const usage = cpu.stop();
  const peakRssMB = rss.stop();
  const trips = openLoop({ ...spec, seconds: spec.seconds / 2 });
  await trips.run(async (m) => {
    await pool.query({ name: 'trip', text: 'SELECT $1::int AS n', values: [m.n] });
    trips.started(m);
  });
  await pool.end();
  // The statement's own latency is the whole: the split at the publish's return says nothing here.
  const { sent, received, n, p50, p95, p99, max, warmup, startup } = commits.result();
  const t = trips.result();
  const roundTripMs = { n: t.n, p50: t.p50, p95: t.p95, p99: t.p99, max: t.max };
  return { sent, received, n, p50, p95, p99, max, warmup, startup, roundTripMs, ...usage, peakRssMB };
}
