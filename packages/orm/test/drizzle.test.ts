import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle as betterSqlite } from 'drizzle-orm/better-sqlite3';
import { int, mysqlTable } from 'drizzle-orm/mysql-core';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { drizzle as nodePg } from 'drizzle-orm/node-postgres';
import { integer, pgTable } from 'drizzle-orm/pg-core';
import { integer as sqliteInteger, sqliteTable } from 'drizzle-orm/sqlite-core';
import { createPool } from 'mysql2';
import pgModule from 'pg';
import { drizzleMysqlOf, drizzlePgOf, drizzleSqliteOf, drizzleTx } from '../src/drizzle.js';
import { type Kit, scenarios, targets } from './support.js';

for (const target of targets('drizzle')) {
  scenarios('Drizzle', target, async (name): Promise<Kit> => {
    if (target.name === 'PostgreSQL') {
      const accounts = pgTable(name, {
        id: integer('id').primaryKey(),
        balance: integer('balance').notNull(),
      });
      const pool = new pgModule.Pool({ connectionString: target.where, max: 2 });
      const db = nodePg(pool);
      return {
        inTransaction: (fn) =>
          db.transaction(async (tx) => {
            await fn(drizzleTx(tx), async (id, balance) => {
              await tx.insert(accounts).values({ id, balance });
            });
          }),
        async overDelivery(tx, id, balance) {
          const d = drizzlePgOf(tx);
          const found = await d.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id));
          await d.insert(accounts).values({ id, balance });
          return found.length > 0;
        },
        close: () => pool.end(),
      };
    }
    if (target.name === 'MariaDB') {
      const accounts = mysqlTable(name, { id: int('id').primaryKey(), balance: int('balance').notNull() });
      const pool = createPool({ uri: target.where, connectionLimit: 2 });
      const db = mysqlDrizzle(pool);
      return {
        inTransaction: (fn) =>
          db.transaction(async (tx) => {
            await fn(drizzleTx(tx), async (id, balance) => {
              await tx.insert(accounts).values({ id, balance });
            });
          }),
        async overDelivery(tx, id, balance) {
          const d = drizzleMysqlOf(tx);
          const found = await d.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id));
          await d.insert(accounts).values({ id, balance });
          return found.length > 0;
        },
        close: () => new Promise<void>((resolve) => pool.end(() => resolve())),
      };
    }
    const accounts = sqliteTable(name, {
      id: sqliteInteger('id').primaryKey(),
      balance: sqliteInteger('balance').notNull(),
    });
    const handle = new Database(target.where);
    const db = betterSqlite(handle);
    return {
      // better-sqlite3's transactions are synchronous in Drizzle: the work runs between BEGIN and COMMIT.
      inTransaction: async (fn) => {
        await db.run('BEGIN');
        try {
          await fn(drizzleTx(db), async (id, balance) => {
            db.insert(accounts).values({ id, balance }).run();
          });
          await db.run('COMMIT');
        } catch (err) {
          await db.run('ROLLBACK');
          throw err;
        }
      },
      async overDelivery(tx, id, balance) {
        const d = drizzleSqliteOf(tx);
        const found = await d.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, id));
        await d.insert(accounts).values({ id, balance });
        return found.length > 0;
      },
      close: async () => {
        handle.close();
      },
    };
  });
}
