/**
 * Where this package's tests find SQL Server (vitest `globalSetup`): `SQLINBOX_MSSQL_URL`; else a
 * container of `SQLINBOX_MSSQL_IMAGE` (default `mcr.microsoft.com/mssql/server:2022-latest`,
 * whose license it accepts) where a Docker engine answers; else the conformance run is skipped
 * with the reason (`SQLINBOX_MSSQL_SKIP`), or the run fails under CI unless `mssql` is in
 * `SQLINBOX_OPTIONAL_TARGETS`. There is no local default server.
 */
import { dockerAnswers, setupTarget } from '@sqlinbox/conformance/resolve';

export default function setup(): Promise<() => Promise<void>> {
  return setupTarget({
    name: 'SQL Server',
    key: 'mssql',
    variable: 'SQLINBOX_MSSQL_URL',
    skipVariable: 'SQLINBOX_MSSQL_SKIP',
    docker: {
      answers: () => dockerAnswers(),
      async start() {
        // Imported only here: a run without Docker never loads testcontainers.
        const { MSSQLServerContainer } = await import('@testcontainers/mssqlserver');
        const image = process.env.SQLINBOX_MSSQL_IMAGE || 'mcr.microsoft.com/mssql/server:2022-latest';
        const c = await new MSSQLServerContainer(image).acceptLicense().start();
        const user = encodeURIComponent(c.getUsername());
        const password = encodeURIComponent(c.getPassword());
        return {
          url: `mssql://${user}:${password}@${c.getHost()}:${c.getPort()}/${encodeURIComponent(c.getDatabase())}?trustServerCertificate=true`,
          stop: async () => void (await c.stop()),
        };
      },
    },
  });
}
