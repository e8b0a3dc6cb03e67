import type { AnyTable } from './description.js';
import { ConfigError } from './errors.js';
import { type DescriptionOf, type DescriptionProblem, type InboxInput, inbox } from './inbox.js';
import type { Plan } from './outcome.js';
import type { QueueSettings } from './queue.js';

/**
 * The outbox. A service writes messages into an outbox table in its own transaction
 * (`broker.publish(outbox, message, { tx })`, or inside `broker.transaction(..)`), so a message
 * exists exactly when the business write beside it committed. A relay (`broker.relay(..)`) is a
 * subscription on that table whose handler sends each record on; its outcome settles the record:
 *
 * - `ack` and `drop` MARK the record: its `processedAt` column is stamped, the record stays as the
 *   audit trail and is never relayed again (an outbox table must describe that column);
 * - a retry (`retry()`, a thrown error, a handler timeout) leaves the record unmarked, and this
 *   relay passes over it until it starts again: every claim of the relay leaves out the ids it
 *   held back. The next start (a new broker, i.e. a restarted service, or the relay mounted again)
 *   begins with none held back and relays every unmarked record, the held-back ones included.
 *   `retryAfter(d)` on an outbox with a `retryAfter` column is not held back: the record is due
 *   again after `d`, as in any queue; without that column it is a retry.
 */

/** The declarative spelling of an outbox table: any table description, with its `processedAt` column. */
export type OutboxInput = InboxInput & {
  /** The column a relayed record is stamped in (a timestamp, null until relayed). */
  readonly processedAt: string;
};

/**
 * Describes an outbox table: {@link inbox} with `processedAt` required, since a relay marks records
 * instead of deleting them. The dialect prints its DDL like any table's (`dialect.ddl(outbox)`).
 *
 * ```ts
 * const events = outbox({ table: 'order_events', id: { column: 'id', generated: true },
 *   payload: 'payload', processedAt: 'relayed_at' });
 * ```
 */
export function outbox<const D extends OutboxInput>(
  input: [DescriptionProblem<D>] extends [never] ? D : D & { readonly 'type error': DescriptionProblem<D> },
): DescriptionOf<D> {
  const d = inbox(input as never) as unknown as DescriptionOf<D>;
  relayTable(d);
  return d;
}

/** Checks that a table can be relayed; answers it. */
export function relayTable(t: AnyTable): AnyTable {
  if (t.processedAt === undefined) {
    throw new ConfigError('an outbox keeps its records: the relay marks them instead of deleting them', {
      table: t.table,
      column: 'processedAt',
      fix: 'describe the processedAt column (e.g. processedAt: "relayed_at"), a nullable timestamp',
    });
  }
  return t;
}

/** The settings of a relay subscription, from a queue's settings. */
export function relaySettings(settings: QueueSettings): QueueSettings {
  relayTable(settings.table);
  if (settings.deadLetter !== undefined || settings.maxAttempts !== undefined) {
    throw new ConfigError('a relay takes no dead letter: a retry leaves the record for the next start', {
      table: settings.table.table,
      fix: 'drop maxAttempts and deadLetter; answer drop() to mark a record that must not be relayed',
    });
  }
  if (settings.batch !== undefined) {
    throw new ConfigError('a relay hands its handler one record at a time', {
      table: settings.table.table,
      fix: 'drop batch(n) from the relay queue; workers(n) relays n records at once',
    });
  }
  return { ...settings, relay: true };
}

/** Whether a plan leaves the record for the relay's next start (a retry without a due time of its own). */
export function holdsBack(plan: Plan): boolean {
  return plan.kind === 'return' && plan.retryAfter === undefined;
}

/**
 * The ids a relay passes over until it starts again. `ids` is what the dialect's claims read (each
 * statement binds them as they stand then); `has` compares by value, as ids come back from the
 * driver (a number, a string or a bigint).
 */
export class HeldBack {
  readonly ids = new Set<unknown>();
  private readonly keys = new Set<string>();

  add(id: unknown): void {
    const k = keyOf(id);
    if (this.keys.has(k)) return;
    this.keys.add(k);
    this.ids.add(id);
  }

  has(id: unknown): boolean {
    return this.keys.has(keyOf(id));
  }

  get size(): number {
    return this.ids.size;
  }
}

function keyOf(id: unknown): string {
  return typeof id === 'object' && id !== null ? JSON.stringify(id) : String(id);
}
