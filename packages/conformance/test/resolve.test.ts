/** Where a test target's server comes from: each branch of the resolution, with injected probes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  dockerAnswers,
  isCi,
  portAnswers,
  type ResolveTargetOptions,
  resolveTarget,
  setupTarget,
  TargetUnavailableError,
} from '../src/resolve.js';

/** Probes and a container start that record what was called. */
function world(opts: { local: boolean; docker: boolean }) {
  const calls: string[] = [];
  const stopped: string[] = [];
  const base: Omit<ResolveTargetOptions, 'env'> = {
    name: 'PostgreSQL',
    probe: {
      url: 'postgres://postgres@127.0.0.1:5432/test',
      where: '127.0.0.1:5432',
      answers: async () => {
        calls.push('probe');
        return opts.local;
      },
    },
    docker: {
      answers: async () => {
        calls.push('docker');
        return opts.docker;
      },
      start: async () => {
        calls.push('start');
        return {
          url: 'postgres://test:test@localhost:49153/test',
          stop: async () => void stopped.push('stop'),
        };
      },
    },
  };
  return { base, calls, stopped };
}
const unset = { variable: 'SQLINBOX_PG_URL', value: undefined };

describe('R-RUN-3 test targets resolve: env URL, local server, container, else a stated skip', () => {
  test('R-RUN-3 the env URL wins: nothing is probed and no container starts', async () => {
    const { base, calls } = world({ local: true, docker: true });
    const r = await resolveTarget({
      ...base,
      env: { variable: 'SQLINBOX_PG_URL', value: 'postgres://u@db:5432/x' },
      ci: true,
    });
    expect(r).toEqual({ kind: 'env', url: 'postgres://u@db:5432/x', variable: 'SQLINBOX_PG_URL' });
    expect(calls).toEqual([]);
  });

  test('R-RUN-3 an empty env URL counts as unset', async () => {
    const { base } = world({ local: true, docker: false });
    const r = await resolveTarget({ ...base, env: { variable: 'SQLINBOX_PG_URL', value: '' } });
    expect(r.kind).toBe('local');
  });

  test('R-RUN-3 the local default server answers: it is used, Docker is not asked', async () => {
    const { base, calls } = world({ local: true, docker: true });
    const r = await resolveTarget({ ...base, env: unset });
    expect(r).toEqual({ kind: 'local', url: 'postgres://postgres@127.0.0.1:5432/test' });
    expect(calls).toEqual(['probe']);
  });

  test('R-RUN-3 Docker answers: a container is started and its stop is handed back', async () => {
    const { base, calls, stopped } = world({ local: false, docker: true });
    const r = await resolveTarget({ ...base, env: unset });
    expect(calls).toEqual(['probe', 'docker', 'start']);
    expect(r.kind).toBe('container');
    if (r.kind !== 'container') return;
    expect(r.url).toBe('postgres://test:test@localhost:49153/test');
    await r.stop();
    expect(stopped).toEqual(['stop']);
  });

  test('R-RUN-3 a container that fails to start is an error, never a skip', async () => {
    const { base } = world({ local: false, docker: true });
    const failing = {
      ...base,
      docker: { answers: async () => true, start: () => Promise.reject(new Error('pull denied')) },
    };
    await expect(resolveTarget({ ...failing, env: unset })).rejects.toThrow('pull denied');
  });

  test('R-RUN-3 nothing answers: a skip that says what was tried', async () => {
    const { base, calls } = world({ local: false, docker: false });
    const r = await resolveTarget({ ...base, env: unset });
    expect(r).toEqual({
      kind: 'skip',
      reason: 'SQLINBOX_PG_URL is not set; nothing answers at 127.0.0.1:5432; no Docker engine answers',
    });
    expect(calls).toEqual(['probe', 'docker']);
  });

  test('R-RUN-3 nothing answers under CI: an error, never a skip', async () => {
    const { base, calls } = world({ local: false, docker: false });
    const err = await resolveTarget({ ...base, env: unset, ci: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TargetUnavailableError);
    expect(err).toMatchObject({ target: 'PostgreSQL' });
    expect((err as Error).message).toContain('no Docker engine answers');
    expect(calls).toEqual(['probe', 'docker']);
  });

  test('R-RUN-3 a target with no local default (SQL Server) goes from the env URL to Docker', async () => {
    const { base, calls } = world({ local: true, docker: false });
    const r = await resolveTarget({
      name: 'SQL Server',
      docker: base.docker,
      env: { variable: 'SQLINBOX_MSSQL_URL', value: undefined },
    });
    expect(r).toEqual({ kind: 'skip', reason: 'SQLINBOX_MSSQL_URL is not set; no Docker engine answers' });
    expect(calls).toEqual(['docker']);
  });
});

describe('R-RUN-3 setupTarget hands the outcome to the tests through the environment', () => {
  const opts = (local: boolean, docker: boolean) => ({
    ...world({ local, docker }).base,
    key: 'postgres',
    variable: 'SQLINBOX_PG_URL',
    skipVariable: 'SQLINBOX_PG_SKIP',
  });

  test('R-RUN-3 the local server: its URL is written for the tests and their children, and said', async () => {
    const env: NodeJS.ProcessEnv = { SQLINBOX_PG_SKIP: 'stale' };
    const lines: string[] = [];
    await setupTarget({ ...opts(true, false), log: (l) => lines.push(l) }, env);
    expect(env).toEqual({ SQLINBOX_PG_URL: 'postgres://postgres@127.0.0.1:5432/test' });
    expect(lines).toEqual(['sqlinbox test target PostgreSQL: the local server (127.0.0.1:5432)']);
  });

  test('R-RUN-3 a container: its URL is written and the teardown stops it', async () => {
    const env: NodeJS.ProcessEnv = {};
    const o = opts(false, true);
    const teardown = await setupTarget({ ...o, log: () => {} }, env);
    expect(env.SQLINBOX_PG_URL).toBe('postgres://test:test@localhost:49153/test');
    await teardown();
  });

  test('R-RUN-3 nothing: the reason is written and said; under CI it throws unless the target is optional', async () => {
    const env: NodeJS.ProcessEnv = {};
    const lines: string[] = [];
    await setupTarget({ ...opts(false, false), log: (l) => lines.push(l) }, env);
    expect(env.SQLINBOX_PG_URL).toBeUndefined();
    expect(env.SQLINBOX_PG_SKIP).toBe(
      'SQLINBOX_PG_URL is not set; nothing answers at 127.0.0.1:5432; no Docker engine answers',
    );
    expect(lines[0]).toMatch(/^sqlinbox test target PostgreSQL: SKIPPED, SQLINBOX_PG_URL is not set/);

    await expect(
      setupTarget({ ...opts(false, false), log: () => {} }, { CI: 'true' }),
    ).rejects.toBeInstanceOf(TargetUnavailableError);
    const optional: NodeJS.ProcessEnv = { CI: 'true', SQLINBOX_OPTIONAL_TARGETS: 'mssql, postgres' };
    await setupTarget({ ...opts(false, false), log: () => {} }, optional);
    expect(optional.SQLINBOX_PG_SKIP).toContain('no Docker engine answers');
  });

  test('R-RUN-3 CI is read as CI does: set and not false', () => {
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: '1' })).toBe(true);
    expect(isCi({})).toBe(false);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({ CI: '0' })).toBe(false);
  });
});

describe('R-RUN-3 the real local probe', () => {
  test('R-RUN-3 portAnswers: true for a listening port, false once it is closed', async () => {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    expect(await portAnswers('127.0.0.1', port)).toBe(true);
    await new Promise((r) => server.close(r));
    expect(await portAnswers('127.0.0.1', port)).toBe(false);
  });
});

describe('R-RUN-3 the real Docker probe', () => {
  test('R-RUN-3 dockerAnswers: true when DOCKER_HOST answers GET /_ping with 200, false when nothing listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-docker-'));
    const socketPath = join(dir, 'docker.sock');
    const paths: string[] = [];
    const server = createHttpServer((req, res) => {
      paths.push(String(req.url));
      res.end('OK');
    });
    try {
      await new Promise<void>((r) => server.listen(socketPath, r));
      expect(await dockerAnswers({ DOCKER_HOST: `unix://${socketPath}` })).toBe(true);
      expect(paths).toEqual(['/_ping']);
      await new Promise((r) => server.close(r));
      expect(await dockerAnswers({ DOCKER_HOST: `unix://${socketPath}` })).toBe(false);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
