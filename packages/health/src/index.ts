/**
 * A health check for a sqlinbox broker, for a load balancer's or an orchestrator's probe: is the
 * database reachable, is the broker running its subscriptions, and how long ago did each table
 * last have a row claimed. As an API (`check()`) and as an HTTP handler (`handler`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AnyTable, type Broker, type BrokerState, type Duration, durationMs } from '@sqlinbox/core';

/** Options of {@link brokerHealth}. */
export interface HealthOptions {
  /**
   * How long the database may take to answer the probe (`SELECT 1` in a transaction on a pool
   * connection, waiting for a free one included) before it counts as not connected. Default 2 s.
   */
  readonly timeout?: Duration;
  /**
   * A table whose ready rows have waited this long with no claim on it is reported stalled, and
   * the check fails: the broker runs but does not take work. Needs the table's description in
   * `queues` (its ready rows are counted through `broker.stats`). Default: no such check.
   */
  readonly stalledAfter?: Duration;
  /** The descriptions of the tables `stalledAfter` watches. Default: none. */
  readonly queues?: readonly AnyTable[];
}

/** One table the broker consumes, as the check saw it. */
export interface TableHealth {
  /** The queue table. */
  readonly table: string;
  /** When a row of it was last claimed in this process (ISO 8601), or null: none since the check began. */
  readonly lastClaimAt: string | null;
  /** Milliseconds since that claim, or null. */
  readonly lastClaimAgeMs: number | null;
  /** The last claim that failed since the last claim that worked, or null. */
  readonly lastClaimError: {
    /** When (ISO 8601). */
    readonly at: string;
    /** The error's message. */
    readonly message: string;
  } | null;
  /** Ready rows, where the table is watched (`queues`); else null. */
  readonly ready: number | null;
  /** Ready rows wait and nothing was claimed for longer than `stalledAfter`. */
  readonly stalled: boolean;
}

/** What {@link HealthCheck.check} answers. */
export interface HealthReport {
  /** Whether all is well: connected, running, and no watched table stalled. */
  readonly ok: boolean;
  /** Where the broker stands (`running` once `start()` resolved). */
  readonly state: BrokerState;
  /** The database answered the probe within the timeout. */
  readonly connected: boolean;
  /** How long the probe took, in ms. */
  readonly latencyMs: number;
  /** The server, as the adapter names it (never a password). */
  readonly server: string;
  /** Why the probe failed, where it did. */
  readonly error?: string;
  /** The tables the broker consumes (and the watched ones). */
  readonly tables: readonly TableHealth[];
  /** When the check ran (ISO 8601). */
  readonly checkedAt: string;
}

/** What {@link brokerHealth} answers. */
export interface HealthCheck {
  /** Runs the check now. */
  check(): Promise<HealthReport>;
  /**
   * An HTTP handler for node:http (`createServer(health.handler)`) and the frameworks that take
   * one (Express `app.get('/health', health.handler)`, Fastify's `reply.raw`, Hono's node adapter):
   * 200 with the report as JSON when it is ok, else 503 with the same JSON. A `HEAD` request gets
   * the status alone.
   */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Stops listening to the broker's events. */
  close(): void;
}

interface Seen {
  lastClaim: number | null;
  lastError: { at: number; message: string } | null;
}

/**
 * A health check for `broker`. Call it before `start()` so it sees every claim; it listens to the
 * broker's `claimed` and `claimError` events and asks nothing of the database but the probe (and,
 * for watched tables, their counts).
 */
export function brokerHealth(broker: Broker<any, any>, options: HealthOptions = {}): HealthCheck {
  const timeoutMs = durationMs(options.timeout ?? 2_000, 'timeout');
  const stalledMs =
    options.stalledAfter === undefined ? undefined : durationMs(options.stalledAfter, 'stalledAfter');
  const watched = new Map((options.queues ?? []).map((t) => [t.table, t]));
  const startedAt = Date.now();
  const seen = new Map<string, Seen>();
  const of = (table: string): Seen => {
    let s = seen.get(table);
    if (s === undefined) {
      s = { lastClaim: null, lastError: null };
      seen.set(table, s);
    }
    return s;
  };
  const offs = [
    broker.on('claimed', ({ table }) => {
      const s = of(table);
      s.lastClaim = Date.now();
      s.lastError = null;
    }),
    broker.on('claimError', ({ table, error }) => {
      of(table).lastError = {
        at: Date.now(),
        message: error instanceof Error ? error.message : String(error),
      };
    }),
  ];

  async function probe(): Promise<{ connected: boolean; latencyMs: number; error?: string }> {
    const began = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([broker.transaction((tx) => tx.query('SELECT 1')), timedOut]);
      return { connected: true, latencyMs: Math.round(performance.now() - began) };
    } catch (err) {
      return {
        connected: false,
        latencyMs: Math.round(performance.now() - began),
        error: err instanceof Error ? err.message : String(err),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async function check(): Promise<HealthReport> {
    const status = broker.status;
    const now = Date.now();
    const p =
      status.state === 'closed'
        ? { connected: false, latencyMs: 0, error: 'the broker is shut down' }
        : await probe();
    const names = [...new Set([...status.tables, ...watched.keys()])];
    const tables = await Promise.all(
      names.map(async (table): Promise<TableHealth> => {
        const s = seen.get(table);
        const description = watched.get(table);
        let ready: number | null = null;
        if (description !== undefined && p.connected) {
          ready = await broker.stats(description).then(
            (st) => st.ready,
            () => null,
          );
        }
        const since = s?.lastClaim ?? startedAt;
        const stalled =
          stalledMs !== undefined &&
          ready !== null &&
          ready > 0 &&
          status.state === 'running' &&
          now - since > stalledMs;
        return {
          table,
          lastClaimAt: s?.lastClaim == null ? null : new Date(s.lastClaim).toISOString(),
          lastClaimAgeMs: s?.lastClaim == null ? null : now - s.lastClaim,
          lastClaimError:
            s?.lastError == null
              ? null
              : { at: new Date(s.lastError.at).toISOString(), message: s.lastError.message },
          ready,
          stalled,
        };
      }),
    );
    return {
      ok: p.connected && status.state === 'running' && !tables.some((t) => t.stalled),
      state: status.state,
      connected: p.connected,
      latencyMs: p.latencyMs,
      server: status.server,
      ...(p.error === undefined ? {} : { error: p.error }),
      tables,
      checkedAt: new Date(now).toISOString(),
    };
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    check().then(
      (report) => {
        const body = JSON.stringify(report);
        res.writeHead(report.ok ? 200 : 503, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          'content-length': Buffer.byteLength(body),
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`health check failed: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  };

  return {
    check,
    handler,
    close: () => {
      for (const off of offs) off();
    },
  };
}
