/** What every command shares: exit codes, the output, the parsed flags, ids and messages. */
import type { Adapter, Admin } from '@sqlinbox/core';
import { ConfigError, SqlInboxError } from '@sqlinbox/core';
import type { CAC } from 'cac';
import type { CliConfig } from './config.js';

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

/** The flags of a run, as cac parses them (camel-cased). */
export interface Flags {
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
  flows?: string | boolean;
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

/** What a command's action reaches of the run: its output, its flags, the database. */
export interface Host {
  /** Where the output goes. */
  readonly io: Io;
  /** The parsed flags (set once the command line is parsed: read them inside an action). */
  flags(): Flags;
  /** Opens the database the flags, the environment or the config file name; the admin API over it. */
  open(config: CliConfig | undefined): Promise<Admin>;
  /** The adapter `open` opened, else undefined. */
  adapter(): Adapter | undefined;
  /** Sets what the matched command runs; its answer is the exit code. */
  run(action: () => Promise<number>): void;
}

/** Declares some commands on the command line. */
export type Commands = (cli: CAC, host: Host) => void;

/** An id from the command line: a whole number within 2^53 as a number, else the text. */
export function idOf(text: string): string | number {
  const n = Number(text);
  return /^-?\d+$/.test(text) && Number.isSafeInteger(n) ? n : text;
}

/** JSON text of a value; a bigint (an id some drivers answer as one) as its decimal text. */
export function json(value: unknown, replacer?: (key: string, v: unknown) => unknown): string {
  return JSON.stringify(value, (k, v) => {
    const out = replacer === undefined ? v : replacer(k, v);
    return typeof out === 'bigint' ? out.toString() : out;
  });
}

/** An error's message, as the one line `sqlinbox: <message>` shows it. */
export function messageOf(err: unknown): string {
  if (err instanceof ConfigError || err instanceof SqlInboxError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
