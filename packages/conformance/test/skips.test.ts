/**
 * Why a suite leaves a test out, as pure logic: the contract's skip reasons from a dialect's
 * capabilities and optional methods, and the reason a target without `childModule` gives. The
 * suites themselves run against real databases in the dialect packages.
 */
import { capabilities, type Form } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import type { ContractContext, OptionalMethod } from '../src/contract/bench.js';
import { skipReason } from '../src/contract/bench.js';
import { noChildModule } from '../src/harness.js';
import type { ConformanceTarget } from '../src/target.js';

const target: ConformanceTarget = {
  name: 'mydb',
  tooOldVersion: '1.0',
  open: () => Promise.reject(new Error('not opened in this test')),
  exec: () => Promise.reject(new Error('not opened in this test')),
};

function context(
  caps: Parameters<typeof capabilities>[0],
  optional: readonly OptionalMethod[] = [],
  forms?: readonly Form[],
): ContractContext {
  const c = capabilities(caps);
  const all = new Set(optional);
  return {
    b: () => {
      throw new Error('no bench in this test');
    },
    target,
    caps: c,
    forms: forms ?? c.forms,
    optional: { rowlock: all, lease: all, advisory: all },
    drifts: [],
    matched: new Set(),
  };
}

describe('the contract skips by capability, never by name', () => {
  test('R-KIT-2 R-SHAPE-5 a form the dialect does not take, or the run leaves out, skips its tests, saying which', () => {
    const sqliteLike = context({ forms: ['lease', 'advisory'] });
    expect(skipReason(sqliteLike, { form: 'rowlock' })).toBe("capabilities.forms has no 'rowlock'");
    expect(skipReason(sqliteLike, { form: 'lease' })).toBeUndefined();
    const narrowed = context({}, [], ['lease']);
    expect(skipReason(narrowed, { form: 'advisory' })).toBe('the advisory form is left out by options.forms');
  });

  test('R-KIT-2 R-KIT-4 one connection at a time, no FIFO guard, no row locks: each need names its flag', () => {
    const single = context({ multipleConnections: false, fifoGuard: false, forms: ['lease', 'advisory'] });
    expect(skipReason(single, { connections: true })).toMatch(/^capabilities\.multipleConnections is false/);
    expect(skipReason(single, { fifoGuard: true, connections: true })).toBe(
      'capabilities.fifoGuard is false',
    );
    expect(skipReason(single, { rowLocks: true })).toMatch(/^capabilities\.forms has no 'rowlock'/);
    const full = context({});
    expect(
      skipReason(full, { connections: true, fifoGuard: true, rowLocks: true, form: 'rowlock' }),
    ).toBeUndefined();
  });

  test('R-KIT-2 R-KIT-4 an optional method the statements lack skips the tests that call it', () => {
    const some = context({}, ['pick', 'list']);
    expect(skipReason(some, { method: 'settleMany', form: 'lease' })).toBe(
      "the dialect's statements have no settleMany (an optional method)",
    );
    expect(skipReason(some, { method: ['pick', 'remove'] })).toBe(
      "the dialect's statements have no remove (an optional method)",
    );
    expect(skipReason(some, { method: ['pick', 'list'] })).toBeUndefined();
  });
});

test('R-KIT-4 a target without childModule (a database inside one process) says why its child-process and thread scenarios skip', () => {
  expect(noChildModule(target)).toBe(
    'mydb names no childModule (a database inside one process): no other process or thread can open it',
  );
  expect(noChildModule({ ...target, childModule: '/abs/child.mjs' })).toBeUndefined();
});
