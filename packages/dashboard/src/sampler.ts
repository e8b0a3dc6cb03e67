import type { Admin, AnyTable, DeadLetterTarget, EventMap, EventName, QueueStats } from '@sqlinbox/core';

/** Something that emits a broker's events: a `Broker` (its `on`). */
export interface BrokerEvents {
  /** Listens to a typed broker event (the sampler counts `settled`). */
  on<E extends EventName>(event: E, listener: (payload: EventMap[E]) => void): unknown;
}

/** One queue as the sampler reads it. */
export interface SampledQueue {
  readonly name: string;
  readonly table: AnyTable;
  readonly deadLetter: DeadLetterTarget | undefined;
}

/** Settlements counted from the brokers' events between two samples. */
export interface Settled {
  /** Acknowledged or dropped. */
  done: number;
  /** Failed and returned to the queue for another attempt. */
  retried: number;
  /** Moved to the dead letter. */
  dead: number;
}

/** One reading of one queue. */
export interface Sample {
  /** Epoch milliseconds. */
  readonly at: number;
  /** The counts, or null when the reading failed. */
  readonly stats: QueueStats | null;
  /** Why the reading failed (the error's message); absent when it succeeded. */
  readonly error?: string;
  /** Settlements since the previous sample; null without an event source. */
  readonly settled: Settled | null;
  /** The span those settlements were counted over, in milliseconds. */
  readonly spanMs: number;
}

const ERRORS_KEPT = 1000;

/**
 * Keeps the recent history of each queue in memory: every `every` milliseconds it reads
 * `admin.stats` of each queue (one statement per queue, one pooled connection at a time) and,
 * when brokers' events are given, the settlements counted since the previous reading. Readings
 * older than `keep` milliseconds are dropped. Nothing is written to the database; a restart
 * starts the history anew. With events it also remembers the last error of the rows that
 * failed (the last {@link ERRORS_KEPT} rows per process), for tables that keep no error column.
 */
export class Sampler {
  private readonly history = new Map<string, Sample[]>();
  private readonly counts = new Map<string, Settled>();
  private readonly errors = new Map<string, string>();
  private readonly unsubscribe: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private last = Date.now();

  constructor(
    private readonly admin: Admin,
    private readonly queues: readonly SampledQueue[],
    private readonly every: number,
    private readonly keep: number,
    private readonly sources: readonly BrokerEvents[],
  ) {
    for (const q of queues) {
      this.history.set(q.name, []);
      this.counts.set(q.name, { done: 0, retried: 0, dead: 0 });
    }
    for (const source of sources) {
      const off = source.on('settled', (e) => this.settled(e));
      if (typeof off === 'function') this.unsubscribe.push(off as () => void);
    }
  }

  /** Whether throughput is counted (an event source was given). */
  get counting(): boolean {
    return this.sources.length > 0;
  }

  /** The milliseconds between readings; 0 when sampling is off. */
  get interval(): number {
    return this.every;
  }

  /** Starts the timer (unref'd: it never keeps the process alive) and takes a first reading. */
  start(): void {
    if (this.every <= 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => void this.sample(), this.every);
    this.timer.unref();
    void this.sample();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** Takes one reading of every queue now (a reading still running is awaited instead). */
  sample(): Promise<void> {
    this.running ??= this.read().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** The readings of one queue, oldest first. */
  samples(queue: string): readonly Sample[] {
    return this.history.get(queue) ?? [];
  }

  /** The last error this process saw for a row of `table`, if any. */
  lastError(table: string, id: unknown): string | undefined {
    return this.errors.get(`${table}\u0000${String(id)}`);
  }

  private async read(): Promise<void> {
    const at = Date.now();
    const spanMs = at - this.last;
    this.last = at;
    for (const q of this.queues) {
      const counted = this.counts.get(q.name)!;
      const settled = this.counting ? { ...counted } : null;
      counted.done = counted.retried = counted.dead = 0;
      let sample: Sample;
      try {
        const stats = await this.admin.stats(q.table, { deadLetter: q.deadLetter });
        sample = { at, stats, settled, spanMs };
      } catch (err) {
        sample = { at, stats: null, error: (err as Error)?.message ?? String(err), settled, spanMs };
      }
      const list = this.history.get(q.name)!;
      list.push(sample);
      while (list.length > 0 && list[0]!.at < at - this.keep) list.shift();
    }
  }

  private settled(e: EventMap['settled']): void {
    for (const q of this.queues) {
      if (q.table.table !== e.table) continue;
      const c = this.counts.get(q.name)!;
      if (e.plan === 'finish') c.done++;
      else if (e.plan === 'deadLetter') c.dead++;
      else c.retried++;
    }
    if (e.error !== undefined) {
      const key = `${e.table}\u0000${String(e.id)}`;
      const message = e.error instanceof Error ? e.error.message : String(e.error);
      this.errors.delete(key);
      this.errors.set(key, message);
      if (this.errors.size > ERRORS_KEPT) this.errors.delete(this.errors.keys().next().value!);
    }
  }
}
