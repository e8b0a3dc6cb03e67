import knexModule, { type Knex } from 'knex';
import { knexOf, knexTx } from '../src/knex.js';
import { scenarios, type Target, targets } from './support.js';

function open(target: Target): Knex {
  if (target.name === 'PostgreSQL')
    return knexModule({ client: 'pg', connection: target.where, pool: { min: 0, max: 2 } });
  if (target.name === 'MariaDB')
    return knexModule({ client: 'mysql2', connection: target.where, pool: { min: 0, max: 2 } });
  return knexModule({
    client: 'better-sqlite3',
    connection: { filename: target.where },
    useNullAsDefault: true,
  });
}

for (const target of targets('knex')) {
  scenarios('Knex', target, async (accounts) => {
    const knex = open(target);
    return {
      inTransaction: (fn) =>
        knex.transaction(async (trx) => {
          await fn(knexTx(trx), async (id, balance) => {
            await trx(accounts).insert({ id, balance });
          });
        }),
      async overDelivery(tx, id, balance) {
        const k = knexOf(knex, tx);
        const found = await k(accounts).where({ id }).first();
        await k(accounts).insert({ id, balance });
        return found !== undefined;
      },
      close: () => knex.destroy(),
    };
  });
}
