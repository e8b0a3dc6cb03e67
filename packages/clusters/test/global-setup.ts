/**
 * This package's vitest `globalSetup`: makes the run's directory of servers,
 * `<base>/run-<pid>` where base is `SQLINBOX_SERVERS_DIR` (default `<tmpdir>/sqlinbox-servers`),
 * and names it in `SQLINBOX_SERVERS_RUN` for the tests. The teardown stops and removes every server
 * a test left there (each test removes its own; this is for a test that failed half way), and
 * first removes what runs whose process is gone left behind.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { script } from './support/servers.js';

const base = process.env.SQLINBOX_SERVERS_DIR || join(tmpdir(), 'sqlinbox-servers');

/** Stops every server under `dir` and deletes it. */
async function removeAll(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const sub = join(dir, name);
    const file = existsSync(join(sub, 'galera')) ? 'galera.sh' : 'pg-server.sh';
    await script(file, ['remove', sub]).catch((err: unknown) => console.warn(String(err)));
  }
  rmSync(dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  mkdirSync(base, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(base)) {
    const pid = /^run-(\d+)$/.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) await removeAll(join(base, name));
  }
  const dir = join(base, `run-${process.pid}`);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  process.env.SQLINBOX_SERVERS_RUN = dir;
  return () => removeAll(dir);
}
