/** Where sqlinbox writes what it noticed. Fields carry the table and the row id where one applies. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
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
