import { describe, expect, test } from 'vitest';
import { Events } from '../src/events.js';
import {
  ConfigError,
  type Connection,
  type EventMap,
  inbox,
  type Pool,
  type RetentionOps,
  type ScheduleOps,
  silentLogger,
  table,
} from '../src/index.js';
import { Pruner } from '../src/prune.js';

const base = { table: 'jobs', id: { column: 'id', generated: true }, payload: 'payload' } as const;

describe('R-LIFE-5 retention settings', () => {
  test('both spellings build the same retention; days, durations and the defaults', () => {
    const a = inbox({
      ...base,
      processedAt: 'processed_at',
      retention: { processed: '7d', dead: '30d', deadAt: 'dead_at' },
    });
    const b = table('jobs', 'id', { generated: true })
      .payload('payload')
      .retention({ processed: '7d', dead: '30d', deadAt: 'dead_at' })
      .processedAt('processed_at')
      .build();
    expect(a.retention).toEqual(b.retention);
    expect(a.retention).toEqual({
      processedMs: 7 * 86_400_000,
      deadMs: 30 * 86_400_000,
      deadAt: 'dead_at',
      everyMs: 60_000,
      batchSize: 1_000,
      ticksTable: 'sqlinbox_schedules',
    });
    const c = inbox({
      ...base,
      processedAt: 'p',
      retention: { processed: '12h', every: '5s', batchSize: 10 },
    });
    expect(c.retention?.processedMs).toBe(12 * 3_600_000);
    expect(c.retention?.batchSize).toBe(10);
  });

  test('what is missing is a ConfigError naming the table, the column and the fix', () => {
    const fails = (input: object, text: RegExp) => {
      let err: unknown;
      try {
        inbox({ ...base, ...input } as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toMatch(text);
      expect((err as ConfigError).table).toBe('jobs');
      expect((err as ConfigError).fix).toBeTruthy();
      return err as ConfigError;
    };
    fails({ retention: { processed: '7d' } }, /needs a processedAt column/);
    expect(fails({ retention: { dead: '30d' } }, /needs a column that says when a row died/).fix).toMatch(
      /deadAt/,
    );
    fails(
      { retention: { deadAt: 'dead_at', processed: '1d' }, processedAt: 'p' },
      /deadAt is set without retention.dead/,
    );
    fails({ retention: {} }, /neither processed nor dead/);
    fails({ processedAt: 'p', retention: { processed: '7 days' } }, /cannot read duration/);
    fails({ processedAt: 'p', retention: { processed: '1d', batchSize: 0 } }, /batchSize/);
    fails({ retention: { dead: '1d', deadAt: 'dead at' } }, /invalid retention.deadAt identifier/);
  });
});

/** A pool of one fake connection. */
const pool = {
  size: 2,
  acquire: async () => ({}) as Connection,
  tryAcquire: async () => ({}) as Connection,
  release: () => {},
  destroy: async () => {},
} as unknown as Pool;

describe('R-LIFE-5 the pruner', () => {
  test('one pruner wins a turn (the tick record decides); it deletes in batches until one comes back short', async () => {
    const t = inbox({
      ...base,
      processedAt: 'processed_at',
      retention: { processed: '1d', dead: '1d', deadAt: 'dead_at', every: '1h', batchSize: 3 },
    });
    const recorded = new Set<string>();
    let processed = 8;
    let dead = 2;
    const calls: string[] = [];
    const ticks: ScheduleOps = {
      recordTick: async (_c, _t, name, at) => {
        const k = `${name}@${at.getTime()}`;
        if (recorded.has(k)) return false;
        recorded.add(k);
        return true;
      },
      lastTick: async () => null,
      pruneTicks: async () => 0,
    };
    const retention: RetentionOps = {
      pruneProcessed: async (_c, _b, limit) => {
        const n = Math.min(limit, processed);
        processed -= n;
        calls.push(`processed ${n}`);
        return n;
      },
      markDead: async () => {
        calls.push('mark');
        return 0;
      },
      pruneDead: async (_c, _b, limit) => {
        const n = Math.min(limit, dead);
        dead -= n;
        calls.push(`dead ${n}`);
        return n;
      },
    };
    const events = [new Events(), new Events()];
    const seen: EventMap['pruned'][] = [];
    for (const e of events) e.on('pruned', (p) => seen.push(p));
    const pruners = events.map(
      (e) => new Pruner(t, { pool, logger: silentLogger, events: e, retention, ticks, hasDeadLetter: true }),
    );
    for (const p of pruners) p.start();
    for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    await Promise.all(pruners.map((p) => p.stop()));
    expect(recorded.size).toBe(1);
    expect(calls).toEqual(['processed 3', 'processed 3', 'processed 2', 'mark', 'dead 2']);
    expect(seen).toEqual([
      { table: 'jobs', kind: 'processed', count: 8, batches: 3 },
      { table: 'jobs', kind: 'dead', count: 2, batches: 1 },
    ]);
  });
});
