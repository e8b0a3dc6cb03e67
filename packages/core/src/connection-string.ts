import { ConfigError } from './errors.js';

/**
 * A connection string that is not one the driver can read. Raised when the adapter is made, before
 * any connection is tried, so `not a url` is never read as "localhost" by a driver's lenient
 * parser. The message shows what was given (its password hidden) and what a valid one looks like.
 */
export class ConnectionStringError extends ConfigError {
  /** The string as given, its password replaced by `***`. */
  readonly given: string;
  /** An example of a valid connection string for this adapter. */
  readonly example: string;
  constructor(given: string, option: string, reason: string, example: string) {
    const shown = hidePassword(given);
    super(`${option} ${JSON.stringify(shown)} is not a connection string: ${reason}`, {
      fix: `give a URL such as ${example}`,
    });
    this.given = shown;
    this.example = example;
  }
}

/** What {@link checkConnectionString} accepts. */
export interface ConnectionStringRule {
  /** The option's name, for the message (e.g. `connectionString`). */
  readonly option: string;
  /** The URL schemes the driver reads, lower case and without the colon (e.g. `postgres`). */
  readonly schemes: readonly string[];
  /** A valid example, shown in the message. */
  readonly example: string;
  /** Also accept a path that starts with `/` (a socket directory, as libpq reads it). Default: false. */
  readonly socketPath?: boolean;
}

/**
 * Throws {@link ConnectionStringError} unless `value` is a URL of one of `rule.schemes` (or, where
 * the rule allows it, a socket path). For adapters that make their own pool from a
 * connection string: a driver's own parser takes nearly anything and fails later, on the network.
 */
export function checkConnectionString(value: unknown, rule: ConnectionStringRule): void {
  if (typeof value !== 'string') {
    throw new ConnectionStringError(
      String(value),
      rule.option,
      `it is a ${typeof value}, not a string`,
      rule.example,
    );
  }
  if (rule.socketPath && value.startsWith('/')) return;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined || !rule.schemes.includes(scheme)) {
    const reason =
      scheme === undefined
        ? `it does not start with ${rule.schemes.map((s) => `${s}://`).join(' or ')}`
        : `the scheme ${scheme}: is not ${rule.schemes.map((s) => `${s}:`).join(' or ')}`;
    throw new ConnectionStringError(value, rule.option, reason, rule.example);
  }
  // An empty host (`postgres:///app`) is valid: the driver's default host, as libpq reads it.
  if (!URL.canParse(value)) {
    throw new ConnectionStringError(value, rule.option, 'it cannot be parsed as a URL', rule.example);
  }
}

/**
 * The string with the password of a `scheme://user:password@host` URL replaced by `***`: all up to
 * the last `@`, so a password with a character the URL cannot hold unescaped (`/`, `@`, a space:
 * the strings this check refuses) is hidden whole.
 */
function hidePassword(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):.*@/i, '$1:***@');
}
