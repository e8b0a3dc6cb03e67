// Opens the SQL Server adapter in a crash scenario's child process, on the server the parent's
// target named in SQLINBOX_MSSQL_CONFIG (a tedious ConnectionConfiguration as JSON). It imports the
// package by name, so it runs the built dist/.
import { mssql } from '@sqlinbox/dialect-mssql/tedious';

/** @param {{ poolSize?: number, serverVersion?: string }} [opts] */
export default async function open(opts = {}) {
  const config = process.env.SQLINBOX_MSSQL_CONFIG;
  if (config === undefined)
    throw new Error('SQLINBOX_MSSQL_CONFIG is not set: open the target in the parent first');
  return mssql(JSON.parse(config), {
    poolSize: opts.poolSize ?? 10,
    ...(opts.serverVersion === undefined ? {} : { serverVersion: opts.serverVersion }),
  });
}
