import type { Form } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { type ContractContext, probeTable } from './bench.js';

/** The calls every dialect's `TableOps` has, whatever features it takes. */
const CORE_CALLS = ['claimLocked', 'claimLease', 'extendLeases', 'settle', 'insert', 'stats'] as const;

/** The optional features the engine knows, each one object with every call of it or absent. */
const FEATURES: Readonly<Record<string, readonly string[]>> = {
  concurrency: ['claimLease'],
  batch: ['settleMany'],
  admin: ['list', 'pick', 'requeue', 'remove', 'reschedule'],
  schedules: ['recordTick', 'lastTick', 'pruneTicks'],
  rates: ['reserveRate', 'returnRate'],
};

/**
 * The shape of a dialect's prepared statements: the core calls, the advisory form's statements as
 * one object, and every optional feature as one object holding all its calls or absent, so a
 * dialect cannot take half a feature (a reservation without its give-back, a tick record without
 * its read): the engine asks whether a dialect can do X by the presence of X's object alone.
 * Preparing touches no database.
 */
export function opsShapeContract(c: ContractContext): void {
  describe('prepare', () => {
    for (const form of ['rowlock', 'lease', 'advisory'] as const satisfies readonly Form[]) {
      test(`prepare R-HOUSE-3 TableOps holds the core calls and each optional feature as one whole object (${form} form)`, async (ctx) => {
        if (!c.forms.includes(form)) return ctx.skip(`the dialect does not take the ${form} form`);
        const ops = c.b().dialect.prepare(probeTable(form)) as unknown as Record<string, unknown>;
        for (const call of CORE_CALLS) expect(typeof ops[call], `TableOps.${call}`).toBe('function');
        const advisory = ops.advisory as Record<string, unknown>;
        for (const call of ['candidates', 'lock', 'unlock', 'take'])
          expect(typeof advisory?.[call], `TableOps.advisory.${call}`).toBe('function');
        for (const [feature, calls] of Object.entries(FEATURES)) {
          const value = ops[feature] as Record<string, unknown> | undefined;
          if (value === undefined) continue;
          expect(typeof value, `TableOps.${feature}`).toBe('object');
          for (const call of calls)
            expect(typeof value[call], `TableOps.${feature}.${call}: a feature is whole or absent`).toBe(
              'function',
            );
        }
      });
    }
  });
}
