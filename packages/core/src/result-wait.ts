import type { AnyTable } from './description.js';
import type { Adapter } from './dialect.js';
import type { Events } from './events.js';
import type { Logger } from './logger.js';
import {
  needResult,
  type ResultWaitOptions,
  ResultWaker,
  type RowResult,
  readResult,
  waitForResult,
} from './result.js';

/** The waits of one table: each wait's waker under its row id as text, and the table's listener. */
class TableWaits {
  /** The wakers of the waits in progress, by row id as text (most ids have one). */
  readonly byId = new Map<string, Set<ResultWaker>>();
  /** Waits in progress. */
  count = 0;
  /** The unsubscribe of the table's `result` topic listener, while it listens. */
  unlisten: (() => Promise<void>) | undefined;
  /** The listen (or unlisten) in flight, which brings the listener in line with `count`. */
  syncing: Promise<void> | undefined;

  constructor(readonly table: string) {}

  add(key: string, waker: ResultWaker): void {
    this.count++;
    const set = this.byId.get(key);
    if (set === undefined) this.byId.set(key, new Set([waker]));
    else set.add(waker);
  }

  remove(key: string, waker: ResultWaker): void {
    const set = this.byId.get(key);
    if (set === undefined || !set.delete(waker)) return;
    this.count--;
    if (set.size === 0) this.byId.delete(key);
  }

  /** Wakes the waits for row `key`. */
  wake(key: string): void {
    const set = this.byId.get(key);
    if (set !== undefined) for (const w of set) w.wake();
  }

  /** Wakes every wait of the table (notifications may have been missed). */
  wakeAll(): void {
    for (const set of this.byId.values()) for (const w of set) w.wake();
  }
}

/**
 * The result waits of one broker (or one `Admin`), woken rather than polled. Whatever the number of
 * waits, it holds one listener of the broker's `settled` and `cancelled` events (while any wait is
 * in progress, so a broker without waits builds no `settled` payload for them) and, where the
 * adapter listens for the `result` topic (PostgreSQL), one topic listener per table (while a wait
 * of that table is in progress). Each event and each notification finds its waits by the row's id
 * in a map: a settlement costs the same with one wait or thousands. A wait that ends (answered,
 * timed out, aborted, failed) takes itself out.
 *
 * The table's listener is in place before a wait's first read, so a settlement committed after
 * that read is heard; the reads between are then a fallback 2 s apart. Without a listener the wait
 * reads as `waitForResult` does (every 50 ms, growing to 250 ms), and still wakes on the events.
 */
export class ResultWaits {
  private readonly tables = new Map<string, TableWaits>();
  private waiting = 0;
  private offEvents: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly adapter: Adapter,
    private readonly logger: Logger,
    private readonly events?: Events,
  ) {}

  private get wakeup() {
    return this.adapter.wakeup;
  }

  /** Waits in progress (every table). */
  get size(): number {
    return this.waiting;
  }

  /** Whether the `result` topic of `table` is listened to now. */
  listening(table: string): boolean {
    return this.tables.get(table)?.unlisten !== undefined;
  }

  /**
   * Waits until row `id` of `table` is processed (see `waitForResult`), reading it with `read`
   * (default: on a connection of the adapter's pool); woken by this broker's settlement events of
   * the row and, where the adapter has one, by the table's `result` notification with the row's id.
   */
  async wait(
    table: AnyTable,
    id: unknown,
    opts: ResultWaitOptions,
    read: () => Promise<RowResult> = () => readResult(this.adapter, table, id, opts.deadLetter),
  ): Promise<unknown> {
    needResult(table);
    const key = String(id);
    const waker = new ResultWaker();
    let t = this.tables.get(table.table);
    if (t === undefined) {
      t = new TableWaits(table.table);
      this.tables.set(table.table, t);
    }
    if (this.waiting++ === 0 && this.events !== undefined) {
      const offSettled = this.events.on('settled', this.heard);
      const offCancelled = this.events.on('cancelled', this.heard);
      this.offEvents = () => {
        offSettled();
        offCancelled();
      };
    }
    t.add(key, waker);
    try {
      const woken = await this.listen(t);
      return await waitForResult(table, id, opts, read, waker, woken);
    } finally {
      t.remove(key, waker);
      if (--this.waiting === 0) {
        this.offEvents?.();
        this.offEvents = undefined;
      }
      if (t.count === 0 && t.unlisten !== undefined) void this.sync(t);
    }
  }

  /** Stops every table's listener; later waits read on their own (still woken by the events). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.tables.values()].map((t) => this.sync(t)));
  }

  /** A settlement event of this broker: wakes the waits for its row. */
  private readonly heard = (e: { table: string; id: unknown }): void => {
    this.tables.get(e.table)?.wake(String(e.id));
  };

  /** Whether the table's listener is in place (once a listen in flight has ended). */
  private async listen(t: TableWaits): Promise<boolean> {
    if (this.wakeup?.listenTopic === undefined || this.closed) return false;
    if (t.unlisten === undefined || t.syncing !== undefined) await this.sync(t);
    return t.unlisten !== undefined;
  }

  /**
   * Brings the table's listener in line with its waits: listening while any is in progress (and
   * not closed), else not. One listen or unlisten at a time per table; a listen that fails is
   * logged, and the waits of that moment read on their own (a later wait tries again).
   */
  private sync(t: TableWaits): Promise<void> {
    t.syncing ??= this.syncLoop(t);
    return t.syncing;
  }

  private async syncLoop(t: TableWaits): Promise<void> {
    // Never ends before `sync` has stored it: the loop clears `syncing` in the turn it decides.
    await null;
    let failed = false;
    for (;;) {
      const want = t.count > 0 && !this.closed && this.wakeup?.listenTopic !== undefined;
      if (want && t.unlisten === undefined && !failed) {
        try {
          t.unlisten = await this.wakeup!.listenTopic!(t.table, 'result', (payload) => {
            if (payload === '') t.wakeAll();
            else t.wake(payload);
          });
        } catch (err) {
          failed = true;
          try {
            this.logger.warn('listening for result notifications failed; polling only', {
              table: t.table,
              error: err,
            });
          } catch {
            // A logger that throws has nowhere left to report to.
          }
        }
      } else if (!want && t.unlisten !== undefined) {
        const unlisten = t.unlisten;
        t.unlisten = undefined;
        await unlisten().catch(() => undefined);
      } else {
        t.syncing = undefined;
        return;
      }
    }
  }
}
