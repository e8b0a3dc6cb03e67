import { validateControl } from './control.js';
import type { Adapter } from './dialect.js';
import type { Connection } from './driver.js';
import { type Duration, durationMs } from './duration.js';
import { ConnectionError, SqlInboxError } from './errors.js';
import { validateFlows } from './flows/states.js';
import type { Logger } from './logger.js';
import { validateRetention } from './prune.js';
import type { QueueSettings } from './queue.js';
import { validateRate } from './rate.js';
import { validateSteps } from './steps.js';
import { validateSubscription } from './validate.js';

/** Options of `start()`. */
export interface StartOptions {
  /**
   * Waits for the database when it cannot be reached, instead of failing at once: tries again
   * with backoff (0.5 s, doubling, at most 5 s apart) and logs a warning per failed attempt, until
   * `timeout` (default 60 s; `true` is the default timeout). Default: off, `start()` rejects at
   * once with a `ConnectionError` naming the server.
   */
  readonly waitForDatabase?:
    | boolean
    | {
        /** How long to keep trying (default 60 s). */
        readonly timeout?: Duration;
      };
}

/**
 * What a broker checks before any row is claimed: that the database answers (waiting for it with
 * backoff where `start()` asks), that the server is recent enough (once per broker), and that each
 * subscription's table, columns and rate table are what its description says.
 */
export class StartupChecks {
  private serverChecked: Promise<void> | undefined;
  /** Ends a wait for the database at once, when shutdown begins. */
  private wakeWait: (() => void) | undefined;

  constructor(
    private readonly adapter: Adapter,
    private readonly logger: Logger,
  ) {}

  /** Where the adapter connects, for messages. */
  get server(): string {
    return this.adapter.server ?? `the ${this.adapter.dialect.name} server`;
  }

  /** A connection failure at start as a ConnectionError naming the server; sqlinbox's own errors as they are. */
  connectionError(err: unknown): unknown {
    return err instanceof SqlInboxError ? err : new ConnectionError(this.server, err);
  }

  /** Opens (and gives back) one connection, waiting for the database with backoff where asked. */
  async reach(wait: StartOptions['waitForDatabase'], checkOpen: () => void): Promise<void> {
    const timeout =
      wait === undefined || wait === false
        ? 0
        : durationMs(wait === true ? 60_000 : (wait.timeout ?? 60_000), 'waitForDatabase.timeout');
    const deadline = Date.now() + timeout;
    for (let attempt = 1; ; attempt++) {
      checkOpen();
      let conn: Connection;
      try {
        conn = await this.adapter.pool.acquire();
      } catch (err) {
        const error = this.connectionError(err);
        const delay = Math.min(5_000, 500 * 2 ** Math.min(attempt - 1, 10));
        if (Date.now() + delay > deadline) {
          this.logger.error('cannot reach the database', { server: this.server, attempt, error: err });
          throw error;
        }
        this.logger.warn('cannot reach the database; trying again', {
          server: this.server,
          attempt,
          retryInMs: delay,
          error: err,
        });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wakeWait = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeWait = undefined;
        continue;
      }
      this.adapter.pool.release(conn);
      return;
    }
  }

  /** Ends a wait of {@link reach} at once: its next step then finds the broker closing. */
  wake(): void {
    this.wakeWait?.();
  }

  /** Checks the server (once per broker, again after a failure) and a subscription's tables. */
  async validate(settings: QueueSettings): Promise<void> {
    let conn: Connection;
    try {
      conn = await this.adapter.pool.acquire();
    } catch (err) {
      throw this.connectionError(err);
    }
    try {
      this.serverChecked ??= this.adapter.dialect.checkServer(conn).then(() => undefined);
      await this.serverChecked.catch((err) => {
        this.serverChecked = undefined;
        throw err;
      });
      await validateSubscription(this.adapter.dialect, this.adapter.pool, conn, settings);
      const t = settings.table;
      if (t.rateLimit !== undefined)
        await validateRate(this.adapter.dialect, conn, t, this.adapter.dialect.prepare(t));
      if (t.retention !== undefined)
        await validateRetention(this.adapter.dialect, conn, t, this.adapter.dialect.prepare(t));
      if (t.control !== undefined)
        await validateControl(this.adapter.dialect, conn, t, this.adapter.dialect.prepare(t));
      if (t.flows !== undefined)
        await validateFlows(this.adapter.dialect, conn, t, this.adapter.dialect.prepare(t));
      if (t.steps !== undefined)
        await validateSteps(this.adapter.dialect, conn, t, this.adapter.dialect.prepare(t));
    } finally {
      this.adapter.pool.release(conn);
    }
  }
}
