import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ConformanceTarget, defineTarget, isCi } from '@sqlinbox/conformance';

/** The environment variable that hands the database file to a crash scenario's child process. */
export const FILE_ENV = 'SQLINBOX_SQLITE3_FILE';

/**
 * Why this example cannot run here, or undefined: `sqlite3` is an optional dependency, built from
 * source at install where no prebuilt binary can be downloaded. Without it the tests skip and say
 * why, except under CI, where they fail.
 */
export async function sqlite3Missing(): Promise<string | undefined> {
  try {
    await import('sqlite3');
    return undefined;
  } catch (err) {
    const reason = `the sqlite3 driver did not install or build (${(err as Error).message.split('\n')[0]}); install it with npm_config_nodedir set to Node's headers`;
    if (isCi()) throw new Error(reason);
    return reason;
  }
}

/** A fresh database file per test file; crash scenarios' children open it through child.mjs. */
export async function sqlite3Target(): Promise<ConformanceTarget> {
  const { sqlite3Adapter } = await import('../src/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'sqlinbox-sqlite3-'));
  const file = join(dir, 'conformance.db');
  process.env[FILE_ENV] = file;
  return defineTarget({
    name: 'sqlite (sqlite3, an outside adapter)',
    adapter: ({ poolSize, serverVersion }) => sqlite3Adapter(file, { connections: poolSize, serverVersion }),
    tooOldVersion: '3.30.0',
    childModule: fileURLToPath(new URL('./child.mjs', import.meta.url)),
    close: async () => rmSync(dir, { recursive: true, force: true }),
  });
}
