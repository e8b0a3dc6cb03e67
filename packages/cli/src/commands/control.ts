/** `pause`, `resume` and `cancel`: the control table's commands. */
import { type Commands, EXIT, idOf, json } from '../base.js';
import { one, readConfig } from '../config.js';
import { pausedLine } from '../output.js';

/** `pause [group]`, `resume [group]` and `cancel <ids..>`. */
export const controlCommands: Commands = (cli, host) => {
  const { io } = host;
  for (const verb of ['pause', 'resume'] as const) {
    cli
      .command(
        `${verb} [group]`,
        verb === 'pause'
          ? "Pause the queue (or one FIFO group of it) in its control table: every broker stops starting its handlers within a second (the queue's config names control)"
          : 'Resume the queue (or one FIFO group of it): every broker claims it again within a second',
      )
      .action((group: string | undefined) => {
        host.run(async () => {
          const flags = host.flags();
          const config = readConfig(flags.config);
          const { table } = one(flags, config, verb);
          const admin = await host.open(config);
          const scope = group === undefined ? {} : { group: String(group) };
          await admin[verb](table, scope);
          const paused = await admin.paused(table);
          if (flags.json) io.out(json(paused));
          else io.out(pausedLine(table.table, paused));
          return EXIT.ok;
        });
      });
  }

  cli
    .command(
      'cancel <...ids>',
      "Cancel rows by id: one not in work leaves at once (to the queue's dead letter, else dropped); a running one's broker aborts its handler's signal within a second (the queue's config names control)",
    )
    .option('--reason <text>', "Kept as each cancelled row's last error (default: cancelled)")
    .action((ids: string[]) => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'cancel');
        const admin = await host.open(config);
        const reason = flags.reason === undefined ? {} : { reason: String(flags.reason) };
        const r = await admin.cancel(
          table,
          { ids: ids.map((i) => idOf(String(i))) },
          { deadLetter, ...reason },
        );
        if (flags.json) io.out(json({ changed: r.changed, signalled: r.signalled, skipped: r.skipped }));
        else {
          io.out(
            `cancelled ${r.changed.length} row(s)${r.changed.length ? `: ${r.changed.map(String).join(', ')}` : ''}`,
          );
          if (r.signalled.length > 0) {
            io.out(
              `told to stop ${r.signalled.length} row(s) in work: ${r.signalled.map(String).join(', ')}`,
            );
          }
          for (const x of r.skipped) io.out(`left alone ${String(x.id)}: ${x.reason}`);
        }
        return r.skipped.length > 0 ? EXIT.partial : EXIT.ok;
      });
    });
};
