/**
 * Where this package's tests find PostgreSQL (vitest `globalSetup`): `SQLINBOX_PG_URL`; else the
 * local server at 127.0.0.1:5432 (database `test`); else a container of `SQLINBOX_PG_IMAGE`
 * (default `postgres:17`) where a Docker engine answers; else the tests that need the server are
 * skipped with the reason (`SQLINBOX_PG_SKIP`), or the run fails under CI.
 */
import { dockerAnswers, portAnswers, setupTarget } from '@sqlinbox/conformance/resolve';

export default function setup(): Promise<() => Promise<void>> {
  return setupTarget({
    name: 'PostgreSQL',
    key: 'postgres',
    variable: 'SQLINBOX_PG_URL',
    skipVariable: 'SQLINBOX_PG_SKIP',
    probe: {
      url: 'postgres://postgres@127.0.0.1:5432/test',
      where: '127.0.0.1:5432',
      answers: () => portAnswers('127.0.0.1', 5432),
    },
    docker: {
      answers: () => dockerAnswers(),
      async start() {
        // Imported only here: a run without Docker never loads testcontainers.
        const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
        const image = process.env.SQLINBOX_PG_IMAGE || 'postgres:17';
        const c = await new PostgreSqlContainer(image)
          .withDatabase('test')
          .withUsername('postgres')
          .withPassword('postgres')
          .start();
        return { url: c.getConnectionUri(), stop: async () => void (await c.stop()) };
      },
    },
  });
}
