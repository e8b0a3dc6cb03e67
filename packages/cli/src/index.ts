/**
 * The `sqlinbox` command line: `ddl`, `stats`, `dead list|requeue|purge`, `pause|resume [group]`,
 * `cancel <ids..>`, `show <id>`, `flow <id>`, `dashboard`, `migrate`: each group of commands in
 * `commands/`, declared on one cac instance; what they share in `base.ts`, `config.ts` (the
 * queues), `connect.ts` (the URL) and `output.ts`.
 * Each run opens one small pool (two connections), runs one command through the admin API and
 * closes it; `dashboard` serves the web dashboard on it until SIGINT or SIGTERM.
 */
import { createRequire } from 'node:module';
import { type Adapter, Admin, ConnectionStringError } from '@sqlinbox/core';
import { cac } from 'cac';
import { EXIT, type Flags, type Host, type Io, messageOf, UsageError } from './base.js';
import { controlCommands } from './commands/control.js';
import { dashboardCommand } from './commands/dashboard.js';
import { flowCommands } from './commands/flows.js';
import { rowCommands } from './commands/rows.js';
import { tableCommands } from './commands/tables.js';
import type { CliConfig } from './config.js';
import { openUrl } from './connect.js';

export { EXIT, type Io, UsageError } from './base.js';
export type { CliConfig, QueueConfig } from './config.js';
export { openUrl } from './connect.js';

/** This package's version, as `sqlinbox --version` prints it. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

/**
 * Runs the command line (`argv` without node and the script) and answers the exit code. Output
 * goes to `io`; errors are written as one line each, `sqlinbox: <message>`.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const cli = cac('sqlinbox');
  let action: (() => Promise<number>) | undefined;
  let adapter: (Adapter & { close(): Promise<void> }) | undefined;
  let flags: Flags = {};
  const host: Host = {
    io,
    flags: () => flags,
    adapter: () => adapter,
    run: (a) => {
      action = a;
    },
    open: async (config: CliConfig | undefined) => {
      const url = flags.url ?? (io.env.SQLINBOX_URL || undefined) ?? config?.url;
      if (url === undefined || url === '')
        throw new UsageError('no database: pass --url <url> or set SQLINBOX_URL');
      adapter = await openUrl(url);
      return new Admin(adapter);
    },
  };

  cli
    .option(
      '--url <url>',
      'Database URL: postgres://, mysql:// or mariadb://, sqlite:<file> (default: $SQLINBOX_URL)',
    )
    .option('--config <file>', 'A JSON file: { "url"?: ..., "queues": { "<name>": { "table": ..., ... } } }')
    .option('--queue <name>', 'One queue of the config file (default: all of them, for stats)')
    .option('--table <name>', 'The queue table (instead of a config file)')
    .option('--id <column>', 'Id column (default: id, filled by the database)')
    .option('--payload <column>', 'Payload column (default: payload)')
    .option('--payload-type <type>', 'json, text or bytes (default: json)')
    .option('--attempt <column>', 'Attempt column (default: attempt)')
    .option('--lease <column>', 'Lease column: the lease form')
    .option('--advisory <template>', 'Advisory key template: the advisory form')
    .option('--retry-after <column>', 'The retry_after column')
    .option('--processed-at <column>', 'The processed_at column')
    .option('--group <column>', 'The FIFO group column')
    .option('--last-error <column>', "The failure record: the last error's message")
    .option('--error-class <column>', "The failure record: the last error's class")
    .option('--failed-at <column>', 'The failure record: when the row last failed, or died')
    .option('--created-at <column>', 'When the row was inserted')
    .option('--result <column>', "The result column: the value the row's handler acked with")
    .option('--dead-letter-table <table>', 'Dead letters live in this table')
    .option('--dead-letter-group <group>', 'Dead letters are rows of this group')
    .option('--json', 'Machine-readable output on stdout');

  for (const commands of [tableCommands, rowCommands, flowCommands, controlCommands, dashboardCommand])
    commands(cli, host);

  cli.version(VERSION);
  cli.help((sections) => {
    // cac prints a command's usage but not its description: the description goes right under it.
    const command = cli.matchedCommand;
    if (command === undefined || command.description === '') return sections;
    const at = sections.findIndex((s) => s.title === 'Usage');
    sections.splice(at + 1, 0, { title: 'Description', body: `  ${command.description}` });
    return sections;
  });
  try {
    const parsed = cli.parse(['node', 'sqlinbox', ...argv], { run: false });
    flags = parsed.options as Flags;
    if (flags.help || (flags as { version?: boolean }).version) return EXIT.ok;
    if (cli.matchedCommand === undefined) {
      if (parsed.args.length > 0)
        throw new UsageError(`unknown command ${parsed.args[0]}; see sqlinbox --help`);
      cli.outputHelp();
      return EXIT.usage;
    }
    await cli.runMatchedCommand();
    if (action === undefined) return EXIT.ok;
    return await action();
  } catch (err) {
    io.err(`sqlinbox: ${messageOf(err)}`);
    if (
      err instanceof UsageError ||
      err instanceof ConnectionStringError ||
      (err as Error)?.name === 'CACError'
    )
      return EXIT.usage;
    return EXIT.failed;
  } finally {
    await adapter?.close().catch(() => undefined);
  }
}
