import type { AnyTable, Row } from '@sqlinbox/core';

/** How far below the last claim's lowest id a lease claim starts its scan, in ids. */
export const CLAIM_MARGIN = 2000n;
/** How often at least a busy table's lease claims look below their start (ms). */
export const FULL_SCAN_EVERY_MS = 100;
/** A scan from the table's first id that took this long (ms) or more gives way to the sweep. */
export const SWEEP_FROM_MS = 20;
/** How long one step of the sweep aims to take (ms). */
export const SWEEP_STEP_MS = 5;

/**
 * Whether a table's lease claims may start their scan at an id ({@link ClaimRange}): the rows are
 * claimed in id order (no priority, no FIFO groups, no per-key concurrency) and the ids are
 * integers the database draws (a sequence, `AUTO_INCREMENT`).
 */
export function boundedClaims(t: AnyTable): boolean {
  return t.id.generated && t.priority === undefined && t.group === undefined && t.concurrency === undefined;
}

/**
 * One lease claim's read: up to `n` due rows in id order, leased, with ids at or above `from` and
 * below `below` where given.
 */
export type RangeRead = (n: number, from?: bigint, below?: bigint) => Promise<Row[]>;

/**
 * Where the lease claims of one busy table read ({@link boundedClaims}): near the lowest id the
 * last claim took. A claim reads the primary key from its lowest id up, and the rows settled
 * since the database last cleaned up are there: their index entries stay until vacuum (InnoDB:
 * purge) removes them, and while any transaction older than them is open it removes none. A
 * claim that always scans from the first id slows down with every row settled. Started
 * `CLAIM_MARGIN` ids below the last claim's lowest id, it steps over the rows settled since then.
 *
 * Rows below that start are still due sometimes: a row whose transaction committed long after
 * its id was drawn, a retry whose time came, a lease that ran out, a delayed message. So the
 * claims look below their start once `FULL_SCAN_EVERY_MS` have passed since they last did, or
 * ten times as long as that look took. While a scan from the first id is quick (under
 * `sweepFromMs`), the look is such a scan, in place of the claim's scan from its start. When
 * it is not (a held transaction: a scan through the settled rows took 640 ms at 17,000 jobs/s
 * after a minute on PostgreSQL, and MariaDB's claims fell from 13,000 to 1,200 jobs/s), one slow
 * claim would hold up every row that arrives meanwhile; the look becomes a sweep instead. Each
 * look then claims from one window of ids below the start, from the start down, each window as
 * wide as a look of about `SWEEP_STEP_MS` reads (its width adapts from window to window), and the
 * last window takes every id below it; the claim from the start follows in the same call. A
 * round of the sweep covers what one scan would, spread over many claims, and once a whole round
 * takes less than `sweepFromMs`, the look is one scan again. A subscription claiming less often
 * than the look's interval (a table that is not busy) looks below each time.
 *
 * No SQL here: the dialect's {@link RangeRead} renders the bounds.
 */
export class ClaimRange {
  /** The lowest id the last claim from the start (or the first id) took; undefined before any took a row. */
  private floor: bigint | undefined;
  /** The lowest id any claim of this table took. */
  private lowest: bigint | undefined;
  /** When the claims last looked below their start (a scan from the first id, a step of the sweep), and how long that took (ms). */
  private lowAt = Number.NEGATIVE_INFINITY;
  private lowMs = 0;
  /** How long the last look at every id below the start took (ms): one scan, or a whole sweep. */
  private fullMs = 0;
  /** The sweep: the next step's upper bound (undefined: the next step starts a round at the claims' start), its width in ids, the width a round starts with, the round's time so far (ms). */
  private sweepBelow: bigint | undefined;
  private sweepSpan = CLAIM_MARGIN;
  private headSpan = CLAIM_MARGIN;
  private roundMs = 0;
  /** A scan from the first id that took this long (ms) or more gives way to the sweep; `SWEEP_FROM_MS` unless changed. */
  sweepFromMs = SWEEP_FROM_MS;

  constructor(
    /** The id column, as the claimed rows carry it. */
    private readonly idColumn: string,
  ) {}

  /** Up to `n` rows, read by `read` as the state above says, in id order. */
  async claim(n: number, read: RangeRead): Promise<Row[]> {
    if (n <= 0) return [];
    const at = performance.now();
    if (this.floor === undefined) return this.fromFirst(n, read, at);
    const start = this.floor - CLAIM_MARGIN;
    const sweeping = this.sweepBelow !== undefined || this.fullMs >= this.sweepFromMs;
    const every = Math.max(sweeping ? 10 * SWEEP_STEP_MS : FULL_SCAN_EVERY_MS, 10 * this.lowMs);
    if (at - this.lowAt < every) return this.fromStart(n, read, start);
    if (!sweeping) return this.fromFirst(n, read, at);
    // A step of the sweep: the window below `below`, the whole rest below it once it reaches the
    // lowest id claimed.
    const below = this.sweepBelow ?? start;
    const span = this.sweepBelow === undefined ? this.headSpan : this.sweepSpan;
    const lowest = this.lowest ?? below;
    const from = below - span > lowest ? below - span : undefined;
    // Claims that start meanwhile (several in flight) claim from the start.
    this.lowAt = at;
    const rows = await read(n, from, below);
    const ms = performance.now() - at;
    this.lowMs = ms;
    this.roundMs += ms;
    this.sweepSpan = widthAfter(span, ms);
    if (this.sweepBelow === undefined) this.headSpan = this.sweepSpan;
    this.note(rows);
    if (rows.length >= n) {
      // The window may hold more: the next step reads it again.
      this.sweepBelow = below;
      return rows;
    }
    if (from === undefined) {
      // The round is done.
      this.fullMs = this.roundMs;
      this.roundMs = 0;
      this.sweepBelow = undefined;
    } else this.sweepBelow = from;
    // The window's rows are below the start: they come first in id order.
    return rows.concat(await this.fromStart(n - rows.length, read, start));
  }

  /** A claim from the table's first id, timed as a look below the claims' start. */
  private async fromFirst(n: number, read: RangeRead, at: number): Promise<Row[]> {
    this.lowAt = at;
    const rows = await read(n);
    this.lowMs = this.fullMs = performance.now() - at;
    this.note(rows, true);
    return rows;
  }

  /** A claim from id `start` up. */
  private async fromStart(n: number, read: RangeRead, start: bigint): Promise<Row[]> {
    const rows = await read(n, start);
    this.note(rows, true);
    return rows;
  }

  /**
   * Keeps the lowest id claimed; with `head` (a claim at the head of the table, not a window of
   * the sweep), the next claims start near the lowest id of `rows`, where they took any.
   */
  private note(rows: Row[], head = false): void {
    let id: bigint | undefined;
    for (const r of rows) {
      const v = r[this.idColumn];
      if (typeof v !== 'number' && typeof v !== 'bigint' && typeof v !== 'string') continue;
      const b = BigInt(v);
      if (id === undefined || b < id) id = b;
    }
    if (id === undefined) return;
    if (this.lowest === undefined || id < this.lowest) this.lowest = id;
    if (head) this.floor = id;
  }
}

/**
 * The width of the sweep's next window after a window `span` ids wide took `ms`: twice as wide
 * after a quick one, narrowed in proportion after a slow one, never under a tenth of
 * `CLAIM_MARGIN`.
 */
function widthAfter(span: bigint, ms: number): bigint {
  let next = span;
  if (ms < SWEEP_STEP_MS / 2) next = span * 2n;
  else if (ms > SWEEP_STEP_MS) next = (span * BigInt(Math.round((SWEEP_STEP_MS * 1000) / ms))) / 1000n;
  const least = CLAIM_MARGIN / 10n;
  return next < least ? least : next;
}
