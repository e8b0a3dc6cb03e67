/** Where sqlinbox writes what it noticed. Fields carry the table and the row id where one applies. */
export interface Logger {
  /** Writes an entry of detail only worth reading while tracing a problem (e.g. a failed close). */
  debug(msg: string, fields?: Record<string, unknown>): void;
  /** Writes an entry about normal operation. */
  info(msg: string, fields?: Record<string, unknown>): void;
  /** Writes an entry about a problem the engine works around (it retries, or falls back). */
  warn(msg: string, fields?: Record<string, unknown>): void;
  /** Writes an entry about a failure that needs attention (it will not mend by itself). */
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** A logger's level, from the most detailed: `debug`, `info`, `warn`, `error`. */
export type LogLevel = (typeof LEVELS)[number];

/** A logger writing one line per entry to stderr, from `level` up (default `warn`). */
export function consoleLogger(level: LogLevel = 'warn'): Logger {
  const min = LEVELS.indexOf(level);
  const at =
    (l: LogLevel) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      if (LEVELS.indexOf(l) < min) return;
      const tail = fields && Object.keys(fields).length ? ` ${safeJson(fields)}` : '';
      process.stderr.write(`sqlinbox ${l}: ${msg}${tail}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A logger that writes nothing. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) =>
      typeof x === 'bigint' ? x.toString() : x instanceof Error ? { name: x.name, message: x.message } : x,
    );
  } catch {
    return String(v);
  }
}
