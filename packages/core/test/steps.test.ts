import { describe, expect, test } from 'vitest';
import {
  ConfigError,
  decodeStep,
  EncodeError,
  encodeStep,
  inbox,
  SqlInboxError,
  STEPS_TABLE,
  StepError,
  stepNameProblem,
  stepRowId,
  table,
} from '../src/index.js';
import { noStepsTable } from '../src/steps-table.js';

const base = { table: 'jobs', id: 'id', payload: 'payload', lease: 'locked_until' } as const;

describe('durable steps (pure logic)', () => {
  test('R-FLOW-7 a description declares its steps table: true takes sqlinbox_steps, { table } names another (schema-qualified too); both spellings agree', () => {
    expect(inbox({ ...base, steps: true }).steps).toEqual({ table: STEPS_TABLE, name: 'jobs' });
    expect(inbox({ ...base, steps: { table: 'ops.job_steps' } }).steps).toEqual({
      table: 'ops.job_steps',
      name: 'jobs',
    });
    expect(inbox(base).steps).toBeUndefined();
    const built = table('jobs', 'id')
      .payload('payload')
      .lease('locked_until')
      .steps({ table: 'my_steps' })
      .build();
    expect(built.steps).toEqual({ table: 'my_steps', name: 'jobs' });
  });

  test('R-FLOW-7 R-USER-4 a steps declaration that is not one is a ConfigError saying how to write it; a bad table name names the steps table', () => {
    expect(() => inbox({ ...base, steps: 5 as never })).toThrow(ConfigError);
    expect(() => inbox({ ...base, steps: 5 as never })).toThrow(/steps is true or \{ table \}/);
    expect(() => inbox({ ...base, steps: { table: 'x; DROP TABLE jobs' } })).toThrow(
      /invalid steps table identifier/,
    );
    expect(() => inbox({ ...base, stpes: true } as never)).toThrow(/did you mean "steps"/);
  });

  test('R-FLOW-7 a step name is a non-empty string of at most 128 characters; a row id as text at most 128 characters', () => {
    expect(stepNameProblem('charge card')).toBeUndefined();
    expect(stepNameProblem('x'.repeat(128))).toBeUndefined();
    expect(stepNameProblem('')).toMatch(/not empty/);
    expect(stepNameProblem('x'.repeat(129))).toMatch(/at most 128/);
    expect(stepNameProblem(7)).toMatch(/a string, not number/);
    expect(stepNameProblem(null)).toMatch(/not null/);
    expect(stepRowId('jobs', 41)).toBe('41');
    expect(stepRowId('jobs', 9007199254740993n)).toBe('9007199254740993');
    expect(stepRowId('jobs', 'a-uuid')).toBe('a-uuid');
    expect(() => stepRowId('jobs', 'x'.repeat(129))).toThrow(ConfigError);
  });

  test('R-FLOW-7 a step value is kept as {"value": ..} and read back through every form a driver answers (text, bytes, parsed); undefined is kept as {} and reads back undefined', () => {
    const values = [{ a: [1, 'two', { deep: null }] }, 'text', 0, -0.5, false, null, [], 'ünï \' " \\'];
    for (const v of values) {
      const kept = encodeStep('jobs', 's', v);
      expect(decodeStep(kept)).toEqual(v);
      expect(decodeStep(new TextEncoder().encode(kept))).toEqual(v);
      expect(decodeStep(JSON.parse(kept))).toEqual(v);
    }
    expect(encodeStep('jobs', 's', undefined)).toBe('{}');
    expect(decodeStep('{}')).toBeUndefined();
    expect(() => encodeStep('jobs', 'big', { n: 10n })).toThrow(EncodeError);
  });

  test('R-FLOW-7 R-USER-4 a StepError names the table, row and step, code STEP; ctx.step without a steps table is a ConfigError that says to declare steps', () => {
    const err = new StepError('jobs', 41, 'charge', 'run twice in one delivery');
    expect(err).toBeInstanceOf(SqlInboxError);
    expect([err.code, err.table, err.rowId, err.step, err.name]).toEqual([
      'STEP',
      'jobs',
      41,
      'charge',
      'StepError',
    ]);
    expect(err.message).toBe('step "charge" of jobs row 41: run twice in one delivery');
    const none = noStepsTable('jobs');
    expect(none).toBeInstanceOf(ConfigError);
    expect(none.message).toContain('table jobs: ctx.step needs a steps table');
    expect(none.fix).toContain('declare steps: true');
  });
});
