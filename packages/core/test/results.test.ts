import { describe, expect, test } from 'vitest';
import type { CustomStatementContext } from '../src/description.js';
import type { Settlement } from '../src/dialect.js';
import type { Connection } from '../src/driver.js';
import { type FormContext, type Held, runSettlement } from '../src/forms/form.js';
import {
  ConfigError,
  decodeResult,
  EncodeError,
  encodeResult,
  inbox,
  namedColumns,
  Outcome,
  outcomeOf,
  ResultDeadError,
  ResultTimeoutError,
  type RowResult,
  table,
} from '../src/index.js';
import type { Plan } from '../src/outcome.js';
import { waitForResult } from '../src/result.js';

const jobs = inbox({
  table: 'jobs',
  id: 'id',
  payload: 'payload',
  processedAt: 'processed_at',
  result: 'result',
});

describe('results', () => {
  test('R-LIFE-4 both spellings name the result column; start checks it as a named column', () => {
    expect(jobs.result).toBe('result');
    const b = table('jobs', 'id').result('res').processedAt('processed_at').build();
    expect(b.result).toBe('res');
    expect(namedColumns(b)).toContainEqual({ column: 'res', role: 'result' });
    expect(() => inbox({ table: 'jobs', id: 'id', processedAt: 'p', result: 'bad name' })).toThrow(
      ConfigError,
    );
  });

  test('R-LIFE-4 a result column without processedAt is a ConfigError naming the table, the column and the fix', () => {
    const refused = (make: () => unknown) => {
      try {
        make();
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('accepted');
    };
    for (const e of [
      refused(() => inbox({ table: 'jobs', id: 'id', result: 'result' })),
      refused(() => table('jobs', 'id').result('result').build()),
    ]) {
      expect(e).toBeInstanceOf(ConfigError);
      expect(e).toMatchObject({ table: 'jobs', column: 'result' });
      expect(e.message).toContain('processedAt');
      expect(e.fix).toContain("processedAt: 'processed_at'");
    }
  });

  test('R-LIFE-4 Outcome.ack(value) carries the value; no value is the plain ack, unchanged', () => {
    expect(Outcome.ack()).toBe(Outcome.ack(undefined));
    expect(Outcome.ack({ a: 1 })).toEqual({ kind: 'ack', result: { a: 1 } });
    expect(Outcome.ack(null)).toEqual({ kind: 'ack', result: null });
    expect(outcomeOf(Outcome.ack(0))).toEqual({ kind: 'ack', result: 0 });
    expect(() => outcomeOf({ total: 3 })).toThrow(/Outcome\.ack\(value\)/);
  });

  test('R-LIFE-4 a result round-trips through its envelope as text, bytes or a driver-parsed JSON value', () => {
    for (const v of [{ ok: true, n: [1, 'two'] }, 'done', '42', 'null', 42, -0.5, true, null, [], ['x']]) {
      const text = encodeResult('jobs', v);
      expect(JSON.parse(text)).toEqual({ value: v });
      expect(decodeResult(text)).toEqual(v);
      expect(decodeResult(Buffer.from(text))).toEqual(v);
      expect(decodeResult(JSON.parse(text))).toEqual(v);
    }
    expect(decodeResult(null)).toBeUndefined();
    expect(decodeResult(undefined)).toBeUndefined();
    // A value written by other means reads as it is.
    expect(decodeResult('{"a":1}')).toEqual({ a: 1 });
    expect(decodeResult('plain words')).toBe('plain words');
  });

  test('R-LIFE-4 a value JSON cannot carry is an EncodeError naming the table and where it is', () => {
    const e = (() => {
      try {
        encodeResult('jobs', { total: 10n });
      } catch (err) {
        return err as EncodeError;
      }
    })();
    expect(e).toBeInstanceOf(EncodeError);
    expect(e?.table).toBe('jobs');
    expect(e?.message).toContain('value.total');
    expect(e?.message).toContain('BigInt');
  });

  test('R-LIFE-4 a wait reads until processed, ends at a dead row, times out with the last state seen', async () => {
    const reads: RowResult[] = [
      { state: 'missing' },
      { state: 'pending' },
      { state: 'processed', value: 7, processedAt: null },
    ];
    let i = 0;
    expect(await waitForResult(jobs, 5, { timeout: 10_000 }, async () => reads[i++]!)).toBe(7);
    expect(i).toBe(3);
    const dead = await waitForResult(jobs, 5, {}, async () => ({ state: 'dead', lastError: 'boom' })).catch(
      (e) => e,
    );
    expect(dead).toBeInstanceOf(ResultDeadError);
    expect(dead).toMatchObject({ code: 'RESULT_DEAD', table: 'jobs', rowId: 5, lastError: 'boom' });
    const late = await waitForResult(jobs, 9, { timeout: 120 }, async () => ({ state: 'pending' })).catch(
      (e) => e,
    );
    expect(late).toBeInstanceOf(ResultTimeoutError);
    expect(late).toMatchObject({
      code: 'RESULT_TIMEOUT',
      table: 'jobs',
      rowId: 9,
      timeoutMs: 120,
      lastState: 'pending',
    });
    expect((late as Error).message).toContain('jobs row 9');
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(
      waitForResult(jobs, 9, { signal: stop.signal }, async () => ({ state: 'pending' })),
    ).rejects.toThrow('stopped');
    const plain = inbox({ table: 'plain', id: 'id', processedAt: 'processed_at' });
    await expect(waitForResult(plain, 1, {}, async () => ({ state: 'pending' }))).rejects.toThrow(
      ConfigError,
    );
  });
});

describe('a custom settlement statement on a table that keeps results', () => {
  /** runSettlement with a custom ack and drop answering `changed`; what they saw, and the notifications sent. */
  async function run(plan: Plan, changed: number, keepsResults = true) {
    const seen: CustomStatementContext[] = [];
    const notified: unknown[] = [];
    const statement = async (_conn: unknown, c: CustomStatementContext) => {
      seen.push(c);
      return changed;
    };
    const t = {
      ...jobs,
      result: keepsResults ? 'result' : undefined,
      custom: { ack: statement, drop: statement, retry: statement },
    };
    const ctx = {
      table: t,
      ops: { notifyResult: async (_conn: unknown, id: unknown) => void notified.push(id) },
    } as unknown as FormContext;
    const h = { id: 7, row: { id: 7 }, token: undefined } as unknown as Held;
    const s: Settlement =
      plan.kind === 'finish'
        ? {
            kind: 'finish',
            id: 7,
            now: new Date(),
            ...(plan.result === undefined ? {} : { result: plan.result }),
          }
        : { kind: 'return', id: 7, now: new Date(), countAttempt: false, clearLease: false };
    const answered = await runSettlement(ctx, {} as Connection, h, s, plan);
    return { answered, seen, notified };
  }

  test("R-LIFE-4 a custom ack is given the ack's value as the result column keeps it; the dialect's result notification follows a custom ack or drop that changed the row, and only then", async () => {
    const value = encodeResult('jobs', { url: 'x' });
    const acked = await run({ kind: 'finish', outcome: 'ack', result: value }, 1);
    expect(acked.answered).toBe(1);
    expect(acked.seen[0]?.result).toBe('{"value":{"url":"x"}}');
    expect(acked.notified).toEqual([7]);
    const plain = await run({ kind: 'finish', outcome: 'ack' }, 1);
    expect(plain.seen[0]?.result).toBeUndefined();
    expect(plain.notified).toEqual([7]);
    expect((await run({ kind: 'finish', outcome: 'drop' }, 1)).notified).toEqual([7]);
    // Nothing changed (a lease lost), a retry, a table without results: no notification.
    expect((await run({ kind: 'finish', outcome: 'ack', result: value }, 0)).notified).toEqual([]);
    const retried = await run({ kind: 'return', outcome: 'retry', retryAfter: undefined }, 1);
    expect(retried.notified).toEqual([]);
    expect(retried.seen[0]?.result).toBeUndefined();
    expect((await run({ kind: 'finish', outcome: 'ack' }, 1, false)).notified).toEqual([]);
  });
});
