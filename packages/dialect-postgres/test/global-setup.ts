/**
 * Where this package's tests find PostgreSQL (vitest `globalSetup`): `SQLINBOX_PG_URL`; else the
 * local server at 127.0.0.1:5432 (database `test`); else a container of `SQLINBOX_PG_IMAGE`
 * (default `postgres:17`) where a Docker engine answers; else the tests that need the server are
 * skipped with the reason (`SQLINBOX_PG_SKIP`), or the run fails under CI.
 *
 * Then the PgBouncer in transaction pooling mode in front of it (the PgBouncer tests):
 * `SQLINBOX_PGBOUNCER_URL`; else the one scripts/pgbouncer.sh starts (or finds running) on
 * `SQLINBOX_PGBOUNCER_PORT` (default 6432), stopped again after the run if this set-up started
 * it; else those tests are skipped with the reason (`SQLINBOX_PGBOUNCER_SKIP`), or the run fails
 * under CI unless `pgbouncer` is in `SQLINBOX_OPTIONAL_TARGETS`.
 */
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  dockerAnswers,
  isCi,
  optionalTargets,
  portAnswers,
  setupTarget,
  TargetUnavailableError,
} from '@sqlinbox/conformance/resolve';

const run = promisify(execFile);
const script = resolve(dirname(fileURLToPath(import.meta.url)), '../../../scripts/pgbouncer.sh');

export default async function setup(): Promise<() => Promise<void>> {
  const stopPostgres = await setupTarget({
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
  const stopBouncer = await setupPgBouncer();
  return async () => {
    await stopBouncer();
    await stopPostgres();
  };
}

/** Resolves the PgBouncer target as described above; answers the teardown. */
async function setupPgBouncer(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const variable = 'SQLINBOX_PGBOUNCER_URL';
  const skip = (reason: string) => {
    if (isCi(env) && !optionalTargets(env).has('pgbouncer'))
      throw new TargetUnavailableError('PgBouncer', reason);
    env.SQLINBOX_PGBOUNCER_SKIP = reason;
    console.log(`sqlinbox test target PgBouncer: SKIPPED, ${reason}`);
    return async () => {};
  };
  delete env.SQLINBOX_PGBOUNCER_SKIP;
  if (env[variable]) {
    console.log(`sqlinbox test target PgBouncer: ${variable}`);
    return async () => {};
  }
  if (env.SQLINBOX_PG_SKIP) return skip(`no PostgreSQL behind it (${env.SQLINBOX_PG_SKIP})`);
  const port = Number(env.SQLINBOX_PGBOUNCER_PORT || 6432);
  const running = await portAnswers('127.0.0.1', port);
  let url: string;
  try {
    const { stdout } = await run('bash', [script, 'start'], { env });
    url = stdout.trim().split('\n').at(-1) ?? '';
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? err).trim();
    return skip(`${variable} is not set, and scripts/pgbouncer.sh could not start one: ${stderr}`);
  }
  env[variable] = url;
  console.log(
    `sqlinbox test target PgBouncer: ${running ? 'the one running' : 'started by scripts/pgbouncer.sh'} on port ${port}`,
  );
  if (running) return async () => {};
  return async () => {
    await run('bash', [script, 'stop'], { env }).catch(() => {});
  };
}
