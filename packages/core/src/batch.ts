import { SqlInboxError } from './errors.js';
import { Outcome, outcomeOf } from './outcome.js';
import type { Context, Delivery, Subscription } from './subscription.js';

/** One row of a batch: its decoded message and its own context, through which it settles. */
export interface BatchItem<T> {
  /** The row's payload, decoded (and validated where the queue has a schema). */
  readonly message: T;
  /**
   * The row's context: `id`, `attempt`, `row`, `signal`, and its own settlement (`ack()`,
   * `drop()`, `retry()`, `retryAfter(d)`, `settle(o)`), which takes effect on this row alone.
   * A batch is never transactional: `tx` is always `undefined`.
   */
  readonly ctx: Context<undefined>;
}

/**
 * A batch handler: gets the rows of one claim, at most the queue's `batch(n)`, never
 * none. Each row settles on its own through `item.ctx`; the rows it did not settle settle by its
 * outcome: returning nothing acks them, returning an `Outcome` applies it to each, a throw
 * retries each.
 */
export type BatchHandler<T> = (
  items: BatchItem<T>[],
) => Promise<Outcome | undefined | void> | Outcome | undefined | void;

const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * Runs one batch: decodes each row (a row that cannot be decoded is settled on its own and never
 * reaches the handler), calls the handler once with the others, then settles each row
 * the handler left unsettled by its outcome. Resolves once every row is settled or released;
 * never throws.
 */
export async function processBatch(sub: Subscription, deliveries: readonly Delivery[]): Promise<void> {
  const { host, handler } = sub.internals;
  const s = sub.settings;
  const table = s.table.table;
  const pending: Promise<void>[] = [];
  const items: BatchItem<unknown>[] = [];
  const handed: Delivery[] = [];
  for (const d of deliveries) {
    const decoded = await d.decode();
    if ('error' in decoded) {
      pending.push(d.settleUndecodable(decoded.error));
    } else {
      items.push({ message: decoded.message, ctx: d.context() as Context<undefined> });
      handed.push(d);
    }
  }
  if (items.length > 0) {
    const run = handler as unknown as BatchHandler<unknown>;
    const timeout = s.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let outcome: Outcome;
    let threw = false;
    try {
      const result = await Promise.race([
        Promise.resolve(run(items)),
        ...(timeout === undefined
          ? []
          : [
              new Promise<typeof TIMED_OUT>((resolve) => {
                timer = setTimeout(() => resolve(TIMED_OUT), timeout);
              }),
            ]),
      ]);
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
    } finally {
      clearTimeout(timer);
    }
    // A throw backs off like a single handler's; a returned retry() stays immediate.
    for (const d of handed) pending.push(d.finish(outcome, threw ? sub.backoffMs(d.held.attempt) : 0));
  }
  await Promise.all(pending);
}
