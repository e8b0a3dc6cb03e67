import type { ControlOps, PausedState } from './control-table.js';
import type { AnyTable, Form, IsolationLevel, SqliteMode } from './description.js';
import type { Connection, Pool, Row } from './driver.js';
import type { ErrorKind } from './errors.js';
import type { FlowOps } from './flow-table.js';
import type { Logger } from './logger.js';
import type { RateGrant, RateReservation } from './rate-limit.js';
import type { DeadLetterTarget, FinishSettlement, ReturnSettlement, Settlement } from './settlement.js';
import type { StepsOps } from './steps-table.js';

export type {
  DeadLetterTarget,
  FailureRecord,
  FinishSettlement,
  ReturnSettlement,
  Settlement,
} from './settlement.js';

/**
 * What a dialect can do. Every flag has a default (see {@link defaultCapabilities}), so a flag
 * added later never breaks a dialect written outside this repo. The conformance suite reads these,
 * never a dialect's name.
 */
export interface Capabilities {
  /** Claim forms the database supports. Default: all three. */
  readonly forms: readonly Form[];
  /**
   * Why a form missing from `forms` is missing, for the error that refuses a table of that form
   * (e.g. a connection through a transaction pooler cannot hold the advisory form's session locks).
   * Default: none, the refusal names the form only.
   */
  readonly formsRefused?: Readonly<Partial<Record<Form, string>>> | undefined;
  /** Isolation levels a table may declare. Default: read_committed, repeatable_read, serializable. */
  readonly isolationLevels: readonly IsolationLevel[];
  /** SQLite-style transaction modes a table may declare. Default: none. */
  readonly transactionModes: readonly SqliteMode[];
  /** Whether several connections work at once. Default true (SQLite: false, one writer at a time). */
  readonly multipleConnections: boolean;
  /** Whether the dialect guards FIFO groups across processes. Default true. */
  readonly fifoGuard: boolean;
  /** Whether transactional mode is available. Default true. */
  readonly transactional: boolean;
  /** One claim at a time for every table (SQLite). Default false. */
  readonly oneClaimAtATime: boolean;
  /** One claim at a time for lease tables (MySQL and MariaDB). Default false. */
  readonly oneLeaseClaimAtATime: boolean;
  /**
   * Lease claims take one row per worker the subscription has seen, and rows beyond the free
   * workers wait in the subscription's lease book, extended while they wait. SQLite
   * needs it (one writer at a time); elsewhere it trades a few rows held ahead for a claim
   * statement per batch instead of per row. Default false.
   */
  readonly claimAhead: boolean;
  /** Column kinds that hold an instant (`timestamp`, or `integer` for epoch milliseconds). */
  readonly timeKinds: readonly ColumnKind[];
}

/** The capabilities a dialect has unless it says otherwise; {@link capabilities} fills from these. */
export const defaultCapabilities: Capabilities = {
  forms: ['rowlock', 'lease', 'advisory'],
  isolationLevels: ['read_committed', 'repeatable_read', 'serializable'],
  transactionModes: [],
  multipleConnections: true,
  fifoGuard: true,
  transactional: true,
  oneClaimAtATime: false,
  oneLeaseClaimAtATime: false,
  claimAhead: false,
  timeKinds: ['timestamp'],
};

/** A column as the database describes it. */
export interface ColumnInfo {
  /** The column's name, as the database spells it. */
  readonly name: string;
  /** The database's own type name, for messages. */
  readonly type: string;
  /** The family of the database type, which decides what role the column may take. */
  readonly kind: ColumnKind;
  /** Whether the column accepts NULL. */
  readonly nullable: boolean;
  /** Whether the column has a default (or is generated, like an identity), so an insert may omit it. */
  readonly hasDefault: boolean;
  /**
   * For a `timestamp` column: the digits of a second it keeps exactly (0 whole seconds, 3
   * milliseconds, 6 microseconds). A lease column needs 3 or more: its value is the claim's token,
   * compared exactly in every settlement. Default: undefined, the dialect does not say,
   * and the column is taken to keep milliseconds.
   */
  readonly precision?: number | undefined;
}
/** The family of a column's database type, as the dialect classifies it; `other` for any type it does not name. */
export type ColumnKind = 'integer' | 'text' | 'bytes' | 'json' | 'timestamp' | 'other';

/** A due row found by the advisory form's candidate select, with its key rendered as text. */
export interface Candidate {
  /** The row's id, as the driver returns it. */
  readonly id: unknown;
  /** The row's advisory key, its template filled from the row's columns. */
  readonly key: string;
}

/** How {@link TableOps.insert} writes its messages. */
export interface InsertOptions {
  /**
   * Where the dialect's insert notifies in its own statement ({@link Wakeup.notifiesOnInsert}):
   * send no notification this time. The broker notifies once after such inserts, so publishes
   * that run side by side do not each take the database's notification lock.
   */
  readonly quiet?: boolean;
}

/** A message to insert. `payload` is already encoded for the payload column's type. */
export interface Insert {
  /** The payload column's value, already encoded. */
  readonly payload: unknown;
  /** The FIFO group column's value (tables with a group column). */
  readonly group?: string;
  /** The partition key column's value (tables with a partition key column). */
  readonly partitionKey?: string;
  /** The `retry_after` column's value: not due before this instant. Default: due at once. */
  readonly notBefore?: Date;
  /** The priority column's value (tables with a priority column). */
  readonly priority?: number;
  /**
   * The unique key column's value (tables with a unique key column): while an unsettled row holds
   * the key, the insert writes nothing and answers that row's id instead.
   */
  readonly key?: string;
  /**
   * With `key`: where an unsettled row that has not started (its attempt not yet counted) holds
   * the key, write this message's payload and `notBefore` (NULL where none) into it instead of
   * inserting, and answer its id; a row that has started is left as it is and its id answered.
   * Default: false.
   */
  readonly replace?: boolean;
  /** The deadline column's value (tables with one): never delivered after this instant. */
  readonly expiresAt?: Date;
  /** Extra column values (validated identifiers), e.g. the columns an advisory key names. */
  readonly columns?: Readonly<Record<string, unknown>>;
}

/** Counts of a queue's rows. */
export interface QueueStats {
  /** Due now and not in work. */
  readonly ready: number;
  /** Waiting for their `retry_after`. */
  readonly delayed: number;
  /** Held by a lease (lease form); 0 where the form holds rows in sessions. */
  readonly inWork: number;
  /** Rows in the dead-letter group or table. */
  readonly dead: number;
  /**
   * Optional (filled when asked with `{ inWork: true }`): what `inWork` counted. `lease` counts
   * live leases; `locks` counts rows another transaction holds (row lock form, found with a
   * `SKIP LOCKED` read); `keys` counts due rows whose advisory key another session holds, as the
   * database shows it; `none` where the dialect cannot see rows in work in this form (then
   * `inWork` is 0 and `ready` includes them).
   */
  readonly inWorkSeen?: 'lease' | 'locks' | 'keys' | 'none';
  /**
   * Optional (filled when asked with `{ inWork: true }`): milliseconds since the oldest ready row
   * became due, read from its `retry_after`; null when no ready row carries a time (no ready row,
   * no `retry_after` column, or rows published without a delay).
   */
  readonly oldestReadyAgeMs?: number | null;
  /** Where the table declares a control table: what is paused of it (the queue, the groups). */
  readonly paused?: PausedState;
}

/** A row's state as the admin API reads it. `done`: stamped `processed_at`. */
export type RowState = 'ready' | 'delayed' | 'inWork' | 'dead' | 'done';

/**
 * Rows for the admin API's list (see {@link AdminOps.list}), in id order after `after` (keyset
 * paging). `state` is the state SQL can see: rows in work in the row lock and advisory forms read
 * as `ready` here, and the admin API probes them.
 */
export interface ListQuery {
  /** `dead` lists the dead-letter table's rows where there is one. */
  readonly state: RowState | 'all';
  /** Only ids greater than this one. Default: from the first row. */
  readonly after?: unknown;
  /** Most rows. */
  readonly limit: number;
  /** Only these ids. Default: every id. */
  readonly ids?: readonly unknown[] | undefined;
  /** The instant that decides `ready` from `delayed` and a live lease from an ended one. */
  readonly now: Date;
  /** Only rows whose group column is this. Default: every group. */
  readonly group?: string | undefined;
  /** Only rows whose unique key column is this. Default: every key. */
  readonly key?: string | undefined;
}

/**
 * Rows the admin API is about to change (see {@link AdminOps.pick}): `dead` rows (of the
 * dead-letter group or table) or live ones (unsettled, not dead), optionally only `ids` or only
 * rows whose group column is `group`.
 */
export interface PickQuery {
  /** True: rows of the dead-letter group or table; false: live rows (unsettled, not dead). */
  readonly dead: boolean;
  /** Only these ids. Default: every id. */
  readonly ids?: readonly unknown[] | undefined;
  /** Only rows whose group column is this. Default: every group. */
  readonly group?: string | undefined;
  /** The instant against which a lease counts as running (such rows are left out). */
  readonly now: Date;
}

/**
 * The advisory lock form's database part: the one a custom dialect (SQL Server's `sp_getapplock`)
 * implements. None of its calls waits on a lock.
 */
export interface Advisory {
  /**
   * Up to `n` due rows in claim order with their keys. `own` holds the keys this process's
   * deliveries hold; a database that can see other sessions' locks may leave those out too.
   */
  candidates(conn: Connection, n: number, now: Date | null, own: ReadonlySet<string>): Promise<Candidate[]>;
  /** Tries the key's lock on this connection's session without waiting; true when taken. */
  lock(conn: Connection, key: string): Promise<boolean>;
  /** Releases the key's lock; true when this session held it. */
  unlock(conn: Connection, key: string): Promise<boolean>;
  /**
   * Takes the row while it is still claimable: counts the attempt (where the table has the column)
   * and returns the row as it stands after the count; null when the row was settled meanwhile.
   * Commits on its own.
   */
  take(conn: Connection, id: unknown, now: Date | null): Promise<Row | null>;
  /**
   * Optional: {@link lock} and then {@link take} in one round trip, where the database can run
   * both in one statement and the take still sees the row as it stands after the lock (it re-reads
   * a row another session changed meanwhile). `locked` is whether this session now holds the key;
   * `row` is the take's answer, null where the key was not taken or the row was settled meanwhile.
   * Where it is absent the form runs `lock`, then `take`.
   */
  lockAndTake?(conn: Connection, key: string, id: unknown, now: Date | null): Promise<LockedTake>;
}

/** What {@link Advisory.lockAndTake} answers. */
export interface LockedTake {
  /** Whether this session now holds the key (the caller releases it where `row` is null). */
  readonly locked: boolean;
  /** The row as it stands after the take; null where the key was not taken or the row was settled meanwhile. */
  readonly row: Row | null;
}

/**
 * The statements of one table, prepared once by {@link Dialect.prepare}. `now` is the host's
 * instant, or null where the table reads the database clock.
 */
export interface TableOps {
  /**
   * Row lock form, inside a transaction the engine opened with {@link Dialect.begin}: selects up to
   * `n` due rows `FOR UPDATE SKIP LOCKED` (a FIFO table: group heads only, under the dialect's
   * group guard) and returns them.
   */
  claimLocked(conn: Connection, n: number, now: Date | null): Promise<Row[]>;
  /**
   * Lease form: claims up to `n` due rows whose lease is absent or ended at `now`, writes `expiry`
   * into the lease column, counts the attempt, commits, and returns the rows after the update.
   */
  claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]>;
  /** Moves each lease that still holds its token to `expiry`; returns the ids it moved. */
  extendLeases(
    conn: Connection,
    leases: readonly { id: unknown; token: Date }[],
    expiry: Date,
  ): Promise<unknown[]>;
  /** Advisory form statements (candidates, lock, unlock, take). */
  readonly advisory: Advisory;
  /** Runs one settlement; answers the rows it changed (0: the row was gone or, with a token, lost). */
  settle(conn: Connection, s: Settlement): Promise<number>;
  /** Optional: the `result` topic's notification of row `id` on `conn`, sent after a custom ack or drop. */
  notifyResult?(conn: Connection, id: unknown): Promise<void>;
  /**
   * Inserts messages; answers their ids in order. A message whose `key` an unsettled row holds
   * (or an earlier message of the same call) inserts nothing and answers that row's id; a unique
   * index decides, so racing publishers agree.
   */
  insert(conn: Connection, messages: readonly Insert[], opts?: InsertOptions): Promise<unknown[]>;
  /**
   * Counts rows by state. With `{ inWork: true }` also counts rows in work in every form the
   * database can see (row locks with a `SKIP LOCKED` read, advisory keys where the database shows
   * them) and fills {@link QueueStats.inWorkSeen} and {@link QueueStats.oldestReadyAgeMs}; default:
   * only leases.
   */
  stats(conn: Connection, now: Date, opts?: { inWork?: boolean }): Promise<QueueStats>;
  /**
   * Optional (per-key concurrency): the lease claim of a table that declares `concurrency`, and the
   * forms it holds it in. Without it a table with concurrency is refused at start.
   */
  readonly concurrency?: ConcurrencyOps | undefined;
  /**
   * Optional (batched acks): many lease-form acks in one statement. Without it, each settles on
   * its own.
   */
  readonly batch?: BatchSettleOps | undefined;
  /** Optional (the admin API): list, pick, requeue, remove, reschedule. Without it the admin calls that change rows are refused. */
  readonly admin?: AdminOps | undefined;
  /** Optional (schedules): the tick table's records. Without it a dialect has no schedules. */
  readonly schedules?: ScheduleOps | undefined;
  /** Optional (rate limits): the budget table's reservations. Without it a table with a rate limit is refused at start. */
  readonly rates?: RateOps | undefined;
  /** Optional (retention): the pruner's bounded deletes. Without it a table with a retention is refused at start. */
  readonly retention?: RetentionOps | undefined;
  /** Optional (pause and resume): the control table's rows. Without it a table declaring `control` is refused at start. */
  readonly control?: ControlOps | undefined;
  /** Optional (flows): the edge and parents tables' rows. Without it a table declaring `flows` is refused at start. */
  readonly flows?: FlowOps | undefined;
  /** Optional (durable steps): the steps table's records. Without it a table declaring `steps` is refused at start. */
  readonly steps?: StepsOps | undefined;
}

/**
 * Retention's statements ({@link TableOps.retention}), each on a connection outside any
 * transaction. None touches an unsettled row: a processed row is one whose `processedAt` stamp
 * has committed, a dead letter one in the dead-letter group or table the ops were prepared with.
 */
export interface RetentionOps {
  /** Deletes at most `limit` rows stamped processed before `before`; answers how many. */
  pruneProcessed(conn: Connection, before: Date, limit: number): Promise<number>;
  /**
   * Stamps `now` into the death column of the dead letters that have none (the dead-letter group's
   * rows, or the dead-letter table's); answers how many. 0 where the ops have no dead letter.
   */
  markDead(conn: Connection, now: Date): Promise<number>;
  /** Deletes at most `limit` dead letters whose death is stamped before `before`; answers how many. */
  pruneDead(conn: Connection, before: Date, limit: number): Promise<number>;
}

/**
 * Per-key concurrency's lease claim ({@link TableOps.concurrency}): a dialect has it whole or not
 * at all.
 */
export interface ConcurrencyOps {
  /** The claim forms in which the dialect holds a table's per-key concurrency; a table declaring one in another form is refused at start. */
  readonly forms: readonly Form[];
  /**
   * {@link TableOps.claimLease} for a table that declares per-key concurrency: takes, of each key,
   * no more rows than keep that key's rows in work (a lease running at `now`) at or below the
   * limit, in claim order, and commits. Claims of the table are serialized in the database for the
   * claim's length, so brokers claiming at once never both take a key's last slot.
   */
  claimLease(conn: Connection, n: number, now: Date, expiry: Date): Promise<Row[]>;
}

/** Batched settlements of the lease form ({@link TableOps.batch}). */
export interface BatchSettleOps {
  /**
   * Many lease-form `finish` settlements (ack and drop) in one statement, each with its token.
   * Answers the ids it changed; an id missing from the answer lost its lease. The engine batches
   * the acks of one moment through it.
   */
  settleMany(conn: Connection, settlements: readonly FinishSettlement[]): Promise<unknown[]>;
  /**
   * Optional: many lease-form `return` settlements (retries) in as few statements as the values
   * allow, each row with its own failure record, `retry_after` and `holdUntil`, each changed only
   * while it holds its token. Answers the ids it changed. The engine batches the retries of one
   * moment through it; without it, each retry settles on its own.
   */
  returnMany?(conn: Connection, settlements: readonly ReturnSettlement[]): Promise<unknown[]>;
}

/** The admin API's statements ({@link TableOps.admin}): every call or none. */
export interface AdminOps {
  /**
   * Rows by the state SQL sees, in id order, each with a column `sqlinbox_state` naming its
   * {@link RowState}. Time columns as the driver returns them.
   */
  list(conn: Connection, q: ListQuery): Promise<Row[]>;
  /**
   * Inside a transaction the caller opened: the rows a change may touch, locked
   * `FOR UPDATE SKIP LOCKED` where the database has row locks, leaving out rows whose lease runs at
   * `now`. A row another transaction holds is not returned.
   */
  pick(conn: Connection, q: PickQuery): Promise<Row[]>;
  /**
   * Inside the caller's transaction: puts dead rows back in the queue with the attempt reset to 0,
   * `retry_after` and the lease cleared. A dead-letter group's rows get the group `toGroup` (null:
   * none); a dead-letter table's rows move back into the queue table. Answers the ids it moved.
   */
  requeue(conn: Connection, ids: readonly unknown[], opts: { toGroup: string | null }): Promise<unknown[]>;
  /** Inside the caller's transaction: deletes rows (dead ones from the dead-letter table). */
  remove(conn: Connection, ids: readonly unknown[], opts: { dead: boolean }): Promise<unknown[]>;
  /** Inside the caller's transaction: sets `retry_after` of live rows. */
  reschedule(conn: Connection, ids: readonly unknown[], at: Date): Promise<unknown[]>;
}

/** Schedules' tick records ({@link TableOps.schedules}): the record and the read come together. */
export interface ScheduleOps {
  /**
   * Inside the caller's transaction: records tick `at` of schedule `name` in the tick table `ticks`
   * (see {@link DdlOptions.schedules}). True when this call wrote the record; false when the tick
   * was recorded already, by this or another broker. The table's primary key (name, tick) decides,
   * never a read before the write: of brokers racing on one tick, exactly one answers true.
   */
  recordTick(conn: Connection, ticks: string, name: string, at: Date): Promise<boolean>;
  /** The newest tick recorded for schedule `name`, or null. */
  lastTick(conn: Connection, ticks: string, name: string): Promise<Date | null>;
  /** Deletes schedule `name`'s tick records before `before`; answers how many. */
  pruneTicks(conn: Connection, ticks: string, name: string, before: Date): Promise<number>;
}

/** Rate budgets ({@link TableOps.rates}): the reservation and its return come together. */
export interface RateOps {
  /**
   * On a connection outside any transaction: takes up to `r.want` deliveries from the current
   * window of budget `r.name` in table `r.table`, in one atomic step on the database clock
   * (windows of `r.perMs` aligned on the epoch; a new window starts at 0 used), creating the
   * budget's row where it is missing. Answers what it granted (0 when the window is used up), the
   * window, and the milliseconds to its end.
   */
  reserveRate(conn: Connection, r: RateReservation): Promise<RateGrant>;
  /**
   * Gives `count` unused deliveries back to budget `b.name`, only while its window is still the one
   * starting at `windowStart`.
   */
  returnRate(
    conn: Connection,
    b: {
      /** The budget table. */
      readonly table: string;
      /** The budget's name. */
      readonly name: string;
    },
    windowStart: number,
    count: number,
  ): Promise<void>;
}

/** What `ddl()` prints beside the table. */
export interface DdlOptions {
  /** A dead-letter table of the same columns. Default none. */
  readonly deadLetterTable?: string;
  /**
   * The tick table of schedules (`sqlinbox_schedules` unless a schedule names another), created
   * where it does not exist: one row per schedule and tick, its primary key (name, tick). Printed
   * where the dialect has schedules. Default none.
   */
  readonly schedules?: string;
  /**
   * Whether to print, where the dialect has one, the trigger that makes a row inserted by plain
   * SQL wake idle subscriptions at once (PostgreSQL: a statement-level `AFTER INSERT` trigger that
   * sends the table's notification). Default true; `false` leaves it out, and such rows then wait
   * for the subscriptions' next poll.
   */
  readonly wakeupTrigger?: boolean;
  /**
   * The columns the queue table (`table`) and the dead-letter table (`deadLetter`) have now, as
   * `migrate` reads them (null or absent: the table does not exist yet). Each column of the
   * description that a table lacks is added right after that table's `CREATE TABLE`
   * (`ALTER TABLE .. ADD ..`, nullable or with its default), so its indexes find it. The id and the
   * payload are never added: a table without them is not the table described. Where the database
   * cannot add a column to an existing table (SQLite: one whose default is the clock), `ddl()`
   * throws a `ConfigError` naming it, with the fix.
   */
  readonly existingColumns?: {
    /** The queue table's columns as they exist; null: the table does not exist yet. */
    readonly table?: readonly string[] | null;
    /** The dead-letter table's columns as they exist; null: it does not exist yet. */
    readonly deadLetter?: readonly string[] | null;
  };
}

/**
 * How a table's statements are prepared. With a dead-letter group, claims never take rows of that
 * group; with a dead-letter table, `stats` counts its rows.
 */
export interface PrepareOptions {
  /** The subscription's dead-letter group or table. Default: none, rows are never moved dead. */
  readonly deadLetter?: DeadLetterTarget | undefined;
  /**
   * Ids every claim (and advisory candidate select and take) passes over, read anew at each
   * statement: a relay's records held back until its next start. Default: none.
   */
  readonly exclude?: ReadonlySet<unknown> | undefined;
  /** Where the statements tell what they change of their own accord (a claim plan they switch to). Default: silent. */
  readonly logger?: Logger | undefined;
}

/** A transaction's options: the table's isolation level or SQLite mode. */
export interface BeginOptions {
  /** The isolation level to set for the transaction. Default: the database's own. */
  readonly isolation?: IsolationLevel | undefined;
  /** SQLite: `deferred`, `immediate` or `exclusive`. Default: the dialect's own. */
  readonly mode?: SqliteMode | undefined;
}

/** One database family's SQL and facts. Shared by every driver of that database. */
export interface Dialect {
  /** e.g. `postgres`, `mysql`, `sqlite`, `mssql`. */
  readonly name: string;
  /** What the dialect can do; build it with {@link capabilities}. */
  readonly capabilities: Capabilities;
  /** Reads the server's version and throws `ServerTooOldError` below the dialect's floor. */
  checkServer(conn: Connection): Promise<{
    /** The server's version as it reports it, e.g. `15.4`. */
    version: string;
  }>;
  /** The table's columns, or null when there is no such table. */
  describeTable(conn: Connection, table: string): Promise<ColumnInfo[] | null>;
  /** Prepares the statements of one table, for one subscription's dead-letter target. */
  prepare(table: AnyTable, opts?: PrepareOptions): TableOps;
  /** Opens a transaction on the connection, with the table's isolation level or SQLite mode. */
  begin(conn: Connection, opts: BeginOptions): Promise<void>;
  /** Commits the connection's transaction. */
  commit(conn: Connection): Promise<void>;
  /** Rolls back the connection's transaction. */
  rollback(conn: Connection): Promise<void>;
  /** Sets a savepoint `name` (a validated identifier) inside the open transaction. */
  savepoint(conn: Connection, name: string): Promise<void>;
  /** Rolls back to savepoint `name`, keeping the transaction open. */
  rollbackToSavepoint(conn: Connection, name: string): Promise<void>;
  /** Maps a driver error to a kind the engine acts on. */
  classifyError(err: unknown): ErrorKind;
  /**
   * The `CREATE TABLE` and the indexes a claim needs, for a description, one statement
   * per element with no trailing semicolon. With `deadLetterTable`, that table too; for a table
   * with a rate limit, its budget table (where it does not exist).
   */
  ddl(table: AnyTable, opts?: DdlOptions): string[];
}

/**
 * What a dialect package's driver factory returns, e.g. `pg(pool)`: the dialect and the pool.
 * `F` and `I` carry, in types, the forms and isolation levels the database takes, so a table the
 * database cannot run is a type error at `subscribe`.
 */
export interface Adapter<F extends Form = Form, I extends IsolationLevel = IsolationLevel> {
  /** The database family's SQL and facts. */
  readonly dialect: Dialect;
  /** The connections the broker takes. */
  readonly pool: Pool;
  /** Type-level only: the forms and isolation levels the database takes. */
  readonly __types?: {
    /** The claim forms the database supports. */
    forms: F;
    /** The isolation levels a table may declare. */
    isolation: I;
  };
  /**
   * Optional wake-up channel (PostgreSQL LISTEN/NOTIFY): the broker calls `listen` once when it
   * starts and `notify` after a publish commits.
   */
  readonly wakeup?: Wakeup;
  /**
   * Where the adapter connects, for messages (e.g. `postgres://127.0.0.1:5432/app`, never a
   * password). Default: the dialect's name.
   */
  readonly server?: string;
  /**
   * The adapter runs its statements in this process (an embedded database, as SQLite): none waits
   * on a server, and the adapter bounds what they may wait for themselves (SQLite's writers wait
   * for each other at most `writeWaitMs`). The broker then runs them without its statement
   * timeout, which would cost a timer's bookkeeping per statement and could never interrupt a
   * statement running on this thread. Default: false.
   */
  readonly inProcess?: boolean;
  /**
   * Closes what the adapter itself opened: its wake-up listener, and the pool where the adapter
   * made it from connection options; a pool the user passed in stays the user's. `shutdown()`
   * calls it.
   */
  close?(): Promise<void>;
}

/** A cross-process wake-up channel. */
export interface Wakeup {
  /** Subscribes to notifications for a table; resolves to an unsubscribe function. */
  listen(table: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** Notifies listeners of a table, on the given connection (inside the publisher's transaction). */
  notify(conn: Connection, table: string): Promise<void>;
  /** True where the dialect's `insert` already notifies in its own statement: the broker then skips `notify`. */
  readonly notifiesOnInsert?: boolean;
  /**
   * Optional: listens for a table's notifications of one topic, which the dialect's own statements
   * send at their commit: `control` (a pause, resume or cancel written to its control table),
   * `result` (a row of a table that keeps results settled; the payload is its id as text). The
   * listener gets the payload, or `''` where notifications may have been missed (a listener
   * reconnected): read again then. Absent: the broker reads those on its poll only.
   */
  listenTopic?(
    table: string,
    topic: WakeupTopic,
    onNotify: (payload: string) => void,
  ): Promise<() => Promise<void>>;
  /**
   * Optional: closes the listening connection now where no listener is left on it (`Admin.close`);
   * a later `listen` opens it again.
   */
  closeIdle?(): Promise<void>;
}

/** What {@link Wakeup.listenTopic} listens for: control table writes, or settlements that keep a result. */
export type WakeupTopic = 'control' | 'result';

/** Fills a dialect's capabilities from the defaults. */
export function capabilities(partial: Partial<Capabilities>): Capabilities {
  return { ...defaultCapabilities, ...partial };
}
