import type { RateGrant, Row } from '@sqlinbox/core';

// Values as a driver returns them, read back by the runner (`SqlTable`): a budget's grant, a flag, an instant.

/** A grant from a budget's row as a reservation left it (`granted`, `window_start`, `at_ms`). */
export function rateGrant(row: Row, perMs: number): RateGrant {
  const windowStart = Number(row.window_start);
  return {
    granted: Number(row.granted),
    windowStart,
    waitMs: Math.max(0, windowStart + perMs - Number(row.at_ms)),
  };
}

/** A driver's answer to "was it taken": true, 1, '1' or 1n. */
export function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 1n;
}

/** An instant as epoch milliseconds, however the driver returned it (Date, number, text). */
export function timeOf(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v);
  const ms = new Date(String(v)).getTime();
  return Number.isNaN(ms) ? null : ms;
}
