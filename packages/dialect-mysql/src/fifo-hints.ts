/**
 * What a FIFO claim's window read saw of each group, kept for the claims right after it. A claim
 * reads the oldest rows without locks to find its candidates, the groups' heads, and then locks
 * and tests them ({@link MysqlTable.claimLease}). Once a head settles, the next head of its group
 * is the row the window showed behind it: the next claims offer those rows without reading the
 * window again, a round trip less each. An offered row is only a candidate: the locking select's
 * head test and due test, and the group's guard, decide as they do for a row the window read
 * found. The hints are dropped where a claim over them takes fewer rows than it could (a row not
 * yet its group's head, taken by another process, not due), once a group's last remembered row is
 * taken, and `maxAgeMs` after the read, so a group the window did not show (published since, or beyond
 * it) waits at most that long for a read that finds it.
 *
 * Where a claim asks for settled groups only (the lease form), a group is offered only while no
 * row ahead of its offered row is in work as far as these hints know: a row this subscription
 * took from the group, or the group's first rows the read saw in work, until this subscription's
 * own settlement of it is told ({@link FifoHints.settled}). The lease claim's guard then finds
 * the rows ahead settled, and never locks a head in work another claim's settlement waits on.
 */

/** A FIFO claim's candidate: a due head, and its group (null: none). */
export interface FifoCandidate {
  readonly id: unknown;
  readonly group: unknown;
}

const keyOf = (v: unknown): string => String(v);

export class FifoHints {
  /** Each remembered group's rows in id order, not yet taken by a claim of this table's subscription. */
  private readonly groups = new Map<string, { group: unknown; ids: unknown[]; ahead: unknown }>();
  private readAt = 0;
  /** Whether the last candidates came from the hints (not from a read). */
  private offered = false;

  constructor(
    private readonly maxAgeMs = 250,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /**
   * A window read's grouped rows, in id order, each with whether it was due: what the next claims
   * may offer. A group's first rows that were not due (in work) are left out: the row behind them
   * is the one to offer once they settle (`ahead`: the first of them, undefined where there are none).
   */
  remember(rows: readonly (FifoCandidate & { readonly due: boolean })[]): void {
    this.groups.clear();
    this.offered = false;
    this.readAt = this.clock();
    const inWork = new Map<string, unknown>();
    for (const r of rows) {
      if (r.group === null || r.group === undefined) continue;
      const k = keyOf(r.group);
      let g = this.groups.get(k);
      if (g === undefined) {
        if (!r.due) {
          if (!inWork.has(k)) inWork.set(k, r.id);
          continue;
        }
        g = { group: r.group, ids: [], ahead: inWork.get(k) };
        this.groups.set(k, g);
      }
      g.ids.push(r.id);
    }
  }

  /**
   * Each remembered group's oldest row not yet taken, groups in the order the read met them (the
   * locking select orders what it takes); with `settled`, of the groups with no row ahead in work
   * ({@link settled}). Undefined where there are none or the read is older than `maxAgeMs`: read
   * the window.
   */
  candidates(settled = false): FifoCandidate[] | undefined {
    if (this.groups.size === 0 || this.clock() - this.readAt > this.maxAgeMs) {
      this.forget();
      return undefined;
    }
    const offer = [...this.groups.values()].filter((g) => !settled || g.ahead === undefined);
    if (offer.length === 0) return undefined;
    this.offered = true;
    return offer.map((g) => ({ id: g.ids[0], group: g.group }));
  }

  /** This subscription settled these rows (and committed): the rows behind them may be offered. */
  settled(ids: readonly unknown[]): void {
    if (this.groups.size === 0 || ids.length === 0) return;
    const gone = new Set(ids.map(keyOf));
    for (const g of this.groups.values())
      if (g.ahead !== undefined && gone.has(keyOf(g.ahead))) g.ahead = undefined;
  }

  /**
   * A claim over `among` (the read's candidates or the hints') took `taken` of at most `n`: those
   * rows leave the hints. A claim over hints that took fewer than it could drops them all, and so
   * does a group's last remembered row taken: what follows it is unknown until a read.
   */
  took(among: readonly FifoCandidate[], taken: readonly unknown[], n: number): void {
    const fromHints = this.offered;
    this.offered = false;
    if (fromHints && taken.length < Math.min(n, among.length)) {
      this.forget();
      return;
    }
    const gone = new Set(taken.map(keyOf));
    for (const c of among) {
      if (!gone.has(keyOf(c.id)) || c.group === null || c.group === undefined) continue;
      const k = keyOf(c.group);
      const g = this.groups.get(k);
      if (g === undefined) continue;
      g.ids = g.ids.filter((id) => keyOf(id) !== keyOf(c.id));
      g.ahead = c.id;
      if (g.ids.length === 0) {
        this.forget();
        return;
      }
    }
  }

  forget(): void {
    this.groups.clear();
    this.offered = false;
  }
}
