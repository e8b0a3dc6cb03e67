import type { Adapter } from './dialect.js';
import type { Logger } from './logger.js';
import type { Subscription } from './subscription.js';

/**
 * A broker's wake-up listeners, once per table: new rows wake the table's subscriptions (the
 * adapter's `wakeup.listen`), and where the adapter notifies control writes (`listenTopic`,
 * PostgreSQL) each notification makes the table's subscriptions read their control table at once
 * instead of at their next poll. A listener that cannot start is logged; the poll stays.
 */
export class Listeners {
  /** Each table's listener of new rows: in place once its promise resolves (false: it failed). */
  private readonly rows = new Map<string, Promise<boolean>>();
  /** Each table's listener of control writes, the same way. */
  private readonly control = new Map<string, Promise<boolean>>();
  private unlisten: (() => Promise<void>)[] = [];

  constructor(
    private readonly adapter: Adapter,
    private readonly logger: Logger,
    private readonly subscriptions: readonly Subscription[],
    private readonly wake: (table: string) => void,
  ) {}

  /**
   * Listens for `sub`'s table, where no listener of this broker does yet; resolves once the
   * table's listeners are in place (a listen another subscription of the table started included),
   * so the subscription's first read of its control table comes after its listener is.
   */
  async listenTo(sub: Subscription): Promise<void> {
    await this.listenRows(sub.table);
    if (sub.control !== undefined) await this.listenControl(sub.table);
  }

  private listenRows(table: string): Promise<boolean> {
    const wakeup = this.adapter.wakeup;
    if (wakeup === undefined) return Promise.resolve(false);
    return this.once(this.rows, table, 'listening for wake-ups failed; polling only', () =>
      wakeup.listen(table, () => this.wake(table)),
    );
  }

  private listenControl(table: string): Promise<boolean> {
    const wakeup = this.adapter.wakeup;
    if (wakeup?.listenTopic === undefined) return Promise.resolve(false);
    return this.once(
      this.control,
      table,
      'listening for control notifications failed; polling the control table only',
      () =>
        wakeup.listenTopic!(table, 'control', () => {
          for (const s of this.subscriptions) if (s.table === table) s.control?.nudge();
        }),
    );
  }

  /** The listen of `table` in `map`, started once; one that fails is logged and tried again by the next call. */
  private once(
    map: Map<string, Promise<boolean>>,
    table: string,
    failed: string,
    listen: () => Promise<() => Promise<void>>,
  ): Promise<boolean> {
    const known = map.get(table);
    if (known !== undefined) return known;
    const started = (async () => listen())().then(
      (u) => {
        this.unlisten.push(u);
        return true;
      },
      (err: unknown) => {
        map.delete(table);
        this.logger.warn(failed, { table, error: err });
        return false;
      },
    );
    map.set(table, started);
    return started;
  }

  /** Stops every listener. */
  async close(): Promise<void> {
    await Promise.all([...this.rows.values(), ...this.control.values()]);
    for (const u of this.unlisten) await u().catch(() => {});
    this.unlisten = [];
  }
}
