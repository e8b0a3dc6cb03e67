/** How rows, counts and reports are printed: one line each, or JSON with `--json`. */
import type { AdminRow, ChangeReport, PausedState, QueueStats, Selection } from '@sqlinbox/core';
import { EXIT, type Flags, type Io, idOf, json, UsageError } from './base.js';

/** A row as `--json` prints it. */
export function rowJson(r: AdminRow) {
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

/** A row as one line. */
export function rowLine(r: AdminRow): string {
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

/** A queue's counts as one line. */
export function statsLine(name: string, s: QueueStats): string {
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

/** What is paused of a queue, as one line. */
export function pausedLine(name: string, p: PausedState): string {
  return `${name}: paused=${pausedText(p)}`;
}

/** Prints a change's report; answers the exit code (partial where rows were left alone). */
export function reportOut(io: Io, asJson: boolean, verb: string, r: ChangeReport): number {
  if (asJson) io.out(json({ changed: r.changed, skipped: r.skipped }));
  else {
    io.out(
      `${verb} ${r.changed.length} row(s)${r.changed.length ? `: ${r.changed.map(String).join(', ')}` : ''}`,
    );
    for (const s of r.skipped) io.out(`left alone ${String(s.id)}: ${s.reason}`);
  }
  return r.skipped.length > 0 ? EXIT.partial : EXIT.ok;
}

/** The rows a change concerns: ids, `--by-group` or `--all` (exactly one). */
export function selectionOf(ids: readonly string[], flags: Flags): Selection {
  const given = [ids.length > 0, flags.byGroup !== undefined, flags.all === true].filter(Boolean).length;
  if (given !== 1) throw new UsageError('say which rows: ids, --by-group <group> or --all (one of them)');
  if (flags.byGroup !== undefined) return { group: String(flags.byGroup) };
  if (flags.all === true) return { all: true };
  return { ids: ids.map(idOf) };
}
