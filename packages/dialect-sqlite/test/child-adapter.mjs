// Opens the SQLite adapter in a crash scenario's child process, on the file the parent's target
// named in SQLINBOX_SQLITE_FILE. It imports the package by name, so it runs the built dist/.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlite } from '@sqlinbox/dialect-sqlite';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const file = process.env.SQLINBOX_SQLITE_FILE ?? join(tmpdir(), 'sqlinbox-conformance.db');
  return sqlite({ filename: file, connections: opts.poolSize ?? 10 }, { serverVersion: opts.serverVersion });
}
