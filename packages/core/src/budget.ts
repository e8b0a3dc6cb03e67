import type { Pool } from './driver.js';

/**
 * The pool budget shared by every subscription of one broker: subscriptions together
 * hold at most the pool's size less one connection, so the last one always serves the handlers'
 * own queries, publishes and settlements; and a claim beside another starts only while the pool
 * has a connection to spare.
 */
export class Budget {
  private heldCount = 0;
  private claimsInFlight = 0;
  private waiters: (() => void)[] = [];
  /** The most connections held at once, for tests and stats. */
  peak = 0;

  constructor(private readonly pool: Pool) {}

  /** The most connections subscriptions may hold: the pool's size less one. */
  get limit(): number {
    return Math.max(0, this.pool.size - 1);
  }

  /** Connections subscriptions hold now. */
  get held(): number {
    return this.heldCount;
  }

  /**
   * Takes a connection's worth of room for a claim, or answers false. A claim beside another one
   * in flight also needs the pool to have a connection to spare beyond the one it takes.
   */
  tryTakeForClaim(): boolean {
    if (this.heldCount >= this.limit) return false;
    if (this.claimsInFlight > 0 && this.pool.spare() < 2) return false;
    this.take();
    this.claimsInFlight++;
    return true;
  }

  /** A claim ended; its room stays taken for whatever it now holds (give it back separately). */
  claimDone(): void {
    this.claimsInFlight--;
    this.changed();
  }

  /** Takes room for one more connection without the beside rule (a batch's extra connections). */
  tryTake(): boolean {
    if (this.heldCount >= this.limit) return false;
    this.take();
    return true;
  }

  /** Gives back one connection's room. */
  give(): void {
    this.heldCount--;
    this.changed();
  }

  /** Resolves the next time room is given back or a claim ends. */
  whenChanged(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private take(): void {
    this.heldCount++;
    if (this.heldCount > this.peak) this.peak = this.heldCount;
  }

  private changed(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }
}
