/**
 * Where this package's tests find MySQL or MariaDB (vitest `globalSetup`): `SQLINBOX_MYSQL_URL`
 * (`mysql://user:password@host:port/database`); else the local server at 127.0.0.1:3306 (root, no
 * password, database `SQLINBOX_MYSQL_DATABASE`, default `test`); else a container of
 * `SQLINBOX_MYSQL_IMAGE` (default `mariadb:11`; a `mysql` image, e.g. `mysql:8.4`, starts MySQL)
 * where a Docker engine answers; else the tests that need the server are skipped with the reason
 * (`SQLINBOX_MYSQL_SKIP`), or the run fails under CI.
 */
import { dockerAnswers, portAnswers, setupTarget } from '@sqlinbox/conformance/resolve';

export default function setup(): Promise<() => Promise<void>> {
  const database = process.env.SQLINBOX_MYSQL_DATABASE || 'test';
  return setupTarget({
    name: 'MySQL/MariaDB',
    key: 'mysql',
    variable: 'SQLINBOX_MYSQL_URL',
    skipVariable: 'SQLINBOX_MYSQL_SKIP',
    probe: {
      url: `mysql://root@127.0.0.1:3306/${encodeURIComponent(database)}`,
      where: '127.0.0.1:3306',
      answers: () => portAnswers('127.0.0.1', 3306),
    },
    docker: {
      answers: () => dockerAnswers(),
      async start() {
        // Imported only here: a run without Docker never loads testcontainers.
        const image = process.env.SQLINBOX_MYSQL_IMAGE || 'mariadb:11';
        const password = 'sqlinbox';
        const c = /^(.*\/)?mysql[:@]/.test(image)
          ? await new (await import('@testcontainers/mysql')).MySqlContainer(image)
              .withDatabase(database)
              .withRootPassword(password)
              .start()
          : await new (await import('@testcontainers/mariadb')).MariaDbContainer(image)
              .withDatabase(database)
              .withRootPassword(password)
              .start();
        return {
          url: `mysql://root:${password}@${c.getHost()}:${c.getPort()}/${encodeURIComponent(database)}`,
          stop: async () => void (await c.stop()),
        };
      },
    },
  });
}
