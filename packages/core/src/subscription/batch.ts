import { SqlInboxError } from '../errors.js';
import { Outcome, outcomeOf } from '../outcome.js';
import { backoffMs, type Delivery, type DeliveryHost } from './delivery.js';
import type { BatchHandler, BatchItem, Context } from './handler.js';
import { raceTimeout, TIMED_OUT } from './timeout.js';

/**
 * Runs one batch: decodes each row (a row that cannot be decoded is settled on its own and never
 * reaches the handler), calls the handler once with the others, then settles each row
 * the handler left unsettled by its outcome. Resolves once every row is settled or released;
 * never throws.
 */
export async function processBatch(host: DeliveryHost, deliveries: readonly Delivery[]): Promise<void> {
  const s = host.settings;
  const table = s.table.table;
  const pending: Promise<void>[] = [];
  const items: BatchItem<unknown>[] = [];
  const handed: Delivery[] = [];
  for (const d of deliveries) {
    const deadline = d.expiredSince();
    if (deadline !== undefined) {
      pending.push(d.settleExpired(deadline));
      continue;
    }
    const decoded = await d.decode();
    if ('error' in decoded) {
      pending.push(d.settleUndecodable(decoded.error));
    } else {
      items.push({ message: decoded.message, ctx: d.context() as Context<undefined> });
      handed.push(d);
    }
  }
  if (items.length > 0) {
    const run = host.handler as unknown as BatchHandler<unknown>;
    const timeout = s.timeoutMs;
    let outcome: Outcome;
    let threw = false;
    let thrown: unknown;
    try {
      const result = await raceTimeout(() => run(items), timeout);
      if (result === TIMED_OUT) {
        // The rows the handler did not settle are dropped and return, as for a single handler.
        host.logger.warn('batch handler timed out; its unsettled rows are dropped and return', {
          table,
          ids: handed.map((d) => d.held.id),
          timeoutMs: timeout,
        });
        const reason = new SqlInboxError('TIMEOUT', `batch handler of ${table} timed out`, { table });
        for (const d of handed) {
          d.abort(reason);
          pending.push(d.dropUnsettled('timeout'));
        }
        await Promise.all(pending);
        return;
      }
      outcome = outcomeOf(result);
    } catch (err) {
      // A thrown error is a retry of every row the handler left unsettled, counted.
      host.logger.warn('batch handler failed; retrying its unsettled rows', {
        table,
        ids: handed.filter((d) => !d.settled).map((d) => d.held.id),
        error: err,
      });
      outcome = Outcome.retry();
      threw = true;
      thrown = err;
    }
    // A throw backs off like a single handler's; a returned retry() stays immediate. The error
    // thrown is each unsettled row's failure record.
    for (const d of handed) pending.push(d.finish(outcome, threw ? backoffMs(s, d.held.attempt) : 0, thrown));
  }
  await Promise.all(pending);
}
