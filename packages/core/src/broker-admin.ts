import { Admin } from './admin.js';
import type { CancelOptions, CancelReport } from './cancel.js';
import { readPaused } from './control.js';
import { type AnyTable, validateDeadLetter } from './description.js';
import type { Adapter, DeadLetterTarget, QueueStats } from './dialect.js';

export type { CancelOptions, CancelReport } from './cancel.js';

/** What `broker.stats` answers: the table's counts (leases only), and what is paused of it. */
export async function brokerStats(
  adapter: Adapter,
  table: AnyTable,
  opts: { deadLetter?: DeadLetterTarget },
): Promise<QueueStats> {
  const deadLetter =
    opts.deadLetter === undefined ? undefined : validateDeadLetter(opts.deadLetter, table.table);
  const ops = adapter.dialect.prepare(table, { deadLetter });
  const conn = await adapter.pool.acquire();
  let stats: QueueStats;
  try {
    stats = await ops.stats(conn, new Date());
  } finally {
    adapter.pool.release(conn);
  }
  if (table.control === undefined) return stats;
  return { ...stats, paused: await readPaused(adapter.dialect, adapter.pool, table) };
}

/** What `broker.cancel` does: `Admin.cancel`, its dead letter the subscription's where the call names none. */
export function brokerCancel(
  adapter: Adapter,
  table: AnyTable,
  selection: { readonly ids: readonly unknown[] },
  opts: CancelOptions,
  subscribed: DeadLetterTarget | undefined,
): Promise<CancelReport> {
  const deadLetter = opts.deadLetter ?? subscribed;
  return new Admin(adapter).cancel(table, selection, { ...opts, deadLetter });
}
