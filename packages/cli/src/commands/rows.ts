/** `stats`, `dead list|requeue|purge` and `show`: reading rows and counts, and acting on dead letters. */
import type { QueueStats } from '@sqlinbox/core';
import { type Commands, EXIT, idOf, json, UsageError } from '../base.js';
import { describeQueue, needDead, one, queuesOf, readConfig } from '../config.js';
import { reportOut, rowJson, rowLine, selectionOf, statsLine } from '../output.js';

/** `stats`, `dead` and `show`. */
export const rowCommands: Commands = (cli, host) => {
  const { io } = host;
  cli
    .command('stats', 'Counts by state: ready, delayed, in work, dead; the oldest ready row')
    .option('--watch [seconds]', 'Print again every n seconds (default 2) until interrupted')
    .action(() => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const qs = queuesOf(flags, config).map((q) => ({ name: q.name, ...describeQueue(q.q) }));
        const admin = await host.open(config);
        const once = async () => {
          const all: Record<string, QueueStats> = {};
          for (const q of qs) all[q.name] = await admin.stats(q.table, { deadLetter: q.deadLetter });
          if (flags.json) io.out(json(all));
          else for (const [name, s] of Object.entries(all)) io.out(statsLine(name, s));
        };
        await once();
        if (flags.watch !== undefined && flags.watch !== false) {
          const every = flags.watch === true || flags.watch === '' ? 2 : Number(flags.watch);
          if (!(every > 0))
            throw new UsageError(`--watch takes a number of seconds (got ${String(flags.watch)})`);
          for (;;) {
            await new Promise((r) => setTimeout(r, every * 1000));
            await once();
          }
        }
        return EXIT.ok;
      });
    });

  cli
    .command('dead <action> [...ids]', 'Dead letters: list, requeue [ids], purge [ids]')
    .option('--limit <n>', 'list: rows per page (default 50)')
    .option('--after <id>', 'list: start after this id')
    .option('--by-group <group>', 'requeue/purge: every dead row whose group column holds this')
    .option('--all', 'requeue/purge: every dead row')
    .option('--to-group <group>', 'requeue: the group requeued rows get (default: none)')
    .action((verb: string, ids: string[]) => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'dead');
        const dl = needDead(deadLetter, table);
        if (verb === 'list') {
          const limit = flags.limit === undefined ? 50 : Number(flags.limit);
          if (!Number.isInteger(limit) || limit < 1)
            throw new UsageError(`--limit takes a whole number (got ${String(flags.limit)})`);
          const admin = await host.open(config);
          const page = await admin.list(table, {
            deadLetter: dl,
            state: 'dead',
            limit,
            ...(flags.after === undefined ? {} : { after: idOf(String(flags.after)) }),
          });
          if (flags.json) io.out(json({ rows: page.rows.map(rowJson), next: page.next ?? null }));
          else {
            for (const r of page.rows) io.out(rowLine(r));
            if (page.next !== undefined) io.out(`more: --after ${String(page.next)}`);
          }
          return EXIT.ok;
        }
        if (verb === 'requeue') {
          const sel = selectionOf(ids, flags);
          const admin = await host.open(config);
          const toGroup = flags.toGroup === undefined ? null : String(flags.toGroup);
          return reportOut(
            io,
            flags.json === true,
            'requeued',
            await admin.requeue(table, sel, { deadLetter: dl, toGroup }),
          );
        }
        if (verb === 'purge') {
          const sel = selectionOf(ids, flags);
          const admin = await host.open(config);
          return reportOut(
            io,
            flags.json === true,
            'purged',
            await admin.remove(table, sel, { deadLetter: dl, dead: true }),
          );
        }
        throw new UsageError(`unknown dead action ${verb}: use list, requeue or purge`);
      });
    });

  cli
    .command('show <id>', 'One row by id, from the queue table or its dead-letter table')
    .action((id: string) => {
      host.run(async () => {
        const flags = host.flags();
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'show');
        const admin = await host.open(config);
        const row = await admin.get(table, idOf(String(id)), { deadLetter });
        if (row === null) {
          io.err(`sqlinbox: table ${table.table}: no row with id ${id}`);
          return EXIT.failed;
        }
        if (flags.json) io.out(json({ ...rowJson(row), row: row.row }));
        else io.out(rowLine(row));
        return EXIT.ok;
      });
    });
};
