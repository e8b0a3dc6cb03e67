import { Outcome, outcomeOf } from '../outcome.js';
import { backoffMs, type Delivery, type DeliveryHost } from './delivery.js';
import { isTimeout, timeoutError } from './failure-log.js';
import type { BatchHandler, BatchItem, Context } from './handler.js';
import { raceTimeout, TIMED_OUT } from './timeout.js';

/**
 * Runs one batch: decodes each row (a row past its deadline, cancelled, or that cannot be decoded
 * is settled on its own and never reaches the handler), calls the handler once with the others, then settles each row
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
    // Cancelled before the batch started (R-LIFE-3): settled as cancelled, never handed over.
    const cancelled = d.cancelledBeforeStart();
    if (cancelled !== undefined) {
      pending.push(cancelled);
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
      if (result !== TIMED_OUT) outcome = outcomeOf(result);
      else {
        // A failure of every row the handler left unsettled, as a throw is (backoff, record, limit).
        const reason = timeoutError(table, undefined, timeout!, true);
        for (const d of handed) d.abort(reason);
        throw reason;
      }
    } catch (err) {
      // A thrown error is a retry of every row the handler left unsettled, counted.
      host.logger.warn(`batch handler ${isTimeout(err) ? 'timed out' : 'failed'}; its unsettled rows fail`, {
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
