import Database from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import pgModule from 'pg';
import { kyselyOf, kyselyTx } from '../src/kysely.js';
import { scenarios, type Target, targets } from './support.js';

function open(target: Target): Kysely<any> {
  if (target.name === 'PostgreSQL')
    return new Kysely({
      dialect: new PostgresDialect({ pool: new pgModule.Pool({ connectionString: target.where, max: 2 }) }),
    });
  if (target.name === 'MariaDB')
    return new Kysely({
      dialect: new MysqlDialect({ pool: createPool({ uri: target.where, connectionLimit: 2 }) }),
    });
  return new Kysely({ dialect: new SqliteDialect({ database: new Database(target.where) }) });
}

for (const target of targets('kysely')) {
  scenarios('Kysely', target, async (accounts) => {
    const db = open(target);
    return {
      inTransaction: (fn) =>
        db.transaction().execute(async (trx) => {
          await fn(kyselyTx(trx), async (id, balance) => {
            await trx.insertInto(accounts).values({ id, balance }).execute();
          });
        }),
      async overDelivery(tx, id, balance) {
        const trx = kyselyOf(db, tx);
        const found = await trx.selectFrom(accounts).select('id').where('id', '=', id).executeTakeFirst();
        await trx.insertInto(accounts).values({ id, balance }).execute();
        await sql`SELECT 1`.execute(trx);
        return found !== undefined;
      },
      close: () => db.destroy(),
    };
  });
}
