/**
 * Every statement the MySQL/MariaDB dialect sends, for the fixed descriptions of `@sqlinbox/sql`'s
 * snapshot, compared with the committed `__snapshots__/statements.sql`: a change to a statement
 * fails here until the snapshot is written again (`vitest run -u`) and its diff reviewed.
 */
import {
  boundedClaims,
  type NamedStatement,
  renderStatements,
  SNAPSHOT_LATER,
  SNAPSHOT_NOW,
  type SqlDialect,
} from '@sqlinbox/sql';
import { format } from 'sql-formatter';
import { expect, test } from 'vitest';
import { mysqlDialect } from '../src/dialect.js';
import type { MysqlStatements } from '../src/statements.js';

const [now, later] = [SNAPSHOT_NOW, SNAPSHOT_LATER];

test('R-HOUSE-4 every statement of the MySQL/MariaDB dialect matches its snapshot', async () => {
  const text = renderStatements<MysqlStatements>(mysqlDialect as SqlDialect, {
    format: (sql) => format(sql, { language: 'mariadb', expressionWidth: 80 }),
    extra: (s, c) => {
      const t = c.table;
      const out: NamedStatement[] = [];
      if (t.form === 'lease') {
        out.push(
          ['claim, then: the update of the rows it locked', s.lease.claimUpdate([1, 2], later)],
          ...(boundedClaims(t)
            ? ([
                ['claimLease from an id (n 10, from 4000)', s.lease.claim(10, now, later, undefined, 4000n)],
                [
                  'claimLease, a window of the sweep (n 10, from 2000, below 4000)',
                  s.lease.claim(10, now, later, undefined, 2000n, 4000n),
                ],
              ] as const)
            : []),
          ['claim, then: the rows it leased', s.lease.claimRows([1, 2])],
          ['extendLeases, then: the ids it moved', s.lease.extendLeasesMoved([1, 2], later)],
          ['settleMany: the rows still held, locked', s.lease.settleManyHeld([{ id: 1, token: now }])],
          ['settleMany: then their ack', s.lease.settleManyFinish([1, 2], now)],
        );
        const deleted = s.lease.settleManyDeleted([
          { id: 1, token: now },
          { id: 2, token: later },
        ]);
        if (deleted !== undefined)
          out.push(['settleMany on MariaDB: the rows still held, deleted, their ids answered', deleted]);
        if (t.concurrency !== undefined)
          out.push(
            ['per-key concurrency: the front of the queue', s.concurrency.front(10, now)],
            ['per-key concurrency: rows in work of the keys read', s.concurrency.inWork(['a', 'b'], now)],
            [
              'per-key concurrency: full keys ahead, keys to look in (the first, the next after two known, the newest rows)',
              s.concurrency.keys(10, ['a', 'b']),
            ],
            [
              "per-key concurrency: full keys ahead, the keys' first rows",
              s.concurrency.heads(['a', 'b'], now),
            ],
            [
              'per-key concurrency: the update of the rows still due',
              s.lease.claimUpdate([1, 2], later, now),
            ],
            ['per-key concurrency: the rows it leased', s.lease.claimRows([1, 2], later)],
            ['per-key concurrency: the turn released', s.concurrency.turnEnd()],
          );
      }
      if (t.group !== undefined) {
        out.push(['the FIFO index, found on the server', s.fifo.fifoIndexOf()]);
        s.fifo.fifoIndex = 'sqlinbox_fifo';
        out.push(['headGuard through the FIFO index (id 7, group g)', s.fifo.headGuard(7, 'g')]);
        if (s.fifo.windowed) {
          out.push(
            ['FIFO claim: its window of candidates (n 10)', s.fifo.window(10, now)],
            ['FIFO claim: the candidates after the window (last 400, n 10)', s.fifo.beyond(400, 10, now)],
            [
              'FIFO claim: the window and the candidates after the last window (after 400, n 10)',
              s.fifo.windowThenBeyond(10, now, 400),
            ],
            ['FIFO claim: the row lock select of the candidates', s.rowLock.claim(10, now, [1, 2])],
          );
          if (t.form === 'lease')
            out.push([
              'FIFO claim: the lease select of the candidates, tagged for their guards (UNION ALL headGuards)',
              s.lease.claim(10, now, later, [1, 2], undefined, undefined, true),
            ]);
        }
      }
      if (t.retention !== undefined) {
        const r = s.retention;
        if (t.retention.processedMs !== undefined)
          out.push([
            'retention: the picked processed rows deleted',
            r.deletePicked('processed', [1, 2], now),
          ]);
        out.push(
          ['retention: the dead letters without a death stamp, locked', r.pickUnstamped(1_000)],
          ['retention: their death stamped', r.stampPicked([1, 2], now)],
          ['retention: the picked dead letters deleted', r.deletePicked('dead', [1, 2], now)],
        );
      }
      if (t.form === 'advisory')
        out.push(
          ['take, then: the row', s.advisory.takeRow(7)],
          ['stats: keys in use', s.counts.usedKeys(now)],
        );
      if (t.form === 'rowlock') out.push(['stats: due rows no transaction locks', s.counts.freeDue(now)]);
      return out;
    },
  });
  await expect(text).toMatchFileSnapshot('./__snapshots__/statements.sql');
});
