// Opens the adapter in a crash scenario's child process, on the file the parent named in
// SQLINBOX_SQLITE3_FILE. It imports the TypeScript source: Node strips its types.
import { sqlite3Adapter } from '../src/index.ts';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const file = process.env.SQLINBOX_SQLITE3_FILE;
  if (file === undefined) throw new Error('SQLINBOX_SQLITE3_FILE is not set');
  return sqlite3Adapter(file, { connections: opts.poolSize ?? 10, serverVersion: opts.serverVersion });
}
