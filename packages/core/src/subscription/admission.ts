import type { Budget } from '../budget.js';

/**
 * Whether one more claim may start: within the fan-out (claims that may run at once) and within
 * the pool budget.
 *
 * The fan-out is one after a claim that took fewer rows than it asked for (the table ran dry, or
 * other claims had the rest) or failed, and after the first claim that took all it asked for
 * again; it doubles with each further such claim, up to `most`. A backlog fans out to every free
 * worker within a few claims; a trickle of rows costs about one empty claim per row, not one per
 * free worker.
 */
export class Admission {
  private fanOut = 1;
  /** Claims in a row, as they ended, that took all the rows they asked for. */
  private fullClaims = 0;

  constructor(
    private readonly budget: Budget,
    /** The most claims in flight at once: 1 where the table takes one claim at a time, else the workers. */
    private readonly most: number,
  ) {}

  /** Claims that may run at once now (for tests). */
  get limit(): number {
    return this.fanOut;
  }

  /** Whether a claim may start beside `inFlight` others. */
  allows(inFlight: number): boolean {
    return inFlight < this.fanOut;
  }

  /**
   * Takes a connection's room in the budget for a claim, or answers false (see
   * `Budget.tryTakeForClaim`); the claim gives it back or hands it on.
   */
  tryTake(): boolean {
    return this.budget.tryTakeForClaim();
  }

  /** Gives back the room {@link tryTake} took, where the claim never ran (a rate limit said no). */
  giveBack(): void {
    this.budget.give();
  }

  /** Resolves the next time the budget has room again. */
  whenRoom(): Promise<void> {
    return this.budget.whenChanged();
  }

  /** A claim ended; its room stays taken for whatever it holds now. */
  claimDone(): void {
    this.budget.claimDone();
  }

  /** A claim came back with `took` of the `asked` rows. */
  took(took: number, asked: number): void {
    // The first full claim after a thin one may have taken the only row: the next one goes alone.
    this.fullClaims = took >= asked ? this.fullClaims + 1 : 0;
    this.fanOut = this.fullClaims >= 2 ? Math.min(this.fanOut * 2, this.most) : 1;
  }

  /** A claim failed: one claim at a time again. */
  failed(): void {
    this.fanOut = 1;
    this.fullClaims = 0;
  }
}
