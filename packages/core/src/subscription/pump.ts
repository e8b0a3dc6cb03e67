import type { Dialect } from '../dialect.js';
import { claimErrorPolicy, classify } from '../errors.js';
import type { Events } from '../events.js';
import type { ClaimForm, Held } from '../forms/form.js';
import type { Logger } from '../logger.js';
import type { RateGate } from '../rate.js';
import type { Admission } from './admission.js';
import type { ClaimSize, Load } from './claim-size.js';
import { release } from './delivery.js';
import type { Dispatch } from './dispatch.js';
import type { PassOver } from './pass-over.js';

/**
 * The modes of a {@link Pump}. It is always in exactly one; {@link Pump.mode} says which, and only
 * `setMode` changes it, along {@link TRANSITIONS}.
 *
 * - `new`: made, not started. `start()` moves it to `claiming`.
 * - `claiming`: the last claim took rows (or none has run yet). A claim starts whenever the
 *   claim size says rows are wanted, the admission allows one more beside those in flight, and
 *   the pool budget has room. A claim that takes nothing moves it to `idle`; one that fails, or a
 *   rate limit whose window is used up, to `paused`.
 * - `idle`: the last claim took nothing. One claim per poll interval after it, or at once on a
 *   wake (a publish, a notification). A claim that takes rows moves it back to `claiming`.
 * - `paused`: a claim failed (the pause is the dialect's classification's: soon after a deadlock,
 *   backing off while the database is out of reach), or the rate limit's window is used up (until
 *   it ends). No claim starts until `pausedUntil`; then it returns to the mode it left
 *   (`claiming` or `idle`, as the claims that ended meanwhile found the table).
 * - `held`: the queue is paused in the control table (`admin.pause`, read by the subscription's
 *   `ControlWatch`): a different reason from `paused`, which is a claim back-off. No claim starts
 *   and no handler; rows claimed but not started go back to the queue at once, their attempt given
 *   back; handlers in work run on and settle. A resume returns it to the mode it left and claims
 *   at once (or to `paused` where a back-off is still ahead).
 * - `stopping`: `stop()` was called. No claim starts and no handler; the claims in flight end
 *   and the rows they took, like every row still waiting for a worker, go back to the queue.
 * - `stopped`: nothing of the pump is in flight. The deliveries in work go on (the broker's
 *   shutdown lets go of them). `start()` claims again.
 */
export const PumpModes = {
  NEW: 'new',
  CLAIMING: 'claiming',
  IDLE: 'idle',
  PAUSED: 'paused',
  HELD: 'held',
  STOPPING: 'stopping',
  STOPPED: 'stopped',
} as const;

/** A mode of the {@link Pump}: see {@link PumpModes}. */
export type PumpMode = (typeof PumpModes)[keyof typeof PumpModes];

/** The modes each mode may move to. */
export const TRANSITIONS: Readonly<Record<PumpMode, readonly PumpMode[]>> = {
  new: ['claiming', 'stopping'],
  claiming: ['idle', 'paused', 'held', 'stopping'],
  idle: ['claiming', 'paused', 'held', 'stopping'],
  paused: ['claiming', 'idle', 'held', 'stopping'],
  held: ['claiming', 'idle', 'paused', 'stopping'],
  stopping: ['stopped'],
  stopped: ['claiming', 'idle', 'paused', 'stopping'],
};

/** What the pump is given beside the parts it consults. */
export interface PumpHost {
  readonly table: string;
  readonly dialect: Dialect;
  readonly logger: Logger;
  readonly events: Events;
  readonly form: ClaimForm;
  /** The table's rate limit: each claim first reserves its rows from the window in the database. */
  readonly rate: RateGate | undefined;
  readonly passOver: PassOver;
  /** Poll interval of the idle mode, in ms. */
  readonly pollMs: number;
  /**
   * A FIFO table: a claim that took fewer rows than it asked for took every group head there was,
   * so the pump idles until a settlement wakes it (the next head) instead of claiming again at once.
   */
  readonly fifo?: boolean;
  /** What the control table says is paused (see `ControlWatch`); undefined: the table has none. */
  readonly control?: PumpControl | undefined;
  /** The FIFO group column, whose paused values the pump passes over. */
  readonly group?: string | undefined;
}

/** What the pump reads of the control table's cache. */
export interface PumpControl {
  /** The whole queue is paused (or not read yet). */
  readonly queuePaused: boolean;
  /** The FIFO groups paused. */
  readonly groups: ReadonlySet<string>;
}

/**
 * The idle mode's first wait after a claim made without a wake found rows (ms): a row another
 * service inserts where the database sends no wake (MySQL, MariaDB, SQLite; PostgreSQL without the
 * wake-up trigger) waits about this long while rows keep coming, not the poll interval.
 */
export const QUICK_POLL_MS = 10;

/** What a claim through the rate limit answers when the window is used up: pause until `until`. */
interface RateLimited {
  readonly until: number;
}

/**
 * The claim pump of one subscription: keeps a claim in flight per free worker within the pool
 * budget, in the modes of {@link PumpModes}. It consults three parts and owns none of their
 * state: the {@link ClaimSize} (rows the next claim asks for), the {@link Admission} (whether one
 * more claim may start: fan-out and budget) and the {@link Dispatch} (the rows waiting and in work).
 */
export class Pump {
  private current: PumpMode = PumpModes.NEW;
  /** The mode to take once a pause or a stop ends: as the last claim that ended found the table. */
  private after: 'claiming' | 'idle' = PumpModes.CLAIMING;
  /** Paused mode: no claim before this instant (ms). */
  private pausedUntil = 0;
  /** When the last claim that took nothing ended (idle mode polls from then). */
  private lastEmpty = 0;
  /** A wake came since the last claim started: the idle mode claims at once. */
  private woken = false;
  /**
   * The idle mode's wait before its next claim (ms): the poll interval, or, once a claim made
   * without a wake found rows (rows that come with no wake: another service's plain INSERT where
   * the database notifies nothing), `QUICK_POLL_MS`, doubling with each such claim that finds none,
   * back to the poll interval.
   */
  private idleMs: number | undefined;
  /**
   * Claims that failed in a row, claims in flight at once counted once: one outage fails every
   * claim in flight together, and counting each would back off as if it had failed that many
   * times in a row (8 claims dropped by a primary's death paused the next claim for 1 s).
   */
  private claimErrors = 0;
  /** Claims started so far (each claim's number). */
  private claimsStarted = 0;
  /** {@link claimsStarted} when the last failure was counted: a claim up to it failing counts no more. */
  private countedThrough = 0;
  /** Claims in flight. */
  private claims = 0;
  /** The rows the claims in flight asked for. */
  private claimSlots = 0;
  private loopDone: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];
  /** Ids of paused groups' rows released and passed over until their group resumes, by group. */
  private readonly heldGroups = new Map<string, unknown[]>();
  /** Told of each mode change (for tests; the mode is also {@link mode}). */
  onMode: ((from: PumpMode, to: PumpMode) => void) | undefined;

  constructor(
    private readonly host: PumpHost,
    private readonly size: ClaimSize,
    private readonly admission: Admission,
    private readonly dispatch: Dispatch,
  ) {}

  /** The mode the pump is in. */
  get mode(): PumpMode {
    return this.current;
  }

  /** Whether the pump runs: not new, stopping nor stopped (a held pump is open: its handlers in work settle). */
  get open(): boolean {
    const m = this.current;
    return m === PumpModes.CLAIMING || m === PumpModes.IDLE || m === PumpModes.PAUSED || m === PumpModes.HELD;
  }

  /**
   * Whether a claimed row may start its handler now, as the control cache says at this moment:
   * not while the queue is paused, nor a row of a paused group. Read at each delivery's start, so
   * no handler starts after this broker knows of the pause.
   */
  admits(h: Held): boolean {
    const c = this.host.control;
    if (c === undefined) return true;
    if (c.queuePaused) return false;
    const g = this.host.group;
    if (g === undefined || c.groups.size === 0) return true;
    const v = h.row[g];
    return v === null || v === undefined || !c.groups.has(String(v));
  }

  /**
   * A row {@link admits} refused: back to the queue, its attempt given back. A paused group's row
   * is passed over by the claims until its group resumes ({@link controlChanged}).
   */
  refuse(h: Held): void {
    const c = this.host.control;
    const g = this.host.group;
    if (c !== undefined && !c.queuePaused && g !== undefined) {
      const v = String(h.row[g]);
      const ids = this.heldGroups.get(v) ?? [];
      ids.push(h.id);
      this.heldGroups.set(v, ids);
      this.host.passOver.hold(h.id);
    }
    const { form, events, table, logger } = this.host;
    void release(form, events, table, h, 'paused').then(
      () => this.notify(),
      (err: unknown) =>
        logger.warn('releasing a row of a paused queue failed', { table, id: h.id, error: err }),
    );
  }

  /** The control cache changed: resumed groups' rows are claimed again, and the pump looks at once. */
  controlChanged(): void {
    const c = this.host.control;
    for (const [g, ids] of this.heldGroups) {
      if (c?.groups.has(g)) continue;
      for (const id of ids) this.host.passOver.unhold(id);
      this.heldGroups.delete(g);
    }
    this.wake();
  }

  /**
   * The one place the mode changes; a move {@link TRANSITIONS} does not list is a bug, and throws.
   * `now`: the instant the caller decided the move at. A pause is checked against it, not against
   * the clock read again: a process descheduled between the two readings (a loaded machine) would
   * otherwise find a pause it had just seen ahead already over, and throw (a killed worker's claim,
   * paused 10 ms, crashed a broker process that way).
   */
  private setMode(to: PumpMode, now = Date.now()): void {
    const from = this.current;
    if (!TRANSITIONS[from].includes(to)) {
      throw new Error(`sqlinbox: the pump of ${this.host.table} cannot move from ${from} to ${to}`);
    }
    if (to === PumpModes.PAUSED && !(from === PumpModes.STOPPED || this.pausedUntil > now)) {
      throw new Error(`sqlinbox: the pump of ${this.host.table} paused with no pause ahead`);
    }
    if (to === PumpModes.STOPPED && this.claims > 0) {
      throw new Error(
        `sqlinbox: the pump of ${this.host.table} stopped with ${this.claims} claims in flight`,
      );
    }
    this.current = to;
    this.onMode?.(from, to);
  }

  /** Starts claiming (`new` or `stopped`); a no-op in any other mode. */
  start(): void {
    const m = this.current;
    const now = Date.now();
    if (m === PumpModes.NEW) this.setMode(PumpModes.CLAIMING);
    else if (m === PumpModes.STOPPED)
      this.setMode(this.pausedUntil > now ? PumpModes.PAUSED : this.after, now);
    else return;
    this.loopDone = this.loop().catch((err) => {
      this.host.logger.error('subscription stopped on an unexpected error', {
        table: this.host.table,
        error: err,
      });
    });
  }

  /** Claims now instead of at the next poll (a publish, a notification). */
  wake(): void {
    this.woken = true;
    this.notify();
  }

  /** Something the pump waits on changed (a worker freed, a settlement ended, a row let go). */
  changed(): void {
    this.notify();
  }

  /**
   * Stops claiming and waits for the claims in flight. Rows claimed but not yet handed to a
   * handler go back to the queue at once. The deliveries in work keep their hold.
   */
  async stop(): Promise<void> {
    if (this.open || this.current === PumpModes.NEW) this.setMode(PumpModes.STOPPING);
    this.notify();
    await this.loopDone;
    while (this.claims > 0) await this.whenChanged();
    const { form, events, table } = this.host;
    await Promise.all(this.dispatch.takeWaiting().map((h) => release(form, events, table, h, 'stopped')));
    if (this.current === PumpModes.STOPPING) this.setMode(PumpModes.STOPPED);
  }

  /** What the rows are doing now, for the claim size. */
  private load(): Load {
    const d = this.dispatch;
    return {
      inWork: d.inWork,
      waiting: d.waitingCount,
      settling: d.settling,
      claims: this.claims,
      claimSlots: this.claimSlots,
    };
  }

  private async loop(): Promise<void> {
    let yielded = Date.now();
    while (this.open) {
      const wait = this.step();
      if (wait !== undefined) await wait;
      // A driver whose statements answer through promises alone never leaves the microtask queue:
      // let timers and I/O run at least every 20 ms, whatever fails or succeeds.
      if (Date.now() - yielded >= 20) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        yielded = Date.now();
      }
    }
  }

  /** One step: start a claim, or answer what to wait for. */
  private step(): Promise<unknown> | undefined {
    const now = Date.now();
    if (this.host.control?.queuePaused) {
      if (this.current !== PumpModes.HELD) this.hold();
      return this.whenChanged();
    }
    if (this.current === PumpModes.HELD) {
      this.setMode(this.pausedUntil > now ? PumpModes.PAUSED : this.after, now);
      this.woken = true; // resumed: claim at once
    }
    if (this.current === PumpModes.PAUSED) {
      if (this.pausedUntil > now) return this.changedOr(this.pausedUntil - now, false);
      this.setMode(this.after);
    }
    const size = this.size.of(this.load());
    if (size <= 0) return this.whenChanged();
    if (!this.admission.allows(this.claims)) return this.whenChanged();
    if (this.current === PumpModes.IDLE && !this.woken) {
      const due = this.lastEmpty + this.idlePollMs - now;
      if (due > 0) return this.changedOr(due, true);
    }
    this.host.passOver.purge(now);
    if (!this.admission.tryTake()) return Promise.race([this.admission.whenRoom(), this.whenChanged()]);
    const polled = this.current === PumpModes.IDLE && !this.woken;
    this.woken = false;
    this.startClaim(size, polled);
    return undefined;
  }

  /** The queue is paused: claim nothing, and give back every row waiting for a worker. */
  private hold(): void {
    const m = this.current;
    if (m === PumpModes.CLAIMING || m === PumpModes.IDLE) this.after = m;
    this.setMode(PumpModes.HELD);
    for (const h of this.dispatch.takeWaiting()) this.refuse(h);
  }

  /** The idle mode's wait before its next claim now (ms; see `idleMs`). */
  get idlePollMs(): number {
    return this.idleMs ?? this.host.pollMs;
  }

  /** `polled`: the claim is the idle mode's, made without a wake. */
  private startClaim(size: number, polled: boolean): void {
    const started = ++this.claimsStarted;
    this.claims++;
    this.claimSlots += size;
    const toppingUp = this.size.toppingUp;
    const done = () => {
      this.claims--;
      this.claimSlots -= size;
      this.admission.claimDone();
    };
    this.claimWithinRate(size).then(
      (held) => {
        done();
        this.claimed(held, size, toppingUp, polled);
        this.notify();
      },
      (err: unknown) => {
        done();
        this.claimFailed(err, started);
        this.notify();
      },
    );
  }

  /** A claim came back: the parts learn what it found, the mode follows, the rows go on. */
  private claimed(held: Held[] | RateLimited, size: number, toppingUp: boolean, polled: boolean): void {
    this.claimErrors = 0;
    if (!Array.isArray(held)) {
      // The window is used up: the pump pauses until it ends, not idle.
      this.pause(Math.max(this.current === PumpModes.PAUSED ? this.pausedUntil : 0, held.until));
      return;
    }
    this.admission.took(held.length, size);
    // Nothing more to take now: none came back, or, on a FIFO table, fewer heads than asked for.
    const drained = held.length === 0 || (this.host.fifo === true && held.length < size);
    if (drained) this.lastEmpty = Date.now();
    // Rows found by a poll came with no wake: poll quickly while they keep coming.
    if (polled) {
      const poll = this.host.pollMs;
      this.idleMs = held.length > 0 ? Math.min(poll, QUICK_POLL_MS) : Math.min(poll, 2 * this.idlePollMs);
    }
    this.size.took(held.length, size, toppingUp, this.load());
    this.found(drained ? PumpModes.IDLE : PumpModes.CLAIMING);
    this.dispatch.accept(held);
    // Paused while the claim ran: what waits for a worker goes back now, not when one frees.
    if (this.host.control?.queuePaused && this.open)
      for (const h of this.dispatch.takeWaiting()) this.refuse(h);
  }

  /**
   * A claim failed: back off as the dialect classifies the error. `started` is the claim's number:
   * a claim that was in flight when a failure was last counted fails with it, and counts no more.
   */
  private claimFailed(err: unknown, started: number): void {
    if (started > this.countedThrough) {
      this.claimErrors++;
      this.countedThrough = this.claimsStarted;
    }
    this.admission.failed();
    // The dialect's classification decides the pause: a deadlock or a serialization failure claims
    // again soon; the database out of reach backs off, doubling, at most 30 s. The form has retired
    // a connection whose session failed (see the forms' claim).
    const { host } = this;
    const kind = classify(host.dialect, err);
    const policy = claimErrorPolicy(kind, this.claimErrors, host.pollMs);
    this.pause(Date.now() + policy.delayMs);
    host.logger[policy.level]('claim failed', {
      table: host.table,
      kind,
      error: err,
      retryInMs: policy.delayMs,
    });
    host.events.emit('claimError', { table: host.table, error: err, kind, retryInMs: policy.delayMs });
  }

  /** No claim before `until`: paused, unless the pump is stopping (then it only remembers). */
  private pause(until: number): void {
    this.pausedUntil = until;
    const m = this.current;
    if (m === PumpModes.CLAIMING || m === PumpModes.IDLE) {
      this.after = m;
      const now = Date.now();
      if (until > now) this.setMode(PumpModes.PAUSED, now);
    }
  }

  /** What the last claim found decides the mode: rows keep claiming, none idles. */
  private found(next: 'claiming' | 'idle'): void {
    const m = this.current;
    if (m === PumpModes.CLAIMING || m === PumpModes.IDLE) {
      if (m !== next) this.setMode(next);
    } else {
      this.after = next;
    }
  }

  /**
   * Claims through the table's rate limit where it has one: reserves up to `size` deliveries from
   * the current window, claims at most that many, and gives back what the claim did not take.
   * An empty grant claims nothing and pauses the pump until the window ends: a limited queue
   * waits without a statement. The budget room the caller took goes back as a claim's would.
   */
  private async claimWithinRate(size: number): Promise<Held[] | RateLimited> {
    const { rate, form } = this.host;
    if (rate === undefined) return form.claim(size);
    let grant: Awaited<ReturnType<RateGate['reserve']>>;
    try {
      grant = await rate.reserve(size);
    } catch (err) {
      this.admission.giveBack();
      throw err;
    }
    if (grant.granted <= 0) {
      this.admission.giveBack();
      // A few milliseconds past the window's end, so the next reservation meets the new window.
      return { until: Date.now() + Math.max(1, grant.waitMs) + 2 };
    }
    let held: Held[];
    try {
      held = await form.claim(grant.granted);
    } catch (err) {
      await rate.giveBack(grant, 0);
      throw err;
    }
    if (held.length < grant.granted) await rate.giveBack(grant, held.length);
    return held;
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  private whenChanged(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private changedOr(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        if (!wakeable && this.open && !this.woken) return; // still paused
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
