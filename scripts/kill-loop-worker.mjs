// One worker of scripts/kill-loop.mjs: a broker over one driver's adapter (the built dist/ of the
// dialect packages), acking the rows of one lease table, four at a time, and telling its parent
// how many it settled. It ends only when its parent sends `stop` (exit code 0) or when it crashes.
//   SQLINBOX_KILL_LOOP = {"driver":"pg"|"postgres.js"|"mysql2"|"mariadb","table":"...","app":"...","transactional":bool,"bare":bool}
import { createRequire } from 'node:module';
import { env } from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const input = JSON.parse(env.SQLINBOX_KILL_LOOP ?? '{}');
const root = fileURLToPath(new URL('..', import.meta.url));
const pgDir = `${root}packages/dialect-postgres/`;
const myDir = `${root}packages/dialect-mysql/`;
const PG_URL = env.SQLINBOX_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MY_DB = env.SQLINBOX_MYSQL_DATABASE ?? 'test';
const load = (dir, name) => import(pathToFileURL(createRequire(`${dir}package.json`).resolve(name)).href);

const core = await load(pgDir, '@sqlinbox/core');

async function open() {
  switch (input.driver) {
    case 'pg': {
      const pg = (await load(pgDir, 'pg')).default;
      const { pg: adapt } = await import(pathToFileURL(`${pgDir}dist/pg.mjs`).href);
      const pool = new pg.Pool({ connectionString: PG_URL, max: 4, application_name: input.app });
      // As pg's docs ask; with `bare`, none: the adapter alone must keep the process up.
      if (!input.bare) pool.on('error', () => {});
      return adapt(pool);
    }
    case 'postgres.js': {
      const postgres = (await load(pgDir, 'postgres')).default;
      const { postgresJs } = await import(pathToFileURL(`${pgDir}dist/postgres.mjs`).href);
      const sql = postgres(PG_URL, {
        max: 4,
        onnotice: () => {},
        connection: { application_name: input.app },
      });
      return postgresJs(sql);
    }
    case 'mysql2': {
      const mysql = (await load(myDir, 'mysql2/promise')).default;
      const { mysql2 } = await import(pathToFileURL(`${myDir}dist/mysql2.mjs`).href);
      const pool = mysql.createPool({
        host: '127.0.0.1',
        user: 'root',
        password: '',
        database: MY_DB,
        connectionLimit: 4,
      });
      return mysql2(pool);
    }
    case 'mariadb': {
      const connector = await load(myDir, 'mariadb');
      const { mariadb } = await import(pathToFileURL(`${myDir}dist/mariadb.mjs`).href);
      const pool = connector.createPool({
        host: '127.0.0.1',
        user: 'root',
        password: '',
        database: MY_DB,
        connectionLimit: 4,
      });
      return mariadb(pool, { connectionLimit: 4 });
    }
    default:
      throw new Error(`unknown driver ${input.driver}`);
  }
}

const adapter = await open();
const broker = new core.Broker(adapter, { logger: core.silentLogger, pollInterval: 20 });
const table = core.inbox({
  table: input.table,
  id: { column: 'id', generated: true },
  payload: 'payload',
  attempt: 'attempt',
  lease: 'locked_until',
});
let q = core.queue(table).workers(4).lease('5s');
if (input.transactional) q = q.transactional();
let settled = 0;
broker.on?.('error', () => {});
broker.subscribe(q, async () => {
  settled++;
  process.send?.({ type: 'settled', settled });
});
process.on('message', (m) => {
  if (m?.type === 'stop') process.exit(0);
});
for (;;) {
  try {
    await broker.start();
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 50)); // start's own statements met a killed session
  }
}
process.send?.({ type: 'started' });
