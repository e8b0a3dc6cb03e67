import type { Held } from '../forms/form.js';
import { Slots } from '../slots.js';
import { processBatch } from './batch.js';
import { Delivery, type DeliveryHost } from './delivery.js';

/** What {@link Dispatch} is given: a delivery's host but for the two calls it answers itself. */
export type DispatchHost = Omit<DeliveryHost, 'returned' | 'ended'>;

/**
 * Hands claimed rows to free workers: rows wait here for a worker (or for their lane, keeping each
 * lane's claim order), each runs as a {@link Delivery}, and a worker is free again when its
 * delivery ends (or, in the lease form's claim ahead, when its handler returns).
 */
export class Dispatch {
  /** Deliveries whose handler runs, each in its `slot` (not a `Set`: see {@link Slots}). */
  readonly deliveries = new Slots<Delivery>();
  /** Rows whose handler runs (a batch counts once). */
  inWork = 0;
  /** Rows whose handler returned and whose settlement has not ended (their worker is free). */
  settling = 0;
  /** Claimed rows waiting for a free worker (or their lane). */
  private waiting: Held[] = [];
  private readonly laneBusy: boolean[];
  private readonly host: DeliveryHost;

  constructor(
    base: DispatchHost,
    /**
     * A lease row whose handler returned no longer needs its worker while its ack settles (batched
     * with others): the worker takes the next row at once. Lanes keep theirs until the row settles.
     */
    private readonly freeOnReturn: boolean,
    /** Whether handlers may start (the pump claims); else rows wait here for the stop to release them. */
    private readonly open: () => boolean,
    /** Told whenever a worker is freed or a settlement ends: the pump may claim again. */
    private readonly changed: () => void,
    /**
     * Told when a delivery (or a batch) ended, its settlement committed. A FIFO table's pump claims
     * at once then: the group's next row has just become its head (R-LOAD-6), and no poll is waited for.
     */
    private readonly settled?: () => void,
    /**
     * Asked at each delivery's start whether the row may start now (its queue or group not paused);
     * a row it refuses goes to `refuse` instead (back to the queue).
     */
    private readonly gate?: {
      admits(h: Held): boolean;
      refuse(h: Held): void;
      /** Whether no handler may start yet (rows wait until {@link resume}). */
      readonly stale: boolean;
    },
  ) {
    this.laneBusy = Array.from({ length: base.settings.lanes ?? 0 }, () => false);
    this.host = { ...base, returned: (d) => this.returned(d), ended: (d) => this.ended(d) };
  }

  /** Claimed rows waiting for a worker. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * The rows a claim took: each is told to `claimed` listeners and handed on (a batch
   * subscription's rows as one batch); a relay's record held back meanwhile goes back at once.
   */
  accept(held: readonly Held[]): void {
    const { settings, heldBack, events, form } = this.host;
    const table = settings.table.table;
    const batch: Held[] = [];
    const claimedWanted = events.wants('claimed');
    for (const h of held) {
      // A claim that ran while a retry settled may still find the record: it waits for the next start.
      if (heldBack?.has(h.id)) {
        void form.drop(h, true);
        continue;
      }
      if (claimedWanted) events.emit('claimed', { table, id: h.id, attempt: h.attempt });
      // Stopped meanwhile: the stop gives the row back, and waits for that.
      if (!this.open()) this.waiting.push(h);
      else if (settings.batch === undefined) this.hand(h);
      else if (this.gate !== undefined && !this.gate.admits(h)) this.gate.refuse(h);
      else batch.push(h);
    }
    if (batch.length > 0) this.runBatch(batch);
  }

  /** Takes every row still waiting (the stop releases them). */
  takeWaiting(): Held[] {
    const waiting = this.waiting;
    this.waiting = [];
    return waiting;
  }

  /** A row's lease was lost: it waits no more, and a delivery holding it is aborted. */
  lost(h: Held, reason: unknown): void {
    const i = this.waiting.indexOf(h);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      this.changed();
    }
    for (const d of this.deliveries.values()) if (d.held === h) d.abort(reason);
  }

  private hand(h: Held): void {
    this.waiting.push(h);
    this.pump();
  }

  /** Hands waiting rows to free workers (or free lanes, keeping each lane's claim order). */
  /** Hands waiting rows to free workers now (the control cache, stale a moment, was read again). */
  resume(): void {
    if (this.waiting.length > 0) this.pump();
  }

  private pump(): void {
    if (!this.open()) return; // stopped: no handler starts; the stop releases the rows waiting
    if (this.gate?.stale) return; // the control cache is older than its bound: wait for its read
    const s = this.host.settings;
    const lanes = s.lanes;
    if (lanes === undefined) {
      while (this.waiting.length > 0 && this.inWork < s.workers) {
        const h = this.waiting.shift()!;
        if (this.gate !== undefined && !this.gate.admits(h)) this.gate.refuse(h);
        else this.run(h, -1);
      }
      return;
    }
    const key = s.table.partitionKey!;
    for (let i = 0; i < this.waiting.length; ) {
      const h = this.waiting[i]!;
      const lane = laneOf(h.row[key], lanes);
      if (!this.laneBusy[lane] && !this.waiting.slice(0, i).some((w) => laneOf(w.row[key], lanes) === lane)) {
        this.waiting.splice(i, 1);
        if (this.gate !== undefined && !this.gate.admits(h)) this.gate.refuse(h);
        else this.run(h, lane);
      } else {
        i++;
      }
    }
  }

  private run(h: Held, lane: number): void {
    this.inWork++;
    if (lane >= 0) this.laneBusy[lane] = true;
    const d = new Delivery(this.host, h, lane);
    d.slot = this.deliveries.add(d);
    d.process();
  }

  /** A batch subscription's claim: one handler call for its rows, one worker. */
  private runBatch(held: Held[]): void {
    this.inWork++;
    const batch = held.map((h) => new Delivery(this.host, h));
    for (const d of batch) d.slot = this.deliveries.add(d);
    void processBatch(this.host, batch).finally(() => {
      for (const d of batch) this.deliveries.delete(d.slot, d);
      this.inWork--;
      this.settled?.();
      this.changed();
    });
  }

  /** A delivery's handler returned (lease form, claim ahead): its worker is free before it settles. */
  private returned(d: Delivery): void {
    if (!this.freeOnReturn) return;
    d.early = true;
    this.settling++;
    this.free(d);
  }

  /** A delivery ended, settled or not (it says so itself, once). */
  private ended(d: Delivery): void {
    this.deliveries.delete(d.slot, d);
    this.settled?.();
    if (d.early) {
      this.settling--;
      this.changed();
    }
    this.free(d);
  }

  /** Frees the delivery's worker (and lane), once. */
  private free(d: Delivery): void {
    if (d.freed) return;
    d.freed = true;
    this.inWork--;
    if (d.lane >= 0) this.laneBusy[d.lane] = false;
    this.pump();
    this.changed();
  }
}

/** The `workersByKey` lane of a partition key. */
export function laneOf(key: unknown, lanes: number): number {
  // FNV-1a over the key's text: stable across processes, so replicas agree on lanes.
  const s = String(key ?? '');
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % lanes;
}
