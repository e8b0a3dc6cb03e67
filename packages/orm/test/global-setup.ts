/**
 * Where the ORM bridges' tests find their servers (vitest `globalSetup`): `SQLINBOX_PG_URL`, else
 * PostgreSQL at 127.0.0.1:5432 (database `test`); `SQLINBOX_MYSQL_URL`, else MariaDB at
 * 127.0.0.1:3306 (root, database `SQLINBOX_MYSQL_DATABASE` or `test`). A server not found skips its
 * tests with the reason, except under CI, where the run fails.
 */
import { portAnswers, setupTarget } from '@sqlinbox/conformance/resolve';

export default async function setup(): Promise<() => Promise<void>> {
  const database = process.env.SQLINBOX_MYSQL_DATABASE || 'test';
  const stops = [
    await setupTarget({
      name: 'PostgreSQL',
      key: 'postgres',
      variable: 'SQLINBOX_PG_URL',
      skipVariable: 'SQLINBOX_PG_SKIP',
      probe: {
        url: 'postgres://postgres@127.0.0.1:5432/test',
        where: '127.0.0.1:5432',
        answers: () => portAnswers('127.0.0.1', 5432),
      },
    }),
    await setupTarget({
      name: 'MariaDB',
      key: 'mysql',
      variable: 'SQLINBOX_MYSQL_URL',
      skipVariable: 'SQLINBOX_MYSQL_SKIP',
      probe: {
        url: `mysql://root@127.0.0.1:3306/${encodeURIComponent(database)}`,
        where: '127.0.0.1:3306',
        answers: () => portAnswers('127.0.0.1', 3306),
      },
    }),
  ];
  return async () => {
    for (const stop of stops) await stop();
  };
}
