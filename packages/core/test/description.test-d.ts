import { describe, expectTypeOf, test } from 'vitest';
import { type FlowColumns, inbox, KeyPart, type TableDescription, table } from '../src/index.js';

describe('table description types', () => {
  test('R-DESC-2 a lease column selects the lease form, an advisory key the advisory form, none the row lock form', () => {
    expectTypeOf(inbox({ table: 'jobs', id: 'id', lease: 'locked_until' })).toEqualTypeOf<
      TableDescription<'lease', undefined> & FlowColumns<undefined, undefined>
    >();
    expectTypeOf(inbox({ table: 'jobs', id: 'id', advisory: 'jobs-{id}' }).form).toEqualTypeOf<'advisory'>();
    expectTypeOf(inbox({ table: 'jobs', id: 'id' }).form).toEqualTypeOf<'rowlock'>();
    expectTypeOf(table('jobs', 'id').lease('locked_until').build().form).toEqualTypeOf<'lease'>();
  });

  test('R-DESC-2 setting two forms is a type error', () => {
    // @ts-expect-error lease and advisory together
    inbox({ table: 'jobs', id: 'id', lease: 'locked_until', advisory: 'jobs-{id}' });
    const leased = table('jobs', 'id').lease('locked_until');
    const keyed = table('jobs', 'id').advisory([KeyPart.column('id')]);
    // @ts-expect-error the builder has no .advisory once the form is lease
    leased.advisory([KeyPart.column('id')]);
    // @ts-expect-error the builder has no .lease once the form is advisory
    keyed.lease('locked_until');
  });

  test('R-USER-4 a key a description does not take (a typo) is a type error', () => {
    inbox({ table: 'jobs', id: 'id', processedAt: 'processed_at' });
    // @ts-expect-error proccessedAt is no key of a description
    inbox({ table: 'jobs', id: 'id', proccessedAt: 'processed_at' });
  });

  test('R-DESC-3 a key placeholder must name a declared column', () => {
    inbox({ table: 'acc', id: 'id', advisory: 'accounts-{account}', columns: ['account'] });
    // @ts-expect-error {account} is not declared
    inbox({ table: 'acc', id: 'id', advisory: 'accounts-{account}' });
  });

  test('R-DESC-5 a lease table with the database clock is a type error', () => {
    // @ts-expect-error lease + database clock
    inbox({ table: 'jobs', id: 'id', lease: 'locked_until', clock: 'database' });
    // @ts-expect-error the builder has no .lease after .clock('database')
    table('jobs', 'id').clock('database').lease('locked_until');
    // @ts-expect-error the builder has no .clock in the lease form
    table('jobs', 'id').lease('locked_until').clock('database');
    inbox({ table: 'jobs', id: 'id', clock: 'database' });
  });

  test('R-DESC-6 custom lock and unlock come together and only in the advisory form', () => {
    const lock = async () => true;
    inbox({ table: 'p', id: 'id', advisory: '{id}', lock, unlock: lock });
    // @ts-expect-error lock without unlock
    inbox({ table: 'p', id: 'id', advisory: '{id}', lock });
    // @ts-expect-error lock outside the advisory form
    inbox({ table: 'p', id: 'id', lease: 'locked_until', lock, unlock: lock });
    table('p', 'id')
      .advisory([KeyPart.column('id')])
      .own({ lock, unlock: lock });
    const advisoryTable = table('p', 'id').advisory([KeyPart.column('id')]);
    // @ts-expect-error .own needs both
    advisoryTable.own({ lock });
    // @ts-expect-error .own is not on a lease table
    table('p', 'id').lease('locked_until').own({ lock, unlock: lock });
  });
});
