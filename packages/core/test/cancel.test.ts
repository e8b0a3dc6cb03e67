import { describe, expect, test } from 'vitest';
import { cancelReport } from '../src/cancel.js';
import {
  CancelledError,
  ConfigError,
  cancelReason,
  cancelRow,
  cancelsOf,
  failureOf,
  SqlInboxError,
} from '../src/index.js';
import { Cancels } from '../src/subscription/cancels.js';

describe('cancel', () => {
  test("R-LIFE-3 a CancelledError names the table, row and reason, code CANCELLED; the failure record keeps the reason, of class 'cancelled'", () => {
    const err = new CancelledError('jobs', 41, 'order withdrawn');
    expect(err).toBeInstanceOf(SqlInboxError);
    expect([err.code, err.table, err.rowId, err.reason, err.name]).toEqual([
      'CANCELLED',
      'jobs',
      41,
      'order withdrawn',
      'CancelledError',
    ]);
    expect(err.message).toContain('jobs row 41 cancelled: order withdrawn');
    expect(failureOf(err)).toEqual({ message: 'order withdrawn', name: 'cancelled' });
  });

  test('R-LIFE-3 a cancel row names the row by its id as text with its reason; the reason defaults to cancelled and is bounded', () => {
    expect(cancelRow('jobs', 7n, 'why')).toEqual({
      queue: 'jobs',
      kind: 'cancel',
      target: '7',
      reason: 'why',
    });
    expect(() => cancelRow('jobs', 'x'.repeat(256), 'why')).toThrow(ConfigError);
    expect(cancelReason('jobs', undefined)).toBe('cancelled');
    expect(cancelReason('jobs', 'stop')).toBe('stop');
    expect(() => cancelReason('jobs', 'x'.repeat(2_001))).toThrow(ConfigError);
    expect(() => cancelReason('jobs', 42)).toThrow(ConfigError);
  });

  test("R-LIFE-3 the control rows' cancels of one queue, id to reason; pauses and other queues are not cancels", () => {
    const m = cancelsOf(
      [
        { queue: 'jobs', kind: 'cancel', target: '1', reason: 'a' },
        { queue: 'jobs', kind: 'cancel', target: '2', reason: null },
        { queue: 'jobs', kind: 'pause_queue', target: '' },
        { queue: 'other', kind: 'cancel', target: '3', reason: 'c' },
      ],
      'jobs',
    );
    expect([...m]).toEqual([
      ['1', 'a'],
      ['2', 'cancelled'],
    ]);
  });

  test('R-LIFE-3 the report: ids signalled leave the skipped ones', () => {
    const r = cancelReport(
      {
        changed: [1],
        skipped: [
          { id: 2, reason: 'in-work' },
          { id: 3, reason: 'not-found' },
          { id: 4, reason: 'done' },
        ],
      },
      ['2'],
    );
    expect(r).toEqual({
      changed: [1],
      signalled: ['2'],
      skipped: [
        { id: 3, reason: 'not-found' },
        { id: 4, reason: 'done' },
      ],
    });
  });

  test('R-LIFE-3 a subscription aborts the deliveries whose cancel it read; a cancel it settled is not acted on again by a read older than its delete', async () => {
    const cache = { cancels: new Map([['5', 'stop']]), readAt: 1 };
    const deleted: string[] = [];
    const ops = {
      readControl: async () => [],
      writeControl: async () => undefined,
      deleteControl: async (_c: unknown, _t: string, row: { target: string }) => {
        deleted.push(row.target);
        return 1;
      },
    };
    const pool = { acquire: async () => ({}), release: () => undefined, destroy: async () => undefined };
    const events: unknown[] = [];
    const c = new Cancels(
      cache,
      ops,
      { table: 'sqlinbox_control', name: 'jobs' },
      pool as never,
      { debug() {}, info() {}, warn() {}, error() {} },
      { emit: (e: string, p: unknown) => void events.push([e, p]) } as never,
    );
    const seen: unknown[] = [];
    const d = (id: unknown) => ({
      held: { id },
      cancel: (e: CancelledError) => void seen.push([id, e.reason]),
    });
    c.sweep([d(4), d(5)]);
    expect(seen).toEqual([[5, 'stop']]);
    c.settled({ id: 5, attempt: 1 }, new CancelledError('jobs', 5, 'stop'), true, true);
    expect(events).toEqual([
      ['cancelled', { table: 'jobs', id: 5, attempt: 1, deadLettered: true, inWork: true, reason: 'stop' }],
    ]);
    // While the delete runs, and until a read that started after it, the cache's entry is stale.
    expect(c.errorOf(5)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 5));
    expect(deleted).toEqual(['5']);
    expect(c.errorOf(5)).toBeUndefined();
    cache.readAt = Date.now() + 1;
    expect(c.errorOf(5)?.reason).toBe('stop');
  });
});
