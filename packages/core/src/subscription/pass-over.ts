import type { HeldBack } from '../relay.js';

/**
 * Ids a subscription passes over until an instant each (a backoff on a table without a
 * `retry_after` column, a relay's held-back records). `ids` is the set its claims read (the dialect binds them at each statement);
 * a relay's held-back records share it and stay in it.
 */
export class PassOver {
  readonly ids: Set<unknown>;
  private readonly until = new Map<string, { id: unknown; until: number }>();

  constructor(private readonly heldBack: HeldBack | undefined) {
    this.ids = heldBack?.ids ?? new Set<unknown>();
  }

  /** Passes the row over for `ms` from now (a later end wins). */
  add(id: unknown, ms: number): void {
    if (!(ms > 0)) return;
    const k = keyOf(id);
    const end = Date.now() + ms;
    const had = this.until.get(k);
    if (had !== undefined && had.until >= end) return;
    if (had === undefined && this.heldBack?.has(id)) return;
    this.until.set(k, { id: had?.id ?? id, until: end });
    this.ids.add(had?.id ?? id);
  }

  /** Passes the row over until {@link unhold} (a row of a paused group). */
  hold(id: unknown): void {
    this.ids.add(id);
  }

  /** Claims may take the row again (its group resumed), unless it is passed over for another reason. */
  unhold(id: unknown): void {
    if (this.until.has(keyOf(id)) || this.heldBack?.has(id)) return;
    this.ids.delete(id);
  }

  /** Drops the ids whose time has come. */
  purge(now: number): void {
    if (this.until.size === 0) return;
    for (const [k, e] of this.until) {
      if (e.until > now) continue;
      this.until.delete(k);
      if (!this.heldBack?.has(e.id)) this.ids.delete(e.id);
    }
  }
}

function keyOf(id: unknown): string {
  return typeof id === 'object' && id !== null ? JSON.stringify(id) : String(id);
}
