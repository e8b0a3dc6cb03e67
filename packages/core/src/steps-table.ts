import type { Connection } from './driver.js';
import { ConfigError, SqlInboxError } from './errors.js';
import { sideTableOption } from './side-option.js';

/**
 * Durable steps (R-FLOW-7): the steps table's names, types and pure helpers, what a description
 * and a dialect need of them, below both (`subscription/steps.ts` holds what a delivery runs).
 *
 * One record per finished step of a row in work: (queue_name, row_id, step_name) its primary key,
 * the step's value JSON-encoded as `{"value": ..}` (a result column's envelope), and when it
 * finished. A retry of the row reads them and runs only the steps not finished; the row's final
 * settlement deletes them.
 */

/** The steps table unless a description names another. */
export const STEPS_TABLE = 'sqlinbox_steps';

/** The columns of the steps table, as `ddl()` prints them. */
export const STEPS_COLUMNS = ['queue_name', 'row_id', 'step_name', 'result', 'finished_at'] as const;

/**
 * The longest queue name, step name and row id (as text) the steps table takes: 128 characters,
 * its DDL's `NVARCHAR(128)` on SQL Server, where a primary key holds at most 900 bytes.
 */
export const STEP_KEY_MAX = 128;

/** The steps table as a description declares it (`inbox({ steps })`, `.steps(..)`). */
export type StepsInput =
  | true
  | {
      /** The steps table. Default `sqlinbox_steps` (printed by `ddl()`). */
      readonly table?: string;
    };

/** The resolved steps table of a description. */
export interface StepsTable {
  /** The steps table (validated identifier, optionally schema-qualified). */
  readonly table: string;
  /** The queue's name in that table: the queue table's name. */
  readonly name: string;
}

/** One finished step of a row, as the steps table keeps it. */
export interface StepRecord {
  /** The step's name. */
  readonly name: string;
  /** Its value, as kept: JSON text of `{"value": ..}` (or what the driver made of it). */
  readonly result: unknown;
}

/** Which row's steps a statement is about. */
export interface StepsKey {
  /** The steps table. */
  readonly table: string;
  /** The queue table's name. */
  readonly queue: string;
  /** The row's id as text. */
  readonly rowId: string;
}

/** The steps table's statements (`TableOps.steps`): all of them or none. */
export interface StepsOps {
  /** The finished steps of one row. */
  readSteps(conn: Connection, key: StepsKey): Promise<StepRecord[]>;
  /**
   * Records a finished step; `result` is its encoded value, `finished_at` the database's now (epoch
   * ms). A record there already (another delivery of the row finished the step first) is left as
   * it is: the first record wins. Runs inside the caller's transaction where it has one.
   */
  writeStep(conn: Connection, key: StepsKey, name: string, result: string): Promise<void>;
  /** Deletes every step record of the rows named (their ids as text); answers how many went. */
  deleteSteps(conn: Connection, table: string, queue: string, rowIds: readonly string[]): Promise<number>;
  /**
   * Optional (the orphan sweep, with {@link deleteStepsUpTo}): the rows of `queue` with records,
   * the first `limit` in row id order after `after` where one is given, each with the latest
   * `finished_at` of its records (epoch ms, as text).
   */
  stepRows?(
    conn: Connection,
    table: string,
    queue: string,
    limit: number,
    after?: string,
  ): Promise<StepRows[]>;
  /**
   * Deletes the records of the rows named finished at or before each one's `lastMs` (a record
   * written since stays); answers how many went.
   */
  deleteStepsUpTo?(
    conn: Connection,
    table: string,
    queue: string,
    rows: readonly StepRows[],
  ): Promise<number>;
}

/** A row's records as the orphan sweep reads them. */
export interface StepRows {
  /** The row's id as text. */
  readonly rowId: string;
  /** The latest `finished_at` of its records: epoch milliseconds, as text. */
  readonly lastMs: string;
}

/** A step misused by its handler: a name that is not one, or one name run twice in a delivery. */
export class StepError extends SqlInboxError {
  /** The step's name, as given. */
  readonly step: unknown;
  constructor(table: string, rowId: unknown, step: unknown, problem: string) {
    super('STEP', `step ${JSON.stringify(step)} of ${table} row ${String(rowId)}: ${problem}`, {
      table,
      rowId,
    });
    this.step = step;
  }
}

/**
 * Validates a description's steps table; `ident` (the description's `validateIdentifier`) is passed
 * in so this module stays below the description's. Throws a {@link ConfigError} naming the table.
 */
export function stepsOf(
  input: StepsInput,
  table: string,
  ident: (name: string, what: string, table?: string, qualified?: boolean) => string,
): StepsTable {
  const name = sideTableOption(input, 'steps', table, 'ops_steps');
  if (table.length > STEP_KEY_MAX) {
    throw new ConfigError(`a table with steps has a name of at most ${STEP_KEY_MAX} characters`, { table });
  }
  return { table: ident(name ?? STEPS_TABLE, 'steps table', table, true), name: table };
}

/** Why `name` cannot name a step, or undefined where it can: a non-empty string of at most 128 characters. */
export function stepNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string')
    return `a step's name is a string, not ${name === null ? 'null' : typeof name}`;
  if (name.length === 0) return "a step's name is not empty";
  if (name.length > STEP_KEY_MAX) return `a step's name is at most ${STEP_KEY_MAX} characters`;
  return undefined;
}

/** A row's id as the steps table keys it (its text); throws where it is longer than the column. */
export function stepRowId(table: string, id: unknown): string {
  const text = typeof id === 'string' ? id : String(id);
  if (text.length > STEP_KEY_MAX) {
    throw new ConfigError(`steps key a row by its id as text, at most ${STEP_KEY_MAX} characters`, {
      table,
      fix: 'use shorter ids on a table with steps',
    });
  }
  return text;
}

/** The ConfigError of `ctx.step` on a table that declares no steps table. */
export function noStepsTable(table: string): ConfigError {
  return new ConfigError('ctx.step needs a steps table, and this table declares none', {
    table,
    fix: "declare steps: true (or { table: 'my_steps' }) in its description, and create the table ddl() prints (or run migrate)",
  });
}
