import type { QueueSettings } from '../queue.js';

/** The default claim ahead grows to this many rows beyond the workers at most. */
export const MAX_AHEAD = 500;

/** What the rows of a subscription are doing now, as the pump sees them when it sizes a claim. */
export interface Load {
  /** Rows whose handler runs (a batch counts once). */
  readonly inWork: number;
  /** Claimed rows waiting for a free worker (or their lane). */
  readonly waiting: number;
  /** Rows whose handler returned and whose settlement has not ended (their worker is free). */
  readonly settling: number;
  /** Claims in flight. */
  readonly claims: number;
  /** The rows the claims in flight asked for. */
  readonly claimSlots: number;
}

/**
 * How many rows the next claim asks for: one per free worker, or, in the lease form's claim
 * ahead, enough to keep rows waiting beyond the workers. It learns from what each claim found
 * on its return ({@link took}).
 */
export class ClaimSize {
  /**
   * Default claim ahead (lease, no `prefetch`): rows held beyond the workers. Starts at the workers
   * and doubles, up to {@link MAX_AHEAD}, each time a claim that was topping up rows
   * already held arrives after the workers ran dry: the rows ahead did not last the claim's round
   * trip at the rate the handlers drain them. It shrinks again while claims arrive with most of
   * the rows ahead still waiting (slower handlers).
   */
  private ahead: number;
  /** Claims in a row that took rows, since the start or the last empty claim. */
  private takingClaims = 0;

  constructor(
    private readonly settings: QueueSettings,
    /** Whether each claim takes one row (row lock form, transactional mode). */
    private readonly oneRow: boolean,
    /** Whether rows are claimed ahead of the workers (lease form, see `Capabilities.claimAhead`). */
    readonly claimAhead: boolean,
  ) {
    this.ahead = settings.workers;
  }

  /** Rows held beyond the workers the default claim ahead aims for now (for tests). */
  get rowsAhead(): number {
    return this.ahead;
  }

  /** Whether a claim starting now tops up rows already held (not the first after the start or an empty claim). */
  get toppingUp(): boolean {
    return this.takingClaims > 0;
  }

  /** Rows the next claim may take; 0: none now. */
  of(load: Load): number {
    const { workers, claimBatch, batch } = this.settings;
    // A batch subscription: one claim per free worker, each claim a batch of rows.
    if (batch !== undefined) return load.inWork + load.claims < workers ? batch : 0;
    const queued = load.inWork + load.waiting + load.claimSlots;
    let size: number;
    let most = claimBatch ?? workers;
    if (this.claimAhead) {
      // Up to workers + ahead rows held, the rows beyond the free workers waiting in the lease book.
      // prefetch(n) fixes ahead at n and claims once fewer than max(workers, n) are held; by
      // default ahead follows the drain rate (see `ahead`) and a claim waits until fewer than
      // max(workers, ahead / 2) are held, so each claim tops up at least half of it.
      const fixed = this.settings.prefetch;
      const ahead = fixed ?? this.ahead;
      if (queued >= Math.max(workers, fixed ?? Math.ceil(ahead / 2))) return 0;
      // Settlements slower than claims: no more rows until the acks catch up.
      if (load.settling >= 2 * (workers + ahead)) return 0;
      size = workers + ahead - queued;
      most = claimBatch ?? workers + ahead;
    } else {
      size = workers - queued;
    }
    if (size <= 0) return 0;
    if (this.oneRow) return 1;
    return Math.min(size, most);
  }

  /**
   * A claim came back with `took` rows of the `asked`, before they are handed on. `toppingUp`:
   * as {@link toppingUp} read when the claim started.
   */
  took(took: number, asked: number, toppingUp: boolean, load: Load): void {
    if (took === 0) {
      this.takingClaims = 0;
      return;
    }
    this.takingClaims++;
    if (toppingUp) this.adjust(took >= asked, load);
  }

  /**
   * Sizes the default claim ahead from what the claim found on its return: workers idle with no
   * row waiting means the rows ahead ran out before the claim came back, so the next claims take
   * twice as many ahead (only after a claim that took all it asked for: a table running dry is no
   * reason to hold more); most of them still waiting means the handlers drain slower than the
   * claims come back, so fewer are held.
   */
  private adjust(full: boolean, load: Load): void {
    if (!this.claimAhead || this.settings.prefetch !== undefined) return;
    const { workers } = this.settings;
    if (full && load.waiting === 0 && load.inWork < workers) {
      this.ahead = Math.min(Math.max(MAX_AHEAD, workers), this.ahead * 2);
    } else if (load.waiting * 2 > this.ahead) {
      this.ahead = Math.max(workers, Math.floor((this.ahead * 3) / 4));
    }
  }
}
