/** The queues a run concerns: from the flags, or from a checked config file. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  type AnyTable,
  type DeadLetterTarget,
  type InboxInput,
  inbox,
  SCHEDULE_TABLE,
  validateIdentifier,
} from '@sqlinbox/core';
import { closest } from 'fastest-levenshtein';
import { type Flags, messageOf, UsageError } from './base.js';

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

/** The queues a run concerns: from `--table` and its flags, or from the config file. */
export function queuesOf(flags: Flags, config: CliConfig | undefined): { name: string; q: QueueConfig }[] {
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
    if (flags.flows !== undefined && flags.flows !== false)
      q.flows = flags.flows === true ? true : { table: String(flags.flows) };
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

/** Reads and checks the config file `--config` names, or undefined without one. */
export function readConfig(path: string | undefined): CliConfig | undefined {
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

/** The keys of a queue of the config file that each name one column. */
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
/** Every key a queue of the config file may have. */
const QUEUE_KEYS = [
  'table',
  'id',
  'payload',
  'attempt',
  'advisory',
  ...COLUMN_KEYS,
  'concurrency',
  'columns',
  'isolation',
  'mode',
  'clock',
  'rateLimit',
  'retention',
  'control',
  'flows',
  'steps',
  'deadLetter',
  'errorColumn',
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

/** A queue's description, its dead letter and error column; a description the flags or the file got wrong is a usage error. */
export function describeQueue(q: QueueConfig): {
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

/** The one queue a command that takes one concerns. */
export function one(flags: Flags, config: CliConfig | undefined, what: string) {
  const qs = queuesOf(flags, config);
  if (qs.length !== 1)
    throw new UsageError(
      `${what} takes one queue: pass --queue <name> (one of: ${qs.map((q) => q.name).join(', ')})`,
    );
  return describeQueue(qs[0]!.q);
}

/** The queue's dead letter, or a usage error saying how to give one. */
export function needDead(deadLetter: DeadLetterTarget | undefined, table: AnyTable): DeadLetterTarget {
  if (deadLetter === undefined) {
    throw new UsageError(
      `the queue ${table.table} has no dead letter: pass --dead-letter-table or --dead-letter-group`,
    );
  }
  return deadLetter;
}

/** The tick table `--schedules [table]` names (validated), or undefined without the flag. */
export function schedulesFlag(flags: Flags): string | undefined {
  if (flags.schedules === undefined || flags.schedules === false) return undefined;
  const name = flags.schedules === true ? SCHEDULE_TABLE : String(flags.schedules);
  return validateIdentifier(name, 'ticks table', undefined, true);
}
