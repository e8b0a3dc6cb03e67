import { ConfigError } from './errors.js';

/** A duration: milliseconds as a number, or text such as `'500ms'`, `'30s'`, `'2m'`, `'1h'`. */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h'}`;

/**
 * Parses a {@link Duration} into milliseconds. A zero or negative duration is a `ConfigError`
 * naming the setting (`what`) and the value, unless `opts.zero` allows zero (a shutdown timeout).
 */
export function durationMs(d: Duration, what: string, opts: { zero?: boolean } = {}): number {
  let ms: number;
  if (typeof d === 'number') {
    ms = d;
  } else {
    const m = typeof d === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(d) : null;
    if (!m)
      throw new ConfigError(`${what}: cannot read duration ${JSON.stringify(d)}`, {
        fix: "write e.g. '30s'",
      });
    const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    ms = Number(m[1]) * unit;
  }
  if (!Number.isFinite(ms) || ms < 0 || (ms === 0 && !opts.zero)) {
    const shown = typeof d === 'number' ? String(d) : JSON.stringify(d);
    throw new ConfigError(
      `${what} must be a ${opts.zero ? 'non-negative' : 'positive'} duration, got ${shown}`,
    );
  }
  return ms;
}

/**
 * A lease is whole seconds, at least one; a shorter or fractional one is rounded up.
 * Zero or less is a `ConfigError` naming the value.
 */
export function leaseMs(d: Duration): number {
  const ms = durationMs(d, 'lease');
  return Math.max(1, Math.ceil(ms / 1000)) * 1000;
}
