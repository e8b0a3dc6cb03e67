/** `dashboard`: serves the web dashboard of the queues until interrupted. */
import { createServer } from 'node:http';
import { type AddressInfo, isIPv4 } from 'node:net';
import { type Commands, EXIT, messageOf, UsageError } from '../base.js';
import { describeQueue, queuesOf, readConfig } from '../config.js';

/** `dashboard`. */
export const dashboardCommand: Commands = (cli, run) => {
  const { io } = run;
  cli
    .command('dashboard', 'Serve the web dashboard of the queues until interrupted (read-only by default)')
    .option('--port <n>', 'The port to listen on (default 3000; 0 picks a free one)')
    .option(
      '--host <host>',
      'The address to listen on (default 127.0.0.1: this machine only); any other needs a login, as --actions does',
    )
    .option('--base-path <path>', 'Serve under this path, e.g. /queues (default: the root)')
    .option(
      '--actions',
      'Enable the actions (default: read-only); needs SQLINBOX_DASHBOARD_USER and SQLINBOX_DASHBOARD_PASSWORD, or SQLINBOX_DASHBOARD_TOKEN',
    )
    .option('--error-column <column>', "A column holding a row's last error, shown beside dead letters")
    .action(() => {
      run.run(async () => {
        const flags = run.flags();
        const config = readConfig(flags.config);
        const qs = queuesOf(flags, config).map((q) => ({ name: q.name, ...describeQueue(q.q) }));
        const port = flags.port === undefined ? 3000 : Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65_535) {
          throw new UsageError(`--port takes a port number, 0 to 65535 (got ${String(flags.port)})`);
        }
        const host = flags.host === undefined ? '127.0.0.1' : String(flags.host);
        const basePath = flags.basePath === undefined ? '' : String(flags.basePath).replace(/\/+$/, '');
        const credentials = dashboardCredentials(io.env);
        if (credentials === undefined && (!isLoopback(host) || flags.actions === true)) {
          const why = isLoopback(host)
            ? '--actions lets whoever reaches the port change rows'
            : `--host ${host} listens beyond this machine`;
          throw new UsageError(
            `the dashboard refuses to start without a login: ${why}. Set SQLINBOX_DASHBOARD_USER and ` +
              'SQLINBOX_DASHBOARD_PASSWORD (HTTP basic authentication, for browsers), or SQLINBOX_DASHBOARD_TOKEN ' +
              '(Authorization: Bearer, for scripts), or both; or serve it read-only on 127.0.0.1',
          );
        }
        const admin = await run.open(config);
        const { dashboard } = await import('@sqlinbox/dashboard');
        let handler: ReturnType<typeof dashboard>;
        try {
          handler = dashboard(admin, {
            queues: Object.fromEntries(
              qs.map((q) => [
                q.name,
                { table: q.table, deadLetter: q.deadLetter, errorColumn: q.errorColumn },
              ]),
            ),
            basePath,
            readOnly: flags.actions !== true,
            secret: io.env.SQLINBOX_DASHBOARD_SECRET || undefined,
            credentials,
          });
        } catch (err) {
          throw new UsageError(messageOf(err));
        }
        const server = createServer(handler);
        try {
          await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(port, host, () => resolve());
          });
          const { port: bound } = server.address() as AddressInfo;
          const shown = host.includes(':') ? `[${host}]` : host;
          io.out(
            `sqlinbox dashboard on http://${shown}:${bound}${basePath}/ (${flags.actions ? 'actions enabled' : 'read-only'}; ${loginText(credentials)}; Ctrl-C stops it)`,
          );
          await new Promise<void>((resolve) => {
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
            throw new UsageError(`cannot listen on ${host}:${port}: ${messageOf(err)}`);
          }
          throw err;
        } finally {
          handler.close();
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        }
        return EXIT.ok;
      });
    });
};

/**
 * The dashboard's login from the environment: basic authentication (`SQLINBOX_DASHBOARD_USER` and
 * `SQLINBOX_DASHBOARD_PASSWORD`), a bearer token (`SQLINBOX_DASHBOARD_TOKEN`), both, or undefined.
 * Read from the environment, never from flags, so no password shows in the process list.
 */
function dashboardCredentials(
  env: Readonly<Record<string, string | undefined>>,
): { user?: string; password?: string; token?: string } | undefined {
  const user = env.SQLINBOX_DASHBOARD_USER || undefined;
  const password = env.SQLINBOX_DASHBOARD_PASSWORD || undefined;
  const token = env.SQLINBOX_DASHBOARD_TOKEN || undefined;
  if ((user === undefined) !== (password === undefined)) {
    throw new UsageError('set SQLINBOX_DASHBOARD_USER and SQLINBOX_DASHBOARD_PASSWORD together');
  }
  if (user === undefined && token === undefined) return undefined;
  return { ...(user === undefined ? {} : { user, password }), ...(token === undefined ? {} : { token }) };
}

/** Whether an address to listen on is this machine only: `localhost`, 127.0.0.0/8, ::1. */
function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIPv4(v4) && v4.startsWith('127.');
}

function loginText(c: { user?: string; token?: string } | undefined): string {
  if (c === undefined) return 'no login';
  const kinds = [c.user === undefined ? '' : 'basic', c.token === undefined ? '' : 'bearer token'];
  return `login: ${kinds.filter((k) => k !== '').join(' or ')}`;
}
