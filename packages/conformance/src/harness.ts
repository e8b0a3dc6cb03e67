import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  type AnyTable,
  Broker,
  type BrokerOptions,
  type Capabilities,
  type Connection,
  type Form,
  type InboxInput,
  inbox,
  type Logger,
  type Pool,
  type Row,
} from '@sqlinbox/core';
import type { ConformanceTarget, OpenAdapter, OpenOptions } from './target.js';

/** Extra columns a scenario's table takes. */
export interface TableExtras {
  readonly retryAfter?: boolean;
  readonly processedAt?: boolean;
  readonly group?: boolean;
  readonly partitionKey?: boolean;
  /** A priority column, `priority`. */
  readonly priority?: boolean;
  /** A unique key column, `job_key`. */
  readonly uniqueKey?: boolean;
  /** Advisory key template; default `<table>-{id}`. */
  readonly key?: string;
  /** Extra text columns. */
  readonly columns?: readonly string[];
  readonly isolation?: InboxInput['isolation'];
  readonly deadLetterTable?: boolean;
  readonly lock?: InboxInput['lock'];
  readonly unlock?: InboxInput['unlock'];
}

/** A logger that keeps what it was told, so a scenario can assert a warning. */
export class MemoryLogger implements Logger {
  readonly entries: { level: string; msg: string; fields: Record<string, unknown> | undefined }[] = [];
  debug(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'debug', msg, fields });
  }
  info(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'info', msg, fields });
  }
  warn(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'warn', msg, fields });
  }
  error(msg: string, fields?: Record<string, unknown>) {
    this.entries.push({ level: 'error', msg, fields });
  }
  has(level: string, text: string): boolean {
    return this.entries.some((e) => e.level === level && e.msg.includes(text));
  }
}

/** Everything one scenario opened, closed again by `cleanup()`. */
export class Harness {
  readonly tables: string[] = [];
  readonly brokers: Broker<any, any>[] = [];
  readonly adapters: OpenAdapter[] = [];
  readonly children: ChildProcess[] = [];
  readonly logger = new MemoryLogger();

  constructor(
    readonly target: ConformanceTarget,
    readonly caps: Capabilities,
  ) {}

  /** A unique table name for this scenario. */
  name(prefix = 'q'): string {
    return `sqi_${prefix}_${randomBytes(4).toString('hex')}`;
  }

  /** Builds a description of the conformance table shape in a form. */
  describe(form: Form, name: string, extras: TableExtras = {}): AnyTable {
    const input: Record<string, unknown> = {
      table: name,
      id: { column: 'id', generated: true },
      payload: 'payload',
      attempt: { column: 'attempt', generated: true },
    };
    if (form === 'lease') input.lease = 'locked_until';
    if (form === 'advisory') input.advisory = extras.key ?? `${name}-{id}`;
    if (extras.retryAfter) input.retryAfter = 'retry_after';
    if (extras.processedAt) input.processedAt = 'processed_at';
    if (extras.group) input.group = 'grp';
    if (extras.partitionKey) input.partitionKey = 'pkey';
    if (extras.priority) input.priority = 'priority';
    if (extras.uniqueKey) input.uniqueKey = 'job_key';
    if (extras.columns) input.columns = extras.columns;
    if (extras.isolation) input.isolation = extras.isolation;
    if (extras.lock) {
      input.lock = extras.lock;
      input.unlock = extras.unlock;
    }
    return inbox(input as never) as AnyTable;
  }

  /** Creates the table (and its dead-letter table) with the dialect's own DDL; dropped at cleanup. */
  async create(form: Form, extras: TableExtras = {}, name = this.name(form)): Promise<Table> {
    const desc = this.describe(form, name, extras);
    const adapter = await this.open();
    const dlq = extras.deadLetterTable ? `${name}_dlq` : undefined;
    this.tables.push(name);
    if (dlq) this.tables.push(dlq);
    for (const t of [name, dlq]) if (t) await this.target.exec(`DROP TABLE IF EXISTS ${t}`);
    for (const stmt of adapter.dialect.ddl(desc, dlq ? { deadLetterTable: dlq } : {}))
      await this.target.exec(stmt);
    return { desc, name, dlq };
  }

  /** Opens an adapter with its own pool; closed at cleanup. */
  async open(opts: OpenOptions = {}): Promise<OpenAdapter> {
    const a = await this.target.open(opts);
    this.adapters.push(a);
    return a;
  }

  /** A broker on a fresh adapter, with quick polling; shut down at cleanup. */
  async broker(
    opts: BrokerOptions & { poolSize?: number; serverVersion?: string } = {},
  ): Promise<Broker<any, any>> {
    const { poolSize, serverVersion, ...brokerOpts } = opts;
    const adapter = await this.open({
      ...(poolSize === undefined ? {} : { poolSize }),
      ...(serverVersion === undefined ? {} : { serverVersion }),
    });
    const b = new Broker(adapter, { logger: this.logger, pollInterval: 50, ...brokerOpts });
    this.brokers.push(b);
    return b;
  }

  /** A broker whose pool records the connections out of it, so a scenario can kill them. */
  async trackedBroker(opts: BrokerOptions = {}): Promise<{ broker: Broker<any, any>; out: Set<Connection> }> {
    const adapter = await this.open();
    const pool = adapter.pool;
    const out = new Set<Connection>();
    const took = (c: Connection | null) => {
      if (c !== null) out.add(c);
      return c;
    };
    const tracked = wrapPool(pool, {
      acquire: async () => took(await pool.acquire())!,
      tryAcquire: async () => took(await pool.tryAcquire()),
      release: (c) => {
        out.delete(c);
        pool.release(c);
      },
      destroy: (c) => {
        out.delete(c);
        return pool.destroy(c);
      },
    });
    const broker = new Broker(
      { ...adapter, pool: tracked },
      { logger: this.logger, pollInterval: 50, ...opts },
    );
    this.brokers.push(broker);
    return { broker, out };
  }

  /** Every row of a table, ordered by id. */
  async rows(table: string): Promise<Row[]> {
    const rows = await this.target.exec(`SELECT * FROM ${table}`);
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Inserts a row with plain SQL, as another service would (R-PUB-2). */
  async insertPlain(table: string, payloadJson: string, extra: Record<string, string> = {}): Promise<void> {
    const cols = ['payload', ...Object.keys(extra)];
    const vals = [payloadJson, ...Object.values(extra)].map((v) => `'${v.replace(/'/g, "''")}'`);
    await this.target.exec(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${vals.join(', ')})`);
  }

  /** Starts a child process that claims one row of the table and hangs in its handler. */
  async crashChild(
    input: Record<string, unknown>,
    opts: { lease?: string; workers?: number; relay?: boolean } = {},
  ): Promise<{ child: ChildProcess; claimed: Promise<{ id: unknown; attempt: number }> }> {
    const child = fork(childScript(), [], {
      env: {
        ...process.env,
        SQLINBOX_CHILD: JSON.stringify({ module: this.target.childModule, table: input, ...opts }),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Not the test runner's flags: the child loads the built packages, as a service would.
      execArgv: [],
    });
    this.children.push(child);
    const claimed = new Promise<{ id: unknown; attempt: number }>((resolve, reject) => {
      child.on('message', (m: any) => {
        if (m?.type === 'in-handler') resolve({ id: m.id, attempt: m.attempt });
        if (m?.type === 'error') reject(new Error(`child failed: ${m.message}`));
      });
      child.on('exit', (code, signal) =>
        reject(new Error(`child exited (${code ?? signal}) before claiming`)),
      );
    });
    return { child, claimed };
  }

  async cleanup(): Promise<void> {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const b of this.brokers) await b.shutdown({ timeout: 0 }).catch(() => {});
    for (const a of this.adapters) await a.close().catch(() => {});
    for (const t of this.tables.reverse())
      await this.target.exec(`DROP TABLE IF EXISTS ${t}`).catch(() => {});
  }
}

/** A pool that does what `pool` does, but for the calls `over` replaces (counting, fault injection). */
export function wrapPool(pool: Pool, over: Partial<Omit<Pool, 'size'>>): Pool {
  return {
    get size() {
      return pool.size;
    },
    spare: over.spare ?? (() => pool.spare()),
    acquire: over.acquire ?? (() => pool.acquire()),
    tryAcquire: over.tryAcquire ?? (() => pool.tryAcquire()),
    release: over.release ?? ((c) => pool.release(c)),
    destroy: over.destroy ?? ((c) => pool.destroy(c)),
  };
}

/** The built child-process entry (the same path from `src/` and from `dist/`). */
export function childScript(): string {
  return fileURLToPath(new URL('../dist/child.mjs', import.meta.url));
}

/** The built partition child (the same path from `src/` and from `dist/`). */
export function partitionChildScript(): string {
  return fileURLToPath(new URL('../dist/partition-child.mjs', import.meta.url));
}

export interface Table {
  readonly desc: AnyTable;
  readonly name: string;
  readonly dlq: string | undefined;
}

/** Waits until `check` answers true (polling), or fails with `what` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await sleep(20);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A promise with its resolver, for handlers a scenario holds open. */
export function gate<T = void>(): { promise: Promise<T>; open: (v: T) => void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    open = r;
  });
  return { promise, open };
}

/** An instant column's value as epoch milliseconds (drivers answer Date, number or text). */
export function ms(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v);
  const n = Date.parse(String(v).includes('T') || String(v).endsWith('Z') ? String(v) : `${v}Z`);
  return Number.isNaN(n) ? Number(v) : n;
}

/** A JSON payload as stored (drivers answer text, bytes or an object). */
export function payloadOf(v: unknown): unknown {
  if (typeof v === 'string') return JSON.parse(v);
  if (v instanceof Uint8Array) return JSON.parse(Buffer.from(v).toString('utf8'));
  return v;
}

/** Waits for a child process to end. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}
