import { describe, expectTypeOf, test } from 'vitest';
import { type ErrorCode, SqlInboxError } from '../src/index.js';

describe('error code types (issue 29)', () => {
  test('error codes are a closed union of string literals: `code` is ErrorCode, an unknown code does not compile', () => {
    expectTypeOf<SqlInboxError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<'MIGRATE_LOCK'>().toExtend<ErrorCode>();
    expectTypeOf<string>().not.toExtend<ErrorCode>();
    // @ts-expect-error not one of ERROR_CODES
    void new SqlInboxError('NOT_A_CODE', 'x');
  });
});
