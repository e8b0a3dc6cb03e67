import { defaultCodec } from '../codec.js';
import type { Connection, Pool } from '../driver.js';
import { EncodeError, messageOf, SqlInboxError } from '../errors.js';
import type { Held } from '../forms/form.js';
import type { Logger } from '../logger.js';
import {
  noStepsTable,
  StepError,
  type StepsKey,
  type StepsOps,
  type StepsTable,
  stepNameProblem,
  stepRowId,
} from '../steps-table.js';

/**
 * Durable steps (R-FLOW-7), as a delivery runs them: `ctx.step(name, fn)` answers the value kept
 * for `name` by an earlier delivery of the row, or runs `fn` and keeps its value. In transactional
 * mode the record is written through the delivery's transaction, so it commits (or rolls back)
 * with the handler's writes and the row's settlement; otherwise it commits on a pool connection of
 * its own as soon as `fn` has finished. The row's final settlement deletes its records.
 */

const json = defaultCodec('json');

/** A step's value as the steps table keeps it: `{"value": ..}`, or `{}` for undefined. */
export function encodeStep(table: string, name: string, value: unknown): string {
  if (value === undefined) return '{}';
  try {
    return `{"value":${json.encode(value) as string}}`;
  } catch (err) {
    throw new EncodeError(
      table,
      `step ${JSON.stringify(name)}'s ${messageOf(err).replace(/^message/, 'value')}`,
      err,
    );
  }
}

/** A kept step's value, from the record as the driver returned it (JSON text, bytes, or parsed). */
export function decodeStep(raw: unknown): unknown {
  const v = typeof raw === 'string' || raw instanceof Uint8Array ? json.decode(raw) : raw;
  return typeof v === 'object' && v !== null ? (v as { value?: unknown }).value : undefined;
}

/** A subscription's steps: what each of its deliveries needs to run `ctx.step`. */
export class StepsKeeper {
  constructor(
    readonly ops: StepsOps,
    readonly steps: StepsTable,
    readonly pool: Pool,
    readonly logger: Logger,
  ) {}

  /** Runs `fn` on a pool connection (destroyed, not pooled, where a statement on it failed). */
  async onPool<T>(fn: (conn: Connection) => Promise<T>): Promise<T> {
    const conn = await this.pool.acquire();
    let out: T;
    try {
      out = await fn(conn);
    } catch (err) {
      await this.pool.destroy(conn).catch(() => undefined);
      throw err;
    }
    this.pool.release(conn);
    return out;
  }
}

/** One delivery's steps: the kept ones read once, the names run so far. */
export class DeliverySteps {
  /** The row's kept steps, read at the first `ctx.step` of the delivery: name to kept value. */
  private kept: Promise<Map<string, unknown>> | undefined;
  /** The names this delivery has run (or is running). */
  private readonly names = new Set<string>();

  constructor(
    private readonly keeper: StepsKeeper | undefined,
    private readonly table: string,
    private readonly held: Held,
  ) {}

  /** Whether this delivery ran `ctx.step`: its row may have records its final settlement deletes. */
  get used(): boolean {
    return this.kept !== undefined;
  }

  /** `ctx.step(name, fn)`. */
  async run<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const keeper = this.keeper;
    const h = this.held;
    if (keeper === undefined) throw noStepsTable(this.table);
    const problem = stepNameProblem(name);
    if (problem !== undefined) throw new StepError(this.table, h.id, name, problem);
    if (typeof fn !== 'function') throw new StepError(this.table, h.id, name, 'its fn is not a function');
    if (this.names.has(name))
      throw new StepError(
        this.table,
        h.id,
        name,
        'run twice in one delivery: give each step a name of its own',
      );
    this.names.add(name);
    const key = this.key(keeper);
    // Transactional mode reads and writes through the delivery's transaction (on SQLite another
    // connection would wait for its write lock); otherwise on a pool connection, committed at once.
    const tx = h.tx ? h.conn : undefined;
    this.kept ??= (
      tx !== undefined ? keeper.ops.readSteps(tx, key) : keeper.onPool((c) => keeper.ops.readSteps(c, key))
    ).then((records) => new Map(records.map((r) => [r.name, r.result])));
    const kept = await this.kept.catch((err: unknown) => {
      // A failed read is read again by the next step.
      this.kept = undefined;
      throw err;
    });
    if (kept.has(name)) return decodeStep(kept.get(name)) as T;
    const value = await fn();
    const encoded = encodeStep(this.table, name, value);
    if (tx !== undefined && (!h.tx || h.conn !== tx))
      throw new SqlInboxError(
        'TX_CLOSED',
        `the transaction of ${this.table} row ${String(h.id)} ended before step ${JSON.stringify(name)} was kept`,
        { table: this.table, rowId: h.id },
      );
    if (tx !== undefined) await keeper.ops.writeStep(tx, key, name, encoded);
    else await keeper.onPool((c) => keeper.ops.writeStep(c, key, name, encoded));
    kept.set(name, encoded);
    return value;
  }

  /**
   * Transactional mode, before an ack or a drop commits: deletes the row's records through the
   * delivery's transaction, so they go with the row's settlement. Answers whether it did.
   */
  async dropInTx(): Promise<boolean> {
    const keeper = this.keeper;
    const h = this.held;
    if (keeper === undefined || !h.tx || h.conn === undefined) return false;
    await keeper.ops.deleteSteps(h.conn, keeper.steps.table, keeper.steps.name, [this.rowId()]);
    return true;
  }

  /**
   * After the row's final settlement committed (ack, drop, dead letter): deletes its records on a
   * pool connection. A failure is logged, never thrown: a record left of a settled row is read by
   * nothing unless a row of the same id comes again.
   */
  async dropAfter(): Promise<void> {
    const keeper = this.keeper;
    if (keeper === undefined) return;
    try {
      await keeper.onPool((c) =>
        keeper.ops.deleteSteps(c, keeper.steps.table, keeper.steps.name, [this.rowId()]),
      );
    } catch (err) {
      keeper.logger.warn('deleting the steps of a settled row failed; its records are left', {
        table: this.table,
        id: this.held.id,
        error: err,
      });
    }
  }

  private rowId(): string {
    return stepRowId(this.table, this.held.id);
  }

  private key(keeper: StepsKeeper): StepsKey {
    return { table: keeper.steps.table, queue: keeper.steps.name, rowId: this.rowId() };
  }
}
