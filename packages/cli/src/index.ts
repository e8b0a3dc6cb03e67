/**
 * The `sqlinbox` command line: `ddl`, `stats`, `dead list|requeue|purge`, `pause|resume [group]`,
 * `cancel <ids..>`, `show <id>`, `dashboard`.
 * Each run opens one small pool (two connections), runs one command through the admin API and
 * closes it; `dashboard` serves the web dashboard on it until SIGINT or SIGTERM.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo, isIPv4 } from 'node:net';
import { resolve } from 'node:path';
import {
  type Adapter,
  Admin,
  type AdminRow,
  type AnyTable,
  type ChangeReport,
  ConfigError,
  ConnectionStringError,
  checkConnectionString,
  type DeadLetterTarget,
  type Dialect,
  type InboxInput,
  inbox,
  migrate,
  type PausedState,
  type QueueStats,
  SCHEDULE_TABLE,
  type Selection,
  SqlInboxError,
  validateIdentifier,
} from '@sqlinbox/core';
import { cac } from 'cac';
import { closest } from 'fastest-levenshtein';

/** This package's version, as `sqlinbox --version` prints it. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

/** Exit codes. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The database or the table said no (connection refused, unknown table, missing column). */
  failed: 1,
  /** The command line itself is wrong (unknown command, bad URL, missing flag). */
  usage: 2,
  /** A change left some of the rows asked for alone (in work, not found, not dead). */
  partial: 3,
} as const;

/** A wrong command line: exit code 2. */
export class UsageError extends Error {}

/** One queue as a config file or the flags describe it. */
export interface QueueConfig extends Omit<InboxInput, 'lock' | 'unlock' | 'custom'> {
  /** Where the queue keeps dead letters. Default: none. */
  readonly deadLetter?: DeadLetterTarget;
  /** `dashboard`: a column where the application writes a row's last error. Default: none. */
  readonly errorColumn?: string;
}

/** A config file (`--config file.json`): an optional URL and named queues. */
export interface CliConfig {
  /** The database URL, used where neither `--url` nor `SQLINBOX_URL` gives one. */
  readonly url?: string;
  /** The queues by the name `--queue` picks them by. */
  readonly queues: Readonly<Record<string, QueueConfig>>;
}

/** Where the output goes (the tests pass their own). */
export interface Io {
  /** Writes a command's output (standard output). */
  out(text: string): void;
  /** Writes errors and warnings (standard error). */
  err(text: string): void;
  /**
   * The environment read for `SQLINBOX_URL`, and for `dashboard` `SQLINBOX_DASHBOARD_SECRET`,
   * `SQLINBOX_DASHBOARD_USER`, `SQLINBOX_DASHBOARD_PASSWORD` and `SQLINBOX_DASHBOARD_TOKEN`.
   */
  env: Readonly<Record<string, string | undefined>>;
}

interface Flags {
  url?: string;
  config?: string;
  queue?: string;
  table?: string;
  id?: string;
  idGenerated?: boolean;
  payload?: string;
  payloadType?: string;
  attempt?: string;
  lease?: string;
  advisory?: string;
  retryAfter?: string;
  processedAt?: string;
  group?: string;
  lastError?: string;
  errorClass?: string;
  failedAt?: string;
  createdAt?: string;
  result?: string;
  deadLetterTable?: string;
  deadLetterGroup?: string;
  schedules?: string | boolean;
  json?: boolean;
  limit?: number | string;
  after?: string;
  state?: string;
  toGroup?: string;
  reason?: string;
  byGroup?: string;
  all?: boolean;
  deadLetter?: string;
  watch?: number | string | boolean;
  port?: number | string;
  host?: string;
  basePath?: string;
  actions?: boolean;
  errorColumn?: string;
  dialect?: string;
  dryRun?: boolean;
  help?: boolean;
}

/** The dialect `--dialect` names, for `ddl` without a database. */
async function dialectNamed(name: string): Promise<Dialect> {
  const n = name.toLowerCase();
  if (n === 'postgres' || n === 'postgresql')
    return (await import('@sqlinbox/dialect-postgres')).postgresDialect;
  if (n === 'mysql' || n === 'mariadb') return (await import('@sqlinbox/dialect-mysql')).mysqlDialect;
  if (n === 'sqlite') return (await import('@sqlinbox/dialect-sqlite')).sqliteDialect;
  throw new UsageError(`unknown --dialect ${name}: use postgres, mysql (or mariadb) or sqlite`);
}

/** Opens the database a URL names: `postgres://`, `mysql://` or `mariadb://`, `sqlite:<path>`. */
export async function openUrl(url: string): Promise<
  Adapter & {
    /** Ends the pool opened from the URL. */
    close(): Promise<void>;
  }
> {
  const scheme = /^([a-z0-9+]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    checkConnectionString(url, {
      option: 'the URL',
      schemes: ['postgres', 'postgresql'],
      example: 'postgres://user:password@localhost:5432/app',
    });
    const { default: pgLib } = await import('pg');
    const { pg } = await import('@sqlinbox/dialect-postgres/pg');
    const pool = new pgLib.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => undefined);
    const adapter = pg(pool);
    return { ...adapter, close: async () => await pool.end() };
  }
  if (scheme === 'mysql' || scheme === 'mariadb') {
    checkConnectionString(url, {
      option: 'the URL',
      schemes: ['mysql', 'mariadb'],
      example: 'mysql://user:password@localhost:3306/app',
    });
    const { default: mysql } = await import('mysql2/promise');
    const { mysql2 } = await import('@sqlinbox/dialect-mysql/mysql2');
    const pool = mysql.createPool({ uri: `mysql:${url.slice(scheme.length + 1)}`, connectionLimit: 2 });
    const adapter = mysql2(pool);
    return { ...adapter, close: async () => await pool.end() };
  }
  if (scheme === 'sqlite') {
    const path = url.replace(/^sqlite:(\/\/)?/i, '');
    if (path === '') throw new UsageError(`the URL ${url} names no file; write sqlite:./path/to/file.db`);
    if (!existsSync(path)) throw new UsageError(`no SQLite file at ${resolve(path)} (from ${url})`);
    const { sqlite } = await import('@sqlinbox/dialect-sqlite');
    return sqlite({ filename: path, connections: 2 });
  }
  throw new UsageError(
    `cannot read the URL ${json(url)}: use postgres://, mysql:// (or mariadb://) or sqlite:<file>`,
  );
}

/** The queues a run concerns: from `--table` and its flags, or from the config file. */
function queuesOf(flags: Flags, config: CliConfig | undefined): { name: string; q: QueueConfig }[] {
  if (flags.table !== undefined) {
    const q: Record<string, unknown> = {
      table: flags.table,
      id: { column: flags.id ?? 'id', generated: flags.idGenerated !== false },
    };
    const payload = flags.payload ?? 'payload';
    if (payload !== '') {
      q.payload = flags.payloadType === undefined ? payload : { column: payload, type: flags.payloadType };
    }
    if (flags.attempt !== '') q.attempt = { column: flags.attempt ?? 'attempt', generated: true };
    for (const [k, v] of [
      ['lease', flags.lease],
      ['advisory', flags.advisory],
      ['retryAfter', flags.retryAfter],
      ['processedAt', flags.processedAt],
      ['group', flags.group],
      ['lastError', flags.lastError],
      ['errorClass', flags.errorClass],
      ['failedAt', flags.failedAt],
      ['createdAt', flags.createdAt],
      ['result', flags.result],
    ] as const) {
      if (v !== undefined) q[k] = v;
    }
    if (flags.deadLetterTable !== undefined && flags.deadLetterGroup !== undefined) {
      throw new UsageError('give --dead-letter-table or --dead-letter-group, not both');
    }
    if (flags.deadLetterTable !== undefined) q.deadLetter = { table: flags.deadLetterTable };
    if (flags.deadLetterGroup !== undefined) q.deadLetter = { group: flags.deadLetterGroup };
    if (flags.errorColumn !== undefined) q.errorColumn = String(flags.errorColumn);
    return [{ name: flags.table, q: q as unknown as QueueConfig }];
  }
  if (config === undefined)
    throw new UsageError('name the queue: --table <name> (and its columns), or --config <file.json>');
  const names = Object.keys(config.queues);
  if (flags.queue !== undefined) {
    const q = config.queues[flags.queue];
    if (q === undefined) {
      throw new UsageError(`the config has no queue ${flags.queue} (it has: ${names.join(', ') || 'none'})`);
    }
    return [{ name: flags.queue, q }];
  }
  return names.map((name) => ({ name, q: config.queues[name]! }));
}

function readConfig(path: string | undefined): CliConfig | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`cannot read the config file ${resolve(path)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`the config file ${path} is not JSON: ${(err as Error).message}`);
  }
  const c = parsed as CliConfig;
  if (typeof c !== 'object' || c === null || typeof c.queues !== 'object' || c.queues === null) {
    throw new UsageError(
      `the config file ${path} needs a "queues" object: { "queues": { "jobs": { "table": "jobs", ... } } }`,
    );
  }
  checkKeys(path, '', c as unknown as Record<string, unknown>, ['url', 'queues']);
  if (c.url !== undefined && typeof c.url !== 'string') {
    throw new UsageError(
      `the config file ${path}: "url" must be a string such as "postgres://app@db:5432/app"`,
    );
  }
  for (const [name, q] of Object.entries(c.queues)) checkQueue(path, name, q);
  return c;
}

/** The keys a queue of the config file may have, and the ones it must. */
const QUEUE_KEYS = [
  'table',
  'id',
  'payload',
  'attempt',
  'lease',
  'advisory',
  'retryAfter',
  'processedAt',
  'group',
  'partitionKey',
  'priority',
  'uniqueKey',
  'expiresAt',
  'lastError',
  'errorClass',
  'failedAt',
  'createdAt',
  'result',
  'concurrency',
  'columns',
  'isolation',
  'mode',
  'clock',
  'rateLimit',
  'retention',
  'control',
  'deadLetter',
  'errorColumn',
] as const;
const COLUMN_KEYS = [
  'lease',
  'retryAfter',
  'processedAt',
  'group',
  'partitionKey',
  'priority',
  'uniqueKey',
  'expiresAt',
  'lastError',
  'errorClass',
  'failedAt',
  'createdAt',
  'result',
];
const EXAMPLE_QUEUE =
  '{ "table": "jobs", "id": { "column": "id", "generated": true }, "payload": "payload" }';

/**
 * One queue of a config file, checked before `inbox()` reads it: every key known (a typo named
 * with the key it is closest to), the required ones there, each of the type it takes. The message
 * names the file, the queue and the key.
 */
function checkQueue(path: string, name: string, q: unknown): void {
  const where = `the config file ${path}, queue "${name}"`;
  if (typeof q !== 'object' || q === null || Array.isArray(q)) {
    throw new UsageError(`${where}: a queue is an object such as ${EXAMPLE_QUEUE}`);
  }
  const o = q as Record<string, unknown>;
  checkKeys(path, `queue "${name}", `, o, QUEUE_KEYS);
  if (typeof o.table !== 'string' || o.table === '') {
    throw new UsageError(`${where}: "table" is missing; it names the queue table, e.g. "table": "jobs"`);
  }
  if (o.id === undefined) {
    throw new UsageError(
      `${where}: "id" is missing; it names the id column, e.g. "id": { "column": "id", "generated": true } (generated: the database fills it)`,
    );
  }
  const column = (key: string, value: unknown, objectOk: boolean) => {
    if (value === undefined || typeof value === 'string') return;
    if (
      objectOk &&
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { column?: unknown }).column === 'string'
    )
      return;
    throw new UsageError(
      `${where}: "${key}" must be a column name${objectOk ? ` or { "column": "...", "generated": true }` : ''} (got ${JSON.stringify(value)})`,
    );
  };
  column('id', o.id, true);
  column('attempt', o.attempt, true);
  column('payload', o.payload, true);
  for (const k of COLUMN_KEYS) column(k, o[k], false);
  if (o.advisory !== undefined && typeof o.advisory !== 'string') {
    throw new UsageError(`${where}: "advisory" must be a key template such as "jobs-{id}"`);
  }
  const dl = o.deadLetter as Record<string, unknown> | undefined;
  if (
    dl !== undefined &&
    (typeof dl !== 'object' || dl === null || (typeof dl.table !== 'string' && typeof dl.group !== 'string'))
  ) {
    throw new UsageError(`${where}: "deadLetter" must be { "table": "jobs_dead" } or { "group": "dead" }`);
  }
}

/** Refuses a key not in `known`, naming it and the known key it is closest to. */
function checkKeys(path: string, where: string, o: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(o)) {
    if (known.includes(key)) continue;
    throw new UsageError(
      `the config file ${path}: ${where}unknown key "${key}" (did you mean "${closest(key, known as string[])}"?)`,
    );
  }
}

function describeQueue(q: QueueConfig): {
  table: AnyTable;
  deadLetter: DeadLetterTarget | undefined;
  errorColumn: string | undefined;
} {
  const { deadLetter, errorColumn, ...input } = q;
  try {
    return { table: inbox(input as never) as AnyTable, deadLetter, errorColumn };
  } catch (err) {
    // A description the flags or the config file got wrong is a usage error, found before any connection.
    throw new UsageError(messageOf(err));
  }
}

function one(flags: Flags, config: CliConfig | undefined, what: string) {
  const qs = queuesOf(flags, config);
  if (qs.length !== 1)
    throw new UsageError(
      `${what} takes one queue: pass --queue <name> (one of: ${qs.map((q) => q.name).join(', ')})`,
    );
  return describeQueue(qs[0]!.q);
}

function needDead(deadLetter: DeadLetterTarget | undefined, table: AnyTable): DeadLetterTarget {
  if (deadLetter === undefined) {
    throw new UsageError(
      `the queue ${table.table} has no dead letter: pass --dead-letter-table or --dead-letter-group`,
    );
  }
  return deadLetter;
}

function rowJson(r: AdminRow) {
  return {
    id: r.id,
    state: r.state,
    attempt: r.attempt,
    retryAfter: r.retryAfter?.toISOString() ?? null,
    lockedUntil: r.lockedUntil?.toISOString() ?? null,
    group: r.group,
    processedAt: r.processedAt?.toISOString() ?? null,
    lastError: r.lastError,
    errorClass: r.errorClass,
    failedAt: r.failedAt?.toISOString() ?? null,
    createdAt: r.createdAt?.toISOString() ?? null,
    ...('result' in r ? { result: r.result ?? null } : {}),
    preview: r.preview,
    truncated: r.truncated,
  };
}

function rowLine(r: AdminRow): string {
  const parts = [`${String(r.id)}`, r.state, `attempt=${r.attempt ?? '-'}`];
  if (r.group !== null) parts.push(`group=${r.group}`);
  if (r.retryAfter !== null) parts.push(`due=${r.retryAfter.toISOString()}`);
  if (r.lockedUntil !== null) parts.push(`lease=${r.lockedUntil.toISOString()}`);
  if (r.createdAt !== null) parts.push(`created=${r.createdAt.toISOString()}`);
  if (r.result !== undefined) parts.push(`result=${json(r.result)}`);
  if (r.failedAt !== null) parts.push(`failed=${r.failedAt.toISOString()}`);
  if (r.errorClass !== null || r.lastError !== null)
    parts.push(`error=${json(`${r.errorClass ?? 'Error'}: ${r.lastError ?? ''}`)}`);
  parts.push(json(r.preview + (r.truncated ? '…' : '')));
  return parts.join('  ');
}

function statsLine(name: string, s: QueueStats): string {
  const age = s.oldestReadyAgeMs == null ? '-' : `${Math.round(s.oldestReadyAgeMs / 1000)}s`;
  const seen = s.inWorkSeen === 'none' ? ' (rows in work not visible here)' : '';
  const paused = s.paused === undefined ? '' : ` paused=${pausedText(s.paused)}`;
  return `${name}: ready=${s.ready} delayed=${s.delayed} inWork=${s.inWork} dead=${s.dead} oldestReady=${age}${paused}${seen}`;
}

/** What is paused, in a word: `queue`, the groups, or `no`. */
function pausedText(p: PausedState): string {
  const parts = [...(p.queue ? ['queue'] : []), ...p.groups.map((g) => `group:${g}`)];
  return parts.length === 0 ? 'no' : parts.join(',');
}

function pausedLine(name: string, p: PausedState): string {
  return `${name}: paused=${pausedText(p)}`;
}

function reportOut(io: Io, asJson: boolean, verb: string, r: ChangeReport): number {
  if (asJson) io.out(json({ changed: r.changed, skipped: r.skipped }));
  else {
    io.out(
      `${verb} ${r.changed.length} row(s)${r.changed.length ? `: ${r.changed.map(String).join(', ')}` : ''}`,
    );
    for (const s of r.skipped) io.out(`left alone ${String(s.id)}: ${s.reason}`);
  }
  return r.skipped.length > 0 ? EXIT.partial : EXIT.ok;
}

/** An id from the command line: a whole number within 2^53 as a number, else the text. */
function idOf(text: string): string | number {
  const n = Number(text);
  return /^-?\d+$/.test(text) && Number.isSafeInteger(n) ? n : text;
}

function selectionOf(ids: readonly string[], flags: Flags): Selection {
  const given = [ids.length > 0, flags.byGroup !== undefined, flags.all === true].filter(Boolean).length;
  if (given !== 1) throw new UsageError('say which rows: ids, --by-group <group> or --all (one of them)');
  if (flags.byGroup !== undefined) return { group: String(flags.byGroup) };
  if (flags.all === true) return { all: true };
  return { ids: ids.map(idOf) };
}

/**
 * Runs the command line (`argv` without node and the script) and answers the exit code. Output
 * goes to `io`; errors are written as one line each, `sqlinbox: <message>`.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const cli = cac('sqlinbox');
  let action: (() => Promise<number>) | undefined;
  let adapter: (Adapter & { close(): Promise<void> }) | undefined;
  let flags: Flags = {};
  const open = async (config: CliConfig | undefined) => {
    const url = flags.url ?? (io.env.SQLINBOX_URL || undefined) ?? config?.url;
    if (url === undefined || url === '')
      throw new UsageError('no database: pass --url <url> or set SQLINBOX_URL');
    adapter = await openUrl(url);
    return new Admin(adapter);
  };

  cli
    .option(
      '--url <url>',
      'Database URL: postgres://, mysql:// or mariadb://, sqlite:<file> (default: $SQLINBOX_URL)',
    )
    .option('--config <file>', 'A JSON file: { "url"?: ..., "queues": { "<name>": { "table": ..., ... } } }')
    .option('--queue <name>', 'One queue of the config file (default: all of them, for stats)')
    .option('--table <name>', 'The queue table (instead of a config file)')
    .option('--id <column>', 'Id column (default: id, filled by the database)')
    .option('--payload <column>', 'Payload column (default: payload)')
    .option('--payload-type <type>', 'json, text or bytes (default: json)')
    .option('--attempt <column>', 'Attempt column (default: attempt)')
    .option('--lease <column>', 'Lease column: the lease form')
    .option('--advisory <template>', 'Advisory key template: the advisory form')
    .option('--retry-after <column>', 'The retry_after column')
    .option('--processed-at <column>', 'The processed_at column')
    .option('--group <column>', 'The FIFO group column')
    .option('--last-error <column>', "The failure record: the last error's message")
    .option('--error-class <column>', "The failure record: the last error's class")
    .option('--failed-at <column>', 'The failure record: when the row last failed, or died')
    .option('--created-at <column>', 'When the row was inserted')
    .option('--result <column>', "The result column: the value the row's handler acked with")
    .option('--dead-letter-table <table>', 'Dead letters live in this table')
    .option('--dead-letter-group <group>', 'Dead letters are rows of this group')
    .option('--json', 'Machine-readable output on stdout');

  cli
    .command(
      'ddl',
      'Print the CREATE TABLE and indexes of the queue (and its dead-letter table); with --dialect, without a database',
    )
    .option('--schedules [table]', 'Also the tick table of schedules (default: sqlinbox_schedules)')
    .option('--dialect <name>', 'postgres, mysql (or mariadb) or sqlite: print its DDL without connecting')
    .action(() => {
      action = async () => {
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'ddl');
        let dialect: Dialect;
        if (flags.dialect === undefined) {
          await open(config);
          dialect = adapter!.dialect;
        } else dialect = await dialectNamed(flags.dialect);
        const dlt =
          deadLetter !== undefined && 'table' in deadLetter ? { deadLetterTable: deadLetter.table } : {};
        const ticks =
          flags.schedules === undefined || flags.schedules === false
            ? undefined
            : validateIdentifier(
                flags.schedules === true ? SCHEDULE_TABLE : String(flags.schedules),
                'ticks table',
                undefined,
                true,
              );
        const stmts = dialect.ddl(table, ticks === undefined ? dlt : { ...dlt, schedules: ticks });
        io.out(flags.json ? json(stmts) : stmts.map((s) => `${s};`).join('\n'));
        return EXIT.ok;
      };
    });

  cli
    .command(
      'migrate',
      "Create the queues' tables (and dead-letter and tick tables) where missing, and record what ran; safe to run from several deploys at once",
    )
    .option('--dry-run', 'Print the statements and which versions are not applied yet; run nothing')
    .option('--schedules [table]', 'Also the tick table of schedules (default: sqlinbox_schedules)')
    .action(() => {
      action = async () => {
        const config = readConfig(flags.config);
        const qs = queuesOf(flags, config).map((q) => describeQueue(q.q));
        const schedules =
          flags.schedules === undefined || flags.schedules === false
            ? undefined
            : validateIdentifier(
                flags.schedules === true ? SCHEDULE_TABLE : String(flags.schedules),
                'ticks table',
                undefined,
                true,
              );
        await open(config);
        const report = await migrate(
          adapter!,
          qs.map((q) => ({
            table: q.table,
            ...(q.deadLetter !== undefined && 'table' in q.deadLetter
              ? { deadLetterTable: q.deadLetter.table }
              : {}),
            ...(schedules === undefined ? {} : { schedules }),
          })),
          { dryRun: flags.dryRun === true },
        );
        if (flags.json) io.out(json(report));
        else if (report.dryRun) {
          for (const s of report.steps) {
            io.out(`-- ${s.table}: version ${s.version}, ${s.recorded ? 'applied' : 'not applied yet'}`);
            if (!s.recorded) io.out(s.statements.map((x) => `${x};`).join('\n'));
          }
        } else {
          for (const s of report.steps)
            io.out(`${s.table}: version ${s.version} ${s.recorded ? 'was applied already' : 'applied'}`);
        }
        return EXIT.ok;
      };
    });

  cli
    .command('stats', 'Counts by state: ready, delayed, in work, dead; the oldest ready row')
    .option('--watch [seconds]', 'Print again every n seconds (default 2) until interrupted')
    .action(() => {
      action = async () => {
        const config = readConfig(flags.config);
        const qs = queuesOf(flags, config).map((q) => ({ name: q.name, ...describeQueue(q.q) }));
        const admin = await open(config);
        const once = async () => {
          const all: Record<string, QueueStats> = {};
          for (const q of qs) all[q.name] = await admin.stats(q.table, { deadLetter: q.deadLetter });
          if (flags.json) io.out(json(all));
          else for (const [name, s] of Object.entries(all)) io.out(statsLine(name, s));
        };
        await once();
        if (flags.watch !== undefined && flags.watch !== false) {
          const every = flags.watch === true || flags.watch === '' ? 2 : Number(flags.watch);
          if (!(every > 0))
            throw new UsageError(`--watch takes a number of seconds (got ${String(flags.watch)})`);
          for (;;) {
            await new Promise((r) => setTimeout(r, every * 1000));
            await once();
          }
        }
        return EXIT.ok;
      };
    });

  cli
    .command('dead <action> [...ids]', 'Dead letters: list, requeue [ids], purge [ids]')
    .option('--limit <n>', 'list: rows per page (default 50)')
    .option('--after <id>', 'list: start after this id')
    .option('--by-group <group>', 'requeue/purge: every dead row whose group column holds this')
    .option('--all', 'requeue/purge: every dead row')
    .option('--to-group <group>', 'requeue: the group requeued rows get (default: none)')
    .action((verb: string, ids: string[]) => {
      action = async () => {
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'dead');
        const dl = needDead(deadLetter, table);
        if (verb === 'list') {
          const limit = flags.limit === undefined ? 50 : Number(flags.limit);
          if (!Number.isInteger(limit) || limit < 1)
            throw new UsageError(`--limit takes a whole number (got ${String(flags.limit)})`);
          const admin = await open(config);
          const page = await admin.list(table, {
            deadLetter: dl,
            state: 'dead',
            limit,
            ...(flags.after === undefined ? {} : { after: idOf(String(flags.after)) }),
          });
          if (flags.json) io.out(json({ rows: page.rows.map(rowJson), next: page.next ?? null }));
          else {
            for (const r of page.rows) io.out(rowLine(r));
            if (page.next !== undefined) io.out(`more: --after ${String(page.next)}`);
          }
          return EXIT.ok;
        }
        if (verb === 'requeue') {
          const sel = selectionOf(ids, flags);
          const admin = await open(config);
          const toGroup = flags.toGroup === undefined ? null : String(flags.toGroup);
          return reportOut(
            io,
            flags.json === true,
            'requeued',
            await admin.requeue(table, sel, { deadLetter: dl, toGroup }),
          );
        }
        if (verb === 'purge') {
          const sel = selectionOf(ids, flags);
          const admin = await open(config);
          return reportOut(
            io,
            flags.json === true,
            'purged',
            await admin.remove(table, sel, { deadLetter: dl, dead: true }),
          );
        }
        throw new UsageError(`unknown dead action ${verb}: use list, requeue or purge`);
      };
    });

  for (const verb of ['pause', 'resume'] as const) {
    cli
      .command(
        `${verb} [group]`,
        verb === 'pause'
          ? "Pause the queue (or one FIFO group of it) in its control table: every broker stops starting its handlers within a second (the queue's config names control)"
          : 'Resume the queue (or one FIFO group of it): every broker claims it again within a second',
      )
      .action((group: string | undefined) => {
        action = async () => {
          const config = readConfig(flags.config);
          const { table } = one(flags, config, verb);
          const admin = await open(config);
          const scope = group === undefined ? {} : { group: String(group) };
          await admin[verb](table, scope);
          const paused = await admin.paused(table);
          if (flags.json) io.out(json(paused));
          else io.out(pausedLine(table.table, paused));
          return EXIT.ok;
        };
      });
  }

  cli
    .command(
      'cancel <...ids>',
      "Cancel rows by id: one not in work leaves at once (to the queue's dead letter, else dropped); a running one's broker aborts its handler's signal within a second (the queue's config names control)",
    )
    .option('--reason <text>', "Kept as each cancelled row's last error (default: cancelled)")
    .action((ids: string[]) => {
      action = async () => {
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'cancel');
        const admin = await open(config);
        const reason = flags.reason === undefined ? {} : { reason: String(flags.reason) };
        const r = await admin.cancel(
          table,
          { ids: ids.map((i) => idOf(String(i))) },
          { deadLetter, ...reason },
        );
        if (flags.json) io.out(json({ changed: r.changed, signalled: r.signalled, skipped: r.skipped }));
        else {
          io.out(
            `cancelled ${r.changed.length} row(s)${r.changed.length ? `: ${r.changed.map(String).join(', ')}` : ''}`,
          );
          if (r.signalled.length > 0) {
            io.out(
              `told to stop ${r.signalled.length} row(s) in work: ${r.signalled.map(String).join(', ')}`,
            );
          }
          for (const x of r.skipped) io.out(`left alone ${String(x.id)}: ${x.reason}`);
        }
        return r.skipped.length > 0 ? EXIT.partial : EXIT.ok;
      };
    });

  cli
    .command('show <id>', 'One row by id, from the queue table or its dead-letter table')
    .action((id: string) => {
      action = async () => {
        const config = readConfig(flags.config);
        const { table, deadLetter } = one(flags, config, 'show');
        const admin = await open(config);
        const row = await admin.get(table, idOf(String(id)), { deadLetter });
        if (row === null) {
          io.err(`sqlinbox: table ${table.table}: no row with id ${id}`);
          return EXIT.failed;
        }
        if (flags.json) io.out(json({ ...rowJson(row), row: row.row }));
        else io.out(rowLine(row));
        return EXIT.ok;
      };
    });

  cli
    .command('dashboard', 'Serve the web dashboard of the queues until interrupted (read-only by default)')
    .option('--port <n>', 'The port to listen on (default 3000; 0 picks a free one)')
    .option(
      '--host <host>',
      'The address to listen on (default 127.0.0.1: this machine only); any other needs a login, as --actions does',
    )
    .option('--base-path <path>', 'Serve under this path, e.g. /queues (default: the root)')
    .option(
      '--actions',
      'Enable the actions (default: read-only); needs SQLINBOX_DASHBOARD_USER and SQLINBOX_DASHBOARD_PASSWORD, or SQLINBOX_DASHBOARD_TOKEN',
    )
    .option('--error-column <column>', "A column holding a row's last error, shown beside dead letters")
    .action(() => {
      action = async () => {
        const config = readConfig(flags.config);
        const qs = queuesOf(flags, config).map((q) => ({ name: q.name, ...describeQueue(q.q) }));
        const port = flags.port === undefined ? 3000 : Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65_535) {
          throw new UsageError(`--port takes a port number, 0 to 65535 (got ${String(flags.port)})`);
        }
        const host = flags.host === undefined ? '127.0.0.1' : String(flags.host);
        const basePath = flags.basePath === undefined ? '' : String(flags.basePath).replace(/\/+$/, '');
        const credentials = dashboardCredentials(io.env);
        if (credentials === undefined && (!isLoopback(host) || flags.actions === true)) {
          const why = isLoopback(host)
            ? '--actions lets whoever reaches the port change rows'
            : `--host ${host} listens beyond this machine`;
          throw new UsageError(
            `the dashboard refuses to start without a login: ${why}. Set SQLINBOX_DASHBOARD_USER and ` +
              'SQLINBOX_DASHBOARD_PASSWORD (HTTP basic authentication, for browsers), or SQLINBOX_DASHBOARD_TOKEN ' +
              '(Authorization: Bearer, for scripts), or both; or serve it read-only on 127.0.0.1',
          );
        }
        const admin = await open(config);
        const { dashboard } = await import('@sqlinbox/dashboard');
        let handler: ReturnType<typeof dashboard>;
        try {
          handler = dashboard(admin, {
            queues: Object.fromEntries(
              qs.map((q) => [
                q.name,
                { table: q.table, deadLetter: q.deadLetter, errorColumn: q.errorColumn },
              ]),
            ),
            basePath,
            readOnly: flags.actions !== true,
            secret: io.env.SQLINBOX_DASHBOARD_SECRET || undefined,
            credentials,
          });
        } catch (err) {
          throw new UsageError(messageOf(err));
        }
        const server = createServer(handler);
        try {
          await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen(port, host, () => resolve());
          });
          const { port: bound } = server.address() as AddressInfo;
          const shown = host.includes(':') ? `[${host}]` : host;
          io.out(
            `sqlinbox dashboard on http://${shown}:${bound}${basePath}/ (${flags.actions ? 'actions enabled' : 'read-only'}; ${loginText(credentials)}; Ctrl-C stops it)`,
          );
          await new Promise<void>((resolve) => {
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
            throw new UsageError(`cannot listen on ${host}:${port}: ${messageOf(err)}`);
          }
          throw err;
        } finally {
          handler.close();
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        }
        return EXIT.ok;
      };
    });

  cli.version(VERSION);
  cli.help((sections) => {
    // cac prints a command's usage but not its description: the description goes right under it.
    const command = cli.matchedCommand;
    if (command === undefined || command.description === '') return sections;
    const at = sections.findIndex((s) => s.title === 'Usage');
    sections.splice(at + 1, 0, { title: 'Description', body: `  ${command.description}` });
    return sections;
  });
  try {
    const parsed = cli.parse(['node', 'sqlinbox', ...argv], { run: false });
    flags = parsed.options as Flags;
    if (flags.help || (flags as { version?: boolean }).version) return EXIT.ok;
    if (cli.matchedCommand === undefined) {
      if (parsed.args.length > 0)
        throw new UsageError(`unknown command ${parsed.args[0]}; see sqlinbox --help`);
      cli.outputHelp();
      return EXIT.usage;
    }
    await cli.runMatchedCommand();
    if (action === undefined) return EXIT.ok;
    return await action();
  } catch (err) {
    io.err(`sqlinbox: ${messageOf(err)}`);
    if (
      err instanceof UsageError ||
      err instanceof ConnectionStringError ||
      (err as Error)?.name === 'CACError'
    )
      return EXIT.usage;
    return EXIT.failed;
  } finally {
    await adapter?.close().catch(() => undefined);
  }
}

/**
 * The dashboard's login from the environment: basic authentication (`SQLINBOX_DASHBOARD_USER` and
 * `SQLINBOX_DASHBOARD_PASSWORD`), a bearer token (`SQLINBOX_DASHBOARD_TOKEN`), both, or undefined.
 * Read from the environment, never from flags, so no password shows in the process list.
 */
function dashboardCredentials(
  env: Readonly<Record<string, string | undefined>>,
): { user?: string; password?: string; token?: string } | undefined {
  const user = env.SQLINBOX_DASHBOARD_USER || undefined;
  const password = env.SQLINBOX_DASHBOARD_PASSWORD || undefined;
  const token = env.SQLINBOX_DASHBOARD_TOKEN || undefined;
  if ((user === undefined) !== (password === undefined)) {
    throw new UsageError('set SQLINBOX_DASHBOARD_USER and SQLINBOX_DASHBOARD_PASSWORD together');
  }
  if (user === undefined && token === undefined) return undefined;
  return { ...(user === undefined ? {} : { user, password }), ...(token === undefined ? {} : { token }) };
}

/** Whether an address to listen on is this machine only: `localhost`, 127.0.0.0/8, ::1. */
function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIPv4(v4) && v4.startsWith('127.');
}

function loginText(c: { user?: string; token?: string } | undefined): string {
  if (c === undefined) return 'no login';
  const kinds = [c.user === undefined ? '' : 'basic', c.token === undefined ? '' : 'bearer token'];
  return `login: ${kinds.filter((k) => k !== '').join(' or ')}`;
}

/** JSON text of a value; a bigint (an id some drivers answer as one) as its decimal text. */
function json(value: unknown, replacer?: (key: string, v: unknown) => unknown): string {
  return JSON.stringify(value, (k, v) => {
    const out = replacer === undefined ? v : replacer(k, v);
    return typeof out === 'bigint' ? out.toString() : out;
  });
}

function messageOf(err: unknown): string {
  if (err instanceof ConfigError || err instanceof SqlInboxError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
