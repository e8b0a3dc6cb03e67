import { ConnectionStringError } from '@sqlinbox/core';
import { describe, expect, test } from 'vitest';
import { mysql2 } from '../src/mysql2.js';

describe('connection strings the adapters make a pool from', () => {
  test('R-USER-4 mysql2({ uri }) refuses "not a url" before any connection, with an example', () => {
    expect(() => mysql2({ uri: 'not a url' })).toThrow(ConnectionStringError);
    expect(() => mysql2({ uri: 'not a url' })).toThrow(
      /uri "not a url" is not a connection string: .* Fix: give a URL such as mysql:\/\//,
    );
    expect(() => mysql2({ uri: 'postgres://root@db/app' })).toThrow(
      /the scheme postgres: is not mysql: or mariadb:/,
    );
  });
});
