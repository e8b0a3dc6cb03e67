import { DataSource, EntitySchema } from 'typeorm';
import { typeormOf, typeormTx } from '../src/typeorm.js';
import { type Kit, scenarios, type Target, targets } from './support.js';

interface Account {
  id: number;
  balance: number;
}

function open(target: Target, table: string): DataSource {
  const entity = new EntitySchema<Account>({
    name: 'Account',
    tableName: table,
    columns: { id: { type: Number, primary: true }, balance: { type: Number } },
  });
  if (target.name === 'PostgreSQL')
    return new DataSource({ type: 'postgres', url: target.where, entities: [entity], poolSize: 2 });
  if (target.name === 'MariaDB')
    return new DataSource({ type: 'mariadb', url: target.where, entities: [entity], poolSize: 2 });
  return new DataSource({ type: 'better-sqlite3', database: target.where, entities: [entity] });
}

for (const target of targets('typeorm')) {
  scenarios('TypeORM', target, async (table): Promise<Kit> => {
    const ds = await open(target, table).initialize();
    return {
      inTransaction: (fn) =>
        ds.transaction(async (manager) => {
          await fn(typeormTx(manager), async (id, balance) => {
            await manager.getRepository<Account>('Account').insert({ id, balance });
          });
        }),
      async overDelivery(tx, id, balance) {
        const accounts = typeormOf(ds, tx).getRepository<Account>('Account');
        const found = await accounts.findOneBy({ id });
        await accounts.save({ id, balance });
        return found !== null;
      },
      close: () => ds.destroy(),
    };
  });
}
