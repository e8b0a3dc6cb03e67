/**
 * Where a test target's database comes from, in order: the URL an environment variable names; the
 * local default server, if it answers; a container started where a Docker engine answers; else a
 * stated skip (an error where the run requires the target, as CI does). {@link resolveTarget} is
 * pure: every probe and the container start are handed to it, so an adapter's own test setup can
 * use it with its own servers.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { homedir } from 'node:os';

/** A started container: where to connect, and how to stop it. */
export interface StartedServer {
  /** The connection URL of the started server. */
  readonly url: string;
  /** Stops and removes the container. */
  stop(): Promise<void>;
}

/** What {@link resolveTarget} is asked. */
export interface ResolveTargetOptions {
  /** The target's name in messages, e.g. `PostgreSQL`. */
  readonly name: string;
  /** The environment variable naming the server and its value (`undefined` or `''`: not set). */
  readonly env: {
    /** The variable's name, e.g. `SQLINBOX_PG_URL`. */
    readonly variable: string;
    /** Its value: the server's URL, or `undefined` or `''` when not set. */
    readonly value: string | undefined;
  };
  /** The local default server: its URL and a probe answering whether it accepts connections (default: none). */
  readonly probe?: {
    /** The local server's connection URL. */
    readonly url: string;
    /** Where it is looked for, for messages (e.g. `127.0.0.1:5432`, never a password). */
    readonly where: string;
    /** Whether the local server accepts connections now. */
    answers(): Promise<boolean>;
  };
  /**
   * The container path (default: none): whether a Docker engine answers, and the start of the
   * container (called only when it does).
   */
  readonly docker?: {
    /** Whether a Docker engine answers (see {@link dockerAnswers}). */
    answers(): Promise<boolean>;
    /** Starts the container and answers once its server accepts connections. */
    start(): Promise<StartedServer>;
  };
  /** Whether the run requires this target: nothing found is then an error, never a skip (default false). */
  readonly ci?: boolean;
}

/** The outcome: a server to use (and where it came from), or the reason there is none. */
export type ResolvedTarget =
  | {
      /** The URL came from the environment variable. */
      readonly kind: 'env';
      /** The server's connection URL. */
      readonly url: string;
      /** The variable that named it. */
      readonly variable: string;
    }
  | {
      /** The local default server answered. */
      readonly kind: 'local';
      /** The server's connection URL. */
      readonly url: string;
    }
  | {
      /** A container was started. */
      readonly kind: 'container';
      /** The server's connection URL. */
      readonly url: string;
      /** Stops and removes the container. */
      stop(): Promise<void>;
    }
  | {
      /** No server: the target's tests are skipped. */
      readonly kind: 'skip';
      /** What was tried, for the skip message. */
      readonly reason: string;
    };

/** No server for a target the run requires (`ci`). */
export class TargetUnavailableError extends Error {
  /** The error's name, `TargetUnavailableError`. */
  override readonly name = 'TargetUnavailableError';
  constructor(
    /** The target's name. */
    readonly target: string,
    /** Why nothing was found. */
    readonly reason: string,
  ) {
    super(`${target}: no server for a run that requires one (CI): ${reason}`);
  }
}

/**
 * Resolves one target: the env URL wins; else the local default server if its probe answers; else
 * a started container if Docker answers; else `{ kind: 'skip', reason }`, or a
 * {@link TargetUnavailableError} when `ci` is set. A container that fails to start is an error
 * (Docker answered, so the failure is real), never a skip.
 */
export async function resolveTarget(options: ResolveTargetOptions): Promise<ResolvedTarget> {
  const { name, env, probe, docker, ci = false } = options;
  if (env.value !== undefined && env.value !== '') {
    return { kind: 'env', url: env.value, variable: env.variable };
  }
  const tried = [`${env.variable} is not set`];
  if (probe !== undefined) {
    if (await probe.answers()) return { kind: 'local', url: probe.url };
    tried.push(`nothing answers at ${probe.where}`);
  }
  if (docker !== undefined) {
    if (await docker.answers()) {
      const started = await docker.start();
      return { kind: 'container', url: started.url, stop: () => started.stop() };
    }
    tried.push('no Docker engine answers');
  } else {
    tried.push('no container is configured');
  }
  const reason = tried.join('; ');
  if (ci) throw new TargetUnavailableError(name, reason);
  return { kind: 'skip', reason };
}

/** Whether a TCP connection to `host:port` opens within `timeoutMs` (default 1,000). */
export function portAnswers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether a Docker engine answers `GET /_ping` within `timeoutMs` (default 2,000): at `DOCKER_HOST`
 * (`unix://` or plain `tcp://`) when set, else at `/var/run/docker.sock` or
 * `~/.docker/run/docker.sock`. Needs no Docker client library.
 */
export async function dockerAnswers(
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 2_000,
): Promise<boolean> {
  const host = env.DOCKER_HOST;
  const endpoints: ({ socketPath: string } | { host: string; port: number })[] = [];
  if (host !== undefined && host !== '') {
    if (host.startsWith('unix://')) endpoints.push({ socketPath: host.slice('unix://'.length) });
    else if (host.startsWith('tcp://')) {
      const u = new URL(`http://${host.slice('tcp://'.length)}`);
      endpoints.push({ host: u.hostname, port: Number(u.port || 2375) });
    }
  } else {
    endpoints.push(
      { socketPath: '/var/run/docker.sock' },
      { socketPath: `${homedir()}/.docker/run/docker.sock` },
    );
  }
  for (const endpoint of endpoints) if (await ping(endpoint, timeoutMs)) return true;
  return false;
}

function ping(endpoint: { socketPath: string } | { host: string; port: number }, timeoutMs: number) {
  return new Promise<boolean>((resolve) => {
    const req = request({ ...endpoint, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

/**
 * Targets the run may skip even under CI, from `SQLINBOX_OPTIONAL_TARGETS` (comma-separated keys,
 * e.g. `mssql`; default none).
 */
export function optionalTargets(env: NodeJS.ProcessEnv = process.env): ReadonlySet<string> {
  return new Set(
    (env.SQLINBOX_OPTIONAL_TARGETS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}

/** Whether `env` says a CI run (`CI` set to anything but `''`, `0` or `false`). */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** What {@link setupTarget} is asked: a target's resolution, and where its outcome goes. */
export interface SetupTargetOptions extends Omit<ResolveTargetOptions, 'env' | 'ci'> {
  /** The target's key in `SQLINBOX_OPTIONAL_TARGETS`, e.g. `postgres`. */
  readonly key: string;
  /** The environment variable naming the server, e.g. `SQLINBOX_PG_URL`. */
  readonly variable: string;
  /** The environment variable that receives the skip reason, e.g. `SQLINBOX_PG_SKIP`. */
  readonly skipVariable: string;
  /** Where messages go (default `console.log`). */
  readonly log?: (line: string) => void;
}

/**
 * For a vitest `globalSetup`: resolves the target from `env` (default `process.env`; required
 * when {@link isCi} unless its key is in `SQLINBOX_OPTIONAL_TARGETS`), writes the URL into
 * `env[variable]` (tests and their child processes read it there) or the reason into
 * `env[skipVariable]`, says which it chose, and answers the teardown (stops a started container).
 */
export async function setupTarget(
  options: SetupTargetOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<() => Promise<void>> {
  const { key, variable, skipVariable, log = console.log, ...rest } = options;
  const ci = isCi(env) && !optionalTargets(env).has(key);
  const resolved = await resolveTarget({ ...rest, env: { variable, value: env[variable] }, ci });
  delete env[skipVariable];
  switch (resolved.kind) {
    case 'env':
      log(`sqlinbox test target ${options.name}: ${variable}`);
      return async () => {};
    case 'local':
      env[variable] = resolved.url;
      log(`sqlinbox test target ${options.name}: the local server (${options.probe?.where})`);
      return async () => {};
    case 'container':
      env[variable] = resolved.url;
      log(`sqlinbox test target ${options.name}: a container started by testcontainers`);
      return () => resolved.stop();
    case 'skip':
      env[skipVariable] = resolved.reason;
      log(`sqlinbox test target ${options.name}: SKIPPED, ${resolved.reason}`);
      return async () => {};
  }
}
