/** `ddl` and `migrate`: the tables a queue needs, printed or brought up to date. */
import { type Dialect, migrate } from '@sqlinbox/core';
import { type Commands, EXIT, json } from '../base.js';
import { describeQueue, one, queuesOf, readConfig, schedulesFlag } from '../config.js';
import { dialectNamed } from '../connect.js';

/** `ddl` and `migrate`. */
export const tableCommands: Commands = (cli, host) => {
  const { io } = host;
  cli
    .command(
      'ddl',
      'Print the CREATE TABLE and indexes of the queue (and its dead-letter table); with --dialect, without a database',
    )
    .option('--schedules [table]', 'Also the tick table of schedules (default: sqlinbox_schedules)')
    .option('--dialect <name>', 'postgres, mysql (or mariadb) or sqlite: print its DDL without connecting')
    .action(() => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'ddl');
        let dialect: Dialect;
        if (flags.dialect === undefined) {
          await host.open(config);
          dialect = host.adapter()!.dialect;
        } else dialect = await dialectNamed(flags.dialect);
        const dlt =
          deadLetter !== undefined && 'table' in deadLetter ? { deadLetterTable: deadLetter.table } : {};
        const ticks = schedulesFlag(flags);
        const stmts = dialect.ddl(table, ticks === undefined ? dlt : { ...dlt, schedules: ticks });
        io.out(flags.json ? json(stmts) : stmts.map((s) => `${s};`).join('\n'));
        return EXIT.ok;
      });
    });

  cli
    .command(
      'migrate',
      "Create the queues' tables (and dead-letter and tick tables) where missing, and record what ran; safe to run from several deploys at once",
    )
    .option('--dry-run', 'Print the statements and which versions are not applied yet; run nothing')
    .option('--schedules [table]', 'Also the tick table of schedules (default: sqlinbox_schedules)')
    .action(() => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const qs = queuesOf(flags, config).map((q) => describeQueue(q.q));
        const schedules = schedulesFlag(flags);
        await host.open(config);
        const report = await migrate(
          host.adapter()!,
          qs.map((q) => ({
            table: q.table,
            ...(q.deadLetter !== undefined && 'table' in q.deadLetter
              ? { deadLetterTable: q.deadLetter.table }
              : {}),
            ...(schedules === undefined ? {} : { schedules }),
          })),
          { dryRun: flags.dryRun === true },
        );
        if (flags.json) io.out(json(report));
        else if (report.dryRun) {
          for (const s of report.steps) {
            io.out(`-- ${s.table}: version ${s.version}, ${s.recorded ? 'applied' : 'not applied yet'}`);
            if (!s.recorded) io.out(s.statements.map((x) => `${x};`).join('\n'));
          }
        } else {
          for (const s of report.steps)
            io.out(`${s.table}: version ${s.version} ${s.recorded ? 'was applied already' : 'applied'}`);
        }
        return EXIT.ok;
      });
    });
};
