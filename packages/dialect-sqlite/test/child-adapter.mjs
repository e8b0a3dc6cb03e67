// Opens the SQLite adapter in a crash scenario's child process, on the file the parent's target
// named in SQLINBOX_SQLITE_FILE, through the driver it named in SQLINBOX_SQLITE_DRIVER
// (better-sqlite3, or node:sqlite by default). It imports the package by name, so it runs the built dist/.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlite } from '@sqlinbox/dialect-sqlite';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const file = process.env.SQLINBOX_SQLITE_FILE ?? join(tmpdir(), 'sqlinbox-conformance.db');
  const driver =
    process.env.SQLINBOX_SQLITE_DRIVER === 'better-sqlite3'
      ? (await import('better-sqlite3')).default
      : undefined;
  return sqlite(
    { filename: file, connections: opts.poolSize ?? 10, driver },
    { serverVersion: opts.serverVersion },
  );
}
