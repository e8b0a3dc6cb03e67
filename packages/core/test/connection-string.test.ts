import { describe, expect, test } from 'vitest';
import { ConfigError, ConnectionStringError, checkConnectionString } from '../src/index.js';

const rule = {
  option: 'connectionString',
  schemes: ['postgres', 'postgresql'],
  example: 'postgres://user:password@localhost:5432/app',
  socketPath: true,
};

describe('connection strings (pure)', () => {
  test('R-USER-4 a string that is no URL is refused, saying why and what a valid one looks like', () => {
    let err: unknown;
    try {
      checkConnectionString('not a url', rule);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectionStringError);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConnectionStringError).code).toBe('CONFIG');
    expect((err as Error).message).toBe(
      'connectionString "not a url" is not a connection string: it does not start with postgres:// or postgresql://.' +
        ' Fix: give a URL such as postgres://user:password@localhost:5432/app',
    );
  });

  test('R-USER-4 a wrong scheme, an unparsable URL and a non-string are refused; the password is never shown', () => {
    expect(() => checkConnectionString('mysql://root@db/app', rule)).toThrow(
      /the scheme mysql: is not postgres: or postgresql:/,
    );
    expect(() => checkConnectionString('postgres://u:s3cret@host name/app', rule)).toThrow(
      /"postgres:\/\/u:\*\*\*@host name\/app" .*cannot be parsed as a URL/,
    );
    expect(() => checkConnectionString('postgres://u:s3cret@host name/app', rule)).not.toThrow(/s3cret/);
    // A password that breaks the URL (an unescaped slash or @) is hidden whole.
    expect(() => checkConnectionString('postgres://app:se/cr@t@db.internal/app', rule)).toThrow(
      /"postgres:\/\/app:\*\*\*@db.internal\/app" .*cannot be parsed as a URL/,
    );
    expect(() => checkConnectionString(5432, rule)).toThrow(/it is a number, not a string/);
  });

  test('R-USER-4 valid strings pass: URLs of either scheme, an empty host, a socket directory', () => {
    for (const ok of [
      'postgres://user:pw@localhost:5432/app',
      'postgresql://db.internal/app?sslmode=require',
      'postgres:///app',
      '/var/run/postgresql app',
    ]) {
      expect(() => checkConnectionString(ok, rule)).not.toThrow();
    }
    expect(() => checkConnectionString('/var/run/postgresql', { ...rule, socketPath: false })).toThrow(
      ConnectionStringError,
    );
  });
});
